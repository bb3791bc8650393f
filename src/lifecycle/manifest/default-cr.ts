// The module's default custom resource (Manifest.spec.resource): created once in the target
// cluster for customResourcePolicy CreateAndDelete, deleted before the module is removed; and the
// users' own custom resources of the module's CRDs, which block the removal.
import { Finalizers, Labels, type ManifestObject } from '../../api/operator/index.js';
import { isAlreadyExists, isNotFound } from '../../runtime/client/errors.js';
import { isNoKindMatch } from '../../runtime/client/discovery.js';
import type { Client } from '../../runtime/client/interface.js';
import { type KubeObject, splitApiVersion } from '../../kube/object.js';
import { CRD_KIND, MODULE_RESOURCE_MANAGED_BY } from './constants.js';
import { describeRef, type ResourceRef } from './inventory.js';
import { mapLimit } from '../../util/map-limit.js';

/** The default CR to manage, or undefined (no resource, or policy Ignore). */
export function managedDefaultCR(manifest: ManifestObject): KubeObject | undefined {
  const r = manifest.spec.resource;
  if (!r || manifest.spec.customResourcePolicy === 'Ignore') return undefined;
  if (!r.apiVersion || !r.kind || !r.metadata || typeof r.metadata.name !== 'string') return undefined;
  return r as KubeObject;
}

const keyOfCR = (cr: KubeObject) => ({ namespace: cr.metadata.namespace || undefined, name: cr.metadata.name ?? '' });

/**
 * Returns the default CR in the cluster, creating it when missing (it is never updated afterwards:
 * it belongs to the user). `createFirst` (the CR is most likely not there yet: the module is being
 * installed) tries the create before any read: one request instead of two, and a read only when
 * it already exists.
 */
export async function ensureDefaultCR(client: Client, desired: KubeObject, signal: AbortSignal, createFirst = false): Promise<{ cr: KubeObject; created: boolean }> {
  if (!createFirst) {
    try {
      return { cr: await client.get(desired, keyOfCR(desired), { signal }), created: false };
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  const body = structuredClone(desired);
  delete body.status;
  body.metadata = { ...body.metadata, labels: { ...body.metadata.labels, [Labels.ManagedBy]: MODULE_RESOURCE_MANAGED_BY } };
  try {
    return { cr: await client.create(body, { fieldManager: Finalizers.CustomResourceManager, signal }), created: true };
  } catch (e) {
    if (isAlreadyExists(e)) return { cr: await client.get(desired, keyOfCR(desired), { signal }), created: false };
    if (!createFirst) throw e;
    // The API server admits a create before it finds the name taken (a module's webhook that is not
    // up yet, a quota, a CRD that changed): a CR already there is what a read first would have found.
    try {
      return { cr: await client.get(desired, keyOfCR(desired), { signal }), created: false };
    } catch {
      throw e;
    }
  }
}

/** Deletes the default CR; true once it is gone. */
export async function deleteDefaultCR(client: Client, desired: KubeObject, signal: AbortSignal): Promise<boolean> {
  try {
    await client.delete(desired, keyOfCR(desired), { propagationPolicy: 'Background', signal });
  } catch (e) {
    if (isNotFound(e) || isNoKindMatch(e)) return true;
    throw e;
  }
  try {
    await client.get(desired, keyOfCR(desired), { signal });
    return false;
  } catch (e) {
    if (isNotFound(e) || isNoKindMatch(e)) return true;
    throw e;
  }
}

interface CrdShape {
  spec?: { group?: string; names?: { kind?: string }; versions?: { name?: string; served?: boolean; storage?: boolean }[] };
}

/** A custom resource kind of the module as its CRD in the cluster serves it. */
export interface ServedKind {
  /** `group/version` in the storage version (else the first served one). */
  apiVersion: string;
  kind: string;
  /** Every version the CRD serves. */
  served: string[];
}

const groupKind = (apiVersion: string, kind: string): string => `${splitApiVersion(apiVersion).group}/${kind}`;

/** The kind a CRD serves, or undefined when the CRD is gone. */
async function kindOfCrd(client: Client, name: string, signal: AbortSignal): Promise<ServedKind | undefined> {
  let crd: KubeObject & CrdShape;
  try {
    crd = await client.get<KubeObject & CrdShape>(CRD_KIND, { name }, { signal });
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
  const versions = crd.spec?.versions ?? [];
  const served = versions.filter((v) => v.served && v.name).map((v) => v.name as string);
  const version = versions.find((v) => v.storage)?.name ?? served[0];
  if (!crd.spec?.group || !crd.spec.names?.kind || !version) return undefined;
  return { apiVersion: `${crd.spec.group}/${version}`, kind: crd.spec.names.kind, served };
}

/**
 * The custom resource kinds of a module, by `group/Kind`: those of its CRDs in the cluster (as
 * served there), and the default CR's kind when no CRD of the module names it.
 */
export async function moduleKinds(client: Client, manifest: ManifestObject, synced: readonly ResourceRef[], signal: AbortSignal): Promise<Map<string, ServedKind>> {
  const kinds = new Map<string, ServedKind>();
  const crdNames = synced.filter((r) => r.kind === 'CustomResourceDefinition').map((r) => r.name);
  const found = await mapLimit(crdNames, 4, (name) => kindOfCrd(client, name, signal));
  for (const k of found) if (k) kinds.set(groupKind(k.apiVersion, k.kind), k);
  const resource = manifest.spec.resource;
  if (resource?.apiVersion && resource.kind && !kinds.has(groupKind(resource.apiVersion, resource.kind))) {
    kinds.set(groupKind(resource.apiVersion, resource.kind), { apiVersion: resource.apiVersion, kind: resource.kind, served: [splitApiVersion(resource.apiVersion).version] });
  }
  return kinds;
}

/**
 * The default CR as the cluster serves it now (`kinds`: the module's, from moduleKinds). A new version of the module may name it in an API
 * version its installed CRD does not serve yet (an API upgrade while the module is being deleted):
 * the object is then the one of the served version, not "gone" (upstream's issue 3005).
 */
export function liveDefaultCR(desired: KubeObject, kinds: Map<string, ServedKind>): KubeObject {
  const served = kinds.get(groupKind(desired.apiVersion, desired.kind));
  if (!served || served.served.includes(splitApiVersion(desired.apiVersion).version)) return desired;
  return { ...desired, apiVersion: served.apiVersion };
}

/**
 * Custom resources of the module's `kinds` (in every namespace, or cluster-scoped) other than the
 * default CR it manages: while any exists, the module is not removed. With policy Ignore every one
 * of them counts, whatever its name.
 */
export async function findUserCRs(client: Client, manifest: ManifestObject, kinds: Map<string, ServedKind>, signal: AbortSignal): Promise<ResourceRef[]> {
  const defaultCR = managedDefaultCR(manifest);
  const isDefault = (o: KubeObject): boolean =>
    !!defaultCR &&
    groupKind(o.apiVersion, o.kind) === groupKind(defaultCR.apiVersion, defaultCR.kind) &&
    o.metadata.name === defaultCR.metadata.name &&
    (o.metadata.namespace ?? '') === (defaultCR.metadata.namespace ?? '');
  const lists = await mapLimit([...kinds.values()], 4, async (kind) => {
    try {
      return (await client.list(kind, { signal })).items.map((o) => ({ ...o, apiVersion: o.apiVersion || kind.apiVersion, kind: o.kind || kind.kind }));
    } catch (e) {
      if (isNotFound(e) || isNoKindMatch(e)) return [];
      throw e;
    }
  });
  const out: ResourceRef[] = [];
  for (const o of lists.flat()) {
    if (isDefault(o)) continue;
    const { group, version } = splitApiVersion(o.apiVersion);
    out.push({ group, version, kind: o.kind, namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '' });
  }
  return out;
}

export function describeUserCRs(refs: readonly ResourceRef[], max = 10): string {
  const shown = refs.slice(0, max).map(describeRef).join(', ');
  return refs.length > max ? `${shown} and ${refs.length - max} more` : shown;
}
