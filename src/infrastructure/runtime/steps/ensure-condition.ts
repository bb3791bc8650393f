// Upstream's ensureStatusConditionIsSetAndContinue: record a milestone once (Pending, condition True),
// write it so that it is visible, and continue with the next step on the following reconciliation.
import { type RuntimeConditionType, type RuntimeObject, RuntimeStatePending, RuntimeStateTerminating } from '../../../api/infrastructuremanager/index.js';
import { type Machine, type Step, type Transition, switchTo, updateStatusAndRequeueAfter } from '../machine.js';
import { hasStateWithCondition, type RuntimeConditionReason, updateStateDeletion, updateStatePending } from '../status.js';

export function ensurePendingCondition(m: Machine, rt: RuntimeObject, type: RuntimeConditionType, reason: RuntimeConditionReason, message: string, next: Step): Transition {
  if (!hasStateWithCondition(rt, RuntimeStatePending, type, reason, 'True')) {
    updateStatePending(rt, type, reason, 'True', message);
    return updateStatusAndRequeueAfter(m.timing.statusRequeueMs);
  }
  return switchTo(next);
}

export function ensureTerminatingCondition(m: Machine, rt: RuntimeObject, type: RuntimeConditionType, reason: RuntimeConditionReason, message: string, next: Step): Transition {
  if (!hasStateWithCondition(rt, RuntimeStateTerminating, type, reason, 'True')) {
    updateStateDeletion(rt, type, reason, 'True', message);
    return updateStatusAndRequeueAfter(m.timing.statusRequeueMs);
  }
  return switchTo(next);
}
