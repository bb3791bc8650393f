// Pieces of a Shoot's status as Gardener writes them: last operation, conditions, constraints and
// the health label value, each derived from the operation's type and state.
import {
  type GardenerCondition,
  type LastOperation,
  type LastOperationState,
  type LastOperationType,
  LastOperationStateError,
  LastOperationStateFailed,
  LastOperationStatePending,
  LastOperationStateProcessing,
  LastOperationStateSucceeded,
  LastOperationTypeDelete,
  ShootAPIServerAvailable,
  ShootControlPlaneHealthy,
  ShootEveryNodeReady,
  ShootHibernationPossible,
  ShootMaintenancePreconditionsSatisfied,
  ShootObservabilityComponentsHealthy,
  ShootSystemComponentsHealthy,
  shootConditionTypes,
} from '../../api/gardener/index.js';
import { nowRfc3339 } from '../../apiserver/objects.js';

export function lastOperation(type: LastOperationType, state: LastOperationState, progress: number, now = nowRfc3339()): LastOperation {
  return { type, state, progress, description: describe(type, state), lastUpdateTime: now };
}

function describe(type: LastOperationType, state: LastOperationState): string {
  const deleting = type === LastOperationTypeDelete;
  switch (state) {
    case LastOperationStatePending:
      return `${type} of the Shoot cluster is pending.`;
    case LastOperationStateProcessing:
      return deleting ? 'Deleting the Shoot cluster (simulated).' : 'Reconciling the Shoot cluster (simulated): infrastructure, control plane, workers.';
    case LastOperationStateSucceeded:
      return deleting ? 'Shoot cluster has been successfully deleted.' : 'Shoot cluster has been successfully reconciled.';
    case LastOperationStateError:
      return `${type} of the Shoot cluster failed and will be retried.`;
    case LastOperationStateFailed:
      return `${type} of the Shoot cluster failed and will not be retried.`;
    default:
      return `${type} of the Shoot cluster: ${state}.`;
  }
}

const healthyCondition: Record<string, { reason: string; message: string }> = {
  [ShootAPIServerAvailable]: { reason: 'HealthzRequestSucceeded', message: 'API server /healthz endpoint responded with success status code.' },
  [ShootControlPlaneHealthy]: { reason: 'ControlPlaneRunning', message: 'All control plane components are healthy.' },
  [ShootObservabilityComponentsHealthy]: { reason: 'ObservabilityComponentsRunning', message: 'All observability components are healthy.' },
  [ShootEveryNodeReady]: { reason: 'EveryNodeReady', message: 'All nodes are ready.' },
  [ShootSystemComponentsHealthy]: { reason: 'SystemComponentsRunning', message: 'All system components are healthy.' },
};

/** Conditions: initialized (Unknown) until the cluster exists and is healthy, then True. */
export function shootConditions(healthy: boolean, previous: GardenerCondition[] | undefined, now = nowRfc3339()): GardenerCondition[] {
  return shootConditionTypes.map((type) => {
    const want = healthy
      ? { status: 'True' as const, ...healthyCondition[type] }
      : { status: 'Unknown' as const, reason: 'ConditionInitialized', message: 'The condition has been initialized but its semantic check has not been performed yet.' };
    return carryTimes({ type, ...want }, previous, now);
  });
}

export function shootConstraints(previous: GardenerCondition[] | undefined, now = nowRfc3339()): GardenerCondition[] {
  return [
    carryTimes({ type: ShootHibernationPossible, status: 'True', reason: 'NoProblematicWebhooks', message: 'All webhooks are properly configured.' }, previous, now),
    carryTimes({ type: ShootMaintenancePreconditionsSatisfied, status: 'True', reason: 'NoProblematicWebhooks', message: 'All webhooks are properly configured.' }, previous, now),
  ];
}

/** Keeps lastTransitionTime while the status does not change, as Gardener's condition builder does. */
function carryTimes(c: Omit<GardenerCondition, 'lastTransitionTime' | 'lastUpdateTime'>, previous: GardenerCondition[] | undefined, now: string): GardenerCondition {
  const old = previous?.find((p) => p.type === c.type);
  if (old && old.status === c.status && old.reason === c.reason && old.message === c.message) {
    return { ...c, lastTransitionTime: old.lastTransitionTime ?? now, lastUpdateTime: old.lastUpdateTime ?? now };
  }
  return { ...c, lastTransitionTime: old && old.status === c.status ? (old.lastTransitionTime ?? now) : now, lastUpdateTime: now };
}

/** Value of the `shoot.gardener.cloud/status` label for a last operation. */
export function healthLabel(op: LastOperation | undefined): 'healthy' | 'progressing' | 'unhealthy' | 'unknown' {
  if (!op) return 'unknown';
  if (op.state === LastOperationStateSucceeded) return 'healthy';
  if (op.state === LastOperationStateProcessing || op.state === LastOperationStatePending) return 'progressing';
  if (op.state === LastOperationStateError || op.state === LastOperationStateFailed) return 'unhealthy';
  return 'unknown';
}
