// OpenAPI v3 schema validation of a custom resource, with go-openapi's messages and the
// order in which its validators run (type, string, format, number, slice, enum, object).
import type { FieldError } from '../errors.js';
import { isPlainObject, jsonEqual } from '../../kube/json.js';
import { errs } from './field-errors.js';
import { violatesFormat } from './formats.js';
import { additionalProperties, isEmbeddedResource, isNullable, items, properties, type JSONSchemaProps } from './schema-access.js';

const IN = 'body';

/** The JSON type name go-openapi reports for a decoded value. */
export function jsonTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

function num(s: JSONSchemaProps, key: string): number | undefined {
  const v = s[key];
  return typeof v === 'number' ? v : undefined;
}

const regexCache = new Map<string, RegExp | null>();
function compilePattern(pattern: string): RegExp | null {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      try {
        re = new RegExp(pattern);
      } catch {
        re = null;
      }
    }
    regexCache.set(pattern, re);
  }
  return re;
}

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'object':
      return isPlainObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'null':
      return v === null;
    default:
      return true;
  }
}

function formatNumber(n: number): string {
  return String(n);
}

/** Validates `value` at `path` (go-openapi naming: `spec.items[0].name`) against schema `s`. */
export function validateValue(s: JSONSchemaProps, value: unknown, path: string, out: FieldError[]): void {
  const type = typeof s.type === 'string' ? s.type : '';
  const name = path;
  if (value === null || value === undefined) {
    if (type !== '' && !isNullable(s)) out.push(errs.typeInvalid(path, 'null', `${name} in ${IN} must be of type ${type}: "null"`));
    checkEnum(s, value, path, out);
    return;
  }
  if (type !== '' && !typeMatches(type, value)) {
    const actual = jsonTypeName(value);
    out.push(errs.typeInvalid(path, actual, `${name} in ${IN} must be of type ${type}: "${actual}"`));
  }
  checkComposition(s, value, path, out);
  if (typeof value === 'string') {
    checkString(s, value, path, out);
    const format = typeof s.format === 'string' ? s.format : '';
    if (format !== '' && violatesFormat(format, value)) out.push(errs.typeInvalid(path, value, `${name} in ${IN} must be of type ${format}: ${JSON.stringify(value)}`));
  } else if (typeof value === 'number') {
    checkNumber(s, value, path, out);
  } else if (Array.isArray(value)) {
    checkArray(s, value, path, out);
  }
  checkEnum(s, value, path, out);
  if (isPlainObject(value)) {
    checkObject(s, value, path, out);
    if (isEmbeddedResource(s)) checkEmbeddedResource(value, path, out);
  }
}

/** An embedded resource must say what it is, as apiextensions-apiserver checks. */
function checkEmbeddedResource(value: Record<string, unknown>, path: string, out: FieldError[]): void {
  for (const key of ['apiVersion', 'kind']) {
    if (typeof value[key] !== 'string' || value[key] === '') out.push(errs.required(`${path}.${key}`, 'must not be empty'));
  }
}

function checkComposition(s: JSONSchemaProps, value: unknown, path: string, out: FieldError[]): void {
  const sub = (key: string): JSONSchemaProps[] => (Array.isArray(s[key]) ? (s[key] as unknown[]).filter(isPlainObject) : []);
  for (const part of sub('allOf')) validateValue(part, value, path, out);
  const anyOf = sub('anyOf');
  if (anyOf.length > 0 && !anyOf.some((part) => passes(part, value, path))) out.push(errs.invalid('<nil>', '', `${path} must validate at least one schema (anyOf)`));
  const oneOf = sub('oneOf');
  if (oneOf.length > 0 && oneOf.filter((part) => passes(part, value, path)).length !== 1) out.push(errs.invalid('<nil>', '', `${path} must validate one and only one schema (oneOf)`));
  if (isPlainObject(s.not) && passes(s.not, value, path)) out.push(errs.invalid('<nil>', '', `${path} must not validate the schema (not)`));
}

function passes(s: JSONSchemaProps, value: unknown, path: string): boolean {
  const scratch: FieldError[] = [];
  validateValue(s, value, path, scratch);
  return scratch.length === 0;
}

function checkString(s: JSONSchemaProps, value: string, path: string, out: FieldError[]): void {
  const maxLength = num(s, 'maxLength');
  const minLength = num(s, 'minLength');
  const needsLength = maxLength !== undefined || minLength !== undefined;
  const length = needsLength ? [...value].length : 0;
  if (maxLength !== undefined && length > maxLength) out.push(errs.tooLong(path, maxLength));
  if (minLength !== undefined && length < minLength) out.push(errs.invalid(path, value, `${path} in ${IN} should be at least ${minLength} chars long`));
  if (typeof s.pattern === 'string') {
    const re = compilePattern(s.pattern);
    if (re !== null && !re.test(value)) out.push(errs.invalid(path, value, `${path} in ${IN} should match '${s.pattern}'`));
  }
}

function checkNumber(s: JSONSchemaProps, value: number, path: string, out: FieldError[]): void {
  const multipleOf = num(s, 'multipleOf');
  if (multipleOf !== undefined && multipleOf !== 0) {
    const q = value / multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) out.push(errs.invalid(path, value, `${path} in ${IN} should be a multiple of ${formatNumber(multipleOf)}`));
  }
  const minimum = num(s, 'minimum');
  if (minimum !== undefined) {
    if (s.exclusiveMinimum === true ? value <= minimum : value < minimum) {
      const words = s.exclusiveMinimum === true ? 'greater than' : 'greater than or equal to';
      out.push(errs.invalid(path, value, `${path} in ${IN} should be ${words} ${formatNumber(minimum)}`));
    }
  }
  const maximum = num(s, 'maximum');
  if (maximum !== undefined) {
    if (s.exclusiveMaximum === true ? value >= maximum : value > maximum) {
      const words = s.exclusiveMaximum === true ? 'less than' : 'less than or equal to';
      out.push(errs.invalid(path, value, `${path} in ${IN} should be ${words} ${formatNumber(maximum)}`));
    }
  }
}

function checkArray(s: JSONSchemaProps, value: unknown[], path: string, out: FieldError[]): void {
  const itemSchema = items(s);
  if (itemSchema !== undefined) for (let i = 0; i < value.length; i++) validateValue(itemSchema, value[i], `${path}[${i}]`, out);
  const minItems = num(s, 'minItems');
  if (minItems !== undefined && value.length < minItems) out.push(errs.invalid(path, value.length, `${path} in ${IN} should have at least ${minItems} items`));
  const maxItems = num(s, 'maxItems');
  if (maxItems !== undefined && value.length > maxItems) out.push(errs.tooMany(path, value.length, maxItems));
  if (s.uniqueItems === true) {
    const dup = value.some((v, i) => value.findIndex((w) => jsonEqual(v, w)) !== i);
    if (dup) out.push(errs.invalid(path, value, `${path} in ${IN} shouldn't contain duplicates`));
  }
}

function checkEnum(s: JSONSchemaProps, value: unknown, path: string, out: FieldError[]): void {
  if (!Array.isArray(s.enum) || s.enum.length === 0) return;
  if (s.enum.some((e) => jsonEqual(e, value))) return;
  const supported = s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
  out.push(errs.notSupported(path, value ?? null, supported));
}

function checkObject(s: JSONSchemaProps, value: Record<string, unknown>, path: string, out: FieldError[]): void {
  const count = Object.keys(value).length;
  const minProperties = num(s, 'minProperties');
  if (minProperties !== undefined && count < minProperties) {
    out.push(errs.invalid(path, count, `${path} in ${IN} should have at least ${minProperties} properties`));
    return;
  }
  const maxProperties = num(s, 'maxProperties');
  if (maxProperties !== undefined && count > maxProperties) {
    out.push(errs.tooMany(path, count, maxProperties));
    return;
  }
  const prefix = path === '' ? '' : `${path}.`;
  const props = properties(s);
  const extra = additionalProperties(s);
  if (s.additionalProperties === false) {
    for (const k of Object.keys(value)) {
      if (props === undefined || !Object.prototype.hasOwnProperty.call(props, k)) out.push(errs.invalid('<nil>', '', `${path}.${k} in ${IN} is a forbidden property`));
    }
  } else if (extra !== undefined) {
    for (const k of Object.keys(value)) {
      if (props !== undefined && Object.prototype.hasOwnProperty.call(props, k)) continue;
      validateValue(extra, value[k], prefix + k, out);
    }
  }
  if (props !== undefined) {
    for (const k of Object.keys(props)) {
      const prop = props[k];
      if (!isPlainObject(prop) || !Object.prototype.hasOwnProperty.call(value, k)) continue;
      validateValue(prop, value[k], prefix + k, out);
    }
  }
  if (Array.isArray(s.required)) {
    for (const k of s.required) {
      if (typeof k === 'string' && !Object.prototype.hasOwnProperty.call(value, k)) out.push(errs.required(prefix + k));
    }
  }
}
