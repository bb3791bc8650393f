// Typed reads of a JSONSchemaProps node held as plain JSON.
import { isPlainObject } from '../../kube/json.js';

export type JSONSchemaProps = Record<string, unknown>;

export function schemaType(s: JSONSchemaProps | undefined): string {
  const t = s?.type;
  return typeof t === 'string' ? t : '';
}

export function properties(s: JSONSchemaProps | undefined): Record<string, JSONSchemaProps> | undefined {
  const p = s?.properties;
  return isPlainObject(p) ? (p as Record<string, JSONSchemaProps>) : undefined;
}

export function property(s: JSONSchemaProps | undefined, name: string): JSONSchemaProps | undefined {
  const p = properties(s);
  if (p === undefined || !Object.prototype.hasOwnProperty.call(p, name)) return undefined;
  const v = p[name];
  return isPlainObject(v) ? v : undefined;
}

export function items(s: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  const i = s?.items;
  return isPlainObject(i) ? i : undefined;
}

/** additionalProperties as a schema; `true` counts as an empty schema, `false`/absent as none. */
export function additionalProperties(s: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  const a = s?.additionalProperties;
  if (isPlainObject(a)) return a;
  if (a === true) return {};
  return undefined;
}

export function flag(s: JSONSchemaProps | undefined, name: string): boolean {
  return s?.[name] === true;
}

export const preservesUnknown = (s: JSONSchemaProps | undefined): boolean => flag(s, 'x-kubernetes-preserve-unknown-fields');
export const isEmbeddedResource = (s: JSONSchemaProps | undefined): boolean => flag(s, 'x-kubernetes-embedded-resource');
export const isIntOrString = (s: JSONSchemaProps | undefined): boolean => flag(s, 'x-kubernetes-int-or-string');
export const isNullable = (s: JSONSchemaProps | undefined): boolean => flag(s, 'nullable');

export function hasDefault(s: JSONSchemaProps | undefined): boolean {
  return s !== undefined && s.default !== undefined && s.default !== null;
}

/** Schema of the child `key` of an object node: a declared property, else additionalProperties. */
export function childSchema(s: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  return property(s, key) ?? additionalProperties(s);
}
