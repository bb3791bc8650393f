// The create-only review kinds: SelfSubjectAccessReview and SelfSubjectRulesReview
// (authorization.k8s.io/v1) and SelfSubjectReview (authentication.k8s.io/v1). A POST is answered
// from the request and the caller; nothing is stored. Answers are shaped as kube-apiserver
// encodes them (Go field order, omitempty, `creationTimestamp: null` for an empty one).
import type { LogicalCluster, UserInfo } from '../cluster.js';
import { badRequest, type FieldError, fieldErrors, invalid } from '../errors.js';
import { nowRfc3339 } from '../objects.js';
import type { ResourceType } from '../resources.js';
import { isPlainObject } from '../../kube/json.js';
import { authorize, type RequestAttributes, rulesFor } from './authorizer.js';

const AUTHORIZATION = 'authorization.k8s.io';

type JsonObject = Record<string, unknown>;

/** Answers a POST of a create-only kind (`t.createOnly`) for `user`. */
export function answerReview(cluster: LogicalCluster, t: ResourceType, body: JsonObject, user: UserInfo): JsonObject {
  switch (t.kind) {
    case 'SelfSubjectAccessReview':
      return selfSubjectAccessReview(cluster, t, body, user);
    case 'SelfSubjectRulesReview':
      return selfSubjectRulesReview(cluster, t, body, user);
    case 'SelfSubjectReview':
      return selfSubjectReview(t, user);
    default:
      throw new Error(`no review handler for ${t.kind}`);
  }
}

function typeMeta(t: ResourceType): { kind: string; apiVersion: string } {
  return { kind: t.kind, apiVersion: `${t.group}/${t.version}` };
}

function objectOrUndefined(v: unknown): JsonObject | undefined {
  return isPlainObject(v) ? v : undefined;
}

/** Keeps the named string fields that are set, in the given (Go struct) order. */
function strings(src: JsonObject, keys: string[]): JsonObject {
  const out: JsonObject = {};
  for (const k of keys) if (typeof src[k] === 'string' && src[k] !== '') out[k] = src[k];
  return out;
}

const RESOURCE_ATTRIBUTE_KEYS = ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'];

function resourceAttributesOf(src: JsonObject): JsonObject {
  const out = strings(src, RESOURCE_ATTRIBUTE_KEYS);
  // Selectors (kube 1.31+) are kept as sent; the decision does not depend on them today.
  if (isPlainObject(src.fieldSelector)) out.fieldSelector = src.fieldSelector;
  if (isPlainObject(src.labelSelector)) out.labelSelector = src.labelSelector;
  return out;
}

/** True when ObjectMeta is at its zero value (clients send `{"creationTimestamp": null}`). */
function emptyMeta(meta: unknown): boolean {
  if (meta === undefined || meta === null) return true;
  if (!isPlainObject(meta)) return false;
  return Object.values(meta).every((v) => v === null || v === '' || v === 0 || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0));
}

function selfSubjectAccessReview(cluster: LogicalCluster, t: ResourceType, body: JsonObject, user: UserInfo): JsonObject {
  const spec = objectOrUndefined(body.spec) ?? {};
  const ra = objectOrUndefined(spec.resourceAttributes);
  const nra = objectOrUndefined(spec.nonResourceAttributes);
  const errs: FieldError[] = [];
  if (ra && nra) {
    // Go prints the offending struct with %#v.
    const go = `authorization.NonResourceAttributes{Path:${JSON.stringify(nra.path ?? '')}, Verb:${JSON.stringify(nra.verb ?? '')}}`;
    errs.push({ type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', message: `Invalid value: ${go}: cannot be specified in combination with resourceAttributes` });
  }
  // kube 1.24 renders the nil value it reports as the string "null".
  if (!ra && !nra) errs.push(fieldErrors.invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  if (!emptyMeta(body.metadata)) errs.push(fieldErrors.invalid('metadata', body.metadata, 'must be empty'));
  if (errs.length > 0) throw invalid(t.kind, AUTHORIZATION, '', errs);

  let attributes: RequestAttributes;
  const echoed: JsonObject = {};
  if (ra) {
    const r = resourceAttributesOf(ra);
    echoed.resourceAttributes = r;
    const s = (k: string) => (typeof r[k] === 'string' ? (r[k] as string) : '');
    attributes = {
      resourceRequest: true,
      verb: s('verb'),
      namespace: s('namespace'),
      apiGroup: s('group'),
      apiVersion: s('version') || '*',
      resource: s('resource'),
      subresource: s('subresource'),
      name: s('name'),
    };
  } else {
    const n = strings(nra!, ['path', 'verb']);
    echoed.nonResourceAttributes = n;
    attributes = { resourceRequest: false, verb: (n.verb as string | undefined) ?? '', path: (n.path as string | undefined) ?? '' };
  }
  const decision = authorize(cluster, user, attributes);
  const status: JsonObject = { allowed: decision.allowed };
  if (decision.denied) status.denied = true;
  if (decision.reason) status.reason = decision.reason;
  return { ...typeMeta(t), metadata: { creationTimestamp: null }, spec: echoed, status };
}

function selfSubjectRulesReview(cluster: LogicalCluster, t: ResourceType, body: JsonObject, user: UserInfo): JsonObject {
  const namespace = objectOrUndefined(body.spec)?.namespace;
  if (typeof namespace !== 'string' || namespace === '') throw badRequest('no namespace on request');
  const rules = rulesFor(cluster, user, namespace);
  // kube answers with a fresh object: the spec is not echoed.
  return {
    ...typeMeta(t),
    metadata: { creationTimestamp: null },
    spec: {},
    status: {
      resourceRules: rules.resourceRules.map((r) => {
        const out: JsonObject = { verbs: r.verbs };
        if (r.apiGroups.length > 0) out.apiGroups = r.apiGroups;
        if (r.resources.length > 0) out.resources = r.resources;
        if (r.resourceNames && r.resourceNames.length > 0) out.resourceNames = r.resourceNames;
        return out;
      }),
      nonResourceRules: rules.nonResourceRules.map((r) => (r.nonResourceURLs.length > 0 ? { verbs: r.verbs, nonResourceURLs: r.nonResourceURLs } : { verbs: r.verbs })),
      incomplete: rules.incomplete,
      ...(rules.evaluationError ? { evaluationError: rules.evaluationError } : {}),
    },
  };
}

function selfSubjectReview(t: ResourceType, user: UserInfo): JsonObject {
  const userInfo: JsonObject = {};
  if (user.username) userInfo.username = user.username;
  if (user.uid) userInfo.uid = user.uid;
  if (user.groups.length > 0) userInfo.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length > 0) userInfo.extra = user.extra;
  return { ...typeMeta(t), metadata: { creationTimestamp: nowRfc3339() }, status: { userInfo } };
}
