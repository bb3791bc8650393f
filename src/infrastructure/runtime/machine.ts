// The Runtime controller's state machine: a chain of small named steps. Each step reads the world
// (the Runtime, its Shoot, the KCP and the garden), does at most one thing, and returns what comes
// next: another step, or the end of this reconciliation (write the status or not, look again after
// a while or not). The flow reads like upstream's state functions (sFnInitialize -> sFnCreateShoot
// -> ...); a new step is one more file that some step returns.
import type { ConverterConfig } from '../converter/index.js';
import type { PreparationOptions, PreparationResult } from '../preparation/index.js';
import type { GardenerClusterObject, RuntimeObject } from '../../api/infrastructuremanager/index.js';
import type { CachedReader } from '../../runtime/cache/own-writes.js';
import type { KymaObject } from '../../api/operator/index.js';
import type { Store } from '../../runtime/cache/store.js';
import type { ShootObject } from '../../api/gardener/index.js';
import type { Client } from '../../runtime/client/interface.js';
import type { EventRecorder } from '../../runtime/events.js';
import type { Logger } from '../../runtime/log.js';
import type { RemoteClusterCache } from '../../runtime/remote/cache.js';
import type { InfrastructureMetrics } from '../metrics.js';

/** How long the machine waits before looking again (upstream's requeue durations). */
export interface RuntimeTiming {
  /** After a Shoot was created or a Gardener API call failed (upstream GardenerRequeueDuration, 15 s). */
  gardenerRequeueMs: number;
  /** While Gardener creates the Shoot (RequeueDurationShootCreate, 15 s). */
  shootCreateRequeueMs: number;
  /** While Gardener reconciles a patched Shoot (RequeueDurationShootReconcile, 15 s). */
  shootReconcileRequeueMs: number;
  /** While Gardener deletes the Shoot (RequeueDurationShootDelete, 15 s). */
  shootDeleteRequeueMs: number;
  /** While a KCP resource (GardenerCluster, kubeconfig) is not ready (ControlPlaneRequeueDuration, 10 s). */
  controlPlaneRequeueMs: number;
  /**
   * After a status write that the next step builds on (StatusRequeueDelay): a deletion's milestone,
   * a Runtime freed from a duplicate runtime id, a status write that conflicted. Provisioning's
   * milestones go on in the same pass.
   */
  statusRequeueMs: number;
  /**
   * Longest wait of a deleted Runtime for its Kyma to remove the modules from the cluster before the
   * kubeconfig and the Shoot go (the control plane passes the lifecycle manager's purge grace).
   */
  kymaDeletionTimeoutMs: number;
}

export const defaultRuntimeTiming: RuntimeTiming = {
  gardenerRequeueMs: 15_000,
  shootCreateRequeueMs: 15_000,
  shootReconcileRequeueMs: 15_000,
  shootDeleteRequeueMs: 15_000,
  controlPlaneRequeueMs: 10_000,
  statusRequeueMs: 100,
  kymaDeletionTimeoutMs: 5 * 60_000,
};

/** Prepares a provisioned cluster (namespace kyma-system, provisioning info, OIDC, admin bindings): `prepareCluster` by default. */
export type ClusterPreparer = (remote: Client, runtime: RuntimeObject, opts: PreparationOptions) => Promise<PreparationResult>;

/** What every step may use: clients, configuration, helpers. One per reconciliation. */
export interface Machine {
  kcp: Client;
  garden: Client;
  /** Gardener project; Shoots live in namespace `garden-<project>`. */
  project: string;
  shootNamespace: string;
  converterConfig: ConverterConfig;
  /**
   * Audit logging is mandatory (upstream `--audit-log-mandatory`): a Runtime whose provider and region
   * have no audit log tenant in the converter configuration fails instead of getting a Shoot without it.
   */
  auditLogMandatory: boolean;
  /** Field manager of every server-side apply to Shoots (upstream: `kim`). */
  fieldManager: string;
  remoteClusters: RemoteClusterCache;
  /** The KCP's Runtimes (informer cache): who holds a runtime id (runtime-id.ts); without it every Runtime counts as the holder. */
  runtimes?: Pick<Store<RuntimeObject>, 'list'>;
  /** The KCP's GardenerClusters: from the informer cache unless this controller's own write has not reached it (own-writes.ts). */
  gardenerClusters: Pick<CachedReader<GardenerClusterObject>, 'get'>;
  /** The KCP's Kymas (informer cache), when the lifecycle manager's Kymas are watched: deletion waits for them. */
  kymas?: Store<KymaObject>;
  prepareCluster: ClusterPreparer;
  timing: RuntimeTiming;
  metrics: InfrastructureMetrics;
  /** Events on the Runtime beyond the condition changes the controller records (e.g. a retry asked for). */
  events: Pick<EventRecorder, 'event'>;
  log: Logger;
  signal: AbortSignal;
}

/** What the steps know about the world; they change `runtime` (its status) and keep `shoot` current. */
export interface SystemState {
  runtime: RuntimeObject;
  /** The Runtime's Shoot in the garden cluster, when it exists. */
  shoot: ShootObject | undefined;
  /**
   * A step recorded a provisioning milestone and the pass went on (ensure-condition.ts): the status
   * is written at the end of the pass even when the last step ends without a write.
   */
  milestone?: boolean;
}

/** How a reconciliation ends. */
export interface Ending {
  /** Write the Runtime's status (only when it changed). */
  writeStatus: boolean;
  /** Look again after this long. */
  requeueAfterMs?: number;
  /** That look is a fallback: a watch wakes the Runtime when what it waits for changes (updateStatusAndWaitForChange, ReconcileResult.fallback). */
  fallback?: boolean;
}

export type Transition = { next: Step } | { end: Ending };

/** One step: a named async function; its name shows in logs and metrics. */
export type Step = (m: Machine, s: SystemState) => Promise<Transition>;

export function switchTo(step: Step): Transition {
  return { next: step };
}

export function updateStatusAndStop(): Transition {
  return { end: { writeStatus: true } };
}

export function updateStatusAndRequeueAfter(ms: number): Transition {
  return { end: { writeStatus: true, requeueAfterMs: ms } };
}

export function requeueAfter(ms: number): Transition {
  return { end: { writeStatus: false, requeueAfterMs: ms } };
}

/**
 * Waiting for something the controller watches: Gardener's operation (the Shoot's informer wakes the
 * Runtime when its state changes) or the GardenerCluster (its controller's status write wakes it).
 * The look after `ms` is a fallback: it waits behind Runtimes woken by changes.
 */
export function updateStatusAndWaitForChange(ms: number): Transition {
  return { end: { writeStatus: true, requeueAfterMs: ms, fallback: true } };
}

/** As updateStatusAndWaitForChange, with no status to write. */
export function waitForChange(ms: number): Transition {
  return { end: { writeStatus: false, requeueAfterMs: ms, fallback: true } };
}

export function stop(): Transition {
  return { end: { writeStatus: false } };
}

/** Steps one reconciliation may run at most; more means a loop between steps (a bug). */
const MAX_STEPS = 32;

/** Runs steps from `first` until one ends the reconciliation; returns the ending and the steps taken. */
export async function runSteps(first: Step, m: Machine, s: SystemState): Promise<Ending & { steps: string[] }> {
  const steps: string[] = [];
  let step = first;
  for (;;) {
    if (m.signal.aborted) throw m.signal.reason instanceof Error ? m.signal.reason : new Error('reconciliation aborted');
    if (steps.length >= MAX_STEPS) throw new Error(`state machine did not settle after ${MAX_STEPS} steps: ${steps.join(' -> ')}`);
    steps.push(step.name);
    const t0 = performance.now();
    const transition = await step(m, s);
    m.metrics.stepDuration(step.name, (performance.now() - t0) / 1000);
    if ('end' in transition) {
      m.log.debug('state machine ended', { steps: steps.join(' -> '), ...transition.end });
      return { ...transition.end, steps };
    }
    step = transition.next;
  }
}
