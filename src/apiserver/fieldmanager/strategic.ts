// Strategic merge patch (application/strategic-merge-patch+json) for built-in kinds.
import { type JsonObject, type JsonValue, isPlainObject, jsonEqual } from '../../kube/json.js';
import type { SchemaNode } from './schema.js';
import { childOf } from './schema.js';

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const ORDER_PREFIX = '$setElementOrder/';
const DELETE_PRIMITIVE_PREFIX = '$deleteFromPrimitiveList/';

/**
 * Lists merged by patchMergeKey, $patch: delete/replace, $setElementOrder, $deleteFromPrimitiveList,
 * $retainKeys; null deletes. `original` is not modified; unchanged parts are shared with the result.
 */
export function strategicMergePatch(original: JsonObject, patch: JsonObject, schema: SchemaNode): JsonObject {
  return mergeMap(original, patch, schema) ?? {};
}

function isDirectiveKey(k: string): boolean {
  return k === PATCH || k === RETAIN_KEYS || k.startsWith(ORDER_PREFIX) || k.startsWith(DELETE_PRIMITIVE_PREFIX);
}

/** The patch as a plain value: directives and nulls (deletions of nothing) removed. */
function clean(v: JsonValue): JsonValue {
  if (Array.isArray(v)) {
    return v.filter((item) => !(isPlainObject(item) && item[PATCH] !== undefined && Object.keys(item).length === 1)).map(clean);
  }
  if (isPlainObject(v)) {
    const out: JsonObject = {};
    for (const [k, child] of Object.entries(v)) {
      if (isDirectiveKey(k) || child === null) continue;
      out[k] = clean(child);
    }
    return out;
  }
  return v;
}

/** undefined means "delete this map" ($patch: delete). */
function mergeMap(original: JsonObject, patch: JsonObject, schema: SchemaNode | undefined): JsonObject | undefined {
  const directive = patch[PATCH];
  if (directive === 'delete') return undefined;
  if (directive === 'replace') return clean(patch) as JsonObject;

  const out: JsonObject = { ...original };
  const retain = patch[RETAIN_KEYS];
  if (Array.isArray(retain)) {
    const keep = new Set(retain.filter((k): k is string => typeof k === 'string'));
    for (const k of Object.keys(out)) if (!keep.has(k) && !(k in patch)) delete out[k];
  }
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith(DELETE_PRIMITIVE_PREFIX)) {
      const field = k.slice(DELETE_PRIMITIVE_PREFIX.length);
      const current = out[field];
      if (Array.isArray(current) && Array.isArray(v)) {
        const next = current.filter((item) => !v.some((d) => jsonEqual(d, item)));
        if (next.length > 0) out[field] = next;
        else delete out[field];
      }
      continue;
    }
    if (isDirectiveKey(k)) continue;
    if (v === null) {
      delete out[k];
      continue;
    }
    const child = childOf(schema, k).schema;
    const current = out[k];
    if (isPlainObject(v)) {
      const merged = mergeMap(isPlainObject(current) ? current : {}, v, child);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else if (Array.isArray(v)) {
      out[k] = mergeList(Array.isArray(current) ? current : [], v, child);
    } else {
      out[k] = v;
    }
  }
  for (const [k, order] of Object.entries(patch)) {
    if (!k.startsWith(ORDER_PREFIX) || !Array.isArray(order)) continue;
    const field = k.slice(ORDER_PREFIX.length);
    const list = out[field];
    const before = original[field];
    if (Array.isArray(list)) out[field] = applyOrder(list, order, Array.isArray(before) ? before : [], childOf(schema, field).schema);
  }
  return out;
}

function mergeList(original: JsonValue[], patch: JsonValue[], schema: SchemaNode | undefined): JsonValue[] {
  const merging = schema?.patchStrategy?.includes('merge') ?? false;
  if (!merging) return clean(patch) as JsonValue[];
  if (patch.some((item) => isPlainObject(item) && item[PATCH] === 'replace')) return clean(patch) as JsonValue[];
  const key = schema?.patchMergeKey;
  if (key === undefined || !patch.every((item) => isPlainObject(item))) {
    // A merged list of primitives is a union, in order of first appearance.
    const out = [...original];
    for (const item of patch) if (!out.some((o) => jsonEqual(o, item))) out.push(item);
    return out;
  }
  const out = [...original];
  for (const item of patch as JsonObject[]) {
    const id = item[key];
    const at = out.findIndex((o) => isPlainObject(o) && jsonEqual(o[key], id));
    if (item[PATCH] === 'delete') {
      if (at >= 0) {
        for (let i = out.length - 1; i >= 0; i--) {
          const o = out[i];
          if (isPlainObject(o) && jsonEqual(o[key], id)) out.splice(i, 1);
        }
      }
      continue;
    }
    if (at >= 0 && isPlainObject(out[at])) {
      out[at] = mergeMap(out[at] as JsonObject, item, schema?.items) ?? {};
    } else {
      out.push(clean(item));
    }
  }
  return out;
}

/**
 * $setElementOrder: the listed items come in the given order; items the patch does not list (present only
 * on the server) keep their place relative to the listed ones, judged by their position in the original.
 */
function applyOrder(list: JsonValue[], order: JsonValue[], before: JsonValue[], schema: SchemaNode | undefined): JsonValue[] {
  const key = schema?.patchMergeKey;
  const identity = (item: JsonValue): JsonValue => (key !== undefined && isPlainObject(item) ? (item[key] ?? null) : item);
  const orderIds = order.map((o) => (key !== undefined && isPlainObject(o) ? (o[key] ?? null) : o));
  const position = (id: JsonValue): number => orderIds.findIndex((o) => jsonEqual(o, id));
  const originalIndex = (item: JsonValue): number => before.findIndex((b) => jsonEqual(identity(b), identity(item)));
  const listed = list.filter((item) => position(identity(item)) >= 0).sort((a, b) => position(identity(a)) - position(identity(b)));
  const serverOnly = list.filter((item) => position(identity(item)) < 0);
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < listed.length && j < serverOnly.length) {
    const li = originalIndex(listed[i]);
    if (li >= 0 && originalIndex(serverOnly[j]) < li) out.push(serverOnly[j++]);
    else out.push(listed[i++]);
  }
  while (i < listed.length) out.push(listed[i++]);
  while (j < serverOnly.length) out.push(serverOnly[j++]);
  return out;
}
