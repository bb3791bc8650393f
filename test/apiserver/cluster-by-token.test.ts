// Requests without the /clusters/<name> prefix go to the logical cluster whose token they carry
// (kubectl get --raw, clients that rebuild URLs from the host); the prefix still decides when given.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { KubeClient } from '../conformance/http.js';

const cm = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });
// Every namespace also holds its kube-root-ca.crt; these tests count their own ConfigMaps.
const names = (text: string) =>
  (JSON.parse(text) as { items: { metadata: { name: string } }[] }).items
    .map((i) => i.metadata.name)
    .filter((n) => n !== 'kube-root-ca.crt')
    .sort();

describe('requests without the cluster prefix', () => {
  let server: RunningApiServer;
  const clients: KubeClient[] = [];
  const client = (url: string, token: string) => {
    const c = new KubeClient({ url, token, caPem: server.caPem });
    clients.push(c);
    return c;
  };
  before(async () => {
    server = await startApiServer({ port: 0 });
  });
  after(async () => {
    for (const c of clients) c.close();
    await server.stop();
  });

  it("go to the cluster of a logical cluster's token; the admin token keeps the default cluster", async () => {
    const a = await server.createCluster('tok-a');
    const admin = client(server.url, server.adminToken);
    const prefixedA = client(a.url, a.token);
    const rootA = client(server.url, a.token);
    assert.equal((await admin.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('in-default') })).status, 201);
    assert.equal((await prefixedA.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('in-a') })).status, 201);
    assert.equal((await rootA.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('in-a-too') })).status, 201);
    assert.deepEqual(names((await rootA.request('GET', '/api/v1/namespaces/default/configmaps')).text), ['in-a', 'in-a-too']);
    assert.deepEqual(names((await prefixedA.request('GET', '/api/v1/namespaces/default/configmaps')).text), ['in-a', 'in-a-too']);
    assert.deepEqual(names((await admin.request('GET', '/api/v1/namespaces/default/configmaps')).text), ['in-default']);
    const version = await rootA.request('GET', '/version');
    assert.equal(version.status, 200);
    assert.equal((JSON.parse(version.text) as { major: string }).major, '1');
  });

  it('counts such requests for the cluster of the token', async () => {
    const a = server.clusterAccess('tok-a');
    const seen: string[] = [];
    const stop = server.observeRequests((r) => seen.push(`${r.cluster} ${r.path}`));
    await client(server.url, a.token).request('GET', '/api/v1/namespaces');
    await client(server.url, server.adminToken).request('GET', '/api/v1/namespaces');
    stop();
    assert.deepEqual(seen, ['tok-a /api/v1/namespaces', 'default /api/v1/namespaces']);
  });

  it("keeps a token to its own cluster under a prefix, and refuses unknown, expired and deleted clusters' tokens", async () => {
    const a = server.clusterAccess('tok-a');
    const b = await server.createCluster('tok-b');
    assert.equal((await client(b.url, a.token).request('GET', '/api/v1/namespaces')).status, 401, "a's token on /clusters/tok-b");
    assert.equal((await client(a.url, server.adminToken).request('GET', '/api/v1/namespaces')).status, 401, 'the admin token on /clusters/tok-a');
    assert.equal((await client(server.url, 'not-a-token').request('GET', '/api/v1/namespaces')).status, 401);
    const shortLived = server.issueToken('tok-a', 600);
    assert.deepEqual(names((await client(server.url, shortLived.token).request('GET', '/api/v1/namespaces/default/configmaps')).text), ['in-a', 'in-a-too']);
    const expired = server.issueToken('tok-a', 0);
    assert.equal((await client(server.url, expired.token).request('GET', '/api/v1/namespaces')).status, 401);
    await server.deleteCluster('tok-b');
    assert.equal((await client(server.url, b.token).request('GET', '/api/v1/namespaces')).status, 401, "a deleted cluster's token opens nothing");
  });
});
