// Authentication, logical-cluster isolation, cluster lifecycle, health and malformed requests.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { KubeClient } from '../conformance/http.js';

const cm = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });

describe('access to the embedded API server', () => {
  let server: RunningApiServer;
  before(async () => {
    server = await startApiServer({ port: 0 });
  });
  after(() => server.stop());

  it('answers readyz and healthz without a token', async () => {
    const c = new KubeClient({ url: server.url, token: '', caPem: server.caPem });
    assert.deepEqual(await c.request('GET', '/readyz'), { status: 200, text: 'ok' });
    assert.equal((await c.request('GET', '/healthz')).status, 200);
    c.close();
  });

  it('rejects a request without a token or with a wrong one with 401 Unauthorized', async () => {
    for (const token of ['', 'not-a-token']) {
      const c = new KubeClient({ url: server.url, token, caPem: server.caPem });
      const r = await c.request('GET', '/api/v1/namespaces');
      assert.equal(r.status, 401);
      assert.deepEqual(JSON.parse(r.text), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
      c.close();
    }
  });

  it('keeps logical clusters apart: objects, resourceVersions and tokens', async () => {
    const a = await server.createCluster('iso-a');
    const b = await server.createCluster('iso-b');
    const ca = new KubeClient({ url: a.url, token: a.token, caPem: server.caPem });
    const cb = new KubeClient({ url: b.url, token: b.token, caPem: server.caPem });
    assert.equal((await ca.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('mine') })).status, 201);
    assert.equal((await cb.request('GET', '/api/v1/namespaces/default/configmaps/mine')).status, 404);
    const crossed = new KubeClient({ url: b.url, token: a.token, caPem: server.caPem });
    assert.equal((await crossed.request('GET', '/api/v1/namespaces')).status, 401, "a's token is not valid on b");
    const rootWithA = new KubeClient({ url: server.url, token: a.token, caPem: server.caPem });
    assert.equal((await rootWithA.request('GET', '/api/v1/namespaces/default/configmaps/mine')).status, 200, "without the /clusters prefix, a's token reaches a");
    // Each cluster counts its own resourceVersions.
    const la = JSON.parse((await ca.request('GET', '/api/v1/namespaces/default/configmaps')).text) as { metadata: { resourceVersion: string } };
    const lb = JSON.parse((await cb.request('GET', '/api/v1/namespaces/default/configmaps')).text) as { metadata: { resourceVersion: string } };
    assert.ok(Number(la.metadata.resourceVersion) > Number(lb.metadata.resourceVersion));
    for (const c of [ca, cb, crossed, rootWithA]) c.close();
  });

  it('makes a deleted logical cluster unreachable', async () => {
    const d = await server.createCluster('doomed');
    const c = new KubeClient({ url: d.url, token: d.token, caPem: server.caPem });
    assert.equal((await c.request('GET', '/api/v1/namespaces')).status, 200);
    await server.deleteCluster('doomed');
    c.close();
    const c2 = new KubeClient({ url: d.url, token: d.token, caPem: server.caPem });
    await assert.rejects(c2.request('GET', '/api/v1/namespaces'), /socket hang up|ECONNRESET/);
    c2.close();
    assert.equal(server.hasCluster('doomed'), false);
  });

  it('answers a malformed body with 400 BadRequest as kube-apiserver does', async () => {
    const c = new KubeClient({ url: server.url, token: server.adminToken, caPem: server.caPem });
    const r = await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: '{"apiVersion":' });
    assert.equal(r.status, 400);
    const s = JSON.parse(r.text) as { reason: string; message: string };
    assert.equal(s.reason, 'BadRequest');
    assert.match(s.message, /couldn't get version\/kind; json parse error: unexpected end of JSON input/);
    c.close();
  });

  it('serves discovery for built-in groups', async () => {
    const c = new KubeClient({ url: server.url, token: server.adminToken, caPem: server.caPem });
    const groups = JSON.parse((await c.request('GET', '/apis')).text) as { groups: { name: string }[] };
    for (const g of ['apps', 'batch', 'coordination.k8s.io', 'rbac.authorization.k8s.io', 'apiextensions.k8s.io', 'admissionregistration.k8s.io']) {
      assert.ok(groups.groups.some((x) => x.name === g), `group ${g} is discovered`);
    }
    const core = JSON.parse((await c.request('GET', '/api/v1')).text) as { resources: { name: string; namespaced: boolean; shortNames?: string[] }[] };
    const cms = core.resources.find((r) => r.name === 'configmaps');
    assert.deepEqual([cms?.namespaced, cms?.shortNames], [true, ['cm']]);
    assert.ok(core.resources.some((r) => r.name === 'pods/status'));
    const version = JSON.parse((await c.request('GET', '/version')).text) as { major: string };
    assert.equal(version.major, '1');
    c.close();
  });

  it('issues short-lived tokens that stop working when they expire', async (t) => {
    await server.createCluster('short');
    // The server judges expiry by Date.now(): a mocked Date, on a whole second, moves only by ticks.
    const now = Math.ceil(Date.now() / 1000) * 1000;
    t.mock.timers.enable({ apis: ['Date'], now });
    const { token, expirationTimestamp } = server.issueToken('short', 1);
    assert.equal(Date.parse(expirationTimestamp), now + 1000, 'expires a second after it was issued');
    const c = new KubeClient({ url: server.clusterAccess('short').url, token, caPem: server.caPem });
    try {
      assert.equal((await c.request('GET', '/api/v1/namespaces')).status, 200);
      t.mock.timers.tick(999);
      assert.equal((await c.request('GET', '/api/v1/namespaces')).status, 200, 'still valid 1 ms before its expiry');
      t.mock.timers.tick(1);
      assert.equal((await c.request('GET', '/api/v1/namespaces')).status, 401, 'refused at its expiry');
    } finally {
      c.close();
    }
  });

  it('serves subresources registered by an extension, and lists them in discovery', async () => {
    server.registerSubresource('', 'configmaps', 'echo', {
      methods: ['POST'],
      handle: async ({ namespace, name, body }) => ({ code: 201, body: { namespace, name, got: body } }),
    });
    const c = new KubeClient({ url: server.url, token: server.adminToken, caPem: server.caPem });
    const r = await c.request('POST', '/api/v1/namespaces/default/configmaps/any/echo', { body: '{"x":1}' });
    assert.equal(r.status, 201);
    assert.deepEqual(JSON.parse(r.text), { namespace: 'default', name: 'any', got: { x: 1 } });
    assert.equal((await c.request('GET', '/api/v1/namespaces/default/configmaps/any/echo')).status, 405);
    c.close();
  });

  it('reports its request count and memory to the admin token at /_kcp/stats', async () => {
    const admin = new KubeClient({ url: server.url, token: server.adminToken, caPem: server.caPem });
    type Stats = { requests: number; clusters: number; pid: number; rssBytes: number; requestsByRoute: Record<string, number> };
    const first = JSON.parse((await admin.request('GET', '/_kcp/stats')).text) as Stats;
    for (let i = 0; i < 3; i++) assert.equal((await admin.request('GET', '/api/v1/namespaces')).status, 200);
    const other = await server.createCluster('stats-other');
    const stranger = new KubeClient({ url: other.url, token: other.token, caPem: server.caPem });
    assert.equal((await stranger.request('PATCH', '/api/v1/namespaces/default/configmaps/none', { body: '{}', contentType: 'application/merge-patch+json' })).status, 404);
    const second = JSON.parse((await admin.request('GET', '/_kcp/stats')).text) as Stats;
    assert.equal(second.requests - first.requests, 4, 'the four API requests, not the stats calls');
    assert.equal(second.clusters, server.clusterNames().length);
    assert.equal(second.pid, process.pid);
    assert.ok(second.rssBytes > 0);
    const grown = (route: string) => (second.requestsByRoute[route] ?? 0) - (first.requestsByRoute[route] ?? 0);
    assert.equal(grown('kcp LIST namespaces'), 3, 'the default cluster is counted as kcp');
    assert.equal(grown('cluster PATCH configmaps'), 1, 'another cluster under the default class, failed requests included');
    assert.equal((await stranger.request('GET', '/_kcp/stats')).status, 401, 'a logical cluster token is not the admin token');
    stranger.close();
    admin.close();
  });
});
