// RBAC's escalation prevention, as kube-apiserver's Role, ClusterRole and binding storage does it:
// nobody grants rights they do not hold. A Role or ClusterRole may only carry rules its author is
// allowed already (or the author may `escalate` that role); a binding may only point at a role
// whose rules its author holds (or the author may `bind` that role). Members of system:masters
// are exempt, as are writes that only touch what the garbage collector needs.
import type { LogicalCluster, UserInfo } from '../cluster.js';
import { forbidden, notFound } from '../errors.js';
import type { ResourceType } from '../resources.js';
import { jsonEqual } from '../../kube/json.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { authorize, isPrivileged } from './authorizer.js';
import { aggregateErrors, has, type PolicyRule, RBAC_GROUP, rbacOf, type RoleRef, urlMatches } from './rbac.js';

const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

const hasAll = (list: readonly string[] | undefined, wanted: readonly string[] | undefined) => (wanted ?? []).every((w) => has(list, w));

/** Each rule split into rules of one group, resource, verb and name (kube's BreakdownRule). */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length > 0) for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

function resourcesCovered(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owner, '*') || hasAll(owner, wanted)) return true;
  return (wanted ?? []).every((path) => {
    if (has(owner, path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && has(owner, `*/${path.slice(slash + 1)}`);
  });
}

/** Does `owner` cover `sub` (a rule from `breakdown`)? (kube's ruleCovers) */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourcesCovered(owner.resources, sub.resources);
  const urls = (sub.nonResourceURLs ?? []).every((p) => (owner.nonResourceURLs ?? []).some((o) => urlMatches(o, p)));
  const ownerNames = owner.resourceNames ?? [];
  const names = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resources && urls && names;
}

/** The parts of `wanted` no rule of `owned` covers. */
export function uncovered(owned: PolicyRule[], wanted: PolicyRule[]): PolicyRule[] {
  return wanted.flatMap(breakdown).filter((sub) => !owned.some((o) => ruleCovers(o, sub)));
}

/** Rules of one group and resource (and at most one name) merged into one with all their verbs (kube's CompactRules). */
function compact(rules: PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const groups = r.apiGroups ?? [];
    const resources = r.resources ?? [];
    const names = r.resourceNames ?? [];
    if (groups.length !== 1 || resources.length !== 1 || names.length > 1 || (r.nonResourceURLs ?? []).length > 0) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([groups[0], resources[0], names[0] ?? null]);
    const existing = simple.get(key);
    if (!existing) simple.set(key, { ...r, verbs: [...r.verbs] });
    else for (const v of r.verbs) if (!existing.verbs.includes(v)) existing.verbs.push(v);
  }
  return [...out, ...simple.values()];
}

/** Go's %q of a []string: `["a" "b"]`. */
function goQuotedList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/** kube's CompactString of a rule, as escalation errors print it. */
function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${goQuotedList(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${goQuotedList(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuotedList(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${goQuotedList(r.resourceNames)}`);
  if (r.verbs.length) parts.push(`Verbs:${goQuotedList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** Why `user` may not grant `rules` in `namespace`, or undefined when they hold them all (kube's ConfirmNoEscalation). */
function escalation(cluster: LogicalCluster, user: UserInfo, namespace: string, rules: PolicyRule[]): string | undefined {
  const held = rbacOf(cluster).rulesFor(user, namespace);
  const missing = uncovered(held.rules, rules);
  if (missing.length === 0) return undefined;
  const lines = [...new Set(compact(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.username)} (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (held.errors.length > 0) msg += `; resolution errors: [${aggregateErrors(held.errors)}]`;
  return msg;
}

function rulesOf(obj: ObjectWithMeta): PolicyRule[] {
  const rules = (obj as { rules?: PolicyRule[] }).rules;
  return Array.isArray(rules) ? rules : [];
}

/** An update that changes only what the garbage collector writes (ownerReferences, finalizers). */
function onlyGcFields(obj: ObjectWithMeta, old: ObjectWithMeta): boolean {
  const strip = (o: ObjectWithMeta) => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _r, managedFields: _m, ...meta } = o.metadata;
    return { ...o, metadata: meta };
  };
  return jsonEqual(strip(obj), strip(old));
}

/** Refuses (403, or 404 for a binding to a missing role) a write of an RBAC object that would escalate `user`'s rights. */
export function checkRbacWrite(cluster: LogicalCluster, t: ResourceType, obj: ObjectWithMeta, old: ObjectWithMeta | undefined, user: UserInfo): void {
  if (t.group !== RBAC_GROUP || isPrivileged(user)) return;
  if (old && onlyGcFields(obj, old)) return;
  const name = obj.metadata.name ?? '';
  const namespace = obj.metadata.namespace ?? '';
  const ref = { group: RBAC_GROUP, resource: t.resource };
  const may = (verb: string, resource: string, resourceName: string) =>
    authorize(cluster, user, { resourceRequest: true, verb, namespace, apiGroup: RBAC_GROUP, apiVersion: '*', resource, subresource: '', name: resourceName }).allowed;

  if (t.kind === 'Role' || t.kind === 'ClusterRole') {
    if (may('escalate', t.resource, name)) return;
    const why = escalation(cluster, user, namespace, rulesOf(obj));
    if (why) throw forbidden(ref, name, why);
    const aggregating = (o: ObjectWithMeta | undefined) => (o as { aggregationRule?: unknown } | undefined)?.aggregationRule !== undefined;
    // An aggregation rule can gather any rule there is: only who holds them all may set, change or
    // drop one, or touch a role that has one (as kube's ClusterRole storage checks create and update).
    if (t.kind === 'ClusterRole' && (aggregating(obj) || aggregating(old)) && escalation(cluster, user, '', FULL_AUTHORITY)) {
      throw forbidden(ref, name, 'must have cluster-admin privileges to use the aggregationRule');
    }
    return;
  }
  if (t.kind === 'RoleBinding' || t.kind === 'ClusterRoleBinding') {
    const roleRef = (obj as { roleRef?: RoleRef }).roleRef;
    if (!roleRef) return;
    const roleResource = roleRef.kind === 'Role' ? 'roles' : 'clusterroles';
    if (may('bind', roleResource, roleRef.name)) return;
    const resolved = rbacOf(cluster).roleRefRules(roleRef, namespace);
    if ('error' in resolved) throw notFound({ group: RBAC_GROUP, resource: roleResource }, roleRef.name);
    const why = escalation(cluster, user, namespace, resolved.rules);
    if (why) throw forbidden(ref, name, why);
  }
}
