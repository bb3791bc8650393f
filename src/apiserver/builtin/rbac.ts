// rbac.authorization.k8s.io/v1: Role, ClusterRole, RoleBinding, ClusterRoleBinding.
import { fieldErrors, type FieldError } from '../errors.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { asArr, asObj, asStr, objItems, setDefault, type Obj } from './json.js';
import type { KindBehaviour } from './kinds.js';
import { validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate, type MetaRules } from './meta.js';
import { isDns1123Subdomain, isValidPathSegmentName } from './names.js';
import { goStringSlice, invalidRendered } from './render.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const NAMESPACED: MetaRules = { name: 'pathSegment', namespaced: true, kubeFinalizers: true };
const CLUSTER: MetaRules = { name: 'pathSegment', namespaced: false, kubeFinalizers: true };

function validateRules(obj: ObjectWithMeta, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  objItems(obj.rules).forEach((rule, i) => {
    const at = `rules[${i}]`;
    if (asArr(rule.verbs).length === 0) errs.push(fieldErrors.required(`${at}.verbs`, 'verbs must contain at least one value'));
    const urls = asArr(rule.nonResourceURLs);
    if (urls.length > 0) {
      if (namespaced) errs.push(invalidRendered(`${at}.nonResourceURLs`, goStringSlice(urls), 'namespaced rules cannot apply to non-resource URLs'));
      if (asArr(rule.apiGroups).length > 0 || asArr(rule.resources).length > 0 || asArr(rule.resourceNames).length > 0) {
        errs.push(invalidRendered(`${at}.nonResourceURLs`, goStringSlice(urls), 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      return;
    }
    if (asArr(rule.apiGroups).length === 0) errs.push(fieldErrors.required(`${at}.apiGroups`, 'resource rules must supply at least one api group'));
    if (asArr(rule.resources).length === 0) errs.push(fieldErrors.required(`${at}.resources`, 'resource rules must supply at least one resource'));
  });
  return errs;
}

function validateRole(obj: ObjectWithMeta, old: ObjectWithMeta | undefined, meta: MetaRules): FieldError[] {
  const errs = validateObjectMeta(obj, meta);
  errs.push(...validateRules(obj, meta.namespaced));
  const aggregation = asObj(obj.aggregationRule);
  if (!meta.namespaced && aggregation) {
    const selectors = objItems(aggregation.clusterRoleSelectors);
    if (selectors.length === 0) errs.push(fieldErrors.required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    selectors.forEach((s, i) => errs.push(...validateLabelSelector(s, `aggregationRule.clusterRoleSelectors[${i}]`)));
  }
  if (old) errs.push(...validateObjectMetaUpdate(obj, old));
  return errs;
}

function validateSubject(subject: Obj, namespaced: boolean, at: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = asStr(subject.name);
  if (!name) errs.push(fieldErrors.required(`${at}.name`));
  const apiGroup = asStr(subject.apiGroup);
  switch (subject.kind) {
    case 'ServiceAccount':
      if (name) for (const msg of isDns1123Subdomain(name)) errs.push(fieldErrors.invalid(`${at}.name`, name, msg));
      if (apiGroup) errs.push(fieldErrors.notSupported(`${at}.apiGroup`, apiGroup, ['']));
      if (!namespaced && !asStr(subject.namespace)) errs.push(fieldErrors.required(`${at}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported(`${at}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(fieldErrors.notSupported(`${at}.kind`, asStr(subject.kind), ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function goRoleRef(ref: Obj): string {
  return `rbac.RoleRef{APIGroup:${JSON.stringify(asStr(ref.apiGroup))}, Kind:${JSON.stringify(asStr(ref.kind))}, Name:${JSON.stringify(asStr(ref.name))}}`;
}

function validateBinding(obj: ObjectWithMeta, old: ObjectWithMeta | undefined, meta: MetaRules): FieldError[] {
  const errs = validateObjectMeta(obj, meta);
  const ref = asObj(obj.roleRef) ?? {};
  const apiGroup = asStr(ref.apiGroup);
  if (apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
  const kind = asStr(ref.kind);
  const kinds = meta.namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(kind)) errs.push(fieldErrors.notSupported('roleRef.kind', kind, kinds));
  const name = asStr(ref.name);
  if (!name) errs.push(fieldErrors.required('roleRef.name'));
  else for (const msg of isValidPathSegmentName(name)) errs.push(fieldErrors.invalid('roleRef.name', name, msg));
  objItems(obj.subjects).forEach((s, i) => errs.push(...validateSubject(s, meta.namespaced, `subjects[${i}]`)));
  if (old) {
    errs.push(...validateObjectMetaUpdate(obj, old));
    const oldRef = asObj(old.roleRef) ?? {};
    if (goRoleRef(oldRef) !== goRoleRef(ref)) errs.push(invalidRendered('roleRef', goRoleRef(ref), 'cannot change roleRef'));
  }
  return errs;
}

/** SetDefaults_Subject: User and Group subjects belong to the RBAC group. */
function defaultSubjects(obj: ObjectWithMeta): void {
  for (const s of objItems(obj.subjects)) {
    if (!s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = RBAC_GROUP;
  }
}

/** `rules` has no omitempty: a role without rules serializes `"rules": null`. */
function defaultRules(obj: ObjectWithMeta): void {
  setDefault(obj, 'rules', null);
}

export const role: KindBehaviour = { meta: NAMESPACED, defaults: defaultRules, validate: (obj, old) => validateRole(obj, old, NAMESPACED) };
export const clusterRole: KindBehaviour = { meta: CLUSTER, defaults: defaultRules, validate: (obj, old) => validateRole(obj, old, CLUSTER) };
export const roleBinding: KindBehaviour = { meta: NAMESPACED, defaults: defaultSubjects, validate: (obj, old) => validateBinding(obj, old, NAMESPACED) };
export const clusterRoleBinding: KindBehaviour = { meta: CLUSTER, defaults: defaultSubjects, validate: (obj, old) => validateBinding(obj, old, CLUSTER) };
