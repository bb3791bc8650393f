// ObjectMeta validation as the kinds' strategies run it (pkg/apis/core/validation.ValidateObjectMeta
// and its update counterpart), plus labels, annotations and label selectors.
import { labelSelectorFromObject, matchesLabels } from '../../kube/labels.js';
import { fieldErrors, type FieldError } from '../errors.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { asArr, asObj, asStr, objItems, sortedKeys, type Obj } from './json.js';
import { checkName, isDns1123Label, isQualifiedName, isValidLabelValue, NEGATIVE_ERROR, type NameRule } from './names.js';
import { goStringSlice, invalidRendered, tooLong } from './render.js';

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

export function validateLabels(labels: unknown, field: string): FieldError[] {
  const m = asObj(labels);
  if (!m) return [];
  const errs: FieldError[] = [];
  for (const k of sortedKeys(m)) {
    for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid(field, k, msg));
    const v = asStr(m[k]);
    for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(field, v, msg));
  }
  return errs;
}

export function validateAnnotations(annotations: unknown, field: string): FieldError[] {
  const m = asObj(annotations);
  if (!m) return [];
  const errs: FieldError[] = [];
  let size = 0;
  for (const k of sortedKeys(m)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(field, k, msg));
    size += k.length + asStr(m[k]).length;
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

export function validateLabelSelector(selector: unknown, field: string): FieldError[] {
  const sel = asObj(selector);
  if (!sel) return [];
  const errs = validateLabels(sel.matchLabels, `${field}.matchLabels`);
  objItems(sel.matchExpressions).forEach((req, i) => {
    const at = `${field}.matchExpressions[${i}]`;
    const values = asArr(req.values);
    const op = asStr(req.operator);
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0) errs.push(fieldErrors.required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length > 0) errs.push(fieldErrors.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errs.push(fieldErrors.invalid(`${at}.operator`, op, 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(asStr(req.key))) errs.push(fieldErrors.invalid(`${at}.key`, asStr(req.key), msg));
  });
  return errs;
}

/** Whether a LabelSelector (matchLabels and matchExpressions) selects the given labels. */
export function selectorMatches(selector: Obj, labels: Obj | undefined): boolean {
  const stringLabels: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels ?? {})) if (typeof v === 'string') stringLabels[k] = v;
  return matchesLabels(labelSelectorFromObject(selector) ?? [], stringLabels);
}

export function isEmptySelector(selector: Obj): boolean {
  return Object.keys(asObj(selector.matchLabels) ?? {}).length === 0 && asArr(selector.matchExpressions).length === 0;
}

export interface MetaRules {
  name: NameRule;
  namespaced: boolean;
  /** Core kinds also require finalizer names to be fully qualified or standard. */
  kubeFinalizers: boolean;
}

function validateOwnerReferences(refs: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const ref of objItems(refs)) {
    const apiVersion = asStr(ref.apiVersion);
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    if (!version) errs.push(fieldErrors.invalid(`${field}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!asStr(ref.kind)) errs.push(fieldErrors.invalid(`${field}.kind`, asStr(ref.kind), 'kind must not be empty'));
    if (!asStr(ref.name)) errs.push(fieldErrors.invalid(`${field}.name`, asStr(ref.name), 'name must not be empty'));
    if (!asStr(ref.uid)) errs.push(fieldErrors.invalid(`${field}.uid`, asStr(ref.uid), 'uid must not be empty'));
  }
  return errs;
}

function validateFinalizers(finalizers: unknown, field: string, kube: boolean): FieldError[] {
  const list = asArr(finalizers).map(asStr);
  const errs: FieldError[] = [];
  for (const f of list) for (const msg of isQualifiedName(f)) errs.push(fieldErrors.invalid(field, f, msg));
  if (list.includes('orphan') && list.includes('foregroundDeletion')) {
    errs.push(invalidRendered(field, goStringSlice(list), 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  if (kube) {
    list.forEach((f, i) => {
      const at = `${field}[${i}]`;
      for (const msg of isQualifiedName(f)) errs.push(fieldErrors.invalid(at, f, msg));
      if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) errs.push(fieldErrors.invalid(at, f, 'name is neither a standard finalizer name nor is it fully qualified'));
    });
  }
  return errs;
}

/**
 * ValidateObjectMeta of a kind's strategy, for create and as part of most update validations.
 * The name itself is checked by validateName(), which the core runs first on create.
 */
export function validateObjectMeta(obj: ObjectWithMeta, rules: MetaRules): FieldError[] {
  const meta = obj.metadata ?? {};
  const errs: FieldError[] = [];
  const generateName = asStr(meta.generateName);
  if (generateName) for (const msg of checkName(rules.name, generateName, true)) errs.push(fieldErrors.invalid('metadata.generateName', generateName, msg));
  const namespace = asStr(meta.namespace);
  if (rules.namespaced) {
    if (!namespace) errs.push(fieldErrors.required('metadata.namespace'));
    else for (const msg of isDns1123Label(namespace)) errs.push(fieldErrors.invalid('metadata.namespace', namespace, msg));
  } else if (namespace) {
    errs.push(fieldErrors.forbidden('metadata.namespace', 'not allowed on this type'));
  }
  if (typeof meta.generation === 'number' && meta.generation < 0) errs.push(fieldErrors.invalid('metadata.generation', meta.generation, NEGATIVE_ERROR));
  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  errs.push(...validateOwnerReferences(meta.ownerReferences, 'metadata.ownerReferences'));
  errs.push(...validateFinalizers(meta.finalizers, 'metadata.finalizers', rules.kubeFinalizers));
  return errs;
}

/** ValidateObjectMetaUpdate: what may not change, and no new finalizers once deletion started. */
export function validateObjectMetaUpdate(obj: ObjectWithMeta, old: ObjectWithMeta): FieldError[] {
  const meta = obj.metadata ?? {};
  const oldMeta = old.metadata ?? {};
  const errs: FieldError[] = [];
  if (oldMeta.deletionTimestamp) {
    const before = new Set(asArr(oldMeta.finalizers));
    const added = [...new Set(asArr(meta.finalizers).map(asStr))].filter((f) => !before.has(f)).sort();
    if (added.length > 0) errs.push(fieldErrors.forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(added)}`));
  }
  if (typeof meta.generation === 'number' && typeof oldMeta.generation === 'number' && meta.generation < oldMeta.generation) {
    errs.push(fieldErrors.invalid('metadata.generation', meta.generation, 'must not be decremented'));
  }
  for (const key of ['name', 'namespace', 'uid'] as const) {
    const now = asStr(meta[key]);
    if (now !== asStr(oldMeta[key])) errs.push(fieldErrors.invalid(`metadata.${key}`, now, 'field is immutable'));
  }
  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  errs.push(...validateOwnerReferences(meta.ownerReferences, 'metadata.ownerReferences'));
  return errs;
}
