// Settings of the Kyma controller with upstream's defaults.

import { jitter } from '../../runtime/timers.js';

export interface RequeueIntervals {
  /** After a reconcile that left the Kyma Ready (upstream `kyma-requeue-success-interval`, 30 s). */
  readyMs: number;
  /** After Processing or Deleting (upstream `kyma-requeue-busy-interval`, 5 s). */
  busyMs: number;
  /** After Warning (upstream `kyma-requeue-warning-interval`, 30 s). */
  warningMs: number;
  /** After Error (upstream `kyma-requeue-error-interval`, 2 s). */
  errorMs: number;
}

export const DEFAULT_INTERVALS: RequeueIntervals = { readyMs: 30_000, busyMs: 5_000, warningMs: 30_000, errorMs: 2_000 };

/** With the runtime watcher: a Kyma's full runtime check runs at least this often (jittered), besides the events that ask for one. */
export const DEFAULT_RUNTIME_CHECK_MS = 4 * 60 * 60_000;

/** Every periodic requeue is spread by up to this share, so that Kymas converged together do not stay in step. */
const JITTER = 0.1;

/**
 * When to look at a Kyma again after a reconcile that left it in `state`. `wokenByWatch`: it is
 * Processing only for something a watch reports (Manifests not settled yet: the controller owns
 * them; the kubeconfig Secret not there yet: the controller watches it), so the pass is a fallback
 * at the Ready interval instead of a busy poll.
 */
export function intervalFor(state: string, intervals: RequeueIntervals, wokenByWatch = false): number {
  return Math.round(jitter(baseInterval(state, intervals, wokenByWatch), JITTER));
}

function baseInterval(state: string, intervals: RequeueIntervals, wokenByWatch: boolean): number {
  switch (state) {
    case 'Ready':
      return intervals.readyMs;
    case 'Warning':
      return intervals.warningMs;
    case 'Error':
      return intervals.errorMs;
    default:
      return wokenByWatch ? intervals.readyMs : intervals.busyMs;
  }
}
