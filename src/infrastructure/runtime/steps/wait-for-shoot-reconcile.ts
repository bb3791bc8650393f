// Follows Gardener's Reconcile operation after a patch: as the creation (a Failed operation worth
// waiting for is retried after a backoff), but a final failure is a ProcessingErr and success
// completes the configuration of the Shoot.
import {
  LastOperationStateAborted,
  LastOperationStateError,
  LastOperationStateFailed,
  LastOperationStatePending,
  LastOperationStateProcessing,
  LastOperationStateSucceeded,
  type ShootObject,
} from '../../../api/gardener/index.js';
import {
  ConditionReasonConfigurationCompleted,
  ConditionReasonProcessing,
  ConditionReasonProcessingErr,
  ConditionTypeRuntimeProvisioned,
} from '../../../api/infrastructuremanager/index.js';
import { describeErrors, errorCodesOf, isRetryableShootFailure } from '../gardener-errors.js';
import { retryGivenUpOperation, retryPending } from '../gardener-retry.js';
import { type Machine, type SystemState, type Transition, stop, updateStatusAndRequeueAfter, updateStatusAndStop, updateStatusAndWaitForChange, waitForChange } from '../machine.js';
import { updateStateFailed, updateStatePending } from '../status.js';
import { ensurePendingCondition } from './ensure-condition.js';
import { handleKubeconfig } from './handle-kubeconfig.js';


/** Gardener has not yet acted on the latest spec (it reports observedGeneration). */
function specNotObserved(shoot: ShootObject): boolean {
  const observed = shoot.status?.observedGeneration;
  return observed !== undefined && (shoot.metadata.generation ?? 0) > observed;
}

export async function waitForShootReconcile(m: Machine, s: SystemState): Promise<Transition> {
  const rt = s.runtime;
  const shoot = s.shoot;
  if (!shoot) throw new Error('waitForShootReconcile needs the shoot');
  const op = shoot.status?.lastOperation;
  const lastErrors = shoot.status?.lastErrors ?? [];
  const state = specNotObserved(shoot) ? LastOperationStatePending : op?.state;

  switch (state) {
    case LastOperationStatePending:
    case LastOperationStateProcessing:
    case LastOperationStateAborted:
    case LastOperationStateError: {
      const retrying = state === LastOperationStateError && lastErrors.length > 0 ? ` (Gardener retries after: ${describeErrors(lastErrors)})` : '';
      updateStatePending(rt, ConditionTypeRuntimeProvisioned, ConditionReasonProcessing, 'Unknown', `Shoot update is in progress${retrying}`);
      return updateStatusAndWaitForChange(m.timing.shootReconcileRequeueMs);
    }
    case LastOperationStateFailed: {
      // A retry asked for (by the manager or a person) that Gardener has not started yet.
      if (retryPending(shoot)) return waitForChange(m.timing.shootReconcileRequeueMs);
      if (isRetryableShootFailure(lastErrors)) {
        const retry = await retryGivenUpOperation(m, shoot, m.timing.shootReconcileRequeueMs);
        if (retry.message) updateStatePending(rt, ConditionTypeRuntimeProvisioned, ConditionReasonProcessing, 'Unknown', retry.message);
        return updateStatusAndRequeueAfter(retry.requeueAfterMs);
      }
      m.log.error('shoot reconciliation failed', { shoot: shoot.metadata.name, codes: errorCodesOf(lastErrors), errors: describeErrors(lastErrors), description: op?.description });
      m.metrics.fsmStopped(ConditionReasonProcessingErr);
      const details = lastErrors.length > 0 ? describeErrors(lastErrors) : (op?.description ?? 'no details');
      updateStateFailed(rt, ConditionTypeRuntimeProvisioned, ConditionReasonProcessingErr, `Shoot reconciliation failed: ${details}`);
      return updateStatusAndStop();
    }
    case LastOperationStateSucceeded:
      return ensurePendingCondition(s, ConditionTypeRuntimeProvisioned, ConditionReasonConfigurationCompleted, 'Runtime processing completed successfully', handleKubeconfig);
    default:
      m.log.warn('unknown shoot operation state; stopping', { shoot: shoot.metadata.name, state });
      m.metrics.fsmStopped('UnknownShootState');
      return stop();
  }
}
