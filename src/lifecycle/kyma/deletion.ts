// Deletion of a Kyma as ordered steps, each one reconcile's worth of work:
//   markDeleting -> deleteManifests -> waitForManifests -> cleanupRuntime -> dropFinalizer.
// The kubeconfig Secret is the authority on whether the runtime still exists (upstream's rule): a
// runtime that cannot be reached while its Secret exists is waited for, the Kyma in Error saying
// why, until it answers again or the Secret is removed; once the Secret is gone, the runtime's
// cleanup is skipped at once and Manifests still waiting on it are released. An opt-in bound
// (remoteCleanupTimeoutMs) skips an unreachable runtime's cleanup after that long even with a Secret.
import { Finalizers, Kyma, Labels, Manifest, States, type KymaObject, type ManifestObject } from '../../api/operator/index.js';
import { Runtime, RuntimeStateFailed, type RuntimeObject } from '../../api/infrastructuremanager/index.js';
import type { Client } from '../../runtime/client/interface.js';
import { isNotFound } from '../../runtime/client/errors.js';
import type { Logger } from '../../runtime/log.js';
import { accessErrorOf, type RuntimeAccess, type RuntimeAccessError } from '../remote/access.js';
import { deleteRemoteCrds } from '../remote/crds.js';
import { deleteRemoteKyma, REMOTE_KYMA_KEY } from '../remote/kyma.js';

export type DeletionOutcome =
  | { step: 'marked' }
  | { step: 'waitingForManifests'; remaining: number; released: number }
  | { step: 'waitingForRuntime'; error: RuntimeAccessError; remaining: number }
  | { step: 'done'; skippedRuntime: boolean };

export interface DeletionDeps {
  kcp: Client;
  access: RuntimeAccess;
  /** Opt-in: skip the cleanup of a runtime unreachable for this long although its Secret exists. */
  remoteCleanupTimeoutMs?: number;
  log: Logger;
  /** Writes the Kyma status (state and last operation). */
  writeState(kyma: KymaObject, state: typeof States.Deleting, operation: string, signal: AbortSignal): Promise<void>;
  /** Removes the runtime watcher's webhook from the runtime (when the watcher runs). */
  removeWebhook?: (remote: Client, kymaName: string, signal: AbortSignal) => Promise<void>;
  now?: () => number;
}

function deletingFor(kyma: KymaObject, now: number): number {
  const since = Date.parse(kyma.metadata.deletionTimestamp ?? '');
  return Number.isNaN(since) ? 0 : now - since;
}

/** Whether the runtime can be reached; an access error when it cannot. */
async function probeRuntime(access: RuntimeAccess, kymaName: string, signal: AbortSignal): Promise<{ client?: Client; error?: RuntimeAccessError }> {
  try {
    const client = access.client(kymaName);
    await client.get(Kyma, REMOTE_KYMA_KEY, { signal }).catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
    return { client };
  } catch (e) {
    const error = accessErrorOf(kymaName, e);
    if (!error) throw e;
    return { error };
  }
}

/** The last operation of a Kyma being deleted while its modules go. */
export const REMOVING_MODULES = 'deleting the Kyma: removing its modules';

export async function runDeletion(deps: DeletionDeps, kyma: KymaObject, signal: AbortSignal): Promise<DeletionOutcome> {
  const name = kyma.metadata.name ?? '';
  const now = (deps.now ?? Date.now)();
  // Error is a state of the deletion too (the runtime cannot be reached): not marked again.
  if (kyma.status?.state !== States.Deleting && kyma.status?.state !== States.Error) {
    await deps.writeState(kyma, States.Deleting, REMOVING_MODULES, signal);
    return { step: 'marked' };
  }
  const boundPassed = deps.remoteCleanupTimeoutMs !== undefined && deletingFor(kyma, now) > deps.remoteCleanupTimeoutMs;
  // Every Manifest of the Kyma, mandatory ones included.
  const manifests = (await deps.kcp.list<ManifestObject>(Manifest, { namespace: kyma.metadata.namespace, labelSelector: `${Labels.KymaName}=${name}`, signal })).items;
  if (manifests.length > 0) {
    for (const m of manifests) {
      if (m.metadata.deletionTimestamp) continue;
      await deps.kcp.delete(Manifest, { namespace: m.metadata.namespace, name: m.metadata.name ?? '' }, { signal }).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
    }
    const probe = await probeRuntime(deps.access, name, signal);
    if (!probe.error) return { step: 'waitingForManifests', remaining: manifests.length, released: 0 };
    if (probe.error.reason !== 'SecretNotFound' && !boundPassed) return { step: 'waitingForRuntime', error: probe.error, remaining: manifests.length };
    // Nobody can clean up a runtime that is gone: release the Manifests waiting for it.
    let released = 0;
    for (const m of manifests) {
      if ((m.metadata.finalizers ?? []).length === 0) continue;
      await deps.kcp.patch(Manifest, { namespace: m.metadata.namespace, name: m.metadata.name ?? '' }, 'merge', { metadata: { finalizers: null } }, { signal }).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
      released++;
    }
    deps.log.warn('runtime gone during deletion; released its Manifests', { kyma: name, released, reason: probe.error.reason });
    return { step: 'waitingForManifests', remaining: manifests.length, released };
  }
  const probe = await probeRuntime(deps.access, name, signal);
  let skippedRuntime = false;
  if (probe.client) {
    try {
      await deps.removeWebhook?.(probe.client, name, signal);
      await deleteRemoteKyma(probe.client, signal);
      await deleteRemoteCrds(probe.client, signal);
    } catch (e) {
      const error = accessErrorOf(name, e);
      if (!error) throw e;
      probe.error = error;
    }
  }
  if (probe.error) {
    const secretGone = probe.error.reason === 'SecretNotFound';
    if (!secretGone && !boundPassed) return { step: 'waitingForRuntime', error: probe.error, remaining: 0 };
    skippedRuntime = true;
    // Why the runtime will not come back, when its Runtime says so; for the log only.
    const retired = secretGone ? await retiredRuntime(deps.kcp, kyma, signal) : undefined;
    deps.log.warn('runtime unreachable during deletion; skipping its cleanup', { kyma: name, reason: probe.error.reason, error: probe.error.message, ...(retired ? { runtime: retired } : {}) });
  }
  deps.access.evict(name);
  await dropFinalizer(deps.kcp, kyma, signal);
  return { step: 'done', skippedRuntime };
}

/**
 * Why the kubeconfig Secret of a Kyma will not come back, if it will not: its Runtime (by runtime id
 * label, else by the Kyma's name) is gone, being deleted, or Failed without ever being provisioned.
 * Undefined when there is a live Runtime, or no Runtime kind in this KCP (no infrastructure manager).
 */
async function retiredRuntime(kcp: Client, kyma: KymaObject, signal: AbortSignal): Promise<string | undefined> {
  const namespace = kyma.metadata.namespace;
  const id = kyma.metadata.labels?.[Labels.RuntimeID];
  let runtimes: RuntimeObject[];
  try {
    runtimes = id
      ? (await kcp.list<RuntimeObject>(Runtime, { namespace, labelSelector: `${Labels.RuntimeID}=${id}`, signal })).items
      : (await kcp.list<RuntimeObject>(Runtime, { namespace, fieldSelector: `metadata.name=${kyma.metadata.name ?? ''}`, signal })).items;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
  const rt = runtimes[0];
  if (!rt) return 'its Runtime is gone';
  if (rt.metadata.deletionTimestamp) return 'its Runtime is being deleted';
  if (rt.status?.state === RuntimeStateFailed && !rt.status.provisioningCompleted) return 'its Runtime failed before it had a cluster';
  return undefined;
}

async function dropFinalizer(kcp: Client, kyma: KymaObject, signal: AbortSignal): Promise<void> {
  const finalizers = kyma.metadata.finalizers ?? [];
  if (!finalizers.includes(Finalizers.Kyma)) return;
  const rest = finalizers.filter((f) => f !== Finalizers.Kyma);
  // A JSON patch with a test on the list keeps other controllers' finalizer changes safe.
  await kcp.patch(Kyma, { namespace: kyma.metadata.namespace, name: kyma.metadata.name ?? '' }, 'json', [
    { op: 'test', path: '/metadata/finalizers', value: finalizers },
    { op: 'replace', path: '/metadata/finalizers', value: rest },
  ], { signal });
}
