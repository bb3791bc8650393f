// Follows Gardener's Create operation. Pending, Processing, Aborted and Error (Gardener retries)
// keep the Runtime Pending; Failed with errors worth waiting for too, and after a backoff the
// manager asks Gardener to retry (Gardener does not retry a Failed operation by itself); any other
// failure ends in Failed with Gardener's errors in the condition; Succeeded moves on to the kubeconfig.
import {
  LastOperationStateAborted,
  LastOperationStateError,
  LastOperationStateFailed,
  LastOperationStatePending,
  LastOperationStateProcessing,
  LastOperationStateSucceeded,
} from '../../../api/gardener/index.js';
import {
  ConditionReasonCreationError,
  ConditionReasonShootCreationCompleted,
  ConditionReasonShootCreationPending,
  ConditionTypeRuntimeProvisioned,
} from '../../../api/infrastructuremanager/index.js';
import { describeErrors, errorCodesOf, isRetryableShootFailure } from '../gardener-errors.js';
import { retryGivenUpOperation, retryPending } from '../gardener-retry.js';
import { type Machine, type SystemState, type Transition, stop, updateStatusAndRequeueAfter, updateStatusAndStop, updateStatusAndWaitForChange, waitForChange } from '../machine.js';
import { updateStateFailed, updateStatePending } from '../status.js';
import { ensurePendingCondition } from './ensure-condition.js';
import { handleKubeconfig } from './handle-kubeconfig.js';

export async function waitForShootCreation(m: Machine, s: SystemState): Promise<Transition> {
  const rt = s.runtime;
  const shoot = s.shoot;
  if (!shoot) throw new Error('waitForShootCreation needs the shoot');
  const op = shoot.status?.lastOperation;
  const lastErrors = shoot.status?.lastErrors ?? [];

  switch (op?.state) {
    case LastOperationStatePending:
    case LastOperationStateProcessing:
    case LastOperationStateAborted:
    case LastOperationStateError: {
      const retrying = op.state === LastOperationStateError && lastErrors.length > 0 ? ` (Gardener retries after: ${describeErrors(lastErrors)})` : '';
      updateStatePending(rt, ConditionTypeRuntimeProvisioned, ConditionReasonShootCreationPending, 'Unknown', `Shoot creation in progress${retrying}`);
      return updateStatusAndWaitForChange(m.timing.shootCreateRequeueMs);
    }
    case LastOperationStateFailed: {
      // A retry asked for (by the manager or a person) that Gardener has not started yet.
      if (retryPending(shoot)) return waitForChange(m.timing.shootCreateRequeueMs);
      if (isRetryableShootFailure(lastErrors)) {
        const retry = await retryGivenUpOperation(m, shoot, m.timing.shootCreateRequeueMs);
        if (retry.message) updateStatePending(rt, ConditionTypeRuntimeProvisioned, ConditionReasonShootCreationPending, 'Unknown', retry.message);
        return updateStatusAndRequeueAfter(retry.requeueAfterMs);
      }
      m.log.error('shoot creation failed', { shoot: shoot.metadata.name, codes: errorCodesOf(lastErrors), errors: describeErrors(lastErrors), description: op.description });
      m.metrics.fsmStopped(ConditionReasonCreationError);
      const details = lastErrors.length > 0 ? describeErrors(lastErrors) : op.description;
      updateStateFailed(rt, ConditionTypeRuntimeProvisioned, ConditionReasonCreationError, `Shoot creation failed: ${details}`);
      return updateStatusAndStop();
    }
    case LastOperationStateSucceeded:
      return ensurePendingCondition(s, ConditionTypeRuntimeProvisioned, ConditionReasonShootCreationCompleted, 'Shoot creation completed', handleKubeconfig);
    default:
      m.log.warn('unknown shoot operation state; stopping', { shoot: shoot.metadata.name, state: op?.state });
      m.metrics.fsmStopped('UnknownShootState');
      return stop();
  }
}
