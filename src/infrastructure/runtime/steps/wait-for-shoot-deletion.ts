// Waits while Gardener deletes the Shoot (its Delete operation); the Runtime stays Terminating.
import { ConditionReasonGardenerShootDeleted, ConditionTypeRuntimeDeprovisioned } from '../../../api/infrastructuremanager/index.js';
import { describeErrors } from '../gardener-errors.js';
import { type Machine, type SystemState, type Transition, switchTo, updateStatusAndWaitForChange } from '../machine.js';
import { updateStateDeletion } from '../status.js';
import { removeFinalizer } from './remove-finalizer.js';

export function waitForShootDeletion(m: Machine, s: SystemState): Promise<Transition> {
  const shoot = s.shoot;
  if (!shoot) return Promise.resolve(switchTo(removeFinalizer));
  const errors = shoot.status?.lastErrors ?? [];
  const message = errors.length > 0 ? `Runtime shoot deletion in progress (Gardener retries after: ${describeErrors(errors)})` : 'Runtime shoot deletion started';
  updateStateDeletion(s.runtime, ConditionTypeRuntimeDeprovisioned, ConditionReasonGardenerShootDeleted, 'Unknown', message);
  return Promise.resolve(updateStatusAndWaitForChange(m.timing.shootDeleteRequeueMs));
}
