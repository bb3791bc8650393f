// Asking Gardener to retry an operation it gave up on (`gardener.cloud/operation: retry`). Gardener
// does not retry a Failed operation by itself; the infrastructure manager asks for it after a backoff
// when the errors are worth waiting for, and when a person asks (`kcp runtime retry`).
import { AnnotationGardenerOperation, GardenerOperationRetry, LastOperationTypeCreate, Shoot, type ShootObject } from '../../api/gardener/index.js';
import { describeErrors } from './gardener-errors.js';
import type { Machine } from './machine.js';

/** Is a retry asked for and not yet picked up by Gardener (which removes the annotation when it starts)? */
export function retryPending(shoot: ShootObject): boolean {
  return shoot.metadata.annotations?.[AnnotationGardenerOperation] === GardenerOperationRetry;
}

/** Annotates the Shoot with `gardener.cloud/operation: retry` (a merge patch: nothing else of the Shoot changes). */
export async function requestShootRetry(m: Machine, shoot: ShootObject): Promise<ShootObject> {
  const key = { namespace: shoot.metadata.namespace, name: shoot.metadata.name ?? '' };
  return m.garden.patch<ShootObject>(Shoot, key, 'merge', { metadata: { annotations: { [AnnotationGardenerOperation]: GardenerOperationRetry } } }, { fieldManager: m.fieldManager, signal: m.signal });
}

/** `creation` or `reconciliation`, for messages. */
export function operationName(shoot: ShootObject): string {
  return shoot.status?.lastOperation?.type === LastOperationTypeCreate ? 'creation' : 'reconciliation';
}

/** When the automatic retry of a Failed operation is due: one Gardener requeue interval after it failed. */
export function retryDueAt(m: Machine, shoot: ShootObject): number {
  const failedAt = Date.parse(shoot.status?.lastOperation?.lastUpdateTime ?? '');
  return Number.isNaN(failedAt) ? 0 : failedAt + m.timing.gardenerRequeueMs;
}

export interface AutoRetry {
  /** The condition message; undefined: a retry was asked for earlier, the condition says so already. */
  message?: string;
  /** Look again after this long. */
  requeueAfterMs: number;
}

/**
 * A Failed operation with errors worth waiting for: after the backoff, ask Gardener to retry it;
 * before, say when that will happen. A retry already asked for is left to Gardener.
 */
export async function retryGivenUpOperation(m: Machine, shoot: ShootObject, requeueMs: number, now = Date.now()): Promise<AutoRetry> {
  const what = `Gardener gave up on the shoot ${operationName(shoot)} (${describeErrors(shoot.status?.lastErrors ?? [])})`;
  if (retryPending(shoot)) return { requeueAfterMs: requeueMs };
  const due = retryDueAt(m, shoot);
  if (now < due) return { message: `${what}; retry will be requested at ${rfc3339(due)}`, requeueAfterMs: due - now };
  await requestShootRetry(m, shoot);
  m.log.warn('gardener gave up on the shoot operation; retry requested', {
    shoot: shoot.metadata.name,
    operation: shoot.status?.lastOperation?.type,
    errors: describeErrors(shoot.status?.lastErrors ?? []),
  });
  return { message: `${what}; retry requested at ${rfc3339(now)}`, requeueAfterMs: requeueMs };
}

export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
