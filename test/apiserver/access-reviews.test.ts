// SelfSubjectAccessReview, SelfSubjectRulesReview and SelfSubjectReview: who the caller is and
// what it may do, answered as kube-apiserver answers them (create-only, nothing stored).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { forbiddenRequest, requestVerb } from '../../src/apiserver/auth/authorizer.js';
import type { RunningApiServer } from '../../src/apiserver/server.js';
import { KubeClient } from '../conformance/http.js';
import { startServerWithAdmin } from '../support/apiserver.js';
import { rawRequest } from '../support/https-raw.js';

const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const SSRR = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';
const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

const ADMIN = { username: 'admin', uid: 'u-1', groups: ['system:masters', 'system:authenticated'] };

describe('access reviews', () => {
  let server: RunningApiServer;
  let admin: KubeClient;
  const post = async (c: KubeClient, path: string, body: unknown) => {
    const r = await c.request('POST', path, { body: JSON.stringify(body) });
    return { status: r.status, body: JSON.parse(r.text) as Record<string, unknown> };
  };

  let stop: () => Promise<void>;
  before(async () => {
    ({ server, admin, stop } = await startServerWithAdmin());
  });
  after(() => stop());

  it('answers a SelfSubjectAccessReview for a resource: allowed, with the attributes echoed', async () => {
    const r = await post(admin, SSAR, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods', unknownField: 'dropped' } },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body, {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } },
      status: { allowed: true },
    });
  });

  it('answers a SelfSubjectAccessReview for a non-resource path', async () => {
    const r = await post(admin, SSAR, { kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } } });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.spec, { nonResourceAttributes: { path: '/healthz', verb: 'get' } });
    assert.deepEqual(r.body.status, { allowed: true });
  });

  it('rejects a SelfSubjectAccessReview without exactly one kind of attributes, with kube-apiserver 1.24 messages', async () => {
    const none = await post(admin, SSAR, { kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: {} });
    assert.equal(none.status, 422);
    assert.equal(
      none.body.message,
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
    const both = await post(admin, SSAR, {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      spec: { resourceAttributes: { verb: 'get', resource: 'pods' }, nonResourceAttributes: { path: '/x', verb: 'get' } },
    });
    assert.equal(both.status, 422);
    assert.equal(
      both.body.message,
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    );
  });

  it('lists the rules of the caller in a SelfSubjectRulesReview: everything, completely', async () => {
    const r = await post(admin, SSRR, { kind: 'SelfSubjectRulesReview', apiVersion: 'authorization.k8s.io/v1', spec: { namespace: 'kube-system' } });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body, {
      kind: 'SelfSubjectRulesReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: {},
      status: {
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        incomplete: false,
      },
    });
    const missing = await post(admin, SSRR, { kind: 'SelfSubjectRulesReview', apiVersion: 'authorization.k8s.io/v1', spec: {} });
    assert.deepEqual([missing.status, missing.body.reason, missing.body.message], [400, 'BadRequest', 'no namespace on request']);
  });

  it("tells the admin token's user in a SelfSubjectReview, the same user each time", async () => {
    const first = await post(admin, SSR, { kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' });
    assert.equal(first.status, 201);
    const meta = first.body.metadata as { creationTimestamp: string };
    assert.match(meta.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const info = (first.body.status as { userInfo: { username: string; uid: string; groups: string[] } }).userInfo;
    assert.equal(info.username, 'admin');
    assert.deepEqual(info.groups, ['system:masters', 'system:authenticated']);
    assert.match(info.uid, /^[0-9a-f-]{36}$/);
    const second = await post(admin, SSR, { kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' });
    assert.deepEqual((second.body.status as { userInfo: unknown }).userInfo, info);
  });

  it('answers in each logical cluster for that cluster’s token', async () => {
    const access = await server.createCluster('reviews-a');
    const c = new KubeClient({ url: access.url, token: access.token, caPem: server.caPem });
    try {
      const r = await post(c, SSAR, { kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: { resourceAttributes: { verb: 'delete', resource: 'namespaces', name: 'kube-system' } } });
      assert.deepEqual([r.status, r.body.status], [201, { allowed: true }]);
      const other = new KubeClient({ url: access.url, token: server.adminToken, caPem: server.caPem });
      assert.equal((await other.request('POST', SSR, { body: '{}' })).status, 401, "the default cluster's token does not open another cluster");
      other.close();
    } finally {
      c.close();
    }
  });

  it('answers for the impersonated user (kubectl --as), with the groups kube-apiserver gives', async () => {
    const whoamiAs = async (headers: Record<string, string | string[]>) => {
      const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
      const r = await rawRequest({ url: server.url, token: server.adminToken, caPem: server.caPem }, 'POST', SSR, { headers, body });
      return { status: r.status, body: JSON.parse(r.body.toString()) as Record<string, unknown> };
    };
    const userInfo = async (headers: Record<string, string | string[]>) => ((await whoamiAs(headers)).body.status as { userInfo: unknown }).userInfo;
    assert.deepEqual(await userInfo({ 'Impersonate-User': 'bob', 'Impersonate-Group': ['devs', 'ops'] }), { username: 'bob', groups: ['devs', 'ops', 'system:authenticated'] });
    assert.deepEqual(await userInfo({ 'Impersonate-User': 'system:serviceaccount:team:robot' }), {
      username: 'system:serviceaccount:team:robot',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
    });
    assert.deepEqual(await userInfo({ 'Impersonate-User': 'carol', 'Impersonate-Uid': 'u-7', 'Impersonate-Extra-Scopes': ['read', 'write'] }), {
      username: 'carol',
      uid: 'u-7',
      groups: ['system:authenticated'],
      extra: { scopes: ['read', 'write'] },
    });
    // Unauthenticated identities are not bound to system:basic-user (only system:authenticated is):
    // kube-apiserver refuses them the review, naming who they are.
    for (const [headers, username] of [
      [{ 'Impersonate-User': 'dave', 'Impersonate-Group': 'system:unauthenticated' }, 'dave'],
      [{ 'Impersonate-User': 'system:anonymous' }, 'system:anonymous'],
    ] as const) {
      const refused = await whoamiAs(headers);
      assert.deepEqual([refused.status, refused.body.message], [403, `selfsubjectreviews.authentication.k8s.io is forbidden: User "${username}" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope`]);
    }
    const groupOnly = await whoamiAs({ 'Impersonate-Group': 'devs' });
    assert.deepEqual([groupOnly.status, groupOnly.body.reason], [500, 'InternalError']);
  });

  it('serves the reviews create-only, as discovery says: no list, no get, nothing stored', async () => {
    const authz = JSON.parse((await admin.request('GET', '/apis/authorization.k8s.io/v1')).text) as { resources: unknown[] };
    assert.deepEqual(authz.resources, [
      { name: 'selfsubjectaccessreviews', singularName: '', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
      { name: 'selfsubjectrulesreviews', singularName: '', namespaced: false, kind: 'SelfSubjectRulesReview', verbs: ['create'] },
    ]);
    const authn = JSON.parse((await admin.request('GET', '/apis/authentication.k8s.io/v1')).text) as { resources: unknown[] };
    assert.deepEqual(authn.resources, [{ name: 'selfsubjectreviews', singularName: '', namespaced: false, kind: 'SelfSubjectReview', verbs: ['create'] }]);
    const groups = JSON.parse((await admin.request('GET', '/apis')).text) as { groups: { name: string; preferredVersion: { groupVersion: string } }[] };
    for (const g of ['authentication.k8s.io', 'authorization.k8s.io']) {
      assert.equal(groups.groups.find((x) => x.name === g)?.preferredVersion.groupVersion, `${g}/v1`);
    }
    assert.equal((await admin.request('GET', SSAR)).status, 405);
    assert.equal((await admin.request('DELETE', SSR)).status, 405);
    assert.equal((await admin.request('GET', `${SSAR}/anything`)).status, 404);
    assert.equal((await admin.request('POST', `${SSR}/anything`, { body: '{}' })).status, 404);
    assert.equal(server.cluster('default').store.resources().some((r) => r.includes('review')), false, 'no review was stored');
  });
});

describe('the authorizer', () => {
  it('derives the verb of a request as kube-apiserver does', () => {
    assert.deepEqual(
      [
        requestVerb('GET', true, false),
        requestVerb('GET', false, false),
        requestVerb('GET', false, true),
        requestVerb('POST', false, false),
        requestVerb('PUT', true, false),
        requestVerb('PATCH', true, false),
        requestVerb('DELETE', true, false),
        requestVerb('DELETE', false, false),
      ],
      ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
    );
  });

  it("words a denial as kube-apiserver's 403 (for when RBAC denies)", () => {
    const inNamespace = forbiddenRequest(ADMIN, { resourceRequest: true, verb: 'create', namespace: 'ns1', apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', subresource: 'scale', name: 'web' }, '');
    assert.deepEqual(inNamespace.toStatus(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'deployments.apps "web" is forbidden: User "admin" cannot create resource "deployments/scale" in API group "apps" in the namespace "ns1"',
      reason: 'Forbidden',
      details: { name: 'web', group: 'apps', kind: 'deployments' },
      code: 403,
    });
    const clusterScope = forbiddenRequest(ADMIN, { resourceRequest: true, verb: 'list', namespace: '', apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource: '', name: '' }, 'no RBAC rule');
    assert.equal(clusterScope.message, 'nodes is forbidden: User "admin" cannot list resource "nodes" in API group "" at the cluster scope: no RBAC rule');
    const path = forbiddenRequest(ADMIN, { resourceRequest: false, verb: 'get', path: '/metrics' }, '');
    assert.equal(path.message, 'forbidden: User "admin" cannot get path "/metrics"');
  });
});
