// Fault injection per logical cluster: latency, error rate, dropped watches, forced 410, unreachable,
// CRDs established late.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { KubeClient } from '../conformance/http.js';
import { ioTurn, turnsUntil } from '../support/io.js';
import { waitFor } from '../support/wait.js';

/** A CRD of any content (namespaced unless said otherwise). */
function crdOf(group: string, names: { plural: string; singular: string; kind: string }, scope = 'Namespaced') {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${group}` },
    spec: { group, scope, names, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  };
}

/** A CRD's conditions as `Type=Status`, from an answer's text. */
function conditionsOf(text: string): string[] {
  return ((JSON.parse(text) as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? []).map((c) => `${c.type}=${c.status}`);
}

describe('fault injection', () => {
  let server: RunningApiServer;
  let client: KubeClient;
  let other: KubeClient;
  before(async () => {
    server = await startApiServer({ port: 0 });
    const f = await server.createCluster('faulty');
    const o = await server.createCluster('healthy');
    client = new KubeClient({ url: f.url, token: f.token, caPem: server.caPem });
    other = new KubeClient({ url: o.url, token: o.token, caPem: server.caPem });
  });
  after(async () => {
    client.close();
    other.close();
    await server.stop();
  });

  it('is off by default', async () => {
    for (let i = 0; i < 20; i++) assert.equal((await client.request('GET', '/api/v1/namespaces')).status, 200);
  });

  it('adds latency to one cluster only', async (t) => {
    // The server's latency timer runs on a mocked clock that moves only when the test says so.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    server.setFaults('faulty', { latencyMs: 150 });
    try {
      const received = server.requestCount();
      let answered = false;
      const slow = client.request('GET', '/api/v1/namespaces').then((r) => {
        answered = true;
        return r;
      });
      await turnsUntil('the request at the server', () => server.requestCount() > received);
      assert.equal((await other.request('GET', '/api/v1/namespaces')).status, 200, 'the other cluster answers while the clock stands still');
      assert.equal(answered, false, 'the faulty cluster holds its answer');
      t.mock.timers.tick(149);
      // A round trip to the other cluster in the same window: the server kept working meanwhile.
      assert.equal((await other.request('GET', '/api/v1/namespaces')).status, 200);
      await ioTurn();
      assert.equal(answered, false, 'not answered before 150 ms');
      t.mock.timers.tick(1);
      assert.equal((await slow).status, 200, 'answered once 150 ms passed');
    } finally {
      server.setFaults('faulty', undefined);
    }
  });

  it('answers an error rate with 429 and Retry-After', async () => {
    server.setFaults('faulty', { errorRate: 1, errorCodes: [429], retryAfterSeconds: 7 });
    const r = await client.request('GET', '/api/v1/namespaces');
    assert.equal(r.status, 429);
    const s = JSON.parse(r.text) as { reason: string; details: { retryAfterSeconds: number } };
    assert.equal(s.reason, 'TooManyRequests');
    assert.equal(s.details.retryAfterSeconds, 7);
    server.setFaults('faulty', { errorRate: 1, errorCodes: [500, 503] });
    for (let i = 0; i < 10; i++) assert.ok([500, 503].includes((await client.request('GET', '/api/v1/namespaces')).status));
    server.setFaults('faulty', { errorRate: 0.5 });
    let errors = 0;
    for (let i = 0; i < 200; i++) if ((await client.request('GET', '/api/v1/namespaces')).status === 500) errors++;
    assert.ok(errors > 50 && errors < 150, `about half fail (${errors}/200)`);
    server.setFaults('faulty', undefined);
  });

  it('drops open watches', async () => {
    server.setFaults('faulty', { dropWatchesAfterMs: 200 });
    // From the list's resourceVersion: the namespace's kube-root-ca.crt is not replayed as an event.
    const list = JSON.parse((await client.request('GET', '/api/v1/namespaces/default/configmaps')).text) as { metadata: { resourceVersion: string } };
    const w = await client.watch(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
    const events = await w.take(1, 10_000);
    assert.deepEqual(events, []);
    assert.equal(w.ended, true, 'the server cut the watch (the wait did not just run out)');
    server.setFaults('faulty', undefined);
  });

  it('forces 410 Gone when a watch resumes from a resourceVersion', async () => {
    const list = JSON.parse((await client.request('GET', '/api/v1/namespaces/default/configmaps')).text) as { metadata: { resourceVersion: string } };
    await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g1' } }) });
    server.setFaults('faulty', { forceGoneOnResume: true });
    const w = await client.watch(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
    const [ev] = await w.take(1, 3000);
    const e = ev as { type: string; object: { code: number; reason: string } };
    assert.equal(e.type, 'ERROR');
    assert.equal(e.object.code, 410);
    assert.equal(e.object.reason, 'Expired');
    w.close();
    server.setFaults('faulty', undefined);
  });

  it('makes the cluster unreachable, then reachable again', async () => {
    server.setFaults('faulty', { unreachable: true });
    await assert.rejects(client.request('GET', '/api/v1/namespaces'));
    assert.equal((await other.request('GET', '/api/v1/namespaces')).status, 200);
    server.setFaults('faulty', undefined);
    assert.equal((await client.request('GET', '/api/v1/namespaces')).status, 200);
  });

  it('establishes new CRDs late: their custom resources are not served until the condition is set', async () => {
    server.setFaults('faulty', { crdEstablishDelayMs: 400 });
    try {
      const crd = crdOf('late.example.com', { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' });
      const created = await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(crd) });
      assert.equal(created.status, 201);
      assert.deepEqual(conditionsOf(created.text), ['NamesAccepted=True'], 'answered before it is established');
      const gadget = { apiVersion: 'late.example.com/v1', kind: 'Gadget', metadata: { name: 'g1' } };
      assert.equal((await client.request('POST', '/apis/late.example.com/v1/namespaces/default/gadgets', { body: JSON.stringify(gadget) })).status, 404, 'not served yet');
      let established: unknown;
      for (let i = 0; i < 100 && !established; i++) {
        const got = await client.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.late.example.com');
        if (conditionsOf(got.text).includes('Established=True')) established = got.text;
        else await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(established, 'Established within 5 s');
      assert.equal((await client.request('POST', '/apis/late.example.com/v1/namespaces/default/gadgets', { body: JSON.stringify(gadget) })).status, 201, 'served once established');
      // A cluster without the fault serves a new CRD at once.
      const fine = await other.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(crd) });
      assert.deepEqual(conditionsOf(fine.text), ['NamesAccepted=True', 'Established=True']);
    } finally {
      server.setFaults('faulty', undefined);
    }
  });

  it('never establishes a CRD whose names clash, late or not', async () => {
    server.setFaults('faulty', { crdEstablishDelayMs: 100 });
    try {
      // Its singular is taken by the gadgets CRD of the test before.
      const clash = crdOf('late.example.com', { plural: 'widgets', singular: 'gadget', kind: 'Widget' });
      const created = await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(clash) });
      assert.equal(created.status, 201);
      assert.deepEqual(conditionsOf(created.text), ['NamesAccepted=False', 'Established=False']);
      await new Promise((r) => setTimeout(r, 400));
      const later = await client.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.late.example.com');
      assert.deepEqual(conditionsOf(later.text), ['NamesAccepted=False', 'Established=False'], 'still not established after the delay');
      assert.equal((await client.request('GET', '/apis/late.example.com/v1/namespaces/default/widgets')).status, 404);
    } finally {
      server.setFaults('faulty', undefined);
    }
  });

  it('accepts a CRD whose names clashed once the CRD holding them goes: established at once, or late with the fault', async () => {
    const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const conditionsNow = async (c: KubeClient, name: string) => conditionsOf((await c.request('GET', `${CRDS}/${name}`)).text);
    // Without the fault: the kind Gizmo is held by the first CRD of the group.
    await other.request('POST', CRDS, { body: JSON.stringify(crdOf('free.example.com', { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' })) });
    await other.request('POST', CRDS, { body: JSON.stringify(crdOf('free.example.com', { plural: 'doodads', singular: 'doodad', kind: 'Gizmo' })) });
    assert.deepEqual(await conditionsNow(other, 'doodads.free.example.com'), ['NamesAccepted=False', 'Established=False']);
    assert.equal((await other.request('DELETE', `${CRDS}/gizmos.free.example.com`)).status, 200);
    await waitFor('doodads accepted', async () => (await conditionsNow(other, 'doodads.free.example.com')).includes('Established=True'), 5_000);
    assert.deepEqual(await conditionsNow(other, 'doodads.free.example.com'), ['NamesAccepted=True', 'Established=True']);
    const accepted = JSON.parse((await other.request('GET', `${CRDS}/doodads.free.example.com`)).text) as { status: { acceptedNames: { plural: string; kind: string } } };
    assert.deepEqual([accepted.status.acceptedNames.plural, accepted.status.acceptedNames.kind], ['doodads', 'Gizmo']);
    assert.equal((await other.request('GET', '/apis/free.example.com/v1/namespaces/default/doodads')).status, 200, 'served');

    // With the fault: the naming controller's Installing comes first, the establishing controller's
    // Established after the delay.
    await client.request('POST', CRDS, { body: JSON.stringify(crdOf('freed.example.com', { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket' })) });
    server.setFaults('faulty', { crdEstablishDelayMs: 3_000 });
    try {
      await client.request('POST', CRDS, { body: JSON.stringify(crdOf('freed.example.com', { plural: 'cogs', singular: 'cog', kind: 'Sprocket' })) });
      assert.deepEqual(await conditionsNow(client, 'cogs.freed.example.com'), ['NamesAccepted=False', 'Established=False']);
      assert.equal((await client.request('DELETE', `${CRDS}/sprockets.freed.example.com`)).status, 200);
      const installing = await waitFor('cogs accepted', async () => {
        const crd = JSON.parse((await client.request('GET', `${CRDS}/cogs.freed.example.com`)).text) as { status: { conditions: { type: string; status: string; reason: string }[] } };
        return crd.status.conditions.some((c) => c.type === 'NamesAccepted' && c.status === 'True') && crd;
      }, 5_000);
      assert.deepEqual(installing.status.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`), ['NamesAccepted=True/NoConflicts', 'Established=False/Installing']);
      assert.equal((await client.request('GET', '/apis/freed.example.com/v1/namespaces/default/cogs')).status, 404, 'not served before it is established');
      await waitFor('cogs established', async () => (await conditionsNow(client, 'cogs.freed.example.com')).includes('Established=True'), 10_000);
      assert.deepEqual(await conditionsNow(client, 'cogs.freed.example.com'), ['NamesAccepted=True', 'Established=True']);
      assert.equal((await client.request('GET', '/apis/freed.example.com/v1/namespaces/default/cogs')).status, 200, 'served once established');
    } finally {
      server.setFaults('faulty', undefined);
    }
  });

  it('establishes at the next start a CRD stored while its establishment was still delayed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kcp-late-crd-'));
    try {
      const first = await startApiServer({ port: 0, dataDir });
      const c = first.cluster('default');
      const crdType = c.resolve('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
      first.setFaults('default', { crdEstablishDelayMs: 60_000 });
      await c.create(crdType, '', crdOf('restart.example.com', { plural: 'things', singular: 'thing', kind: 'Thing' }, 'Cluster') as never);
      assert.equal(c.resolve('restart.example.com', 'v1', 'things'), undefined, 'not served before the stop');
      await first.stop();
      const second = await startApiServer({ port: 0, dataDir });
      try {
        const again = second.cluster('default');
        for (let i = 0; i < 100 && !again.resolve('restart.example.com', 'v1', 'things'); i++) await new Promise((r) => setTimeout(r, 20));
        assert.ok(again.resolve('restart.example.com', 'v1', 'things'), 'served after the restart');
        const stored = again.get(crdType, '', 'things.restart.example.com');
        assert.ok(((stored.status as { conditions?: { type: string; status: string }[] }).conditions ?? []).some((x) => x.type === 'Established' && x.status === 'True'));
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
