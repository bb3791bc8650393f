// Checks that a CRD version schema is structural (required for apiextensions.k8s.io/v1) and that
// its x-kubernetes-* extensions and CEL rules are usable. Paths use field.Path notation.
import type { FieldError } from '../errors.js';
import { isPlainObject } from '../../kube/json.js';
import { CelCompileError } from './cel/ast.js';
import { compileRule } from './cel-rules.js';
import { errs } from './field-errors.js';
import type { JSONSchemaProps } from './schema-access.js';

type Level = 'root' | 'property' | 'item' | 'additional';

/** Go's %#v of an apiextensions.ValidationRule, the bad value kube prints for a rule that does not compile. */
function renderRule(r: Record<string, unknown>): string {
  const str = (k: string) => JSON.stringify(typeof r[k] === 'string' ? r[k] : '');
  return `apiextensions.ValidationRule{Rule:${str('rule')}, Message:${str('message')}}`;
}

export function validateStructuralSchema(schema: unknown, path: string): FieldError[] {
  const out: FieldError[] = [];
  if (!isPlainObject(schema)) {
    out.push(errs.required(path, 'schemas are required'));
    return out;
  }
  walk(schema, path, 'root', out);
  return out;
}

function walk(s: JSONSchemaProps, path: string, level: Level, out: FieldError[]): void {
  const type = typeof s.type === 'string' ? s.type : '';
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (level === 'root') {
    if (type === '') out.push(errs.required(`${path}.type`, 'must not be empty at the root'));
    else if (type !== 'object') out.push(errs.invalid(`${path}.type`, type, 'must be object at the root'));
  } else if (type === '' && !intOrString && !preserve) {
    const where = level === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    out.push(errs.required(`${path}.type`, where));
  }
  if (intOrString && type !== '') out.push(errs.invalid(`${path}.type`, type, 'must be empty if x-kubernetes-int-or-string is true'));
  if (type === 'array' && !isPlainObject(s.items)) out.push(errs.required(`${path}.items`, 'must be specified'));
  if (isPlainObject(s.properties) && isPlainObject(s.additionalProperties)) out.push(errs.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  checkListType(s, path, out);
  checkRules(s, path, out);

  const props = s.properties;
  if (isPlainObject(props)) {
    for (const [k, p] of Object.entries(props)) {
      if (!isPlainObject(p)) continue;
      const childPath = `${path}.properties[${k}]`;
      if (level === 'root' && k === 'metadata' && !isAllowedRootMetadata(p)) {
        out.push(errs.forbidden(childPath, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
        continue;
      }
      walk(p, childPath, 'property', out);
    }
  }
  if (isPlainObject(s.items)) walk(s.items, `${path}.items`, 'item', out);
  if (isPlainObject(s.additionalProperties)) walk(s.additionalProperties, `${path}.additionalProperties`, 'additional', out);
}

function isAllowedRootMetadata(p: JSONSchemaProps): boolean {
  for (const key of Object.keys(p)) {
    if (key === 'type' && p.type === 'object') continue;
    if (key !== 'properties') return false;
  }
  const props = p.properties;
  if (props === undefined) return true;
  if (!isPlainObject(props)) return false;
  return Object.keys(props).every((k) => k === 'name' || k === 'generateName');
}

function checkListType(s: JSONSchemaProps, path: string, out: FieldError[]): void {
  const listType = s['x-kubernetes-list-type'];
  const keys = s['x-kubernetes-list-map-keys'];
  if (listType !== undefined) {
    if (listType !== 'atomic' && listType !== 'set' && listType !== 'map') out.push(errs.notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
    else if (s.type !== 'array') out.push(errs.invalid(`${path}.type`, s.type ?? '', 'must be array if x-kubernetes-list-type is specified'));
  }
  if (listType === 'map') {
    if (!Array.isArray(keys) || keys.length === 0) out.push(errs.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    else if (isPlainObject(s.items)) {
      const itemProps = isPlainObject(s.items.properties) ? s.items.properties : {};
      const required = Array.isArray(s.items.required) ? s.items.required : [];
      keys.forEach((k, i) => {
        if (typeof k !== 'string' || !isPlainObject(itemProps[k])) out.push(errs.invalid(`${path}.x-kubernetes-list-map-keys[${i}]`, k, 'entries must all be names of item properties'));
        else if (!required.includes(k) && (itemProps[k] as JSONSchemaProps).default === undefined)
          out.push(errs.required(`${path}.items.properties[${k}]`, 'all map keys must be required or have a default value'));
      });
    }
  } else if (keys !== undefined) {
    out.push(errs.forbidden(`${path}.x-kubernetes-list-map-keys`, 'must be empty if x-kubernetes-list-type is not map'));
  }
}

function checkRules(s: JSONSchemaProps, path: string, out: FieldError[]): void {
  const raw = s['x-kubernetes-validations'];
  if (raw === undefined) return;
  if (!Array.isArray(raw)) return;
  raw.forEach((r, i) => {
    const rulePath = `${path}.x-kubernetes-validations[${i}]`;
    if (!isPlainObject(r) || typeof r.rule !== 'string' || r.rule.trim() === '') {
      out.push(errs.required(`${rulePath}.rule`));
      return;
    }
    try {
      compileRule(r.rule);
      if (typeof r.messageExpression === 'string' && r.messageExpression !== '') compileRule(r.messageExpression);
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err;
      out.push(errs.invalidRendered(`${rulePath}.rule`, renderRule(r), `compilation failed: ${err.message}`));
    }
    if (typeof r.message === 'string' && r.message.includes('\n')) out.push(errs.invalid(`${rulePath}.message`, r.message, 'message must not contain line breaks'));
  });
}
