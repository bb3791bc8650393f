// Upstream's ensureStatusConditionIsSetAndContinue: record a milestone once (Pending, condition True)
// and continue with the next step.
//
// While provisioning, upstream writes the status and continues on the following reconciliation;
// here the same pass goes on, and its status write carries the milestone with what the next step
// recorded (SystemState.milestone makes sure it is written even when that step ends without a
// write). In a fleet each reconciliation is a trip through a queue thousands of Runtimes long.
// While deleting, the milestone is written and the next step comes on the following
// reconciliation, as upstream does: the step after it may remove the finalizer, after which there
// is no Runtime left to write to, and the conditions of a deletion are read while it waits.
import { type RuntimeConditionType, RuntimeStatePending, RuntimeStateTerminating } from '../../../api/infrastructuremanager/index.js';
import { type Machine, type Step, type SystemState, type Transition, switchTo, updateStatusAndRequeueAfter } from '../machine.js';
import { hasStateWithCondition, type RuntimeConditionReason, updateStateDeletion, updateStatePending } from '../status.js';

export function ensurePendingCondition(s: SystemState, type: RuntimeConditionType, reason: RuntimeConditionReason, message: string, next: Step): Transition {
  if (!hasStateWithCondition(s.runtime, RuntimeStatePending, type, reason, 'True')) {
    updateStatePending(s.runtime, type, reason, 'True', message);
    s.milestone = true;
  }
  return switchTo(next);
}

export function ensureTerminatingCondition(m: Machine, s: SystemState, type: RuntimeConditionType, reason: RuntimeConditionReason, message: string, next: Step): Transition {
  if (!hasStateWithCondition(s.runtime, RuntimeStateTerminating, type, reason, 'True')) {
    updateStateDeletion(s.runtime, type, reason, 'True', message);
    return updateStatusAndRequeueAfter(m.timing.statusRequeueMs);
  }
  return switchTo(next);
}
