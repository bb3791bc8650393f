// The operator CRDs a runtime needs (Kyma, ModuleTemplate, ModuleReleaseMeta), applied into the
// runtime cluster. Each reconcile checks them with one GET each and re-applies the ones that are
// missing or out of date (a hash of the desired CRD is kept in an annotation), so a CRD deleted in
// the runtime comes back at the next reconcile; what it applied is Established before it returns.
import { canonicalJson } from '../../kube/json.js';
import { createHash } from 'node:crypto';
import { crdOf } from '../../api/crd.js';
import { Kyma, ModuleReleaseMeta, ModuleTemplate, OPERATOR_GROUP } from '../../api/operator/index.js';
import type { Client } from '../../runtime/client/interface.js';
import { isNotFound } from '../../runtime/client/errors.js';
import { findObject } from '../../runtime/client/find.js';
import type { KubeObject } from '../../kube/object.js';
import { CRD_KIND, waitEstablished } from '../crd-established.js';

export { CRD_KIND };
export const FIELD_MANAGER = 'lifecycle-manager';
const HASH_ANNOTATION = `${OPERATOR_GROUP}/crd-hash`;

export const remoteKinds = [Kyma, ModuleTemplate, ModuleReleaseMeta] as const;

interface DesiredCrd {
  name: string;
  object: KubeObject;
  hash: string;
}

function desired(): DesiredCrd[] {
  return remoteKinds.map((k) => {
    const crd = crdOf(k) as unknown as KubeObject;
    const hash = createHash('sha256').update(canonicalJson(crd.spec)).digest('hex').slice(0, 16);
    const name = `${k.plural}.${k.group}`;
    return { name, hash, object: { ...crd, metadata: { ...crd.metadata, name, annotations: { ...crd.metadata.annotations, [HASH_ANNOTATION]: hash } } } };
  });
}

let cached: DesiredCrd[] | undefined;
function desiredCrds(): DesiredCrd[] {
  return (cached ??= desired());
}

/** The CRD names synced into runtimes. */
export function remoteCrdNames(): string[] {
  return desiredCrds().map((c) => c.name);
}

/** How long a check waits for the CRDs it applied to be Established (a real API server takes a moment). */
export const CRD_ESTABLISH_TIMEOUT_MS = 10_000;

/**
 * Ensures the CRDs exist, are current and are Established (the Kyma and the catalog copies are
 * written right after); returns the names it (re-)applied. `fresh`: the runtime most likely has none
 * of them yet (its Kyma was never synced), so they are applied without a read first. A CRD whose
 * apply answer shows it Established costs no read; others are read until they are, at most
 * `establishTimeoutMs` (then CrdNotEstablishedError).
 */
export async function syncRemoteCrds(remote: Client, signal: AbortSignal, fresh = false, establishTimeoutMs = CRD_ESTABLISH_TIMEOUT_MS): Promise<string[]> {
  const answered = new Map<string, KubeObject>();
  for (const crd of desiredCrds()) {
    const current = fresh ? undefined : await findObject(remote, CRD_KIND, { name: crd.name }, { signal });
    if (current && !current.metadata.deletionTimestamp && current.metadata.annotations?.[HASH_ANNOTATION] === crd.hash) continue;
    answered.set(crd.name, await remote.apply(crd.object, { fieldManager: FIELD_MANAGER, force: true, signal }));
  }
  await waitEstablished(remote, answered, establishTimeoutMs, signal);
  return [...answered.keys()];
}

/** Deletes the synced CRDs from a runtime (their custom resources go with them). */
export async function deleteRemoteCrds(remote: Client, signal: AbortSignal): Promise<void> {
  for (const name of remoteCrdNames()) {
    try {
      await remote.delete(CRD_KIND, { name }, { signal });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}
