// Structural defaulting: fills `default` values of a CRD schema into a custom resource, as
// kube-apiserver does on create/update and when reading from storage.
import { isPlainObject } from '../../kube/json.js';
import { additionalProperties, isNullable, items, properties, type JSONSchemaProps } from './schema-access.js';

/** Applies `default` values. Mutates obj. */
export function applyDefaults(schema: JSONSchemaProps, obj: Record<string, unknown>): void {
  defaultValue(obj, schema);
}

function copyJson<T>(v: T): T {
  return typeof v === 'object' && v !== null ? (structuredClone(v) as T) : v;
}

function isNonNullableNull(v: unknown, s: JSONSchemaProps | undefined): boolean {
  return v === null && s !== undefined && !isNullable(s);
}

function defaultValue(x: unknown, s: JSONSchemaProps | undefined): void {
  if (s === undefined) return;
  if (Array.isArray(x)) {
    const itemSchema = items(s);
    if (itemSchema === undefined) return;
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], itemSchema) && itemSchema.default !== undefined) x[i] = copyJson(itemSchema.default);
      defaultValue(x[i], itemSchema);
    }
    return;
  }
  if (!isPlainObject(x)) return;
  const props = properties(s);
  if (props !== undefined) {
    for (const k of Object.keys(props)) {
      const prop = props[k];
      if (!isPlainObject(prop) || prop.default === undefined || prop.default === null) continue;
      if (!(k in x) || isNonNullableNull(x[k], prop)) x[k] = copyJson(prop.default);
    }
  }
  const extra = additionalProperties(s);
  for (const k of Object.keys(x)) {
    const prop = props !== undefined && Object.prototype.hasOwnProperty.call(props, k) && isPlainObject(props[k]) ? props[k] : undefined;
    if (prop !== undefined) defaultValue(x[k], prop);
    else if (extra !== undefined) {
      if (isNonNullableNull(x[k], extra) && extra.default !== undefined && extra.default !== null) x[k] = copyJson(extra.default);
      defaultValue(x[k], extra);
    }
  }
}
