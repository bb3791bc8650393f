// Uniqueness of x-kubernetes-list-type set / map lists, checked after the OpenAPI schema.
import type { FieldError } from '../errors.js';
import { isPlainObject, jsonEqual } from '../../kube/json.js';
import { errs } from './field-errors.js';
import { additionalProperties, items, property, type JSONSchemaProps } from './schema-access.js';

export function validateListSetsAndMaps(path: string, s: JSONSchemaProps | undefined, value: unknown, out: FieldError[]): void {
  if (s === undefined) return;
  if (Array.isArray(value)) {
    const listType = s['x-kubernetes-list-type'];
    if (listType === 'set') validateSet(path, value, out);
    else if (listType === 'map') validateMap(path, s, value, out);
    const itemSchema = items(s);
    if (itemSchema !== undefined) for (let i = 0; i < value.length; i++) validateListSetsAndMaps(`${path}[${i}]`, itemSchema, value[i], out);
    return;
  }
  if (!isPlainObject(value)) return;
  const prefix = path === '' ? '' : `${path}.`;
  const extra = additionalProperties(s);
  for (const k of Object.keys(value)) {
    const child = property(s, k) ?? extra;
    if (child !== undefined) validateListSetsAndMaps(prefix + k, child, value[k], out);
  }
}

function validateSet(path: string, list: unknown[], out: FieldError[]): void {
  for (let i = 0; i < list.length; i++) {
    for (let j = 0; j < i; j++) {
      if (jsonEqual(list[i], list[j])) {
        out.push(errs.duplicate(`${path}[${i}]`, list[i]));
        break;
      }
    }
  }
}

function validateMap(path: string, s: JSONSchemaProps, list: unknown[], out: FieldError[]): void {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isPlainObject(x)) {
      out.push(errs.invalid(`${path}[${i}]`, x, 'must be an object for an array of list-type map'));
      return;
    }
  }
  if (list.length <= 1) return;
  const keyNames = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as unknown[]).filter((k): k is string => typeof k === 'string') : [];
  const itemSchema = items(s);
  const seen = new Set<string>();
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (!isPlainObject(x)) continue;
    const key: Record<string, unknown> = {};
    for (const name of keyNames) {
      if (Object.prototype.hasOwnProperty.call(x, name)) key[name] = x[name];
      else {
        const dflt = property(itemSchema, name)?.default;
        if (dflt !== undefined) key[name] = dflt;
      }
    }
    const id = JSON.stringify(keyNames.map((n) => (n in key ? key[n] : { unspecified: true })));
    if (seen.has(id)) out.push(errs.duplicate(`${path}[${i}]`, key));
    else seen.add(id);
  }
}
