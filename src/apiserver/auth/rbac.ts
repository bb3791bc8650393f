// RBAC as kube-apiserver's authorizer evaluates it: the rules a user holds come from the
// ClusterRoleBindings that name them (anywhere) and, for a namespaced request, the RoleBindings of
// that namespace; a request is allowed when one rule covers it. RBAC never denies: no matching rule
// is "no opinion", and the reason names only what could not be resolved (a missing role).
//
// The bindings and roles of a logical cluster are read from its store and kept parsed until one
// of the four RBAC kinds changes, so a decision costs a walk over the bindings, not a parse.
import type { LogicalCluster, UserInfo } from '../cluster.js';
import type { StoreEvent } from '../store.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { serviceAccountUsername } from './service-account-tokens.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
const KEYS = {
  roles: `${RBAC_GROUP}/roles`,
  clusterRoles: `${RBAC_GROUP}/clusterroles`,
  roleBindings: `${RBAC_GROUP}/rolebindings`,
  clusterRoleBindings: `${RBAC_GROUP}/clusterrolebindings`,
} as const;
const RBAC_KEYS = new Set<string>(Object.values(KEYS));

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

interface Binding {
  name: string;
  namespace: string;
  roleRef: RoleRef;
  subjects: Subject[];
}

/** What a request asks, in the shape kube's authorizer.Attributes has. */
export type Attributes =
  | { resourceRequest: true; verb: string; namespace: string; apiGroup: string; resource: string; subresource: string; name: string }
  | { resourceRequest: false; verb: string; path: string };

/** Called with each rule that applies to a user, where it came from, or an error resolving a binding; false stops the walk. */
type Visitor = (source: string | undefined, rule: PolicyRule | undefined, err: string | undefined) => boolean;

export const has = (list: readonly string[] | undefined, v: string) => list !== undefined && list.includes(v);

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return has(rule.verbs, '*') || has(rule.verbs, verb);
}

function groupMatches(rule: PolicyRule, group: string): boolean {
  return has(rule.apiGroups, '*') || has(rule.apiGroups, group);
}

function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    // `*/scale` matches the scale subresource of every resource.
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  return !rule.resourceNames || rule.resourceNames.length === 0 || rule.resourceNames.includes(name);
}

/** A non-resource URL of a rule matches `path`: equal, or a prefix ending in `*` (`*` alone matches all). */
export function urlMatches(pattern: string, path: string): boolean {
  return pattern === path || (pattern.endsWith('*') && path.startsWith(pattern.replace(/\*+$/, '')));
}

function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) => urlMatches(u, path));
}

/** Does `rule` allow the request? (kube's RuleAllows) */
export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, a.verb)) return false;
  if (!a.resourceRequest) return nonResourceUrlMatches(rule, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return groupMatches(rule, a.apiGroup) && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
}

function appliesTo(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.username === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      // A RoleBinding's ServiceAccount subject without a namespace means the binding's own.
      const ns = subject.namespace || bindingNamespace;
      return ns !== '' && user.username === serviceAccountUsername(ns, subject.name);
    }
    default:
      return false;
  }
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

function asStrings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

function parseRules(v: unknown): PolicyRule[] {
  if (!Array.isArray(v)) return [];
  return v.map((r: Record<string, unknown>) => ({
    verbs: asStrings(r.verbs) ?? [],
    apiGroups: asStrings(r.apiGroups),
    resources: asStrings(r.resources),
    resourceNames: asStrings(r.resourceNames),
    nonResourceURLs: asStrings(r.nonResourceURLs),
  }));
}

function parseBinding(json: string): Binding {
  const o = JSON.parse(json) as ObjectWithMeta & { roleRef?: RoleRef; subjects?: Subject[] };
  return { name: o.metadata.name ?? '', namespace: o.metadata.namespace ?? '', roleRef: o.roleRef ?? { apiGroup: '', kind: '', name: '' }, subjects: Array.isArray(o.subjects) ? o.subjects : [] };
}

/** The parsed RBAC objects of one logical cluster. */
interface Snapshot {
  clusterRoleBindings: Binding[];
  roleBindings: Map<string, Binding[]>;
  clusterRoles: Map<string, PolicyRule[]>;
  /** `namespace/name` */
  roles: Map<string, PolicyRule[]>;
}

/** A logical cluster's RBAC: the rules that apply to a user, and decisions from them. */
export class RbacEvaluator {
  private snapshot: Snapshot | undefined;

  constructor(private readonly cluster: LogicalCluster) {
    cluster.store.onCommit((ev: StoreEvent) => {
      if (RBAC_KEYS.has(ev.resource)) this.snapshot = undefined;
    });
  }

  private load(): Snapshot {
    if (this.snapshot) return this.snapshot;
    const store = this.cluster.store;
    const roleBindings = new Map<string, Binding[]>();
    for (const o of store.list(KEYS.roleBindings)) {
      const b = parseBinding(o.json);
      const list = roleBindings.get(b.namespace);
      if (list) list.push(b);
      else roleBindings.set(b.namespace, [b]);
    }
    const rulesOf = (key: string) => {
      const out = new Map<string, PolicyRule[]>();
      for (const o of store.list(key)) out.set(o.namespace ? `${o.namespace}/${o.name}` : o.name, parseRules((JSON.parse(o.json) as { rules?: unknown }).rules));
      return out;
    };
    this.snapshot = {
      clusterRoleBindings: store.list(KEYS.clusterRoleBindings).map((o) => parseBinding(o.json)),
      roleBindings,
      clusterRoles: rulesOf(KEYS.clusterRoles),
      roles: rulesOf(KEYS.roles),
    };
    return this.snapshot;
  }

  /** The rules a binding's roleRef grants, or kube's error text when the role does not exist. */
  roleRefRules(ref: RoleRef, bindingNamespace: string): { rules: PolicyRule[] } | { error: string } {
    const s = this.load();
    if (ref.kind === 'Role') {
      const rules = s.roles.get(`${bindingNamespace}/${ref.name}`);
      return rules ? { rules } : { error: `role.${RBAC_GROUP} ${JSON.stringify(ref.name)} not found` };
    }
    if (ref.kind === 'ClusterRole') {
      const rules = s.clusterRoles.get(ref.name);
      return rules ? { rules } : { error: `clusterrole.${RBAC_GROUP} ${JSON.stringify(ref.name)} not found` };
    }
    return { error: `unsupported role reference kind: ${JSON.stringify(ref.kind)}` };
  }

  /** Walks the rules that apply to `user` in `namespace` ('' = cluster-wide only), as kube's VisitRulesFor. */
  visitRules(user: UserInfo, namespace: string, visit: Visitor): void {
    const s = this.load();
    for (const b of s.clusterRoleBindings) {
      const subject = b.subjects.find((sub) => appliesTo(user, sub, ''));
      if (!subject) continue;
      const resolved = this.roleRefRules(b.roleRef, '');
      if ('error' in resolved) {
        if (!visit(undefined, undefined, resolved.error)) return;
        continue;
      }
      const source = `ClusterRoleBinding ${JSON.stringify(b.name)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(subject, '')}`;
      for (const rule of resolved.rules) if (!visit(source, rule, undefined)) return;
    }
    if (!namespace) return;
    for (const b of s.roleBindings.get(namespace) ?? []) {
      const subject = b.subjects.find((sub) => appliesTo(user, sub, namespace));
      if (!subject) continue;
      const resolved = this.roleRefRules(b.roleRef, namespace);
      if ('error' in resolved) {
        if (!visit(undefined, undefined, resolved.error)) return;
        continue;
      }
      const source = `RoleBinding ${JSON.stringify(`${b.name}/${b.namespace}`)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(subject, namespace)}`;
      for (const rule of resolved.rules) if (!visit(source, rule, undefined)) return;
    }
  }

  /** Allowed with the source that allowed it, or not with the resolution errors met on the way. */
  decide(user: UserInfo, a: Attributes): { allowed: boolean; reason: string } {
    let reason = '';
    const errors: string[] = [];
    let allowed = false;
    this.visitRules(user, a.resourceRequest ? a.namespace : '', (source, rule, err) => {
      if (rule && ruleAllows(a, rule)) {
        allowed = true;
        reason = `RBAC: allowed by ${source}`;
        return false;
      }
      if (err) errors.push(err);
      return true;
    });
    if (allowed) return { allowed, reason };
    return { allowed: false, reason: errors.length > 0 ? `RBAC: ${aggregateErrors(errors)}` : '' };
  }

  /** Every rule that applies to `user` in `namespace`, and the errors met resolving them. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRules(user, namespace, (_source, rule, err) => {
      if (rule) rules.push(rule);
      if (err) errors.push(err);
      return true;
    });
    return { rules, errors };
  }
}

/** apimachinery's utilerrors.NewAggregate(...).Error(): one error alone, several in brackets. */
export function aggregateErrors(errors: string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

const evaluators = new WeakMap<LogicalCluster, RbacEvaluator>();

/** The RBAC of a logical cluster (made on first use, kept with the cluster). */
export function rbacOf(cluster: LogicalCluster): RbacEvaluator {
  let e = evaluators.get(cluster);
  if (!e) evaluators.set(cluster, (e = new RbacEvaluator(cluster)));
  return e;
}
