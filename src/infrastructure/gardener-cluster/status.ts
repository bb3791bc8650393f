// The GardenerCluster status the controller writes: state plus the KubeconfigManagement condition,
// with upstream's messages (`<message> Error: <error>` for errors).
import type { Condition } from '../../api/schema.js';
import {
  ConditionTypeKubeconfigManagement,
  type GardenerClusterConditionReason,
  gardenerClusterConditionMessages,
  type GardenerClusterObject,
  type GardenerClusterState,
  GardenerClusterStateError,
  GardenerClusterStateReady,
  type GardenerClusterStatus,
} from '../../api/infrastructuremanager/index.js';

export interface StatusChange {
  state: GardenerClusterState;
  reason: GardenerClusterConditionReason;
  message: string;
  status: Condition['status'];
}

export function readyStatus(reason: GardenerClusterConditionReason): StatusChange {
  return { state: GardenerClusterStateReady, reason, status: 'True', message: gardenerClusterConditionMessages[reason] };
}

export function errorStatus(reason: GardenerClusterConditionReason, error: unknown): StatusChange {
  const detail = error instanceof Error ? error.message : String(error);
  return { state: GardenerClusterStateError, reason, status: 'False', message: `${gardenerClusterConditionMessages[reason]} Error: ${detail}` };
}

/**
 * The status after `change`, or undefined when nothing would change (no write). The transition
 * time moves only when the condition's status changes, as meta.SetStatusCondition does.
 */
export function nextStatus(cluster: GardenerClusterObject, change: StatusChange, now: Date): GardenerClusterStatus | undefined {
  const current = cluster.status ?? {};
  const conditions = current.conditions ?? [];
  const old = conditions.find((c) => c.type === ConditionTypeKubeconfigManagement);
  const unchanged =
    current.state === change.state && old !== undefined && old.status === change.status && old.reason === change.reason && old.message === change.message && old.observedGeneration === cluster.metadata.generation;
  if (unchanged) return undefined;
  const condition: Condition = {
    type: ConditionTypeKubeconfigManagement,
    status: change.status,
    reason: change.reason,
    message: change.message,
    lastTransitionTime: old && old.status === change.status ? old.lastTransitionTime : now.toISOString().replace(/\.\d+Z$/, 'Z'),
    ...(cluster.metadata.generation !== undefined ? { observedGeneration: cluster.metadata.generation } : {}),
  };
  return { ...current, state: change.state, conditions: [...conditions.filter((c) => c.type !== ConditionTypeKubeconfigManagement), condition] };
}
