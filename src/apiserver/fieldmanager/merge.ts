// Applying a configuration onto a live object: the merge, and the removal of fields an applier let go of.
import { type JsonValue, isPlainObject } from '../../kube/json.js';
import type { FieldSet } from './fieldset.js';
import type { SchemaNode } from './schema.js';
import { childOf, isAtomicMap, listSemantics } from './schema.js';
import { itemKey } from './typed.js';

/** Copies JSON without a serialize/parse round trip. */
export function copyJson<T>(v: T): T {
  if (Array.isArray(v)) return v.map(copyJson) as T;
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) if (v[k] !== undefined) out[k] = copyJson(v[k]);
    return out as T;
  }
  return v;
}

/**
 * The live object with the configuration laid over it; a fresh tree that shares nothing with either input.
 * Maps merge key by key, list-maps by key and sets by value (items new to the live list go after the
 * live items they follow in the configuration); leaves, atomic lists and atomic maps are replaced.
 * A null in the configuration removes the field (the applier still owns it).
 */
export function mergeApplied(live: Record<string, unknown>, config: Record<string, unknown>, schema: SchemaNode): Record<string, unknown> {
  return mergeMap(live, config, schema, 0);
}

function mergeValue(l: unknown, c: unknown, schema: SchemaNode | undefined, depth: number): unknown {
  if (l === undefined || l === null) return stripNulls(c);
  if (Array.isArray(c) && Array.isArray(l) && listSemantics(schema).kind !== 'atomic') return mergeList(l, c, schema, depth);
  if (isPlainObject(c) && isPlainObject(l) && !isAtomicMap(schema)) return mergeMap(l, c, schema, depth);
  return stripNulls(c);
}

function stripNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripNulls);
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) if (v[k] !== null && v[k] !== undefined) out[k] = stripNulls(v[k]);
    return out;
  }
  return v;
}

function mergeMap(l: Record<string, unknown>, c: Record<string, unknown>, schema: SchemaNode | undefined, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(l)) {
    const lv = l[k];
    if (lv === undefined) continue;
    const cv = c[k];
    if (cv === undefined || (depth === 1 && k === 'managedFields')) out[k] = copyJson(lv);
    else if (cv !== null) out[k] = mergeValue(lv, cv, childOf(schema, k).schema, depth + 1);
  }
  for (const k of Object.keys(c)) {
    const cv = c[k];
    if (k in out || cv === undefined || cv === null || (l[k] !== undefined && l[k] !== null)) continue;
    if (depth === 1 && k === 'managedFields') continue;
    out[k] = stripNulls(cv);
  }
  return out;
}

function mergeList(l: unknown[], c: unknown[], schema: SchemaNode | undefined, depth: number): unknown[] {
  const lKeys = l.map((item, i) => itemKey(schema, item, i));
  const cKeys = c.map((item, i) => itemKey(schema, item, i));
  const liveByKey = new Map<string, unknown>();
  lKeys.forEach((k, i) => {
    if (k !== undefined && !liveByKey.has(k)) liveByKey.set(k, l[i]);
  });
  const inConfig = new Set(cKeys.filter((k): k is string => k !== undefined));
  const out: unknown[] = [];
  const emitted = new Set<string>();
  const emitConfig = (j: number): void => {
    const key = cKeys[j];
    if (key !== undefined) {
      if (emitted.has(key)) return;
      emitted.add(key);
    }
    const lv = key === undefined ? undefined : liveByKey.get(key);
    out.push(mergeValue(lv, c[j], schema?.items, depth + 1));
  };
  let i = 0;
  let j = 0;
  while (i < l.length || j < c.length) {
    const lk = lKeys[i];
    if (i < l.length && lk !== undefined && emitted.has(lk)) {
      i++;
      continue;
    }
    if (i < l.length && (lk === undefined || !inConfig.has(lk))) {
      // Live items the configuration does not mention keep their place.
      out.push(copyJson(l[i]));
      if (lk !== undefined) emitted.add(lk);
      i++;
      continue;
    }
    if (j < c.length) {
      emitConfig(j);
      j++;
      continue;
    }
    i++;
  }
  return out;
}

/**
 * Removes, in place, the fields `released` (what the applier owned before and no longer applies)
 * that nobody in `kept` still owns. A released struct field (one the schema declares) goes as a
 * whole, with whatever is left below it, unless someone owns anything below it: structured-merge-diff
 * counts a declared field with released fields below it as released itself
 * (EnsureNamedFieldsAreMembers), so dropping `spec.resource` from an apply removes the field rather
 * than leaving `resource: {metadata: {}}`. A released list item or map entry goes as a whole.
 */
export function pruneReleased(obj: Record<string, unknown>, released: FieldSet, kept: FieldSet, schema: SchemaNode): void {
  pruneMap(obj, released, kept, schema, true);
}

function shouldRemove(released: FieldSet, kept: FieldSet | undefined, declared: boolean): boolean {
  if (kept?.member) return false;
  if (!released.member && !(declared && released.hasMembers())) return false;
  return !(declared && kept !== undefined && kept.hasMembers());
}

function pruneMap(obj: Record<string, unknown>, released: FieldSet, kept: FieldSet | undefined, schema: SchemaNode | undefined, top = false): void {
  if (released.children === undefined) return;
  for (const [key, rel] of released.children) {
    if (key[0] !== 'f') continue;
    const name = key.slice(2);
    const value = obj[name];
    if (value === undefined) continue;
    const { schema: childSchema, declared } = childOf(schema, name);
    const keptChild = kept?.child(key);
    // Every configuration holds metadata.name, which managedFields never track: metadata stays.
    if (!(top && name === 'metadata') && shouldRemove(rel, keptChild, declared)) {
      delete obj[name];
      continue;
    }
    pruneValue(obj, name, value, rel, keptChild, childSchema);
  }
}

function pruneValue(parent: Record<string, unknown> | unknown[], slot: string | number, value: unknown, released: FieldSet, kept: FieldSet | undefined, schema: SchemaNode | undefined): void {
  if (released.children === undefined) return;
  if (isPlainObject(value)) pruneMap(value, released, kept, schema);
  else if (Array.isArray(value)) {
    const next = pruneList(value, released, kept, schema);
    if (next !== value) (parent as Record<string, unknown>)[slot as string] = next as JsonValue;
  }
}

function pruneList(list: unknown[], released: FieldSet, kept: FieldSet | undefined, schema: SchemaNode | undefined): unknown[] {
  let removedAny = false;
  const keep: boolean[] = [];
  for (let i = 0; i < list.length; i++) {
    const key = itemKey(schema, list[i], i);
    const rel = key === undefined ? undefined : released.child(key);
    if (rel === undefined) {
      keep.push(true);
      continue;
    }
    const keptChild = kept?.child(key!);
    if (shouldRemove(rel, keptChild, false)) {
      keep.push(false);
      removedAny = true;
      continue;
    }
    keep.push(true);
    if (isPlainObject(list[i])) pruneMap(list[i] as Record<string, unknown>, rel, keptChild, schema?.items);
  }
  return removedAny ? list.filter((_, i) => keep[i]) : list;
}
