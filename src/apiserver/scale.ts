// The scale subresource (autoscaling/v1 Scale) of Deployments, ReplicaSets and StatefulSets, and of
// custom resources whose CRD version declares `subresources.scale`, as kube-apiserver serves it:
// a Scale made from the object on every read, a write that changes only the replicas field of the
// object (and its managedFields, see fieldmanager/scale.ts), webhooks that see Scale objects.
import type { LogicalCluster, PatchType, WriteOptions } from './cluster.js';
import { badRequest, conflict, fieldErrors, type FieldError, invalid, MODIFIED, notFound, StatusError } from './errors.js';
import { applyPatch, recordUpdate } from './fieldmanager/managed.js';
import { builtinSchema } from './fieldmanager/schema.js';
import { type ReplicasPaths, toParentEntries, toScaleEntries } from './fieldmanager/scale.js';
import { strategicMergePatch } from './fieldmanager/strategic.js';
import { nowRfc3339 } from './objects.js';
import { jsonPatch, mergePatch } from './patch.js';
import { BUILTIN_TYPES, groupVersion, resourceKey, type ResourceType } from './resources.js';
import { formatLabelSelector } from './table/format.js';
import { deepClone, isPlainObject, type JsonObject } from '../kube/json.js';
import type { ObjectWithMeta } from '../kube/object.js';

/** Where a kind keeps what its Scale shows. */
interface ScaleSubresource {
  /** `.spec.replicas` as the CRD writes it (built-ins: the same), for messages. */
  specReplicasPath: string;
  spec: string[];
  status: string[];
  /** Custom resources: the path of the selector string, if any. Built-ins: their `spec.selector`, formatted. */
  labelSelector: string[] | undefined;
  builtin: boolean;
}

const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
const SCALE_SCHEMA = builtinSchema('autoscaling', 'Scale');
/** What upstream puts into a custom resource's Scale when the object has no replicas yet: a write must set them. */
const MISSING_REPLICAS = -2147483648;
const INT32_MAX = 2147483647;

/** The apps/v1 workloads with a scale subresource, and the versions their managedFields may name (all with `spec.replicas`). */
const BUILTIN_SCALABLE: Record<string, string[]> = {
  deployments: ['apps/v1beta1', 'apps/v1beta2', 'apps/v1'],
  replicasets: ['apps/v1beta2', 'apps/v1'],
  statefulsets: ['apps/v1beta1', 'apps/v1beta2', 'apps/v1'],
};
const REPLICAS = ['spec', 'replicas'];

function splitPath(path: string): string[] {
  return path.replace(/^\./, '').split('.');
}

/** The scale subresource of a type, if it has one. */
export function scaleSubresourceOf(t: ResourceType): ScaleSubresource | undefined {
  if (!t.crd) {
    if (t.group !== 'apps' || BUILTIN_SCALABLE[t.resource] === undefined) return undefined;
    return { specReplicasPath: '.spec.replicas', spec: REPLICAS, status: ['status', 'replicas'], labelSelector: undefined, builtin: true };
  }
  const subresources = t.crd.version.subresources;
  const scale = isPlainObject(subresources) ? subresources.scale : undefined;
  if (!isPlainObject(scale) || typeof scale.specReplicasPath !== 'string' || typeof scale.statusReplicasPath !== 'string') return undefined;
  return {
    specReplicasPath: scale.specReplicasPath,
    spec: splitPath(scale.specReplicasPath),
    status: splitPath(scale.statusReplicasPath),
    labelSelector: typeof scale.labelSelectorPath === 'string' && scale.labelSelectorPath !== '' ? splitPath(scale.labelSelectorPath) : undefined,
    builtin: false,
  };
}

function valueAt(o: unknown, path: readonly string[]): unknown {
  let v = o;
  for (const k of path) {
    if (!isPlainObject(v)) return undefined;
    v = v[k];
  }
  return v;
}

function setAt(o: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = o;
  for (const k of path.slice(0, -1)) {
    if (!isPlainObject(node[k])) node[k] = {};
    node = node[k] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}

/** Go's `%T` for what unstructured JSON holds. */
function goType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** unstructured.NestedInt64: the value, 0 when absent, or the accessor error upstream reports. */
function nestedInt(o: unknown, path: readonly string[]): { value: number; found: boolean; error?: string } {
  const v = valueAt(o, path);
  if (v === undefined || v === null) return { value: 0, found: false };
  if (typeof v === 'number' && Number.isInteger(v)) return { value: v, found: true };
  return { value: 0, found: false, error: `.${path.join('.')} accessor error: ${String(v)} is of the type ${goType(v)}, expected int64` };
}

function selectorOf(sub: ScaleSubresource, o: ObjectWithMeta): string {
  if (sub.builtin) {
    const text = formatLabelSelector(valueAt(o, ['spec', 'selector']));
    return text === '<none>' ? '' : text;
  }
  if (sub.labelSelector === undefined) return '';
  const v = valueAt(o, sub.labelSelector);
  return typeof v === 'string' ? v : '';
}

/** The Scale of an object, fields in the order of the Go struct (no managedFields: upstream never serves them on a Scale). */
function scaleOf(sub: ScaleSubresource, o: ObjectWithMeta): ObjectWithMeta & { spec: { replicas?: number }; status: { replicas: number; selector?: string } } {
  const m = o.metadata;
  const metadata: ObjectWithMeta['metadata'] = { name: m.name };
  if (m.namespace) metadata.namespace = m.namespace;
  metadata.uid = m.uid;
  metadata.resourceVersion = m.resourceVersion;
  metadata.creationTimestamp = m.creationTimestamp;
  const replicas = nestedInt(o, sub.spec);
  const spec: { replicas?: number } = {};
  if (replicas.value !== 0) spec.replicas = replicas.value;
  const status: { replicas: number; selector?: string } = { replicas: nestedInt(o, sub.status).value };
  const selector = selectorOf(sub, o);
  if (selector) status.selector = selector;
  return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata, spec, status };
}

function scaleNotFound(t: ResourceType, sub: ScaleSubresource, name: string): StatusError {
  // Built-in workloads name the subresource (`deployments/scale.apps`); custom resources their kind's resource.
  return notFound({ group: t.group, resource: sub.builtin ? `${t.resource}/scale` : t.resource }, name);
}

function loadParent(cluster: LogicalCluster, t: ResourceType, sub: ScaleSubresource, namespace: string, name: string): ObjectWithMeta {
  const stored = cluster.store.get(resourceKey(t), t.namespaced ? namespace : '', name);
  if (!stored) throw scaleNotFound(t, sub, name);
  return cluster.decode(t, stored.json);
}

/** GET `.../<resource>/<name>/scale`. */
export function getScale(cluster: LogicalCluster, t: ResourceType, namespace: string, name: string): string {
  const sub = scaleSubresourceOf(t)!;
  const parent = loadParent(cluster, t, sub, namespace, name);
  if (!sub.builtin) {
    const replicas = nestedInt(parent, sub.spec);
    if (replicas.error) throw internalError(replicas.error);
    if (!replicas.found) throw internalError(`the spec replicas field ${JSON.stringify(sub.specReplicasPath)} does not exist`);
  }
  return JSON.stringify(scaleOf(sub, parent));
}

function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/** The replicas path of each version the kind's managedFields may name (CRD versions without scale map to undefined). */
function replicasPaths(cluster: LogicalCluster, t: ResourceType): ReplicasPaths {
  const out = new Map<string, readonly string[] | undefined>();
  if (!t.crd) {
    for (const v of BUILTIN_SCALABLE[t.resource]) out.set(v, ['f:spec', 'f:replicas']);
    return out;
  }
  const crdType = BUILTIN_TYPES.find((x) => x.kind === 'CustomResourceDefinition')!;
  const crd = cluster.tryGet(crdType, '', t.crd.name);
  const versions = ((crd?.spec as JsonObject | undefined)?.versions as JsonObject[] | undefined) ?? [];
  for (const v of versions) {
    const scale = isPlainObject(v.subresources) ? v.subresources.scale : undefined;
    const path = isPlainObject(scale) && typeof scale.specReplicasPath === 'string' ? splitPath(scale.specReplicasPath).map((k) => `f:${k}`) : undefined;
    out.set(`${t.group}/${String(v.name)}`, path);
  }
  return out;
}

export interface ScaleWrite {
  /** PUT: the Scale sent. */
  body?: unknown;
  /** PATCH: its type and body. */
  patchType?: PatchType;
  patch?: unknown;
  force?: boolean;
}

/** How many times a write that named no resourceVersion is tried again when the object changed meanwhile. */
const ATTEMPTS = 5;

/** PUT or PATCH `.../<resource>/<name>/scale`: answers the Scale after the write. */
export async function writeScale(cluster: LogicalCluster, t: ResourceType, namespace: string, name: string, w: ScaleWrite, opts: WriteOptions): Promise<string> {
  const sub = scaleSubresourceOf(t)!;
  for (let attempt = 1; ; attempt++) {
    const parent = loadParent(cluster, t, sub, namespace, name);
    const paths = replicasPaths(cluster, t);
    const oldScale = scaleOf(sub, parent);
    if (!sub.builtin && !nestedInt(parent, sub.spec).found) oldScale.spec = { replicas: MISSING_REPLICAS };
    oldScale.metadata.managedFields = toScaleEntries(parent.metadata.managedFields ?? [], paths);
    const next = changedScale(t, name, namespace, oldScale, w, opts);
    const replicas = checkScale(t, sub, parent, next);
    const updated = deepClone(parent);
    setAt(updated as Record<string, unknown>, sub.spec, replicas);
    const entries = toParentEntries(parent.metadata.managedFields ?? [], next.metadata.managedFields ?? [], paths, groupVersion(t));
    if (entries.length > 0) updated.metadata.managedFields = entries;
    else delete updated.metadata.managedFields;
    if (!opts.internal && cluster.admitter) {
      await cluster.admitter.admit(cluster, {
        type: t,
        kind: SCALE_KIND,
        operation: 'UPDATE',
        object: next,
        oldObject: oldScale,
        namespace: parent.metadata.namespace ?? '',
        name,
        subresource: 'scale',
        dryRun: !!opts.dryRun,
        user: opts.user,
        fieldManager: opts.explicitFieldManager ? opts.fieldManager : undefined,
      });
    }
    try {
      const result = await cluster.updateFromSubresource(t, parent, updated, 'scale', opts);
      return JSON.stringify(scaleOf(sub, result.object));
    } catch (e) {
      // Like upstream's guaranteed update: without a resourceVersion of its own, the write applies to whatever is there.
      const retry = e instanceof StatusError && e.code === 409 && e.reason === 'Conflict' && !namesResourceVersion(w) && attempt < ATTEMPTS;
      if (!retry) throw e;
    }
  }
}

function namesResourceVersion(w: ScaleWrite): boolean {
  const carries = (o: unknown) => isPlainObject(o) && isPlainObject(o.metadata) && o.metadata.resourceVersion !== undefined && o.metadata.resourceVersion !== '';
  if (w.patchType === undefined) return carries(w.body);
  if (w.patchType === 'json') return Array.isArray(w.patch) && w.patch.some((op) => isPlainObject(op) && typeof op.path === 'string' && op.path.startsWith('/metadata/resourceVersion'));
  return carries(w.patch);
}

/** The Scale the request asks for, with the managedFields its field manager records. */
function changedScale(t: ResourceType, name: string, namespace: string, oldScale: ObjectWithMeta, w: ScaleWrite, opts: WriteOptions): ObjectWithMeta {
  const manager = opts.fieldManager ?? 'unknown';
  const time = nowRfc3339();
  if (w.patchType === 'apply') {
    const cfg = asScale(w.patch, name, namespace);
    return applyPatch({ live: oldScale, applied: cfg, previous: oldScale.metadata.managedFields ?? [], manager, apiVersion: 'autoscaling/v1', subresource: 'scale', time, force: w.force ?? false, schema: SCALE_SCHEMA });
  }
  let next: ObjectWithMeta;
  if (w.patchType === undefined) next = asScale(w.body, name, namespace);
  else {
    const base = deepClone(oldScale) as unknown as JsonObject;
    const patched = w.patchType === 'merge' ? mergePatch(base, w.patch) : w.patchType === 'json' ? jsonPatch(base, w.patch) : strategicMergePatch(base, w.patch as JsonObject, SCALE_SCHEMA);
    if (!isPlainObject(patched)) throw badRequest('the server rejected our request due to an error in our request');
    next = asScale(patched, name, namespace);
  }
  const managedFields = recordUpdate({ oldObject: oldScale, newObject: next, previous: oldScale.metadata.managedFields ?? [], manager, apiVersion: 'autoscaling/v1', subresource: 'scale', time, schema: SCALE_SCHEMA });
  next.metadata.managedFields = managedFields;
  return next;
}

/** A request body as a Scale: the kind checked, name and namespace matched against the URL. */
function asScale(body: unknown, name: string, namespace: string): ObjectWithMeta {
  if (!isPlainObject(body)) throw badRequest('the object provided is unrecognized (must be of type Scale)');
  const o = deepClone(body) as ObjectWithMeta;
  const kind = o.kind;
  const gv = o.apiVersion;
  if ((kind !== undefined && kind !== '' && kind !== 'Scale') || (gv !== undefined && gv !== '' && gv !== 'autoscaling/v1')) {
    const v = typeof gv === 'string' && gv.includes('/') ? gv.split('/')[1] : String(gv);
    throw badRequest(`${String(kind)} in version "${v}" cannot be handled as a Scale: no kind "${String(kind)}" is registered for version "${String(gv)}"`);
  }
  if (!isPlainObject(o.metadata)) o.metadata = {};
  if (o.metadata.name !== undefined && o.metadata.name !== name) throw badRequest(`the name of the object (${String(o.metadata.name)}) does not match the name on the URL (${name})`);
  if (namespace && o.metadata.namespace && o.metadata.namespace !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  const replicas = isPlainObject(o.spec) ? o.spec.replicas : undefined;
  if (replicas !== undefined && replicas !== null && !(typeof replicas === 'number' && Number.isInteger(replicas) && Math.abs(replicas) <= 2 ** 31)) {
    throw badRequest(`Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas === 'number' ? 'number' : typeof replicas === 'string' ? 'string' : 'object'} into Go struct field ScaleSpec.spec.replicas of type int32`);
  }
  o.kind = 'Scale';
  o.apiVersion = 'autoscaling/v1';
  return o;
}

/** Upstream's checks of a Scale write; returns the replicas to store. */
function checkScale(t: ResourceType, sub: ScaleSubresource, parent: ObjectWithMeta, next: ObjectWithMeta): number {
  const name = parent.metadata.name ?? '';
  const spec = isPlainObject(next.spec) ? next.spec : {};
  const replicas = typeof spec.replicas === 'number' ? spec.replicas : 0;
  if (sub.builtin) {
    if (replicas < 0) throw invalid('Scale', 'autoscaling', name, [fieldErrors.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
    const uid = next.metadata.uid;
    if (uid && uid !== parent.metadata.uid) {
      throw conflict({ group: t.group, resource: `${t.resource}/scale` }, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${parent.metadata.uid}`);
    }
  } else if (replicas === MISSING_REPLICAS) {
    throw badRequest(`the spec replicas field ${JSON.stringify(sub.specReplicasPath)} cannot be empty`);
  }
  const rv = next.metadata.resourceVersion;
  if (rv && rv !== parent.metadata.resourceVersion) throw conflict({ group: t.group, resource: t.resource }, name, MODIFIED);
  return replicas;
}

/**
 * What a custom resource's CRD version with a scale subresource requires of every write: the
 * replicas at both paths integers from 0 to 2147483647, the selector (if any) a string.
 */
export function validateScalePaths(t: ResourceType, obj: ObjectWithMeta): FieldError[] {
  const sub = t.crd ? scaleSubresourceOf(t) : undefined;
  if (sub === undefined) return [];
  const errs: FieldError[] = [];
  const scale = isPlainObject(t.crd!.version.subresources) ? (t.crd!.version.subresources.scale as JsonObject) : {};
  for (const [path, text] of [
    [sub.spec, String(scale.specReplicasPath)],
    [sub.status, String(scale.statusReplicasPath)],
  ] as const) {
    const r = nestedInt(obj, path);
    if (r.error) errs.push(fieldErrors.invalid(text, r.value, r.error));
    else if (r.value < 0) errs.push(fieldErrors.invalid(text, r.value, 'should be a non-negative integer'));
    else if (r.value > INT32_MAX) errs.push(fieldErrors.invalid(text, r.value, `should be less than or equal to ${INT32_MAX}`));
  }
  if (sub.labelSelector !== undefined) {
    const v = valueAt(obj, sub.labelSelector);
    if (v !== undefined && v !== null && typeof v !== 'string') {
      errs.push(fieldErrors.invalid(String(scale.labelSelectorPath), '', `.${sub.labelSelector.join('.')} accessor error: ${String(v)} is of the type ${goType(v)}, expected string`));
    }
  }
  return errs;
}
