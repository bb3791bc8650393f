// A person asked for a retry (`kcp runtime retry`: the Runtime annotation
// infrastructuremanager.kyma-project.io/retry). A Shoot operation Gardener gave up on is retried
// (`gardener.cloud/operation: retry`) and followed again; a Runtime failed on a Shoot patch the
// API refused patches again; anything else has nothing to retry. The annotation goes in every case,
// after the Shoot was annotated, so that a later retry can be asked for.
import { LastOperationStateFailed, LastOperationTypeCreate } from '../../../api/gardener/index.js';
import {
  AnnotationRetryRequested,
  ConditionReasonProcessing,
  ConditionReasonProcessingErr,
  ConditionReasonShootCreationPending,
  ConditionTypeRuntimeProvisioned,
  RuntimeStateFailed,
} from '../../../api/infrastructuremanager/index.js';
import { errorCodesOf } from '../gardener-errors.js';
import { operationName, requestShootRetry, retryPending } from '../gardener-retry.js';
import { type Machine, type SystemState, type Transition, switchTo, updateStatusAndRequeueAfter } from '../machine.js';
import { removeAnnotation } from '../runtime-writes.js';
import { findCondition, updateStatePending } from '../status.js';
import { initialize } from './initialize.js';
import { patchShoot } from './patch-shoot.js';

export async function handleRetryRequest(m: Machine, s: SystemState): Promise<Transition> {
  const rt = s.runtime;
  const shoot = s.shoot;
  const askedAt = rt.metadata.annotations?.[AnnotationRetryRequested] ?? '';
  const op = shoot?.status?.lastOperation;

  if (shoot && op?.state === LastOperationStateFailed) {
    if (!retryPending(shoot)) s.shoot = await requestShootRetry(m, shoot);
    await removeAnnotation(m, s, AnnotationRetryRequested);
    const what = `shoot ${operationName(shoot)}`;
    const codes = errorCodesOf(shoot.status?.lastErrors ?? []);
    m.log.info('retry asked for on the runtime; Gardener asked to retry', { shoot: shoot.metadata.name, operation: op.type, codes, askedAt });
    m.events.event(rt, 'Normal', 'RetryRequested', `retry requested at ${askedAt}: asked Gardener to retry the ${what}${codes ? ` (it failed with ${codes})` : ''}`, 'Retry');
    const reason = op.type === LastOperationTypeCreate ? ConditionReasonShootCreationPending : ConditionReasonProcessing;
    updateStatePending(rt, ConditionTypeRuntimeProvisioned, reason, 'Unknown', `retry of the ${what} requested at ${askedAt} by a person; waiting for Gardener`);
    return updateStatusAndRequeueAfter(m.timing.gardenerRequeueMs);
  }

  const provisioned = findCondition(rt, ConditionTypeRuntimeProvisioned);
  if (shoot && rt.status?.state === RuntimeStateFailed && provisioned?.reason === ConditionReasonProcessingErr) {
    // The Shoot patch itself was refused: apply it again.
    await removeAnnotation(m, s, AnnotationRetryRequested);
    m.log.info('retry asked for on the runtime; patching the shoot again', { shoot: shoot.metadata.name, askedAt });
    m.events.event(rt, 'Normal', 'RetryRequested', `retry requested at ${askedAt}: applying the Shoot again`, 'Retry');
    return switchTo(patchShoot);
  }

  await removeAnnotation(m, s, AnnotationRetryRequested);
  const state = rt.status?.state ?? 'new';
  m.events.event(rt, 'Normal', 'NothingToRetry', `retry requested at ${askedAt}: nothing to retry, the runtime is ${state}${state === RuntimeStateFailed ? ` (${provisioned?.reason ?? 'no reason'}: change the Runtime to try again)` : ''}`, 'Retry');
  return switchTo(initialize);
}
