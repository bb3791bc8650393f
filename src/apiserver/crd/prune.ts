// Structural pruning: drops fields a CRD schema does not specify, as kube-apiserver does when it
// decodes a custom resource (request bodies and storage reads alike).
import { isPlainObject } from '../../kube/json.js';
import { additionalProperties, hasDefault, isEmbeddedResource, isNullable, items, preservesUnknown, property, type JSONSchemaProps } from './schema-access.js';

const resourceMetaFields = new Set(['apiVersion', 'kind', 'metadata']);

/** Removes fields the schema does not know. Mutates obj. */
export function prune(schema: JSONSchemaProps, obj: Record<string, unknown>): void {
  pruneValue(obj, schema, true);
  pruneNonNullableNulls(obj, schema);
}

function pruneValue(x: unknown, s: JSONSchemaProps | undefined, isResourceRoot: boolean): void {
  if (s !== undefined && preservesUnknown(s)) {
    descendKnown(x, s, isResourceRoot);
    return;
  }
  if (Array.isArray(x)) {
    const itemSchema = s === undefined ? undefined : items(s);
    for (const v of x) pruneValue(v, itemSchema, false);
    return;
  }
  if (!isPlainObject(x)) return;
  const embedded = isResourceRoot || (s !== undefined && isEmbeddedResource(s));
  const extra = additionalProperties(s);
  for (const k of Object.keys(x)) {
    if (embedded && resourceMetaFields.has(k)) continue;
    const prop = property(s, k);
    if (prop !== undefined) pruneValue(x[k], prop, isEmbeddedResource(prop));
    else if (extra !== undefined) pruneValue(x[k], extra, isEmbeddedResource(extra));
    else delete x[k];
  }
}

/** Under x-kubernetes-preserve-unknown-fields unknown keys stay, but known ones are still pruned. */
function descendKnown(x: unknown, s: JSONSchemaProps, isResourceRoot: boolean): void {
  if (Array.isArray(x)) {
    const itemSchema = items(s);
    if (itemSchema !== undefined) for (const v of x) descendKnown(v, itemSchema, false);
    return;
  }
  if (!isPlainObject(x)) return;
  const embedded = isResourceRoot || isEmbeddedResource(s);
  const extra = additionalProperties(s);
  for (const k of Object.keys(x)) {
    if (embedded && resourceMetaFields.has(k)) continue;
    const prop = property(s, k) ?? extra;
    if (prop !== undefined) pruneValue(x[k], prop, isEmbeddedResource(prop));
  }
}

/** Drops `null` values the schema neither allows (nullable) nor defaults. */
function pruneNonNullableNulls(x: unknown, s: JSONSchemaProps | undefined): void {
  if (s === undefined) return;
  if (Array.isArray(x)) {
    const itemSchema = items(s);
    for (const v of x) pruneNonNullableNulls(v, itemSchema);
    return;
  }
  if (!isPlainObject(x)) return;
  const extra = additionalProperties(s);
  for (const k of Object.keys(x)) {
    const prop = property(s, k) ?? extra;
    if (prop === undefined) continue;
    if (x[k] === null && !hasDefault(prop) && !isNullable(prop)) delete x[k];
    else pruneNonNullableNulls(x[k], prop);
  }
}
