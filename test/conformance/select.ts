// The `select` expressions of scenarios: keep one part of a response body.
import { isPlainObject } from '../../src/kube/json.js';
import type { JsonValue } from './types.js';

const FILTER = /^([^[\]]*)\[([^=\]]+)=([^\]]*)\]$/;

/**
 * Applies a dot path. A segment `name[key=value]` keeps the elements of array `name` whose `key`
 * equals `value`; a bare `[key=value]` filters the current array. Returns undefined when nothing
 * matches the path.
 *
 * The path is split at every dot, as the recorder did: a filter value containing a dot (such as a
 * group name) therefore selects nothing, and the golden transcripts show exactly that.
 */
export function selectPath(value: JsonValue | undefined, path: string): JsonValue | undefined {
  let current = value;
  for (const segment of path.split('.')) {
    if (current === undefined) return undefined;
    const filter = FILTER.exec(segment);
    if (filter) {
      const [, name, key, wanted] = filter;
      const list = name === '' ? current : child(current, name);
      if (!Array.isArray(list)) return undefined;
      current = list.filter((item) => isPlainObject(item) && item[key] !== undefined && String(item[key]) === wanted);
    } else {
      current = child(current, segment);
    }
  }
  return current;
}

function child(value: JsonValue, key: string): JsonValue | undefined {
  if (Array.isArray(value)) return /^\d+$/.test(key) ? value[Number(key)] : undefined;
  if (isPlainObject(value)) return Object.hasOwn(value, key) ? value[key] : undefined;
  return undefined;
}
