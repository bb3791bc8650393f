// Small accessors for walking object JSON without casts at every step.
import { isPlainObject } from '../../kube/json.js';

export type Obj = Record<string, unknown>;

export function asObj(v: unknown): Obj | undefined {
  return isPlainObject(v) ? v : undefined;
}

export function asArr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** The objects of an array field (non-objects skipped). */
export function objItems(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isPlainObject) : [];
}

export function asStr(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The object at `o[key]`, created when missing. */
export function ensureObj(o: Obj, key: string): Obj {
  const v = o[key];
  if (isPlainObject(v)) return v;
  const fresh: Obj = {};
  o[key] = fresh;
  return fresh;
}

export function setDefault(o: Obj, key: string, value: unknown): void {
  if (o[key] === undefined || o[key] === null) o[key] = value;
}

export function isEmptyValue(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isPlainObject(v)) return Object.keys(v).length === 0;
  return false;
}

export function sortedKeys(o: Obj | undefined): string[] {
  return o ? Object.keys(o).sort() : [];
}
