// Custom resources come back as kube-apiserver encodes them (unstructured maps, keys sorted at every
// level) on every path: write answers, GET of each served version, lists, watch events, and data
// restored from a data dir written before the server sorted them. Built-in kinds keep struct order.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeLine, STORE_VERSION } from '../../src/apiserver/persistence-format.js';
import { startApiServer, type RunningApiServer } from '../../src/apiserver/server.js';
import { isPlainObject } from '../../src/kube/json.js';
import { KubeClient } from '../conformance/http.js';

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.order.example.com' },
  spec: {
    group: 'order.example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: ['v1', 'v1beta1'].map((name) => ({
      name,
      served: true,
      storage: name === 'v1',
      subresources: { status: {} },
      schema: { openAPIV3Schema: { type: 'object', properties: { data: { type: 'string' }, spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
    })),
  },
};

/** A gadget whose keys are deliberately out of order at every level ("data" sorts between apiVersion and kind). */
function gadget(name: string): Record<string, unknown> {
  return { spec: { zone: 'b', alpha: { z: 1, a: [{ y: 1, b: 2 }] } }, metadata: { name, labels: { z: '1', a: '2' } }, kind: 'Gadget', data: 'x', apiVersion: 'order.example.com/v1' };
}

/** Paths of objects whose keys are not sorted. */
function unsorted(v: unknown, path = ''): string[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => unsorted(x, `${path}[${i}]`));
  if (!isPlainObject(v)) return [];
  const keys = Object.keys(v);
  const here = keys.some((k, i) => i > 0 && keys[i - 1] > k) ? [path || '.'] : [];
  return [...here, ...keys.flatMap((k) => unsorted(v[k], `${path}.${k}`))];
}

async function json(c: KubeClient, method: string, path: string, body?: unknown, contentType?: string): Promise<Record<string, unknown>> {
  const r = await c.request(method, path, { body: body === undefined ? undefined : JSON.stringify(body), contentType });
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
  return JSON.parse(r.text) as Record<string, unknown>;
}

const BASE = '/apis/order.example.com/v1/namespaces/default/gadgets';

describe('custom resources are encoded with sorted keys', () => {
  let server: RunningApiServer;
  let c: KubeClient;
  before(async () => {
    server = await startApiServer({ port: 0 });
    c = new KubeClient({ url: server.url, token: server.adminToken, caPem: server.caPem });
    await json(c, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD);
  });
  after(async () => {
    c.close();
    await server.stop();
  });

  it('in write answers, GETs of every served version, lists and watch events', async () => {
    const list0 = await json(c, 'GET', BASE);
    const watch = await c.watch(`${BASE}?watch=1&resourceVersion=${(list0.metadata as { resourceVersion: string }).resourceVersion}`);
    const answers = {
      create: await json(c, 'POST', BASE, gadget('g1')),
      create2: await json(c, 'POST', BASE, gadget('g2')),
      update: await json(c, 'PUT', `${BASE}/g1`, gadget('g1')),
      status: await json(c, 'PUT', `${BASE}/g1/status`, { ...gadget('g1'), status: { zeta: true, beta: { y: 1, x: 2 } } }),
      merge: await json(c, 'PATCH', `${BASE}/g1`, { spec: { mid: { q: 1, p: 2 } } }, 'application/merge-patch+json'),
      apply: await json(c, 'PATCH', `${BASE}/g2?fieldManager=t`, gadget('g2'), 'application/apply-patch+yaml'),
      get: await json(c, 'GET', `${BASE}/g1`),
      getOtherVersion: await json(c, 'GET', '/apis/order.example.com/v1beta1/namespaces/default/gadgets/g1'),
      list: await json(c, 'GET', BASE),
      listPage: await json(c, 'GET', `${BASE}?limit=1`),
      listOtherVersion: await json(c, 'GET', '/apis/order.example.com/v1beta1/namespaces/default/gadgets'),
    };
    for (const [what, body] of Object.entries(answers)) assert.deepEqual(unsorted(body), [], `${what}: every object's keys sorted`);
    assert.equal((answers.getOtherVersion as { apiVersion: string }).apiVersion, 'order.example.com/v1beta1');
    assert.deepEqual(Object.keys(answers.listPage), ['apiVersion', 'items', 'kind', 'metadata']);
    assert.deepEqual(Object.keys(answers.listPage.metadata as object), ['continue', 'remainingItemCount', 'resourceVersion']);
    const events = await watch.take(5, 10_000);
    watch.close();
    assert.equal(events.length, 5, "create, create, status, merge, apply (the PUT was a no-op)");
    for (const e of events) assert.deepEqual(unsorted((e as { object: unknown }).object), [], 'watch event object sorted');

    const cm = await json(c, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { b: '1', a: '2' } });
    assert.deepEqual(Object.keys(cm), ['kind', 'apiVersion', 'metadata', 'data'], 'built-in kinds keep struct order');
  });
});

describe('custom resources restored from an older data dir', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kcp-cr-order-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('are sorted once at restore', async () => {
    const first = await startApiServer({ port: 0, dataDir: dir });
    const c1 = new KubeClient({ url: first.url, token: first.adminToken, caPem: first.caPem });
    await json(c1, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD);
    await json(c1, 'POST', BASE, gadget('old'));
    c1.close();
    await first.stop();
    // Rewrite the stored gadget as an older server stored it: in the order the client sent its keys,
    // in that server's store format (wal.log, JSON lines without checksums, each object a JSON string).
    let rewritten = 0;
    const store = join(dir, 'store');
    const segment = join(store, 'wal-00000001.log');
    const lines = readFileSync(segment, 'utf8')
      .split('\n')
      .filter((line) => line && !line.includes('"format":"kcp-store"'))
      .map((line) => {
        const d = decodeLine(Buffer.from(line), STORE_VERSION);
        assert.ok('value' in d, 'a line of the store decodes');
        const rec = d.value as { r: string; j: string };
        if (rec.r !== 'order.example.com/gadgets') return JSON.stringify(rec);
        const o = JSON.parse(rec.j) as Record<string, unknown>;
        rec.j = JSON.stringify({ kind: o.kind, spec: { zone: 'b', alpha: { z: 1 } }, apiVersion: o.apiVersion, metadata: o.metadata });
        rewritten++;
        return JSON.stringify(rec);
      });
    writeFileSync(join(store, 'wal.log'), `${lines.join('\n')}\n`);
    rmSync(segment);
    assert.ok(rewritten > 0, 'the stored gadget was found and rewritten');

    const second = await startApiServer({ port: 0, dataDir: dir });
    const c2 = new KubeClient({ url: second.url, token: second.adminToken, caPem: second.caPem });
    try {
      const got = await json(c2, 'GET', `${BASE}/old`);
      assert.deepEqual(got.spec, { alpha: { z: 1 }, zone: 'b' }, 'the rewritten object was restored');
      assert.deepEqual(unsorted(got), []);
    } finally {
      c2.close();
      await second.stop();
    }
  });
});
