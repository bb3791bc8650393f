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

/** How long deletion keeps trying to reach a runtime before it skips the runtime's cleanup. */
export const DEFAULT_REMOTE_CLEANUP_TIMEOUT_MS = 60_000;

export function intervalFor(state: string, intervals: RequeueIntervals): number {
  switch (state) {
    case 'Ready':
      // A fallback with the runtime watcher: spread, so Kymas created together do not stay in step.
      return Math.round(jitter(intervals.readyMs, 0.1));
    case 'Warning':
      return intervals.warningMs;
    case 'Error':
      return intervals.errorMs;
    default:
      return intervals.busyMs;
  }
}
