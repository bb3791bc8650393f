// Deletes the Shoot: Gardener refuses deletion without the confirmation annotation, so set it first.
import { AnnotationConfirmationDeletion, Shoot } from '../../../api/gardener/index.js';
import { ConditionReasonGardenerShootDeleted, ConditionTypeRuntimeDeprovisioned } from '../../../api/infrastructuremanager/index.js';
import { isNotFound } from '../../../runtime/client/errors.js';
import { type Machine, type SystemState, type Transition, switchTo, updateStatusAndRequeueAfter, updateStatusAndWaitForChange } from '../machine.js';
import { updateStateDeletion } from '../status.js';
import { removeFinalizer } from './remove-finalizer.js';
import { waitForShootDeletion } from './wait-for-shoot-deletion.js';

export async function deleteShoot(m: Machine, s: SystemState): Promise<Transition> {
  const rt = s.runtime;
  const shoot = s.shoot;
  if (!shoot) return switchTo(removeFinalizer);
  if (shoot.metadata.deletionTimestamp !== undefined) return switchTo(waitForShootDeletion);

  const key = { namespace: shoot.metadata.namespace, name: shoot.metadata.name ?? '' };
  try {
    if (shoot.metadata.annotations?.[AnnotationConfirmationDeletion] !== 'true') {
      // A merge patch, not an apply: applying only the annotation would drop the spec fields `kim` owns.
      await m.garden.patch(Shoot, key, 'merge', { metadata: { annotations: { [AnnotationConfirmationDeletion]: 'true' } } }, { fieldManager: m.fieldManager, signal: m.signal });
    }
    m.log.info('deleting shoot', { shoot: key.name, namespace: key.namespace });
    await m.garden.delete(Shoot, key, { signal: m.signal });
  } catch (e) {
    if (isNotFound(e)) return switchTo(removeFinalizer);
    m.log.warn('deleting the shoot failed', { shoot: key.name, error: e });
    updateStateDeletion(rt, ConditionTypeRuntimeDeprovisioned, ConditionReasonGardenerShootDeleted, 'Unknown', `Gardener API shoot delete error: ${e instanceof Error ? e.message : String(e)}`);
    return updateStatusAndRequeueAfter(m.timing.shootDeleteRequeueMs);
  }
  updateStateDeletion(rt, ConditionTypeRuntimeDeprovisioned, ConditionReasonGardenerShootDeleted, 'Unknown', 'Runtime shoot deletion started');
  return updateStatusAndWaitForChange(m.timing.shootDeleteRequeueMs);
}
