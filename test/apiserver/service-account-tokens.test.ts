// TokenRequest (`serviceaccounts/<name>/token`) and the tokens it issues: kube's claims, signed with
// a key in the data dir, valid until they expire or their ServiceAccount (or bound object) goes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import type { ObjectWithMeta } from '../../src/kube/object.js';
import { KubeClient } from '../conformance/http.js';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

interface TokenRequest {
  kind: string;
  apiVersion: string;
  metadata: { name: string; namespace: string; creationTimestamp: string };
  spec: { audiences: string[]; expirationSeconds: number; boundObjectRef: Record<string, string> | null };
  status: { token: string; expirationTimestamp: string };
}

interface UserInfo {
  username: string;
  uid: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

const jwtPart = (token: string, i: number) => JSON.parse(Buffer.from(token.split('.')[i], 'base64url').toString('utf8')) as Record<string, unknown>;

/** A client for a logical cluster with helpers that fail loudly. */
class Api {
  readonly client: KubeClient;
  constructor(
    readonly server: RunningApiServer,
    readonly url: string,
    token: string,
  ) {
    this.client = new KubeClient({ url, token, caPem: server.caPem });
  }
  as(token: string): Api {
    return new Api(this.server, this.url, token);
  }
  async send(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const r = await this.client.request(method, path, body === undefined ? {} : { body: JSON.stringify(body) });
    return { status: r.status, body: r.text ? (JSON.parse(r.text) as Record<string, unknown>) : {} };
  }
  async ok(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const r = await this.send(method, path, body);
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }
  async token(namespace: string, sa: string, spec: Record<string, unknown> = {}): Promise<TokenRequest> {
    return (await this.ok('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${sa}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec })) as unknown as TokenRequest;
  }
  /** Who the token is, or the HTTP status when it is refused. */
  async whoami(): Promise<UserInfo | number> {
    const r = await this.send('POST', SSR, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    return r.status === 201 ? (r.body.status as { userInfo: UserInfo }).userInfo : r.status;
  }
  close(): void {
    this.client.close();
  }
}

describe('TokenRequest and ServiceAccount tokens', () => {
  let server: RunningApiServer;
  let admin: Api;
  const opened: Api[] = [];
  const as = (token: string, api = admin) => {
    const a = api.as(token);
    opened.push(a);
    return a;
  };

  before(async () => {
    server = await startApiServer({ port: 0 });
    await server.idle();
    admin = new Api(server, server.url, server.adminToken);
  });
  after(async () => {
    for (const a of opened) a.close();
    admin.close();
    await server.stop();
  });

  it('issues a token for the default ServiceAccount with kube defaults and claims', async () => {
    const before = Math.floor(Date.now() / 1000);
    const tr = await admin.token('default', 'default');
    assert.equal(tr.kind, 'TokenRequest');
    assert.equal(tr.apiVersion, 'authentication.k8s.io/v1');
    assert.deepEqual([tr.metadata.name, tr.metadata.namespace], ['default', 'default']);
    assert.deepEqual(tr.spec, { audiences: [ISSUER], expirationSeconds: 3600, boundObjectRef: null });
    const header = jwtPart(tr.status.token, 0);
    const claims = jwtPart(tr.status.token, 1) as { iat: number; exp: number; nbf: number } & Record<string, unknown>;
    assert.equal(header.alg, 'ES256');
    assert.match(String(header.kid), /^[A-Za-z0-9_-]{43}$/);
    const sa = await admin.ok('GET', '/api/v1/namespaces/default/serviceaccounts/default');
    assert.deepEqual(Object.keys(claims), ['aud', 'exp', 'iat', 'iss', 'kubernetes.io', 'logicalCluster', 'nbf', 'sub']);
    assert.deepEqual(claims.aud, [ISSUER]);
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.sub, 'system:serviceaccount:default:default');
    assert.deepEqual(claims['kubernetes.io'], { namespace: 'default', serviceaccount: { name: 'default', uid: (sa.metadata as { uid: string }).uid } });
    assert.equal(claims.logicalCluster, 'default');
    assert.ok(claims.iat >= before && claims.nbf === claims.iat);
    assert.equal(claims.exp, claims.iat + 3600);
    assert.equal(Date.parse(tr.status.expirationTimestamp) / 1000, claims.exp, 'expirationTimestamp is the token exp');
  });

  it('authenticates as the ServiceAccount, which may do what RBAC grants it and nothing more', async () => {
    const sa = await admin.ok('GET', '/api/v1/namespaces/kube-system/serviceaccounts/default');
    const api = as((await admin.token('kube-system', 'default')).status.token);
    assert.deepEqual(await api.whoami(), {
      username: 'system:serviceaccount:kube-system:default',
      uid: (sa.metadata as { uid: string }).uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
    });
    const canCreate = () => api.ok('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { spec: { resourceAttributes: { verb: 'create', resource: 'configmaps', namespace: 'default' } } });
    assert.deepEqual((await canCreate()).status, { allowed: false });
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'by-sa' } };
    const refused = await api.send('POST', '/api/v1/namespaces/default/configmaps', cm);
    assert.deepEqual([refused.status, refused.body.message], [403, 'configmaps is forbidden: User "system:serviceaccount:kube-system:default" cannot create resource "configmaps" in API group "" in the namespace "default"']);

    await admin.ok('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'robot-edit' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'kube-system' }],
    });
    assert.deepEqual((await canCreate()).status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "robot-edit/default" of ClusterRole "edit" to ServiceAccount "default/kube-system"' });
    await api.ok('POST', '/api/v1/namespaces/default/configmaps', cm);
    assert.equal((await admin.send('GET', '/api/v1/namespaces/default/configmaps/by-sa')).status, 200);
    assert.equal((await api.send('DELETE', '/api/v1/namespaces/kube-system/configmaps/kube-root-ca.crt')).status, 403, 'the binding grants nothing outside its namespace');
  });

  it('validates the request as kube-apiserver does', async () => {
    const path = '/api/v1/namespaces/default/serviceaccounts/default/token';
    const short = await admin.send('POST', path, { spec: { expirationSeconds: 599 } });
    assert.deepEqual(
      [short.status, short.body.message],
      [422, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes'],
    );
    const long = await admin.send('POST', path, { spec: { expirationSeconds: 2 ** 32 + 1 } });
    assert.equal(long.body.message, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds');
    assert.equal((await admin.token('default', 'default', { expirationSeconds: 600 })).spec.expirationSeconds, 600, 'ten minutes is allowed');
    const missing = await admin.send('POST', '/api/v1/namespaces/default/serviceaccounts/nobody/token', { spec: {} });
    assert.deepEqual([missing.status, missing.body.message], [404, 'serviceaccounts "nobody" not found']);
    const renamed = await admin.send('POST', path, { metadata: { name: 'other' }, spec: {} });
    assert.deepEqual([renamed.status, renamed.body.message], [422, 'TokenRequest.authentication.k8s.io "default" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified']);
    const node = await admin.send('POST', path, { spec: { boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n1' } } });
    assert.deepEqual([node.status, node.body.message], [400, 'cannot bind token to object of type /v1, Kind=Node']);
    const get = await admin.send('GET', path);
    assert.equal(get.status, 405);
  });

  it('lists serviceaccounts/token in discovery as kube-apiserver does', async () => {
    const core = (await admin.ok('GET', '/api/v1')) as { resources: Record<string, unknown>[] };
    assert.deepEqual(
      core.resources.find((r) => r.name === 'serviceaccounts/token'),
      { name: 'serviceaccounts/token', singularName: '', namespaced: true, group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] },
    );
  });

  it('stops working when the ServiceAccount is deleted, and a recreated one (new uid) does not accept it', async () => {
    await admin.ok('POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
    const old = as((await admin.token('default', 'robot')).status.token);
    assert.equal(((await old.whoami()) as UserInfo).username, 'system:serviceaccount:default:robot');
    await admin.ok('DELETE', '/api/v1/namespaces/default/serviceaccounts/robot');
    assert.equal(await old.whoami(), 401);
    await admin.ok('POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
    assert.equal(await old.whoami(), 401, 'the old token names the old uid');
    const fresh = as((await admin.token('default', 'robot')).status.token);
    assert.equal(((await fresh.whoami()) as UserInfo).username, 'system:serviceaccount:default:robot');
  });

  it('expires (kube allows 60 s of clock skew past exp)', async (t) => {
    const now = Math.ceil(Date.now() / 1000) * 1000;
    t.mock.timers.enable({ apis: ['Date'], now });
    const api = as((await admin.token('default', 'default', { expirationSeconds: 600 })).status.token);
    assert.equal(typeof (await api.whoami()), 'object');
    t.mock.timers.tick(660_000);
    assert.equal(typeof (await api.whoami()), 'object', 'still valid at exp + 60 s');
    t.mock.timers.tick(1_000);
    assert.equal(await api.whoami(), 401, 'refused after exp + 60 s');
  });

  it('needs the API server among its audiences', async () => {
    const vault = as((await admin.token('default', 'default', { audiences: ['vault'] })).status.token);
    assert.equal(await vault.whoami(), 401);
    const both = await admin.token('default', 'default', { audiences: ['vault', ISSUER] });
    assert.deepEqual(both.spec.audiences, ['vault', ISSUER]);
    assert.equal(typeof (await as(both.status.token).whoami()), 'object');
  });

  it('binds to a Secret or a Pod and dies with it', async () => {
    const secret = await admin.ok('POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'binder' } });
    const bySecret = await admin.token('default', 'default', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'binder' } });
    assert.deepEqual(bySecret.spec.boundObjectRef, { kind: 'Secret', apiVersion: 'v1', name: 'binder' });
    assert.deepEqual((jwtPart(bySecret.status.token, 1)['kubernetes.io'] as Record<string, unknown>).secret, { name: 'binder', uid: (secret.metadata as { uid: string }).uid });
    const secretApi = as(bySecret.status.token);
    assert.equal(typeof (await secretApi.whoami()), 'object');
    await admin.ok('DELETE', '/api/v1/namespaces/default/secrets/binder');
    assert.equal(await secretApi.whoami(), 401);

    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'runner' },
      spec: { serviceAccountName: 'default', containers: [{ name: 'c', image: 'busybox' }] },
    };
    const created = (await admin.ok('POST', '/api/v1/namespaces/default/pods', pod)) as ObjectWithMeta;
    const byPod = await admin.token('default', 'default', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner', uid: created.metadata.uid } });
    const podApi = as(byPod.status.token);
    assert.deepEqual(((await podApi.whoami()) as UserInfo).extra, {
      'authentication.kubernetes.io/pod-name': ['runner'],
      'authentication.kubernetes.io/pod-uid': [created.metadata.uid ?? ''],
    });
    const wrongUid = await admin.send('POST', '/api/v1/namespaces/default/serviceaccounts/default/token', { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner', uid: 'not-it' } } });
    assert.equal(wrongUid.status, 409);
    assert.equal(wrongUid.body.message, 'Operation cannot be fulfilled on Pod "runner": the UID in the bound object reference (not-it) does not match the UID in record. The object might have been deleted and then recreated');
    await admin.ok('POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'other' } });
    const otherSa = await admin.send('POST', '/api/v1/namespaces/default/serviceaccounts/other/token', { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner' } } });
    assert.deepEqual([otherSa.status, otherSa.body.message], [400, 'cannot bind token for serviceaccount "other" to pod running with serviceaccount "default"']);
    await admin.ok('DELETE', '/api/v1/namespaces/default/pods/runner');
    assert.equal(await podApi.whoami(), 401);
  });

  it('opens only the logical cluster it was issued in', async () => {
    const a = await server.createCluster('tokens-a');
    const b = await server.createCluster('tokens-b');
    await server.idle();
    const apiA = new Api(server, a.url, a.token);
    opened.push(apiA);
    const token = (await apiA.token('default', 'default')).status.token;
    assert.equal(typeof (await as(token, apiA).whoami()), 'object');
    const at = (url: string) => {
      const api = new Api(server, url, token);
      opened.push(api);
      return api;
    };
    assert.equal(await at(b.url).whoami(), 401, 'not in another cluster with a ServiceAccount of the same name');
    assert.equal(await at(`${server.url}/clusters/default`).whoami(), 401, 'not in the default cluster');
    // Without the /clusters/<name> prefix the token goes to the cluster it was issued in.
    const unprefixed = await at(server.url).whoami();
    const inA = JSON.parse(server.cluster('tokens-a').store.get('/serviceaccounts', 'default', 'default')?.json ?? '{}') as ObjectWithMeta;
    assert.equal(typeof unprefixed === 'object' && unprefixed.uid, inA.metadata.uid);
    // A token with a byte of its signature changed is nobody.
    const sig = token.split('.')[2];
    const tampered = `${token.split('.').slice(0, 2).join('.')}.${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
    assert.equal(await as(tampered, apiA).whoami(), 401);
  });
});

describe('ServiceAccount tokens across a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kcp-sa-tokens-'));
  const other = mkdtempSync(join(tmpdir(), 'kcp-sa-tokens-other-'));
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
  });

  it('keeps accepting a token when the data dir persists; another server’s key is not accepted', async () => {
    const first = await startApiServer({ port: 0, dataDir: dir });
    await first.createCluster('kept');
    await first.idle();
    const access = first.clusterAccess('kept');
    const api = new Api(first, access.url, access.token);
    const token = (await api.token('default', 'default')).status.token;
    api.close();
    await first.stop();
    assert.equal(statSync(join(dir, 'sa.key')).mode & 0o777, 0o600, 'the signing key is private');

    const second = await startApiServer({ port: 0, dataDir: dir });
    const stranger = await startApiServer({ port: 0, dataDir: other });
    try {
      const url = second.clusterAccess('kept').url;
      const again = new Api(second, url, token);
      assert.equal(((await again.whoami()) as UserInfo).username, 'system:serviceaccount:default:default');
      again.close();
      // Another server (its own key, its own uids) does not accept it for its cluster of the same name.
      await stranger.createCluster('kept');
      await stranger.idle();
      const foreign = new Api(stranger, stranger.clusterAccess('kept').url, token);
      assert.equal(await foreign.whoami(), 401);
      foreign.close();
    } finally {
      await second.stop();
      await stranger.stop();
    }
  });
});
