// Impersonation (`Impersonate-User`, `-Group`, `-Uid`, `-Extra-<key>` headers, what `kubectl --as`
// sends), as kube-apiserver's impersonation filter does it: each thing impersonated is authorized
// for the real user (verb `impersonate` on users, groups, serviceaccounts, uids or userextras),
// then the request runs as the impersonated user.
import type { IncomingHttpHeaders } from 'node:http';
import type { LogicalCluster, UserInfo } from '../cluster.js';
import { internalError } from '../errors.js';
import { authorize, forbiddenRequest, type RequestAttributes } from './authorizer.js';
import { serviceAccountUser } from './service-account-tokens.js';

const EXTRA_PREFIX = 'impersonate-extra-';
const SERVICE_ACCOUNT_USER = /^system:serviceaccount:([^:]+):([^:]+)$/;

/** The user a request acts as: `user` itself, or whom its impersonation headers name (403 when not allowed). */
export function impersonated(cluster: LogicalCluster, user: UserInfo, headers: NodeJS.Dict<string[]>): UserInfo {
  const username = headers['impersonate-user']?.[0] ?? '';
  const groupsAsked = headers['impersonate-group'] ?? [];
  const uid = headers['impersonate-uid']?.[0] ?? '';
  const extra: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(headers)) {
    if (!name.startsWith(EXTRA_PREFIX) || !values) continue;
    extra[decodeURIComponent(name.slice(EXTRA_PREFIX.length)).toLowerCase()] = values;
  }
  if (!username) {
    if (groupsAsked.length > 0 || uid || Object.keys(extra).length > 0) throw internalError('requested impersonation of groups, user-extra or a uid without impersonating a user');
    return user;
  }

  const allow = (a: Omit<Extract<RequestAttributes, { resourceRequest: true }>, 'resourceRequest' | 'verb' | 'apiVersion'>) => {
    const attributes: RequestAttributes = { resourceRequest: true, verb: 'impersonate', apiVersion: '', ...a };
    const decision = authorize(cluster, user, attributes);
    if (!decision.allowed) throw forbiddenRequest(user, attributes, decision.reason);
  };
  let groups: string[] = [];
  const sa = SERVICE_ACCOUNT_USER.exec(username);
  if (sa) {
    allow({ namespace: sa[1], apiGroup: '', resource: 'serviceaccounts', subresource: '', name: sa[2] });
    // A ServiceAccount's groups follow from its name unless groups are asked for.
    if (groupsAsked.length === 0) groups = serviceAccountUser(sa[1], sa[2], '').groups.filter((g) => g !== 'system:authenticated');
  } else {
    allow({ namespace: '', apiGroup: '', resource: 'users', subresource: '', name: username });
  }
  for (const g of groupsAsked) {
    allow({ namespace: '', apiGroup: '', resource: 'groups', subresource: '', name: g });
    groups.push(g);
  }
  for (const [key, values] of Object.entries(extra)) {
    for (const v of values) allow({ namespace: '', apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: key, name: v });
  }
  if (uid) allow({ namespace: '', apiGroup: 'authentication.k8s.io', resource: 'uids', subresource: '', name: uid });

  // A named user is authenticated unless the groups say otherwise (system:anonymous is not).
  if (username === 'system:anonymous') {
    if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
  } else if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated')) {
    groups.push('system:authenticated');
  }
  const out: UserInfo = { username, uid, groups };
  if (Object.keys(extra).length > 0) out.extra = extra;
  return out;
}

/** Whether a request asks to impersonate anyone (most do not: the common path stays a lookup). */
export function asksImpersonation(headers: IncomingHttpHeaders): boolean {
  for (const name of Object.keys(headers)) if (name.startsWith('impersonate-')) return true;
  return false;
}
