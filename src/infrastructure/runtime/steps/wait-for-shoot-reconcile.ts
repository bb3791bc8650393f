// Follows Gardener's Reconcile operation after a patch: as the creation, but a final failure is a
// ProcessingErr and success completes the configuration of the Shoot.
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
  ConditionReasonShootCreationPending,
  ConditionTypeRuntimeProvisioned,
} from '../../../api/infrastructuremanager/index.js';
import { describeErrors, isRetryableShootFailure } from '../gardener-errors.js';
import { type Machine, type SystemState, type Transition, stop, updateStatusAndRequeueAfter, updateStatusAndStop } from '../machine.js';
import { updateStateFailed, updateStatePending } from '../status.js';
import { ensurePendingCondition } from './ensure-condition.js';
import { handleKubeconfig } from './handle-kubeconfig.js';

export function waitForShootReconcile(m: Machine, s: SystemState): Promise<Transition> {
  return Promise.resolve(follow(m, s));
}

/** Gardener has not yet acted on the latest spec (it reports observedGeneration). */
function specNotObserved(shoot: ShootObject): boolean {
  const observed = shoot.status?.observedGeneration;
  return observed !== undefined && (shoot.metadata.generation ?? 0) > observed;
}

function follow(m: Machine, s: SystemState): Transition {
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
      return updateStatusAndRequeueAfter(m.timing.shootReconcileRequeueMs);
    }
    case LastOperationStateFailed: {
      if (isRetryableShootFailure(lastErrors)) {
        updateStatePending(rt, ConditionTypeRuntimeProvisioned, ConditionReasonShootCreationPending, 'Unknown', `Retryable gardener errors during cluster reconcile: ${describeErrors(lastErrors)}`);
        return updateStatusAndRequeueAfter(m.timing.shootReconcileRequeueMs);
      }
      m.log.info('shoot reconciliation failed', { shoot: shoot.metadata.name, errors: describeErrors(lastErrors) });
      m.metrics.fsmStopped(ConditionReasonProcessingErr);
      const details = lastErrors.length > 0 ? describeErrors(lastErrors) : (op?.description ?? 'no details');
      updateStateFailed(rt, ConditionTypeRuntimeProvisioned, ConditionReasonProcessingErr, `Shoot reconciliation failed: ${details}`);
      return updateStatusAndStop();
    }
    case LastOperationStateSucceeded:
      return ensurePendingCondition(m, rt, ConditionTypeRuntimeProvisioned, ConditionReasonConfigurationCompleted, 'Runtime processing completed successfully', handleKubeconfig);
    default:
      m.log.warn('unknown shoot operation state; stopping', { shoot: shoot.metadata.name, state });
      m.metrics.fsmStopped('UnknownShootState');
      return stop();
  }
}
