// Server-side field validation (the `fieldValidation` parameter of create, update and patch), as
// kube-apiserver does it since 1.25: a field the kind does not declare is an error with Strict, a
// warning with Warn (the default) and silently dropped with Ignore; in all three cases it is not
// stored. Built-in kinds are checked against the type catalog (kinds it does not describe yet are
// not checked), custom resources against their CRD schema (what pruning removes) and ObjectMeta.
// kubectl sends fieldValidation=Strict and leaves validation to the server when the kind's PATCH
// operation in /openapi/v3 lists the parameter (see openapi/paths.ts).
import { fieldErrors, internalError, invalid, StatusError } from './errors.js';
import { goV } from './crd/go-format.js';
import type { ResourceType } from './resources.js';
import { type FieldDef, isScalar, kindType, type TypeDef, typeDef } from './types/index.js';
import { jsonFields } from './types/json-fields.js';
import { canonicalJson, isPlainObject } from '../kube/json.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** The `fieldValidation` query parameter of a write (`options` names the request's options kind for the error). */
export function parseFieldValidation(value: string | null, options: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions'): FieldValidation {
  if (value === null || value === '') return 'Warn';
  if (value === 'Ignore' || value === 'Warn' || value === 'Strict') return value;
  throw invalid(options, 'meta.k8s.io', '', [fieldErrors.notSupported('fieldValidation', value, ['', 'Ignore', 'Strict', 'Warn'])]);
}

const kinds = new WeakMap<ResourceType, TypeDef | null>();

function kindOf(t: ResourceType): TypeDef | undefined {
  let k = kinds.get(t);
  if (k === undefined) {
    k = kindType(t.group, t.version, t.kind) ?? null;
    kinds.set(t, k);
  }
  return k ?? undefined;
}

/**
 * Removes the fields of a built-in kind's object that its type does not declare, and returns their
 * paths (`spec.template.spec.containers[0].imagee`). Only `metadata` is checked for custom
 * resources here (their schema's pruning reports the rest).
 */
export function dropUnknownFields(t: ResourceType, obj: Record<string, unknown>): string[] {
  const out: string[] = [];
  const kind = t.crd ? undefined : kindOf(t);
  if (kind) {
    walk(obj, kind, '', out, true);
  } else {
    const meta = typeDef(OBJECT_META);
    if (meta && isPlainObject(obj.metadata)) walk(obj.metadata, meta, 'metadata', out, false);
  }
  return out;
}

const fieldsOf = new WeakMap<TypeDef, Map<string, FieldDef>>();

function fieldMap(t: TypeDef): Map<string, FieldDef> {
  let m = fieldsOf.get(t);
  if (!m) {
    m = new Map(jsonFields(t).map((f) => [f.name, f]));
    fieldsOf.set(t, m);
  }
  return m;
}

const child = (at: string, key: string) => (at ? `${at}.${key}` : key);

/** Paths are only built for what is unknown or walked into: most fields cost a map lookup. */
function walk(obj: Record<string, unknown>, t: TypeDef, at: string, out: string[], isKind: boolean): void {
  const fields = fieldMap(t);
  for (const key of Object.keys(obj)) {
    const f = fields.get(key);
    if (!f) {
      if (isKind && (key === 'apiVersion' || key === 'kind')) continue;
      delete obj[key];
      out.push(child(at, key));
      continue;
    }
    if (isScalar(f.type)) continue;
    const inner = typeDef(f.type);
    // Specials (times, quantities, raw extensions) have their own JSON forms and no fields to check.
    if (inner === undefined || inner.special !== undefined) continue;
    const v = obj[key];
    if (f.list && Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (isPlainObject(item)) walk(item, inner, `${child(at, key)}[${i}]`, out, false);
      }
    } else if (f.map && isPlainObject(v)) {
      for (const [k, item] of Object.entries(v)) if (isPlainObject(item)) walk(item, inner, `${child(at, key)}.${k}`, out, false);
    } else if (!f.list && !f.map && isPlainObject(v)) {
      walk(v, inner, child(at, key), out, false);
    }
  }
}

const unknown = (paths: string[]) => paths.map((p) => `unknown field ${JSON.stringify(p)}`).join(', ');

/** What create and update answer under Strict: the body cannot be decoded. */
export function strictDecodingError(t: ResourceType, body: Record<string, unknown>, paths: string[]): StatusError {
  const cause = `strict decoding error: ${unknown(paths)}`;
  const kind = typeof body.kind === 'string' ? body.kind : '';
  const apiVersion = typeof body.apiVersion === 'string' ? body.apiVersion : '';
  if (kind) {
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    return new StatusError(400, 'BadRequest', `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${t.kind}: ${cause}`);
  }
  const text = JSON.stringify(body);
  return new StatusError(400, 'BadRequest', `the object provided is unrecognized (must be of type ${t.kind}): ${cause} (${text.length > 30 ? `${text.slice(0, 30)} ...` : text})`);
}

/**
 * What a patch answers under Strict: the patched object is invalid. kube-apiserver shows the patch
 * (strategic merge: the patch map as Go prints it) or the patched object (JSON and merge patches).
 */
export function strictPatchError(shown: { patchMap: unknown } | { patched: unknown }, paths: string[]): StatusError {
  const value = 'patchMap' in shown ? goV(shown.patchMap) : canonicalJson(shown.patched);
  const message = `Invalid value: ${JSON.stringify(value)}: strict decoding error: ${unknown(paths)}`;
  // An Invalid error without kind or name: kube-apiserver's message starts with a blank kind.
  return new StatusError(422, 'Invalid', ` "" is invalid: patch: ${message}`, { causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }] });
}

/**
 * What server-side apply answers under Strict: the applied configuration does not convert to the
 * kind's typed form (structured-merge-diff's wording; it names list items by index here, where the
 * real server names items of keyed lists by their keys).
 */
export function strictApplyError(t: ResourceType, namespace: string, name: string, paths: string[]): StatusError {
  const gvk = `${t.group ? `${t.group}/` : '/'}${t.version}, Kind=${t.kind}`;
  const problems = paths.map((p) => `.${p}: field not declared in schema`);
  const detail = problems.length === 1 ? problems[0] : `errors:\n  ${problems.join('\n  ')}`;
  return internalError(`failed to create typed patch object (${namespace}/${name}; ${gvk}): ${detail}`);
}

/** The warnings of Warn, one per unknown field, as kube-apiserver words them. */
export function unknownFieldWarnings(paths: string[]): string[] {
  return paths.map((p) => `unknown field ${JSON.stringify(p)}`);
}
