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
 * A copy of a JSON value with object keys sorted at every level (by code unit, as Go's encoding/json
 * sorts map keys), which is how kube-apiserver encodes custom resources. Keys already in order are
 * not sorted again.
 */
export function sortKeys<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(sortKeys) as T;
  const keys = Object.keys(v);
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1] > keys[i]) {
      keys.sort();
      break;
    }
  }
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = sortKeys((v as Record<string, unknown>)[k]);
  return out as T;
}

/** JSON text with object keys sorted at every level: equal values give equal text, whatever their key order. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}
