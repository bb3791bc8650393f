// The Shoot exists: decide what to do with it. Patch it when the Runtime moved on (generation,
// force annotation); wait for Gardener while an operation runs; otherwise nothing to do (Runtimes
// in Ready or Failed are left alone, so that a restart does not reconcile every cluster again).
import {
  LastOperationStatePending,
  LastOperationStateProcessing,
  LastOperationTypeCreate,
  LastOperationTypeReconcile,
  type ShootObject,
} from '../../../api/gardener/index.js';
import {
  AnnotationForcePatchReconciliation,
  AnnotationSuspendPatchReconciliation,
  type RuntimeObject,
  RuntimeStatePending,
} from '../../../api/infrastructuremanager/index.js';
import { ShootRuntimeGenerationAnnotation } from '../../converter/index.js';
import { type Machine, type SystemState, type Transition, requeueAfter, stop, switchTo } from '../machine.js';
import { patchShoot } from './patch-shoot.js';
import { waitForShootCreation } from './wait-for-shoot-creation.js';
import { waitForShootReconcile } from './wait-for-shoot-reconcile.js';

export function selectShootProcessing(m: Machine, s: SystemState): Promise<Transition> {
  return Promise.resolve(select(m, s));
}

function select(m: Machine, s: SystemState): Transition {
  const shoot = s.shoot;
  if (!shoot) throw new Error('selectShootProcessing needs the shoot');
  const lastOperation = shoot.status?.lastOperation;
  if (!lastOperation) {
    m.log.debug('shoot has no last operation yet', { shoot: shoot.metadata.name });
    return requeueAfter(m.timing.gardenerRequeueMs);
  }

  if (shouldPatchShoot(m, s.runtime, shoot)) return switchTo(patchShoot);

  const state = s.runtime.status?.state;
  if (state === RuntimeStatePending || state === undefined) {
    // A patch Gardener has not picked up yet is a reconcile in progress, whatever the last operation says.
    if (notYetObserved(shoot)) return switchTo(waitForShootReconcile);
    if (lastOperation.type === LastOperationTypeCreate) return switchTo(waitForShootCreation);
    if (lastOperation.type === LastOperationTypeReconcile) return switchTo(waitForShootReconcile);
  }

  const midReconcile = notYetObserved(shoot) || lastOperation.state === LastOperationStatePending || lastOperation.state === LastOperationStateProcessing;
  if (midReconcile) {
    m.log.info('shoot is being reconciled although the runtime is not pending; following it', { shoot: shoot.metadata.name, state, operation: lastOperation.type });
    return switchTo(lastOperation.type === LastOperationTypeCreate ? waitForShootCreation : waitForShootReconcile);
  }
  return stop();
}

/** Has the Shoot's spec changed since Gardener last acted on it? (Only when Gardener reports observedGeneration.) */
function notYetObserved(shoot: ShootObject): boolean {
  const observed = shoot.status?.observedGeneration;
  return observed !== undefined && shoot.metadata.generation !== undefined && shoot.metadata.generation > observed;
}

/** Upstream shouldPatchShoot: suspended never, forced always, else when the Runtime's generation is newer than the one applied. */
export function shouldPatchShoot(m: Machine, runtime: RuntimeObject, shoot: ShootObject): boolean {
  const annotations = runtime.metadata.annotations ?? {};
  if (annotations[AnnotationSuspendPatchReconciliation] === 'true') {
    m.log.debug(`patching is suspended; remove the annotation ${AnnotationSuspendPatchReconciliation} to resume`);
    return false;
  }
  if (annotations[AnnotationForcePatchReconciliation] === 'true') return true;
  const applied = shoot.metadata.annotations?.[ShootRuntimeGenerationAnnotation];
  if (applied === undefined) return true;
  const appliedGeneration = Number(applied);
  if (!Number.isFinite(appliedGeneration)) return true;
  return appliedGeneration < (runtime.metadata.generation ?? 0);
}
