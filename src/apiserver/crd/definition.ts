// The CustomResourceDefinition object itself: defaulting, validation on create/update, and the
// status the apiextensions controllers set once a CRD is accepted.
import type { FieldError } from '../errors.js';
import { isPlainObject } from '../../kube/json.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { isDns1035Label, isDns1123Subdomain } from './dns-names.js';
import { errs } from './field-errors.js';
import { validateStructuralSchema } from './structural.js';

type Json = Record<string, unknown>;

const obj = (v: unknown): Json => (isPlainObject(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export function crdSpec(crd: ObjectWithMeta): Json {
  return obj(crd.spec);
}

export function crdVersions(crd: ObjectWithMeta): Json[] {
  return arr(crdSpec(crd).versions).map(obj);
}

/** The name of the version marked `storage: true`, or undefined. */
export function storageVersion(crd: ObjectWithMeta): string | undefined {
  const v = crdVersions(crd).find((x) => x.storage === true);
  return v === undefined ? undefined : str(v.name);
}

/** Defaults kube-apiserver applies to a v1 CRD: singular, listKind, conversion strategy. Mutates crd. */
export function defaultCrd(crd: ObjectWithMeta): void {
  if (!isPlainObject(crd.spec)) return;
  const spec = crd.spec;
  if (isPlainObject(spec.names)) {
    const names = spec.names;
    const kind = str(names.kind);
    if (str(names.singular) === '' && kind !== '') names.singular = kind.toLowerCase();
    if (str(names.listKind) === '' && kind !== '') names.listKind = `${kind}List`;
  }
  if (!isPlainObject(spec.conversion)) spec.conversion = { strategy: 'None' };
}

const printerColumnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const printerColumnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/** Go's %#v of the versions slice, the bad value kube prints for version-level errors (pointers shown as opaque). */
function renderVersions(versions: Json[]): string {
  if (versions.length === 0) return '[]apiextensions.CustomResourceDefinitionVersion(nil)';
  const one = (v: Json) => {
    const ptr = (t: string, x: unknown) => (x === undefined ? `(*apiextensions.${t})(nil)` : `(*apiextensions.${t})(0xc000000000)`);
    const cols = Array.isArray(v.additionalPrinterColumns) ? `[]apiextensions.CustomResourceColumnDefinition{...}` : '[]apiextensions.CustomResourceColumnDefinition(nil)';
    return `apiextensions.CustomResourceDefinitionVersion{Name:${JSON.stringify(str(v.name))}, Served:${v.served === true}, Storage:${v.storage === true}, Deprecated:${v.deprecated === true}, DeprecationWarning:(*string)(nil), Schema:${ptr('CustomResourceValidation', v.schema)}, Subresources:${ptr('CustomResourceSubresources', v.subresources)}, AdditionalPrinterColumns:${cols}}`;
  };
  return `[]apiextensions.CustomResourceDefinitionVersion{${versions.map(one).join(', ')}}`;
}

function validateEnum(path: string, value: string, accepted: string[], out: FieldError[]): void {
  if (value === '') out.push(errs.required(path));
  else if (!accepted.includes(value)) out.push(errs.notSupported(path, value, accepted));
}

function validateGroup(group: string, out: FieldError[]): void {
  if (group === '') out.push(errs.required('spec.group'));
  else {
    const dns = isDns1123Subdomain(group);
    if (dns.length > 0) out.push(errs.invalid('spec.group', group, dns.join(',')));
    else if (group.split('.').length < 2) out.push(errs.invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
}

function validatePrinterColumns(columns: unknown, path: string, out: FieldError[]): void {
  arr(columns).forEach((c, i) => {
    const col = obj(c);
    const p = `${path}[${i}]`;
    if (str(col.name) === '') out.push(errs.required(`${p}.name`));
    const type = str(col.type);
    if (type === '') out.push(errs.required(`${p}.type`, `must be one of ${printerColumnTypes.join(',')}`));
    else if (!printerColumnTypes.includes(type)) out.push(errs.notSupported(`${p}.type`, type, printerColumnTypes));
    const format = str(col.format);
    if (format !== '' && !printerColumnFormats.includes(format)) out.push(errs.notSupported(`${p}.format`, format, printerColumnFormats));
    const jsonPath = str(col.jsonPath);
    if (jsonPath === '') out.push(errs.required(`${p}.jsonPath`));
    else if (!jsonPath.startsWith('.')) out.push(errs.invalid(`${p}.jsonPath`, jsonPath, 'must be a simple json path starting with .'));
  });
}

function validateVersions(versions: Json[], out: FieldError[]): void {
  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const name = str(v.name);
    const p = `spec.versions[${i}]`;
    if (v.storage === true) storageCount++;
    if (seen.has(name)) unique = false;
    seen.add(name);
    const dns = isDns1035Label(name);
    if (dns.length > 0) out.push(errs.invalid(`${p}.name`, name, dns.join(',')));
    out.push(...validateStructuralSchema(obj(v.schema).openAPIV3Schema, `${p}.schema.openAPIV3Schema`));
    validatePrinterColumns(v.additionalPrinterColumns, `${p}.additionalPrinterColumns`, out);
  });
  if (!unique) out.push(errs.invalidRendered('spec.versions', renderVersions(versions), 'must contain unique version names'));
  if (storageCount !== 1) out.push(errs.invalidRendered('spec.versions', renderVersions(versions), 'must have exactly one version marked as storage version'));
}

function validateNames(names: Json, out: FieldError[]): void {
  const p = 'spec.names';
  for (const field of ['plural', 'singular', 'kind', 'listKind']) if (str(names[field]) === '') out.push(errs.required(`${p}.${field}`));
  const plural = str(names.plural);
  const singular = str(names.singular);
  const kind = str(names.kind);
  const listKind = str(names.listKind);
  const dnsCheck = (value: string, field: string, mixedCase: boolean) => {
    if (value === '') return;
    const problems = isDns1035Label(mixedCase ? value.toLowerCase() : value);
    if (problems.length > 0) out.push(errs.invalid(field, value, (mixedCase ? 'may have mixed case, but should otherwise match: ' : '') + problems.join(',')));
  };
  dnsCheck(plural, `${p}.plural`, false);
  dnsCheck(singular, `${p}.singular`, false);
  dnsCheck(kind, `${p}.kind`, true);
  dnsCheck(listKind, `${p}.listKind`, true);
  arr(names.shortNames).forEach((s, i) => dnsCheck(str(s), `${p}.shortNames[${i}]`, false));
  if (kind !== '' && kind === listKind) out.push(errs.invalid(`${p}.listKind`, listKind, 'kind and listKind may not be the same or parsing become ambiguous'));
  arr(names.categories).forEach((s, i) => dnsCheck(str(s), `${p}.categories[${i}]`, false));
}

function validateConversion(conversion: unknown, out: FieldError[]): void {
  if (!isPlainObject(conversion)) return;
  const strategy = str(conversion.strategy);
  validateEnum('spec.conversion.strategy', strategy, ['None', 'Webhook'], out);
  if (strategy === 'Webhook') {
    if (!isPlainObject(conversion.webhook)) out.push(errs.required('spec.conversion.webhook', 'required when strategy is set to Webhook'));
    else if (arr(conversion.webhook.conversionReviewVersions).length === 0) out.push(errs.required('spec.conversion.webhook.conversionReviewVersions', 'must include at least one of v1, v1beta1'));
  } else if (conversion.webhook !== undefined) {
    out.push(errs.forbidden('spec.conversion.webhook', 'should not be set when strategy is not set to Webhook'));
  }
}

function validateStoredVersions(crd: ObjectWithMeta, out: FieldError[]): void {
  const status = obj(crd.status);
  if (!Array.isArray(status.storedVersions)) return;
  const stored = status.storedVersions.map(str);
  if (stored.length === 0) {
    out.push(errs.invalidRendered('status.storedVersions', '[]string{}', 'must have at least one stored version'));
    return;
  }
  const remaining = new Map(stored.map((v, i) => [v, i]));
  for (const v of crdVersions(crd)) {
    const name = str(v.name);
    if (v.storage === true && !remaining.has(name)) out.push(errs.invalidRendered('status.storedVersions', `apiextensions.CustomResourceDefinitionVersion{Name:${JSON.stringify(name)}, ...}`, `must have the storage version ${name}`));
    remaining.delete(name);
  }
  for (const [v, i] of remaining) out.push(errs.invalid(`status.storedVersions[${i}]`, v, 'must appear in spec.versions'));
}

/**
 * Validation of a CRD on create (and update when `old` is given), in kube-apiserver's order:
 * metadata.name, spec (group, scope, versions and their schemas, names, conversion), storedVersions.
 * Generic ObjectMeta checks (name syntax, labels, ...) are left to the caller.
 */
export function validateCrd(crd: ObjectWithMeta, old?: ObjectWithMeta): FieldError[] {
  const out: FieldError[] = [];
  const spec = crdSpec(crd);
  const names = obj(spec.names);
  const group = str(spec.group);
  const name = str(crd.metadata?.name);
  if (name !== `${str(names.plural)}.${group}`) out.push(errs.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  validateGroup(group, out);
  validateEnum('spec.scope', str(spec.scope), ['Cluster', 'Namespaced'], out);
  validateVersions(crdVersions(crd), out);
  validateNames(names, out);
  validateConversion(spec.conversion, out);
  if (old !== undefined) {
    const oldSpec = crdSpec(old);
    if (isEstablished(old) && str(oldSpec.scope) !== str(spec.scope)) out.push(errs.invalid('spec.scope', str(spec.scope), 'field is immutable'));
    validateStoredVersions(crd, out);
  }
  return out;
}

/** The CRD's Established condition is True. */
export function isEstablished(crd: ObjectWithMeta): boolean {
  return arr(obj(crd.status).conditions).some((c) => isPlainObject(c) && c.type === 'Established' && c.status === 'True');
}

export interface CrdCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** Names as status.acceptedNames shows them (field order of the Go struct). */
function acceptedNamesOf(names: Json): Json {
  const out: Json = { plural: str(names.plural) };
  if (str(names.singular) !== '') out.singular = names.singular;
  if (arr(names.shortNames).length > 0) out.shortNames = [...arr(names.shortNames)];
  out.kind = str(names.kind);
  if (str(names.listKind) !== '') out.listKind = names.listKind;
  if (arr(names.categories).length > 0) out.categories = [...arr(names.categories)];
  return out;
}

/** Which of this CRD's names another CRD of the same group already serves, as the naming controller reports it. */
function nameConflict(crd: ObjectWithMeta, others: ObjectWithMeta[]): { reason: string; message: string } | undefined {
  const spec = crdSpec(crd);
  const group = str(spec.group);
  const names = obj(spec.names);
  for (const other of others) {
    if (other.metadata?.name === crd.metadata?.name || str(crdSpec(other).group) !== group) continue;
    const taken = obj(obj(other.status).acceptedNames);
    const takenResources = new Set([str(taken.plural), str(taken.singular), ...arr(taken.shortNames).map(str)].filter((x) => x !== ''));
    const takenKinds = new Set([str(taken.kind), str(taken.listKind)].filter((x) => x !== ''));
    if (takenResources.has(str(names.plural))) return { reason: 'PluralConflict', message: `"${str(names.plural)}" is already in use` };
    if (takenResources.has(str(names.singular))) return { reason: 'SingularConflict', message: `"${str(names.singular)}" is already in use` };
    for (const s of arr(names.shortNames).map(str)) if (takenResources.has(s)) return { reason: 'ShortNamesConflict', message: `"${s}" is already in use` };
    if (takenKinds.has(str(names.kind))) return { reason: 'KindConflict', message: `"${str(names.kind)}" is already in use` };
    if (takenKinds.has(str(names.listKind))) return { reason: 'ListKindConflict', message: `"${str(names.listKind)}" is already in use` };
  }
  return undefined;
}

function setCondition(conditions: CrdCondition[], next: CrdCondition): void {
  const i = conditions.findIndex((c) => c.type === next.type);
  if (i < 0) {
    conditions.push(next);
    return;
  }
  const prev = conditions[i];
  conditions[i] = { ...next, lastTransitionTime: prev.status === next.status ? prev.lastTransitionTime : next.lastTransitionTime };
}

/**
 * The status kube-apiserver's naming and establishing controllers give a CRD: NamesAccepted and
 * Established conditions, acceptedNames and storedVersions (existing conditions such as
 * Terminating are kept; lastTransitionTime only moves when a condition's status changes).
 * `others` are the other CRDs, to detect name conflicts within the group.
 */
export function acceptedStatus(crd: ObjectWithMeta, now: string, others: ObjectWithMeta[] = []): Record<string, unknown> {
  const status = obj(crd.status);
  const conditions: CrdCondition[] = arr(status.conditions).filter(isPlainObject).map((c) => ({ ...(c as unknown as CrdCondition) }));
  const conflict = nameConflict(crd, others);
  const previouslyEstablished = conditions.some((c) => c.type === 'Established' && c.status === 'True');
  let acceptedNames: Json;
  if (conflict === undefined) {
    setCondition(conditions, { type: 'NamesAccepted', status: 'True', lastTransitionTime: now, reason: 'NoConflicts', message: 'no conflicts found' });
    if (!previouslyEstablished) setCondition(conditions, { type: 'Established', status: 'True', lastTransitionTime: now, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    acceptedNames = acceptedNamesOf(obj(crdSpec(crd).names));
  } else {
    setCondition(conditions, { type: 'NamesAccepted', status: 'False', lastTransitionTime: now, ...conflict });
    if (!previouslyEstablished) setCondition(conditions, { type: 'Established', status: 'False', lastTransitionTime: now, reason: 'NotAccepted', message: 'not all names are accepted' });
    acceptedNames = isPlainObject(status.acceptedNames) ? status.acceptedNames : { plural: '', kind: '' };
  }
  const stored = arr(status.storedVersions).map(str);
  const storage = storageVersion(crd);
  if (storage !== undefined && !stored.includes(storage)) stored.push(storage);
  return { ...status, conditions, acceptedNames, storedVersions: stored };
}

/** The condition set when a CRD is deleted while its custom resources are being removed. */
export function terminatingCondition(now: string): CrdCondition {
  return { type: 'Terminating', status: 'True', lastTransitionTime: now, reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' };
}
