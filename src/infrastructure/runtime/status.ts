// The Runtime's status as the state machine writes it: one place that sets a condition and, with it,
// the overall state (upstream's UpdateStatePending / UpdateStateReady / UpdateStateDeletion /
// UpdateStateFailed), and the checks the steps use to avoid rewriting what is already there.
import type { Condition } from '../../api/schema.js';
import {
  type ProjectRuntimeConditionReason,
  type RuntimeConditionReason as UpstreamRuntimeConditionReason,
  type RuntimeConditionType,
  type RuntimeObject,
  type RuntimeState,
  type RuntimeStatus,
  RuntimeStateFailed,
  RuntimeStatePending,
  RuntimeStateReady,
  RuntimeStateTerminating,
} from '../../api/infrastructuremanager/index.js';

export type ConditionStatus = Condition['status'];
/** Upstream's reasons and the few this project adds. */
export type RuntimeConditionReason = UpstreamRuntimeConditionReason | ProjectRuntimeConditionReason;

function statusOf(runtime: RuntimeObject): RuntimeStatus {
  runtime.status ??= { state: RuntimeStatePending };
  return runtime.status;
}

/** Sets one condition (lastTransitionTime moves only when the status changes, as meta.SetStatusCondition does). */
export function setCondition(runtime: RuntimeObject, type: RuntimeConditionType, reason: RuntimeConditionReason, status: ConditionStatus, message: string): void {
  const st = statusOf(runtime);
  const conditions = (st.conditions ??= []);
  const existing = conditions.find((c) => c.type === type);
  const observedGeneration = runtime.metadata.generation;
  if (!existing) {
    conditions.push({ type, status, reason, message, lastTransitionTime: nowRfc3339(), ...(observedGeneration !== undefined ? { observedGeneration } : {}) });
    return;
  }
  if (existing.status !== status) existing.lastTransitionTime = nowRfc3339();
  existing.status = status;
  existing.reason = reason;
  existing.message = message;
  if (observedGeneration !== undefined) existing.observedGeneration = observedGeneration;
}

function setState(runtime: RuntimeObject, state: RuntimeState): void {
  statusOf(runtime).state = state;
}

/** Work in progress: state Pending; a condition with status False means the runtime is Failed (upstream semantics). */
export function updateStatePending(runtime: RuntimeObject, type: RuntimeConditionType, reason: RuntimeConditionReason, status: ConditionStatus, message: string): void {
  setState(runtime, status === 'False' ? RuntimeStateFailed : RuntimeStatePending);
  setCondition(runtime, type, reason, status, message);
}

/** Keeps the state Pending whatever the condition says (a step that will retry on its own). */
export function updateStillPending(runtime: RuntimeObject, type: RuntimeConditionType, reason: RuntimeConditionReason, status: ConditionStatus, message: string): void {
  setState(runtime, RuntimeStatePending);
  setCondition(runtime, type, reason, status, message);
}

export function updateStateReady(runtime: RuntimeObject, type: RuntimeConditionType, reason: RuntimeConditionReason, message: string): void {
  setState(runtime, RuntimeStateReady);
  setCondition(runtime, type, reason, 'True', message);
}

export function updateStateFailed(runtime: RuntimeObject, type: RuntimeConditionType, reason: RuntimeConditionReason, message: string): void {
  setState(runtime, RuntimeStateFailed);
  setCondition(runtime, type, reason, 'False', message);
}

/** Deletion in progress: Terminating, or Failed when the condition is False. */
export function updateStateDeletion(runtime: RuntimeObject, type: RuntimeConditionType, reason: RuntimeConditionReason, status: ConditionStatus, message: string): void {
  setState(runtime, status === 'False' ? RuntimeStateFailed : RuntimeStateTerminating);
  setCondition(runtime, type, reason, status, message);
}

export function findCondition(runtime: RuntimeObject, type: RuntimeConditionType): Condition | undefined {
  return runtime.status?.conditions?.find((c) => c.type === type);
}

/** Is the runtime in `state` with the condition `type` at `reason` and `status`? */
export function hasStateWithCondition(runtime: RuntimeObject, state: RuntimeState, type: RuntimeConditionType, reason: RuntimeConditionReason, status: ConditionStatus): boolean {
  if (runtime.status?.state !== state) return false;
  const c = findCondition(runtime, type);
  return c !== undefined && c.reason === reason && c.status === status;
}

/** A condition that appeared or whose status, reason or message changed between two statuses. */
export interface ConditionChange {
  type: string;
  before: Condition | undefined;
  after: Condition;
}

export function conditionChanges(before: RuntimeStatus | undefined, after: RuntimeStatus | undefined): ConditionChange[] {
  const out: ConditionChange[] = [];
  for (const c of after?.conditions ?? []) {
    const old = before?.conditions?.find((o) => o.type === c.type);
    if (!old || old.status !== c.status || old.reason !== c.reason || old.message !== c.message) out.push({ type: c.type, before: old, after: c });
  }
  return out;
}

function nowRfc3339(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}
