// Kubernetes objects are JSON: the value types, and the helpers every part that handles raw objects
// needs (moved here from src/apiserver/types.ts).

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function deepClone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** Structural equality of JSON values, ignoring object key order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    for (const k of ka) if (!jsonEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}

/**
 * A JSON value with object keys sorted at every level (by code unit, as Go's encoding/json sorts map
 * keys), which is how kube-apiserver encodes custom resources. Parts already in order are returned
 * as they are, not copied (most stored objects are, having been decoded from sorted JSON): the
 * result may share them with `v`, so a caller that changes it must copy it first.
 */
export function sortKeys<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      const sorted = sortKeys(item);
      if (sorted !== item && !out) out = v.slice(0, i);
      out?.push(sorted);
    }
    return (out ?? v) as T;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  let inOrder = true;
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1] > keys[i]) {
      keys.sort();
      inOrder = false;
      break;
    }
  }
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const value = o[keys[i]];
    const sorted = sortKeys(value);
    if (!out && (!inOrder || sorted !== value)) {
      out = {};
      for (let j = 0; j < i; j++) out[keys[j]] = o[keys[j]];
    }
    if (out) out[keys[i]] = sorted;
  }
  return (out ?? o) as T;
}

/** JSON text with object keys sorted at every level: equal values give equal text, whatever their key order. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}
