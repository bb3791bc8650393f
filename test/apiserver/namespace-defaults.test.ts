// What kube-controller-manager puts into every namespace: the `default` ServiceAccount and the
// ConfigMap `kube-root-ca.crt`, kept in place, and left alone in a terminating namespace.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT_CA_DESCRIPTION } from '../../src/apiserver/namespace-defaults.js';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import type { ObjectWithMeta } from '../../src/kube/object.js';
import { KubeClient } from '../conformance/http.js';

const INITIAL = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

interface ConfigMap extends ObjectWithMeta {
  data?: Record<string, string>;
}

describe('namespace defaults: the default ServiceAccount and kube-root-ca.crt', () => {
  let server: RunningApiServer;
  let c: KubeClient;
  const get = async <T = ObjectWithMeta>(path: string): Promise<{ status: number; body: T }> => {
    const r = await c.request('GET', path);
    return { status: r.status, body: JSON.parse(r.text) as T };
  };
  const send = async (method: string, path: string, body?: unknown, contentType?: string) => {
    const r = await c.request(method, path, body === undefined ? {} : { body: JSON.stringify(body), contentType });
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
    return JSON.parse(r.text) as ObjectWithMeta;
  };
  const names = async (path: string) => (await get<{ items: ObjectWithMeta[] }>(path)).body.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);

  before(async () => {
    server = await startApiServer({ port: 0 });
    await server.idle();
    c = new KubeClient({ url: server.url, token: server.adminToken, caPem: server.caPem });
  });
  after(async () => {
    c.close();
    await server.stop();
  });

  it('puts both into the initial namespaces, as upstream writes them', async () => {
    assert.deepEqual(await names('/api/v1/serviceaccounts'), INITIAL.map((ns) => `${ns}/default`));
    assert.deepEqual(await names('/api/v1/configmaps'), INITIAL.map((ns) => `${ns}/kube-root-ca.crt`));
    const cm = (await get<ConfigMap>('/api/v1/namespaces/kube-system/configmaps/kube-root-ca.crt')).body;
    assert.deepEqual(cm.data, { 'ca.crt': server.caPem });
    assert.deepEqual(cm.metadata.annotations, { 'kubernetes.io/description': ROOT_CA_DESCRIPTION });
    assert.deepEqual(
      cm.metadata.managedFields?.map((m) => [m.manager, m.operation, m.fieldsV1]),
      [['kube-controller-manager', 'Update', { 'f:data': { '.': {}, 'f:ca.crt': {} }, 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubernetes.io/description': {} } } }]],
    );
    const sa = (await get('/api/v1/namespaces/default/serviceaccounts/default')).body;
    assert.deepEqual(Object.keys(sa.metadata).sort(), ['creationTimestamp', 'name', 'namespace', 'resourceVersion', 'uid']);
  });

  it('does the same in every new logical cluster, with the server CA', async () => {
    await server.createCluster('defaults-new');
    await server.idle();
    const cluster = server.cluster('defaults-new');
    for (const ns of INITIAL) {
      assert.ok(cluster.store.get('/serviceaccounts', ns, 'default'), `default ServiceAccount in ${ns}`);
      const cm = JSON.parse(cluster.store.get('/configmaps', ns, 'kube-root-ca.crt')?.json ?? '{}') as ConfigMap;
      assert.equal(cm.data?.['ca.crt'], server.caPem, `kube-root-ca.crt in ${ns}`);
    }
  });

  it('fills a namespace created by a client', async () => {
    await send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh' } });
    await server.idle();
    assert.equal((await get('/api/v1/namespaces/fresh/serviceaccounts/default')).status, 200);
    assert.equal((await get<ConfigMap>('/api/v1/namespaces/fresh/configmaps/kube-root-ca.crt')).body.data?.['ca.crt'], server.caPem);
  });

  it('recreates what is deleted and puts changed data and a removed description back', async () => {
    await send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'repair' } });
    await server.idle();
    const sa = (await get('/api/v1/namespaces/repair/serviceaccounts/default')).body;
    const cm = (await get<ConfigMap>('/api/v1/namespaces/repair/configmaps/kube-root-ca.crt')).body;
    await send('DELETE', '/api/v1/namespaces/repair/serviceaccounts/default');
    await send('DELETE', '/api/v1/namespaces/repair/configmaps/kube-root-ca.crt');
    await server.idle();
    const sa2 = await get('/api/v1/namespaces/repair/serviceaccounts/default');
    const cm2 = await get<ConfigMap>('/api/v1/namespaces/repair/configmaps/kube-root-ca.crt');
    assert.equal(sa2.status, 200);
    assert.notEqual(sa2.body.metadata.uid, sa.metadata.uid, 'a new ServiceAccount');
    assert.equal(cm2.status, 200);
    assert.notEqual(cm2.body.metadata.uid, cm.metadata.uid, 'a new ConfigMap');

    const path = '/api/v1/namespaces/repair/configmaps/kube-root-ca.crt';
    await send('PATCH', path, { data: { 'ca.crt': 'tampered', extra: 'x' }, metadata: { annotations: { 'kubernetes.io/description': null, mine: 'kept' } } }, 'application/merge-patch+json');
    await server.idle();
    const repaired = (await get<ConfigMap>(path)).body;
    assert.deepEqual(repaired.data, { 'ca.crt': server.caPem }, 'data as published');
    assert.deepEqual(repaired.metadata.annotations, { mine: 'kept', 'kubernetes.io/description': ROOT_CA_DESCRIPTION }, 'description back, other annotations kept');

    // As upstream, any description will do as long as the data is right.
    await send('PATCH', path, { metadata: { annotations: { 'kubernetes.io/description': 'ours' } } }, 'application/merge-patch+json');
    await server.idle();
    assert.equal((await get<ConfigMap>(path)).body.metadata.annotations?.['kubernetes.io/description'], 'ours');
  });

  it('creates nothing in a terminating namespace', async () => {
    await send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'leaving' } });
    await send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'staying' } });
    // An object with a finalizer holds the namespace in Terminating.
    await send('POST', '/api/v1/namespaces/leaving/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    await server.idle();
    await send('DELETE', '/api/v1/namespaces/leaving');
    await server.idle();
    const ns = (await get<{ status: { phase: string } } & ObjectWithMeta>('/api/v1/namespaces/leaving')).body;
    assert.equal(ns.status.phase, 'Terminating');
    // In the same window, the controller recreates the ServiceAccount of an active namespace.
    await send('DELETE', '/api/v1/namespaces/staying/serviceaccounts/default');
    await server.idle();
    assert.equal((await get('/api/v1/namespaces/staying/serviceaccounts/default')).status, 200, 'the controller ran');
    assert.equal((await get('/api/v1/namespaces/leaving/serviceaccounts/default')).status, 404);
    assert.equal((await get('/api/v1/namespaces/leaving/configmaps/kube-root-ca.crt')).status, 404);
    assert.deepEqual(await names('/api/v1/namespaces/leaving/configmaps'), ['leaving/held']);
    await send('PATCH', '/api/v1/namespaces/leaving/configmaps/held', { metadata: { finalizers: null } }, 'application/merge-patch+json');
    await server.idle();
    assert.equal((await get('/api/v1/namespaces/leaving')).status, 404, 'the namespace went once the finalizer was gone');
  });
});

describe('namespace defaults across a restart and when disabled', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kcp-ns-defaults-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves namespaces alone with both controllers disabled, and fills them after a restart with them on', async () => {
    const off = await startApiServer({ port: 0, dataDir: dir, disabledControllers: ['serviceaccount', 'root-ca-cert-publisher'] });
    await off.createCluster('older');
    const ns = off.cluster('older').resolve('', 'v1', 'namespaces')!;
    await off.cluster('older').create(ns, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'app' } });
    await off.idle();
    assert.equal(off.cluster('older').store.list('/serviceaccounts').length, 0);
    assert.equal(off.cluster('older').store.list('/configmaps').length, 0);
    await off.stop();

    const on = await startApiServer({ port: 0, dataDir: dir });
    try {
      await on.idle();
      for (const cluster of ['default', 'older']) {
        const store = on.cluster(cluster).store;
        const expected = cluster === 'older' ? [...INITIAL, 'app'].sort() : INITIAL;
        assert.deepEqual(store.list('/serviceaccounts').map((o) => o.namespace), expected, `ServiceAccounts in ${cluster}`);
        assert.deepEqual(store.list('/configmaps').map((o) => o.namespace), expected, `kube-root-ca.crt in ${cluster}`);
      }
    } finally {
      await on.stop();
    }
  });
});
