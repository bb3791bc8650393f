// The Runtime changed (or a patch is forced): apply the Shoot the converter derives from the Runtime
// and the existing Shoot (versions Gardener upgraded are kept), then follow Gardener's Reconcile.
// Worker pools the Runtime no longer has are removed first with the converter's guarded JSON patch:
// server-side apply keeps list entries that other field managers (Gardener) own fields in.
import { Shoot, type ShootObject } from '../../../api/gardener/index.js';
import {
  AnnotationForcePatchReconciliation,
  ConditionReasonConversionError,
  ConditionReasonProcessing,
  ConditionReasonProcessingErr,
  ConditionTypeRuntimeProvisioned,
} from '../../../api/infrastructuremanager/index.js';
import { isConflict, isForbidden, isInvalid } from '../../../runtime/client/errors.js';
import { isConversionError, planShootPatch, type ShootPatchPlan } from '../../converter/index.js';
import { type Machine, type SystemState, type Transition, requeueAfter, switchTo, updateStatusAndRequeueAfter, updateStatusAndStop } from '../machine.js';
import { auditLogConfigured } from '../audit-log.js';
import { removeAnnotation } from '../runtime-writes.js';
import { updateStateFailed, updateStatePending } from '../status.js';
import { handleKubeconfig } from './handle-kubeconfig.js';

export async function patchShoot(m: Machine, s: SystemState): Promise<Transition> {
  const rt = s.runtime;
  const existing = s.shoot;
  if (!existing) throw new Error('patchShoot needs the shoot');
  if (!auditLogConfigured(m, rt)) return updateStatusAndStop();

  let plan: ShootPatchPlan;
  try {
    plan = planShootPatch(rt, m.converterConfig, { project: m.project, existing });
  } catch (e) {
    if (!isConversionError(e)) throw e;
    m.metrics.fsmStopped(ConditionReasonConversionError);
    updateStateFailed(rt, ConditionTypeRuntimeProvisioned, ConditionReasonConversionError, `Runtime conversion error: ${e.message}`);
    return updateStatusAndStop();
  }

  const key = { namespace: existing.metadata.namespace, name: existing.metadata.name ?? '' };
  let phase: 'remove-workers' | 'apply' = 'remove-workers';
  try {
    if (plan.workerRemovalPatch.length > 0) {
      m.log.info('removing worker pools', { shoot: key.name, workers: plan.removedWorkers });
      await m.garden.patch<ShootObject>(Shoot, key, 'json', plan.workerRemovalPatch, { fieldManager: m.fieldManager, signal: m.signal });
    }
    phase = 'apply';
    s.shoot = await m.garden.apply(plan.shoot, { fieldManager: m.fieldManager, force: true, signal: m.signal });
  } catch (e) {
    // Retried with a fresh Shoot: conflicts and Gardener's occasional Forbidden (upstream says so in
    // the status, Pending), and a failed `test` of the guarded worker removal (the Shoot changed in
    // between: 422).
    if (isConflict(e) || isForbidden(e)) {
      const what = isConflict(e) ? 'conflict' : 'forbidden';
      m.log.info(`patching the shoot must be retried after a ${what} error`, { phase, shoot: key.name, error: e });
      updateStatePending(rt, ConditionTypeRuntimeProvisioned, ConditionReasonProcessing, 'Unknown', `Shoot is pending for update after ${what} error`);
      return updateStatusAndRequeueAfter(m.timing.gardenerRequeueMs);
    }
    if (phase === 'remove-workers' && isInvalid(e)) {
      m.log.debug('removing worker pools must be retried: the shoot changed', { shoot: key.name, error: e });
      return requeueAfter(m.timing.gardenerRequeueMs);
    }
    m.log.error('patching the shoot failed', { phase, error: e });
    m.metrics.fsmStopped(ConditionReasonProcessingErr);
    const call = phase === 'remove-workers' ? 'update' : 'patch';
    updateStateFailed(rt, ConditionTypeRuntimeProvisioned, ConditionReasonProcessingErr, `Gardener API shoot ${call} error: ${e instanceof Error ? e.message : String(e)}`);
    return updateStatusAndStop();
  }

  await removeAnnotation(m, s, AnnotationForcePatchReconciliation);

  if (s.shoot.metadata.generation === existing.metadata.generation) {
    m.log.debug('shoot unchanged by the patch; configuring the cluster', { shoot: existing.metadata.name });
    return switchTo(handleKubeconfig);
  }
  m.log.info('shoot patched', { shoot: existing.metadata.name, generation: s.shoot.metadata.generation });
  updateStatePending(rt, ConditionTypeRuntimeProvisioned, ConditionReasonProcessing, 'Unknown', 'Shoot is pending for update after patch');
  return updateStatusAndRequeueAfter(m.timing.gardenerRequeueMs);
}
