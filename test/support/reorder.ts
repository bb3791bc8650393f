// The same JSON value with object keys in reverse order at every level: what a server that encodes
// objects differently (kube-apiserver sorts custom resources' keys) hands back for an equal value.
import { isPlainObject } from '../../src/kube/json.js';

export function reversedKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(reversedKeys) as T;
  if (!isPlainObject(v)) return v;
  return Object.fromEntries(Object.keys(v).reverse().map((k) => [k, reversedKeys(v[k])])) as T;
}
