// One place that computes a Kyma's status from its parts: module entries, the conditions and the
// overall state by upstream's precedence (api/v1beta2 Kyma.DetermineState): a module in Error makes
// the Kyma Error; else a module in Warning makes it Warning; else a module in Processing makes it
// Processing; else any condition that does not hold keeps it Processing; otherwise Ready.
import { canonicalJson } from '../../kube/json.js';
import {
  KYMA_CONDITION_REASON,
  KymaConditionMessages,
  KymaConditionTypes,
  States,
  type KymaObject,
  type KymaStatus,
  type ModuleStatus,
  type State,
} from '../../api/operator/index.js';
import type { Condition } from '../../api/schema.js';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** Sets a condition, keeping lastTransitionTime when the status did not change. */
export function setCondition(list: Condition[], type: string, status: ConditionStatus, message: string, generation: number | undefined, now: string): Condition[] {
  const old = list.find((c) => c.type === type);
  const next: Condition = {
    type,
    status,
    reason: KYMA_CONDITION_REASON,
    message,
    lastTransitionTime: old && old.status === status ? old.lastTransitionTime : now,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
  return [...list.filter((c) => c.type !== type && c.type !== KymaConditionTypes.DeprecatedReady), next];
}

export function removeCondition(list: Condition[], type: string): Condition[] {
  return list.filter((c) => c.type !== type);
}

/** Upstream's Kyma.AllModulesReady: every module Ready or Unmanaged (a Warning module is not ready). */
function ready(state: State): boolean {
  return state === States.Ready || state === States.Unmanaged;
}

export function modulesCondition(modules: ModuleStatus[]): { status: ConditionStatus; message: string } {
  return modules.every((m) => ready(m.state)) ? { status: 'True', message: KymaConditionMessages.ModulesReady } : { status: 'False', message: KymaConditionMessages.ModulesNotReady };
}

/**
 * Module states first (Error, then Warning, then Processing), then the conditions. A module that is
 * Deleting or has no state yet counts through the Modules condition, which then does not hold.
 */
export function determineState(modules: ModuleStatus[], conditions: Condition[]): State {
  for (const state of [States.Error, States.Warning, States.Processing]) {
    if (modules.some((m) => m.state === state)) return state;
  }
  if (conditions.some((c) => c.status !== 'True')) return States.Processing;
  return States.Ready;
}

/** The status without timestamps, to tell whether a write is needed; equal values give equal text, whatever their key order. */
export function statusFingerprint(status: KymaStatus | undefined): string {
  if (!status) return '';
  const conditions = (status.conditions ?? []).map((c) => ({ ...c, lastTransitionTime: '' })).sort((a, b) => a.type.localeCompare(b.type));
  return canonicalJson({ ...status, conditions, lastOperation: status.lastOperation?.operation ?? '' });
}

export function lastOperation(kyma: KymaObject, operation: string, now: string): KymaStatus['lastOperation'] {
  const old = kyma.status?.lastOperation;
  return old && old.operation === operation ? old : { operation, lastUpdateTime: now };
}
