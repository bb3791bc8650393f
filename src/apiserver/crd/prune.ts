// Structural pruning: drops fields a CRD schema does not specify, as kube-apiserver does when it
// decodes a custom resource (request bodies and storage reads alike).
import { isPlainObject } from '../../kube/json.js';
import { additionalProperties, hasDefault, isEmbeddedResource, isNullable, items, preservesUnknown, property, type JSONSchemaProps } from './schema-access.js';

const resourceMetaFields = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Removes fields the schema does not know. Mutates obj. `report` is told the path of each removed
 * field as Go's strict decoder names it (`spec.items[0].extra`), for server-side field validation.
 */
export function prune(schema: JSONSchemaProps, obj: Record<string, unknown>, report?: (path: string) => void): void {
  pruneValue(obj, schema, true, report ? { report, at: [] } : undefined);
  pruneNonNullableNulls(obj, schema);
}

/** Where the walk is (keys and list indexes, kept only when someone wants removed fields reported). */
interface Trail {
  report: (path: string) => void;
  at: (string | number)[];
}

/** `spec.items[0].extra`: keys joined by dots, list indexes in brackets. */
function pathOf(at: (string | number)[], last: string): string {
  let out = '';
  for (const seg of [...at, last]) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out;
}

function pruneValue(x: unknown, s: JSONSchemaProps | undefined, isResourceRoot: boolean, trail?: Trail): void {
  if (s !== undefined && preservesUnknown(s)) {
    descendKnown(x, s, isResourceRoot, trail);
    return;
  }
  if (Array.isArray(x)) {
    const itemSchema = s === undefined ? undefined : items(s);
    for (let i = 0; i < x.length; i++) {
      trail?.at.push(i);
      pruneValue(x[i], itemSchema, false, trail);
      trail?.at.pop();
    }
    return;
  }
  if (!isPlainObject(x)) return;
  const embedded = isResourceRoot || (s !== undefined && isEmbeddedResource(s));
  const extra = additionalProperties(s);
  for (const k of Object.keys(x)) {
    if (embedded && resourceMetaFields.has(k)) continue;
    const prop = property(s, k) ?? extra;
    if (prop === undefined) {
      delete x[k];
      if (trail) trail.report(pathOf(trail.at, k));
      continue;
    }
    trail?.at.push(k);
    pruneValue(x[k], prop, isEmbeddedResource(prop), trail);
    trail?.at.pop();
  }
}

/** Under x-kubernetes-preserve-unknown-fields unknown keys stay, but known ones are still pruned. */
function descendKnown(x: unknown, s: JSONSchemaProps, isResourceRoot: boolean, trail?: Trail): void {
  if (Array.isArray(x)) {
    const itemSchema = items(s);
    if (itemSchema === undefined) return;
    for (let i = 0; i < x.length; i++) {
      trail?.at.push(i);
      descendKnown(x[i], itemSchema, false, trail);
      trail?.at.pop();
    }
    return;
  }
  if (!isPlainObject(x)) return;
  const embedded = isResourceRoot || isEmbeddedResource(s);
  const extra = additionalProperties(s);
  for (const k of Object.keys(x)) {
    if (embedded && resourceMetaFields.has(k)) continue;
    const prop = property(s, k) ?? extra;
    if (prop === undefined) continue;
    trail?.at.push(k);
    pruneValue(x[k], prop, isEmbeddedResource(prop), trail);
    trail?.at.pop();
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
