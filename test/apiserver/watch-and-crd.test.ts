// Watch options (bookmarks, timeoutSeconds, resume) and CustomResourceDefinitions with several
// versions and CEL rules, through the HTTP API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { watchSettings } from '../../src/apiserver/watch.js';
import { KubeClient } from '../conformance/http.js';

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'modules.mv.example.com' },
  spec: {
    group: 'mv.example.com',
    scope: 'Namespaced',
    names: { plural: 'modules', singular: 'module', kind: 'Module' },
    versions: [
      {
        name: 'v1beta1', served: true, storage: false,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { channel: { type: 'string' } } } } } },
      },
      {
        name: 'v1', served: true, storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { channel: { type: 'string' }, min: { type: 'integer' }, max: { type: 'integer' } },
                'x-kubernetes-validations': [
                  { rule: 'self.min <= self.max', message: 'min must not exceed max' },
                  { rule: 'self.channel == oldSelf.channel', message: 'channel is immutable' },
                ],
              },
            },
          },
        },
      },
      { name: 'v1alpha1', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
    ],
  },
};

interface Obj {
  apiVersion: string;
  metadata: { resourceVersion: string; name: string };
  spec?: Record<string, unknown>;
}

describe('watch options and custom resource versions', () => {
  let server: RunningApiServer;
  let c: KubeClient;
  const savedInterval = watchSettings.bookmarkIntervalMs;
  before(async () => {
    watchSettings.bookmarkIntervalMs = 200;
    server = await startApiServer({ port: 0 });
    c = new KubeClient({ url: server.url, token: server.adminToken, caPem: server.caPem });
  });
  after(async () => {
    watchSettings.bookmarkIntervalMs = savedInterval;
    c.close();
    await server.stop();
  });

  it('sends bookmarks only when asked for, and ends the watch after timeoutSeconds', async (t) => {
    const list = JSON.parse((await c.request('GET', '/api/v1/namespaces/default/configmaps')).text) as { metadata: { resourceVersion: string } };
    // The server's bookmark interval and watch timeout run on a mocked clock: bookmarks every
    // 333 ms arrive at 333, 666 and 999 ms, and the watch ends at 1000 ms, not before.
    t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
    watchSettings.bookmarkIntervalMs = 333;
    try {
      const w = await c.watch(`/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=${list.metadata.resourceVersion}`);
      const events: { type: string; object: { metadata: { resourceVersion: string } } }[] = [];
      for (let i = 1; i <= 3; i++) {
        t.mock.timers.tick(333);
        events.push(...((await w.take(1, 60_000)) as typeof events));
        assert.equal(events.length, i, `bookmark ${i} arrived at ${i * 333} ms`);
      }
      assert.ok(events.every((e) => e.type === 'BOOKMARK'));
      assert.ok(Number(events[0].object.metadata.resourceVersion) >= Number(list.metadata.resourceVersion));
      assert.equal(w.ended, false, 'still open at 999 ms (its third bookmark came through)');
      t.mock.timers.tick(1);
      await w.take(100, 60_000);
      assert.equal(w.ended, true, 'the server closed the watch at timeoutSeconds');
      const plain = await c.watch(`/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1&resourceVersion=${list.metadata.resourceVersion}`);
      t.mock.timers.tick(1000);
      assert.deepEqual(await plain.take(100, 60_000), [], 'no bookmark without allowWatchBookmarks');
      assert.equal(plain.ended, true);
    } finally {
      watchSettings.bookmarkIntervalMs = 200;
    }
  });

  it('resumes a watch from a resourceVersion with exactly the changes after it', async () => {
    const mk = (name: string) => c.request('POST', '/api/v1/namespaces/default/configmaps', { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }) });
    const first = JSON.parse((await mk('r1')).text) as Obj;
    await mk('r2');
    await c.request('DELETE', '/api/v1/namespaces/default/configmaps/r1');
    const w = await c.watch(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${first.metadata.resourceVersion}`);
    const events = (await w.take(2, 3000)) as unknown as { type: string; object: Obj }[];
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [['ADDED', 'r2'], ['DELETED', 'r1']]);
    w.close();
  });

  it('serves every served version of a CRD from one storage version', async () => {
    assert.equal((await c.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(CRD) })).status, 201);
    const groups = JSON.parse((await c.request('GET', '/apis/mv.example.com')).text) as { versions: { version: string }[]; preferredVersion: { version: string } };
    assert.deepEqual(groups.versions.map((v) => v.version), ['v1', 'v1beta1']);
    assert.equal(groups.preferredVersion.version, 'v1');
    const body = { apiVersion: 'mv.example.com/v1beta1', kind: 'Module', metadata: { name: 'm1' }, spec: { channel: 'fast' } };
    const created = await c.request('POST', '/apis/mv.example.com/v1beta1/namespaces/default/modules', { body: JSON.stringify(body) });
    assert.equal(created.status, 201, created.text);
    assert.equal((JSON.parse(created.text) as Obj).apiVersion, 'mv.example.com/v1beta1');
    const asV1 = JSON.parse((await c.request('GET', '/apis/mv.example.com/v1/namespaces/default/modules/m1')).text) as Obj;
    assert.equal(asV1.apiVersion, 'mv.example.com/v1');
    assert.deepEqual(asV1.spec, { channel: 'fast' });
    const list = JSON.parse((await c.request('GET', '/apis/mv.example.com/v1beta1/namespaces/default/modules')).text) as { items: Obj[] };
    assert.deepEqual(list.items.map((i) => i.apiVersion), ['mv.example.com/v1beta1']);
    assert.equal((await c.request('GET', '/apis/mv.example.com/v1alpha1/namespaces/default/modules')).status, 404, 'a version that is not served is not there');
  });

  it('enforces CEL rules, including transition rules with oldSelf', async () => {
    const bad = { apiVersion: 'mv.example.com/v1', kind: 'Module', metadata: { name: 'm2' }, spec: { channel: 'regular', min: 5, max: 1 } };
    const r = await c.request('POST', '/apis/mv.example.com/v1/namespaces/default/modules', { body: JSON.stringify(bad) });
    assert.equal(r.status, 422);
    assert.match((JSON.parse(r.text) as { message: string }).message, /min must not exceed max/);
    const good = { ...bad, spec: { channel: 'regular', min: 1, max: 5 } };
    assert.equal((await c.request('POST', '/apis/mv.example.com/v1/namespaces/default/modules', { body: JSON.stringify(good) })).status, 201);
    const change = await c.request('PATCH', '/apis/mv.example.com/v1/namespaces/default/modules/m2', { body: JSON.stringify({ spec: { channel: 'fast' } }), contentType: 'application/merge-patch+json' });
    assert.equal(change.status, 422);
    assert.match((JSON.parse(change.text) as { message: string }).message, /channel is immutable/);
  });
});
