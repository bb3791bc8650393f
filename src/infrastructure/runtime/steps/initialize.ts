// First step of every reconciliation: the finalizer, the deletion branch, validation, and which
// branch of the flow applies (create the Shoot, or follow the one that exists).
import {
  AnnotationRetryRequested,
  ConditionReasonConversionError,
  ConditionReasonDuplicateRuntimeID,
  ConditionReasonInitialized,
  ConditionTypeRuntimeProvisioned,
  LabelKymaRuntimeID,
  RuntimeFinalizer,
  RuntimeStateFailed,
  validateRuntime,
} from '../../../api/infrastructuremanager/index.js';
import { type Machine, type SystemState, type Transition, switchTo, updateStatusAndRequeueAfter, updateStatusAndStop } from '../machine.js';
import { findCondition, updateStateFailed, updateStatePending } from '../status.js';
import { patchFinalizers } from '../runtime-writes.js';
import { createShoot } from './create-shoot.js';
import { deleteKyma } from './delete-kyma.js';
import { deleteDuplicate } from './delete-duplicate.js';
import { claimedShoot, duplicateMessage, otherHolder, peersOf } from '../runtime-id.js';
import { handleRetryRequest } from './retry-requested.js';
import { selectShootProcessing } from './select-shoot-processing.js';

export async function initialize(m: Machine, s: SystemState): Promise<Transition> {
  const rt = s.runtime;
  const deleting = rt.metadata.deletionTimestamp !== undefined;
  const finalizers = rt.metadata.finalizers ?? [];
  // Another Runtime holds this one's runtime id: nothing of the runtime id's (GardenerCluster,
  // kubeconfig, Kyma, a Shoot the holder names) is this Runtime's, not even the Shoot's status.
  const peers = m.runtimes ? peersOf(m.runtimes, rt) : [];
  // Only when another Runtime carries the id: which Shoot its GardenerCluster was made for decides.
  const holder = peers.length > 0 ? otherHolder(rt, peers, await claimedShoot(m, rt)) : undefined;
  if (!holder) exposeShootStatus(s);

  if (!deleting && !finalizers.includes(RuntimeFinalizer)) {
    await patchFinalizers(m, s, [...finalizers, RuntimeFinalizer]);
    return switchTo(initialize);
  }
  if (deleting) return switchTo(holder ? deleteDuplicate : deleteKyma);
  if (holder) {
    const message = `${duplicateMessage(rt.metadata.labels?.[LabelKymaRuntimeID] ?? '', holder)}; this Runtime is not provisioned while that one exists (delete it, or give it another runtime id)`;
    const known = rt.status?.state === RuntimeStateFailed && findCondition(rt, ConditionTypeRuntimeProvisioned)?.message === message;
    m.log[known ? 'debug' : 'warn']('runtime id held by another Runtime; not provisioning', { holder: `${holder.metadata.namespace ?? ''}/${holder.metadata.name ?? ''}` });
    if (!known) m.metrics.fsmStopped(ConditionReasonDuplicateRuntimeID);
    updateStateFailed(rt, ConditionTypeRuntimeProvisioned, ConditionReasonDuplicateRuntimeID, message);
    return updateStatusAndStop();
  }
  // The holder is gone (or relabelled): start over, past the rule that leaves Failed Runtimes alone.
  if (findCondition(rt, ConditionTypeRuntimeProvisioned)?.reason === ConditionReasonDuplicateRuntimeID) {
    updateStatePending(rt, ConditionTypeRuntimeProvisioned, ConditionReasonInitialized, 'Unknown', 'Runtime initialized: its runtime id is no longer held by another Runtime');
    return updateStatusAndRequeueAfter(m.timing.statusRequeueMs);
  }
  // Before the Failed-is-final rule of selectShootProcessing: a person asked to try again.
  if (rt.metadata.annotations?.[AnnotationRetryRequested] !== undefined) return switchTo(handleRetryRequest);

  const issues = validateRuntime(rt);
  if (issues.length > 0) {
    const described = issues.map((i) => `${i.field}: ${i.message}`);
    const message = `Runtime conversion error: ${described.join('; ')}`;
    // Warned once per failure: a Failed runtime is looked at again whenever its Shoot or GardenerCluster changes.
    const known = rt.status?.state === RuntimeStateFailed && findCondition(rt, ConditionTypeRuntimeProvisioned)?.message === message;
    m.log[known ? 'debug' : 'warn']('runtime is invalid', { issues: described });
    m.metrics.fsmStopped(ConditionReasonConversionError);
    updateStateFailed(rt, ConditionTypeRuntimeProvisioned, ConditionReasonConversionError, message);
    return updateStatusAndStop();
  }

  // Upstream writes `Initialised` and creates the Shoot on the next reconciliation; here the same
  // pass goes on, and the status it writes says what createShoot did (every way out of createShoot
  // sets the Provisioned condition).
  if (!s.shoot && !findCondition(rt, ConditionTypeRuntimeProvisioned)) {
    updateStatePending(rt, ConditionTypeRuntimeProvisioned, ConditionReasonInitialized, 'Unknown', 'Runtime initialized');
    s.milestone = true;
  }
  if (!s.shoot) return switchTo(createShoot);
  return switchTo(selectShootProcessing);
}

/** Copies the Shoot's last operation and errors into the Runtime's status (upstream exposeShootStatusInfo). */
function exposeShootStatus(s: SystemState): void {
  const status = s.shoot?.status;
  if (!status || !s.runtime.status) return;
  if (status.lastOperation) s.runtime.status.shootLastOperation = status.lastOperation;
  if (status.lastErrors && status.lastErrors.length > 0) s.runtime.status.shootLastErrors = status.lastErrors;
  else delete s.runtime.status.shootLastErrors;
}
