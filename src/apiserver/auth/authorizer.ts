// Authorization: the one place that decides what a user may do in a logical cluster. Every
// request (handler.ts, server.ts), impersonation and every access review (reviews.ts) asks
// `authorize`; the rules review asks `rulesFor`. As kube-apiserver with
// `--authorization-mode=RBAC`: members of `system:masters` may do everything (its privileged-group
// authorizer, ahead of RBAC), everyone else what the cluster's Roles and bindings grant (rbac.ts).
// A token only ever opens its own logical cluster, so RBAC never spans clusters.
import type { LogicalCluster, UserInfo } from '../cluster.js';
import { forbidden, StatusError } from '../errors.js';
import { aggregateErrors, rbacOf } from './rbac.js';

/** kube's user.SystemPrivilegedGroup. */
export const PRIVILEGED_GROUP = 'system:masters';

/** What a request does, as kube's authorizer.Attributes: a resource request or a non-resource path. */
export type RequestAttributes =
  | {
      resourceRequest: true;
      verb: string;
      namespace: string;
      apiGroup: string;
      /** `*` when the question is about every version. */
      apiVersion: string;
      resource: string;
      subresource: string;
      name: string;
    }
  | { resourceRequest: false; verb: string; path: string };

export interface Decision {
  allowed: boolean;
  /** An explicit denial (an authorizer said no, rather than nobody said yes). */
  denied: boolean;
  reason: string;
}

export interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
}

export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface Rules {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** True when the rules could not all be listed (e.g. an authorizer that cannot enumerate). */
  incomplete: boolean;
  /** What could not be resolved (a binding naming a missing role). */
  evaluationError?: string;
}

export function isPrivileged(user: UserInfo): boolean {
  return user.groups.includes(PRIVILEGED_GROUP);
}

/** May `user` do what `attributes` describe in `cluster`? */
export function authorize(cluster: LogicalCluster, user: UserInfo, attributes: RequestAttributes): Decision {
  if (isPrivileged(user)) return { allowed: true, denied: false, reason: '' };
  const { allowed, reason } = rbacOf(cluster).decide(user, attributes);
  return { allowed, denied: false, reason };
}

/** Everything `user` may do in `namespace` (and cluster-wide), for SelfSubjectRulesReview. */
export function rulesFor(cluster: LogicalCluster, user: UserInfo, namespace: string): Rules {
  if (isPrivileged(user)) {
    return {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    };
  }
  const { rules, errors } = rbacOf(cluster).rulesFor(user, namespace);
  const out: Rules = { resourceRules: [], nonResourceRules: [], incomplete: false };
  for (const r of rules) {
    if (r.resources && r.resources.length > 0) out.resourceRules.push({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources, ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}) });
    if (r.nonResourceURLs && r.nonResourceURLs.length > 0) out.nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
  }
  if (errors.length > 0) out.evaluationError = aggregateErrors(errors);
  return out;
}

/** The verb of a resource request, as kube's request info derives it from method and path. */
export function requestVerb(method: string, named: boolean, watch: boolean): string {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return watch ? 'watch' : named ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

/** Throws kube-apiserver's 403 when the authorizer does not allow the request. */
export function enforce(cluster: LogicalCluster, user: UserInfo, attributes: RequestAttributes): void {
  const decision = authorize(cluster, user, attributes);
  if (!decision.allowed) throw forbiddenRequest(user, attributes, decision.reason);
}

/** The 403 kube-apiserver answers a request its authorizer did not allow, message for message. */
export function forbiddenRequest(user: UserInfo, a: RequestAttributes, reason: string): StatusError {
  let why: string;
  if (!a.resourceRequest) {
    why = `User ${JSON.stringify(user.username)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
    if (reason) why += `: ${reason}`;
    return new StatusError(403, 'Forbidden', `forbidden: ${why}`, {});
  }
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  why = `User ${JSON.stringify(user.username)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${scope}`;
  if (reason) why += `: ${reason}`;
  return forbidden({ group: a.apiGroup, resource: a.resource }, a.name, why);
}
