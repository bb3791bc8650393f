// Informers against the embedded API server: list + watch into the cache, indexes, and the
// reliability cases: watches cut mid-stream, a forced 410 Gone (one relist, differences only),
// and a cluster that is unreachable for a while.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../../src/apiserver/server.js';
import type { ObjectWithMeta as ServerObject, KubeObject } from '../../../src/kube/object.js';
import { namespacedName } from '../../../src/kube/keys.js';
import type { Store } from '../../../src/runtime/cache/store.js';
import { clientFromKubeconfig, type HttpClient } from '../../../src/runtime/client/index.js';
import { Informer } from '../../../src/runtime/cache/informer.js';
import { sleep } from '../../../src/util/sleep.js';
import { waitFor } from '../../support/wait.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };

function configMap(name: string, labels: Record<string, string> = {}, namespace = 'default'): KubeObject {
  return { ...CONFIGMAP, metadata: { name, namespace, labels }, data: { v: '1' } };
}

/** The same object typed for in-process writes to the embedded server. */
const inProcess = (o: KubeObject): ServerObject => ({ ...o, metadata: { ...o.metadata } }) as ServerObject;

/** What the server holds: key -> resourceVersion (read in-process). */
function serverState(server: RunningApiServer, cluster: string, namespace: string): Map<string, string> {
  const cl = server.cluster(cluster);
  const t = cl.resolve('', 'v1', 'configmaps');
  assert.ok(t);
  return new Map(cl.list(t, namespace).items.map((i) => [`${i.namespace}/${i.name}`, String(i.rv)]));
}

function cacheState(store: Store): Map<string, string> {
  return new Map([...store.values()].map((o) => [namespacedName(o), o.metadata.resourceVersion ?? '']));
}

function sameState(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** Handlers that mirror the informer's events and count anomalies (duplicates, unknown deletes). */
function mirror(informer: Informer) {
  const state = new Map<string, string>();
  const log: string[] = [];
  let anomalies = 0;
  informer.addHandlers({
    onAdd: (o) => {
      if (state.has(namespacedName(o))) anomalies++;
      state.set(namespacedName(o), o.metadata.resourceVersion ?? '');
      log.push(`add ${namespacedName(o)}`);
    },
    onUpdate: (old, o) => {
      if (state.get(namespacedName(old)) !== old.metadata.resourceVersion) anomalies++;
      if (old.metadata.resourceVersion === o.metadata.resourceVersion) anomalies++;
      state.set(namespacedName(o), o.metadata.resourceVersion ?? '');
      log.push(`update ${namespacedName(o)}`);
    },
    onDelete: (o) => {
      if (!state.delete(namespacedName(o))) anomalies++;
      log.push(`delete ${namespacedName(o)}`);
    },
  });
  return { state, log, anomalies: () => anomalies };
}

describe('informer', () => {
  let server: RunningApiServer;
  let clusterNo = 0;

  before(async () => {
    server = await startApiServer({ port: 0 });
  });
  after(async () => {
    await server.stop();
  });

  /** A fresh logical cluster per test, and a client for it. */
  async function freshCluster(): Promise<{ name: string; client: HttpClient }> {
    const name = `inf-${++clusterNo}`;
    const access = await server.createCluster(name);
    return { name, client: clientFromKubeconfig(access.kubeconfig, { retries: 1 }) };
  }

  it('lists then watches into the cache, with namespace, label and custom indexes', async () => {
    const { client } = await freshCluster();
    await client.create(configMap('a', { app: 'x', tier: 'web' }));
    await client.create(configMap('b', { app: 'y' }));
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
    await client.create(configMap('c', { app: 'x' }, 'other'));
    const ac = new AbortController();
    const informer = new Informer(client, { kind: CONFIGMAP, pageSize: 2 });
    informer.store.addIndex('byData', (o) => Object.values((o.data as Record<string, string>) ?? {}));
    const run = informer.run(ac.signal);
    await informer.synced;
    assert.ok(informer.hasSynced);
    assert.ok(informer.store.get('default/a'));
    assert.equal(informer.store.get('default/a')?.metadata.managedFields, undefined, 'managedFields are not cached');
    // Every namespace also holds kube-root-ca.crt (written by the server's controller, as a real cluster's).
    const ours = (o: { metadata: { name?: string } }) => o.metadata.name !== 'kube-root-ca.crt';
    assert.deepEqual(informer.store.list({ namespace: 'other' }).filter(ours).map(namespacedName), ['other/c']);
    assert.deepEqual(informer.store.list({ labelSelector: 'app=x' }).map(namespacedName).sort(), ['default/a', 'other/c']);
    assert.deepEqual(informer.store.list({ namespace: 'default', labelSelector: 'app in (x,y),!tier' }).map(namespacedName), ['default/b']);
    assert.equal(informer.store.byIndex('byData', '1').filter(ours).length, 3);

    const events = mirror(informer);
    assert.ok(events.state.has('default/a'), 'late handlers get the cached objects as adds');
    await client.create(configMap('d', { app: 'x' }));
    const b = await client.get(CONFIGMAP, { namespace: 'default', name: 'b' });
    await client.update({ ...b, metadata: { ...b.metadata, labels: { app: 'x' } } });
    await client.delete(CONFIGMAP, { namespace: 'default', name: 'a' });
    await waitFor('watch events', () => informer.store.get('default/d') !== undefined && informer.store.get('default/a') === undefined);
    await waitFor('label index follows updates', () => informer.store.list({ labelSelector: 'app=x' }).length === 3);
    assert.deepEqual(informer.store.list({ labelSelector: 'app=y' }), []);
    assert.ok(events.log.includes('add default/d') && events.log.includes('update default/b') && events.log.includes('delete default/a'));
    assert.equal(events.anomalies(), 0);
    ac.abort();
    await run;
    client.close();
  });

  it('a label-selected informer sees only matching objects (and objects leaving the selection as deleted)', async () => {
    const { client } = await freshCluster();
    await client.create(configMap('in', { role: 'keep' }));
    await client.create(configMap('out', { role: 'drop' }));
    const ac = new AbortController();
    const informer = new Informer(client, { kind: CONFIGMAP, namespace: 'default', labelSelector: 'role=keep' });
    const run = informer.run(ac.signal);
    await informer.synced;
    assert.deepEqual([...informer.store.keys()], ['default/in']);
    const o = await client.get(CONFIGMAP, { namespace: 'default', name: 'in' });
    await client.update({ ...o, metadata: { ...o.metadata, labels: { role: 'drop' } } });
    await waitFor('object leaving the selection', () => informer.store.size === 0);
    ac.abort();
    await run;
    client.close();
  });

  it('loses no event when watches are cut mid-stream', async () => {
    const { name, client } = await freshCluster();
    server.setFaults(name, { dropWatchesAfterMs: 150 });
    const ac = new AbortController();
    const informer = new Informer(client, { kind: CONFIGMAP, namespace: 'default', backoff: { initialMs: 20, maxMs: 200 } });
    const events = mirror(informer);
    const run = informer.run(ac.signal);
    await informer.synced;
    let n = 0;
    for (let batch = 0; batch < 5; batch++) {
      const watchesBefore = informer.stats.watches;
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 30; i++, n++) writes.push(client.create(configMap(`cm-${n}`, { batch: String(batch) })));
      await Promise.all(writes);
      for (let i = n - 30; i < n - 20; i++) {
        const o = await client.get(CONFIGMAP, { namespace: 'default', name: `cm-${i}` });
        await client.update({ ...o, data: { v: '2' } });
      }
      for (let i = n - 20; i < n - 15; i++) await client.delete(CONFIGMAP, { namespace: 'default', name: `cm-${i}` });
      // The next batch is written across a reconnect.
      await waitFor('a watch reconnect', () => informer.stats.watches > watchesBefore);
    }
    const expected = serverState(server, name, 'default');
    await waitFor('cache equal to the server', () => sameState(cacheState(informer.store), expected));
    assert.ok(sameState(events.state, expected), 'events replay to the server state');
    assert.equal(events.anomalies(), 0, 'no duplicate or out-of-order events');
    assert.ok(informer.stats.watches >= 5);
    assert.equal(informer.stats.lists, 1, 'resumed from the last resourceVersion without relisting');
    server.setFaults(name, undefined);
    ac.abort();
    await run;
    client.close();
  });

  it('a forced 410 Gone relists once and emits only the differences', async () => {
    const { name, client } = await freshCluster();
    for (let i = 0; i < 20; i++) await client.create(configMap(`cm-${i}`));
    const ac = new AbortController();
    const informer = new Informer(client, { kind: CONFIGMAP, namespace: 'default', backoff: { initialMs: 20, maxMs: 200 } });
    const run = informer.run(ac.signal);
    await informer.synced;
    const events = mirror(informer);
    const afterSync = events.log.length;

    // Cut the cluster off, change it behind the informer's back, then forget the watch history.
    server.setFaults(name, { unreachable: true });
    const cl = server.cluster(name);
    const t = cl.resolve('', 'v1', 'configmaps');
    assert.ok(t);
    for (let i = 0; i < 3; i++) {
      const o = cl.get(t, 'default', `cm-${i}`);
      await cl.update(t, 'default', `cm-${i}`, { ...o, data: { v: 'changed' } }, { internal: true });
    }
    for (let i = 3; i < 5; i++) await cl.delete(t, 'default', `cm-${i}`, {}, { internal: true });
    for (let i = 0; i < 2; i++) await cl.create(t, 'default', inProcess(configMap(`new-${i}`)), { internal: true });
    server.setFaults(name, { forceGoneOnResume: true });

    const expected = serverState(server, name, 'default');
    await waitFor('cache equal to the server after the relist', () => sameState(cacheState(informer.store), expected));
    server.setFaults(name, undefined);
    assert.equal(informer.stats.gone, 1);
    assert.equal(informer.stats.lists, 2, 'exactly one relist');
    assert.deepEqual(events.log.slice(afterSync).sort(), [
      'add default/new-0',
      'add default/new-1',
      'delete default/cm-3',
      'delete default/cm-4',
      'update default/cm-0',
      'update default/cm-1',
      'update default/cm-2',
    ]);
    assert.equal(events.anomalies(), 0);

    // And the informer keeps watching after the relist.
    await client.create(configMap('after'));
    await waitFor('events after the relist', () => informer.store.get('default/after') !== undefined);
    ac.abort();
    await run;
    client.close();
  });

  it('reconnects after the cluster was unreachable for a while', async () => {
    const { name, client } = await freshCluster();
    await client.create(configMap('before'));
    const ac = new AbortController();
    const informer = new Informer(client, { kind: CONFIGMAP, namespace: 'default', backoff: { initialMs: 20, maxMs: 300 } });
    const run = informer.run(ac.signal);
    await informer.synced;
    server.setFaults(name, { unreachable: true });
    const cl = server.cluster(name);
    const t = cl.resolve('', 'v1', 'configmaps');
    assert.ok(t);
    await cl.create(t, 'default', inProcess(configMap('during')), { internal: true });
    await cl.delete(t, 'default', 'before', {}, { internal: true });
    await waitFor('failed reconnect attempts', () => informer.stats.errors >= 2);
    await sleep(500);
    server.setFaults(name, undefined);
    const expected = serverState(server, name, 'default');
    await waitFor('cache equal to the server after reconnecting', () => sameState(cacheState(informer.store), expected));
    assert.equal(informer.stats.lists, 1, 'resumed from the last resourceVersion');
    ac.abort();
    await run;
    client.close();
  });

  it('stops promptly when its signal aborts, also while backing off', async () => {
    const { name, client } = await freshCluster();
    server.setFaults(name, { unreachable: true });
    const ac = new AbortController();
    const informer = new Informer(client, { kind: CONFIGMAP, backoff: { initialMs: 60_000, maxMs: 60_000 } });
    const run = informer.run(ac.signal);
    await waitFor('a failed list', () => informer.stats.errors >= 1);
    assert.equal(informer.hasSynced, false);
    assert.equal(await informer.waitForSync(AbortSignal.timeout(10)), false);
    ac.abort();
    await run;
    server.setFaults(name, undefined);
    client.close();
  });
});
