// Walks objects with their schema: the field set an apply configuration claims, and what changed between two objects.
import { type JsonValue, isPlainObject, jsonEqual } from '../../kube/json.js';
import { FieldSet, fieldKey, listMapKey, setValueKey } from './fieldset.js';
import type { SchemaNode } from './schema.js';
import { childOf, isAtomicMap, listSemantics } from './schema.js';

/** Metadata the server owns; never tracked in managedFields (upstream strips these exact paths). */
export const untrackedMetadata = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
  'clusterName',
]);

const untrackedTopLevel = new Set(['apiVersion', 'kind']);

/** Keys of a map that a walk skips: server-owned fields at the object's top level and in its metadata. */
function skipKey(depth: number, parentKey: string | undefined, key: string): boolean {
  if (depth === 0) return untrackedTopLevel.has(key);
  return depth === 1 && parentKey === 'metadata' && untrackedMetadata.has(key);
}

type Shape = 'leaf' | 'map' | 'list';

function shapeOf(schema: SchemaNode | undefined, v: unknown): Shape {
  if (Array.isArray(v)) return listSemantics(schema).kind === 'atomic' ? 'leaf' : 'list';
  if (isPlainObject(v)) return isAtomicMap(schema) ? 'leaf' : 'map';
  return 'leaf';
}

/** The path element naming one list item, or undefined when the item cannot be keyed (it is then skipped). */
export function itemKey(schema: SchemaNode | undefined, item: unknown, index: number): string | undefined {
  const sem = listSemantics(schema);
  if (sem.kind === 'set') return setValueKey(item);
  if (sem.kind === 'map') return isPlainObject(item) ? listMapKey(item, sem.keys, schema?.listMapKeyDefaults) : undefined;
  return `i:${index}`;
}

// ---- the set an apply configuration claims ----

export function toFieldSet(obj: Record<string, unknown>, schema: SchemaNode): FieldSet {
  const root = new FieldSet();
  claimMap(obj, schema, root, 0, undefined);
  root.member = false;
  return root;
}

function claimValue(v: unknown, schema: SchemaNode | undefined, node: FieldSet, depth: number, key: string | undefined): void {
  const shape = shapeOf(schema, v);
  if (shape === 'leaf') node.member = true;
  else if (shape === 'map') claimMap(v as Record<string, unknown>, schema, node, depth, key);
  else claimList(v as unknown[], schema, node, depth);
}

function claimMap(obj: Record<string, unknown>, schema: SchemaNode | undefined, node: FieldSet, depth: number, parentKey: string | undefined): void {
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (v === undefined || skipKey(depth, parentKey, key)) continue;
    const { schema: childSchema, declared } = childOf(schema, key);
    const child = node.descend(fieldKey(key));
    claimValue(v, childSchema, child, depth + 1, key);
    // Undeclared map entries, nulls and empty maps are owned as nodes of their own.
    if (v === null || !declared || (isPlainObject(v) && Object.keys(v).length === 0)) child.member = true;
    if (child.children === undefined && !child.member) node.children!.delete(fieldKey(key));
  }
}

function claimList(list: unknown[], schema: SchemaNode | undefined, node: FieldSet, depth: number): void {
  for (let i = 0; i < list.length; i++) {
    const key = itemKey(schema, list[i], i);
    if (key === undefined) continue;
    const child = node.descend(key);
    claimValue(list[i], schema?.items, child, depth + 1, undefined);
    child.member = true;
  }
}

// ---- what changed between two objects ----

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function isSame(c: Comparison): boolean {
  return c.added.isEmpty() && c.modified.isEmpty() && c.removed.isEmpty();
}

/** `undefined` means absent; `null` is a present value (upstream treats it so). */
export function compare(oldObj: Record<string, unknown>, newObj: Record<string, unknown>, schema: SchemaNode): Comparison {
  const out: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  const path: string[] = [];
  compareMap(oldObj, newObj, schema, path, out, 0, undefined);
  return out;
}

function isEmptyish(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isPlainObject(v) && Object.keys(v).length === 0;
}

function compareValue(l: unknown, r: unknown, schema: SchemaNode | undefined, path: string[], out: Comparison, depth: number, key: string | undefined): void {
  // A null side takes its shape from the other side (null containers becoming a list descends into the items).
  const ls = l === undefined || l === null ? undefined : shapeOf(schema, l);
  const rs = r === undefined || r === null ? undefined : shapeOf(schema, r);
  const shape = ls ?? rs ?? 'leaf';
  // Nothing-to-nothing (absent, null or empty on both sides) compares as a leaf, keeping the empty/null distinction.
  const leaf = shape === 'leaf' || (ls !== undefined && rs !== undefined && ls !== rs) || (isEmptyish(l) && isEmptyish(r));
  if (leaf) {
    if (l === undefined) out.added.insert(path);
    else if (r === undefined) out.removed.insert(path);
    else if (!jsonEqual(l, r)) out.modified.insert(path);
    return;
  }
  if (shape === 'map') compareMap(asMap(l), asMap(r), schema, path, out, depth, key);
  else compareList(asList(l), asList(r), schema, path, out, depth);
  if (l === undefined) out.added.insert(path);
  else if (r === undefined) out.removed.insert(path);
}

function asMap(v: unknown): Record<string, unknown> | undefined {
  return isPlainObject(v) ? v : undefined;
}

function asList(v: unknown): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

function compareMap(l: Record<string, unknown> | undefined, r: Record<string, unknown> | undefined, schema: SchemaNode | undefined, path: string[], out: Comparison, depth: number, parentKey: string | undefined): void {
  if (l !== undefined) {
    for (const key of Object.keys(l)) {
      if (skipKey(depth, parentKey, key)) continue;
      const lv = l[key];
      const rv = r?.[key];
      if (lv === undefined && rv === undefined) continue;
      path.push(fieldKey(key));
      compareValue(lv, rv, childOf(schema, key).schema, path, out, depth + 1, key);
      path.pop();
    }
  }
  if (r !== undefined) {
    for (const key of Object.keys(r)) {
      if ((l !== undefined && l[key] !== undefined) || r[key] === undefined || skipKey(depth, parentKey, key)) continue;
      path.push(fieldKey(key));
      compareValue(undefined, r[key], childOf(schema, key).schema, path, out, depth + 1, key);
      path.pop();
    }
  }
}

export function indexItems(list: unknown[] | undefined, schema: SchemaNode | undefined): Map<string, JsonValue> {
  const byKey = new Map<string, JsonValue>();
  if (list === undefined) return byKey;
  for (let i = 0; i < list.length; i++) {
    const key = itemKey(schema, list[i], i);
    if (key !== undefined && !byKey.has(key)) byKey.set(key, list[i] as JsonValue);
  }
  return byKey;
}

function compareList(l: unknown[] | undefined, r: unknown[] | undefined, schema: SchemaNode | undefined, path: string[], out: Comparison, depth: number): void {
  const left = indexItems(l, schema);
  const right = indexItems(r, schema);
  for (const [key, lv] of left) {
    path.push(key);
    compareValue(lv, right.get(key), schema?.items, path, out, depth + 1, undefined);
    path.pop();
  }
  for (const [key, rv] of right) {
    if (left.has(key)) continue;
    path.push(key);
    compareValue(undefined, rv, schema?.items, path, out, depth + 1, undefined);
    path.pop();
  }
}
