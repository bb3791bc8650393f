// Reading a controller's own writes back: OwnWrites waits for the informer to deliver what the
// process wrote, CachedReader reads from the cache unless such a write is on its way, NotingClient
// notes the writes. Against the embedded API server, with a watch that can be held back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../../src/apiserver/server.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { CachedReader, NotingClient, OwnWrites } from '../../../src/runtime/cache/own-writes.js';
import { Informer } from '../../../src/runtime/cache/informer.js';
import { clientFromKubeconfig, type Client } from '../../../src/runtime/client/index.js';
import type { WatchEvent, WatchOptions } from '../../../src/runtime/client/interface.js';
import type { KindRef } from '../../../src/kube/object.js';
import { countingClient } from '../../support/counting-client.js';
import { waitFor } from '../../support/wait.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };

function configMap(name: string, v = '1'): KubeObject {
  return { ...CONFIGMAP, metadata: { name, namespace: 'default' }, data: { v } };
}

/** A client whose watches hold their events while held (the informer lags), then deliver them in order, all or one at a time. */
function laggingWatches(inner: Client) {
  let held = false;
  let allowance = 0;
  let release: (() => void) | undefined;
  const wake = () => {
    const r = release;
    release = undefined;
    r?.();
  };
  const client = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop !== 'watch') {
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      }
      return async function* (kind: KindRef, opts?: WatchOptions): AsyncGenerator<WatchEvent> {
        for await (const ev of target.watch(kind, opts)) {
          if (ev.type === 'BOOKMARK') continue;
          while (held && allowance === 0) await new Promise<void>((resolve) => (release = resolve));
          if (held) allowance--;
          yield ev;
        }
      };
    },
  });
  return {
    client,
    hold: () => (held = true),
    deliver: () => {
      held = false;
      wake();
    },
    /** Lets one more event through while held. */
    deliverOne: () => {
      allowance++;
      wake();
    },
  };
}

describe('own writes read back through the cache', () => {
  let server: RunningApiServer;
  let clusterNo = 0;
  const stops: AbortController[] = [];

  before(async () => {
    server = await startApiServer({ port: 0 });
  });
  after(async () => {
    for (const ac of stops) ac.abort();
    await server.stop();
  });

  async function setup() {
    const access = await server.createCluster(`own-${++clusterNo}`);
    const api = clientFromKubeconfig(access.kubeconfig, { retries: 1 });
    const watches = laggingWatches(api);
    const informer = new Informer<KubeObject>(watches.client, { kind: CONFIGMAP, namespace: 'default' });
    const ac = new AbortController();
    stops.push(ac);
    informer.run(ac.signal).catch(() => undefined);
    await informer.synced;
    const counted = countingClient(api);
    const writes = new OwnWrites(informer);
    const client = new NotingClient(counted.client, [{ kind: CONFIGMAP, writes }]);
    const reader = new CachedReader<KubeObject>(client, CONFIGMAP, writes);
    return { api, watches, informer, writes, client, reader, gets: () => counted.count('get') };
  }

  it('reads from the API server while the informer has not delivered the write, from the cache once it has', async () => {
    const t = await setup();
    t.watches.hold();
    const created = await t.client.create(configMap('a'));
    assert.ok(t.writes.lagging('default/a'), 'the create is waited for');

    const fresh = await t.reader.get({ namespace: 'default', name: 'a' });
    assert.equal(fresh?.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(t.gets(), 1, 'read from the API server: the cache does not have it yet');
    assert.equal(t.informer.store.get('default/a'), undefined);

    t.watches.deliver();
    await waitFor('the informer delivers the create', () => !t.writes.lagging('default/a'));
    const cached = await t.reader.get({ namespace: 'default', name: 'a' });
    assert.equal(cached?.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(t.gets(), 1, 'read from the cache');
    (cached!.data as Record<string, string>).v = 'changed by the caller';
    assert.deepEqual(t.informer.store.get('default/a')?.data, { v: '1' }, 'the caller gets a copy');
    assert.equal(await t.reader.get({ namespace: 'default', name: 'missing' }), undefined, 'absent from the cache: absent');
    assert.equal(t.gets(), 1);
  });

  it('waits for the written version, not for an older one delivered late', async () => {
    const t = await setup();
    await t.client.create(configMap('b'));
    await waitFor('the create delivered', () => !t.writes.lagging('default/b'));
    t.watches.hold();
    // Someone else changes it, then this process: the first delivery is not this process's write.
    const other = await t.api.patch(CONFIGMAP, { namespace: 'default', name: 'b' }, 'merge', { data: { v: 'other' } });
    const ours = await t.client.patch(CONFIGMAP, { namespace: 'default', name: 'b' }, 'merge', { data: { v: 'ours' } });
    assert.notEqual(other.metadata.resourceVersion, ours.metadata.resourceVersion);
    t.watches.deliverOne();
    await waitFor('the other change delivered', () => t.informer.store.get('default/b')?.metadata.resourceVersion === other.metadata.resourceVersion);
    assert.ok(t.writes.lagging('default/b'), 'still waiting for this process\'s write');
    assert.deepEqual((await t.reader.get({ namespace: 'default', name: 'b' }))?.data, { v: 'ours' }, 'read from the API server');
    t.watches.deliverOne();
    await waitFor('this process\'s write delivered', () => !t.writes.lagging('default/b'));
    assert.equal(t.informer.store.get('default/b')?.metadata.resourceVersion, ours.metadata.resourceVersion);
    t.watches.deliver();
    const gets = t.gets();
    assert.deepEqual((await t.reader.get({ namespace: 'default', name: 'b' }))?.data, { v: 'ours' });
    assert.equal(t.gets(), gets, 'read from the cache');
  });

  it('a write the watch delivered before its answer was read is not waited for', async () => {
    const t = await setup();
    const created = await t.client.create(configMap('c'));
    await waitFor('delivered', () => t.informer.store.get('default/c')?.metadata.resourceVersion === created.metadata.resourceVersion);
    t.writes.wrote('default/c', created.metadata.resourceVersion);
    assert.equal(t.writes.lagging('default/c'), false);
  });

  it('a delete is waited for until the informer sees the object go, not answered by an earlier write\'s event; other kinds are not noted', async () => {
    const t = await setup();
    await t.client.create(configMap('d'));
    await waitFor('delivered', () => !t.writes.lagging('default/d') && t.informer.store.get('default/d') !== undefined);
    t.watches.hold();
    await t.client.patch(CONFIGMAP, { namespace: 'default', name: 'd' }, 'merge', { data: { v: 'before the delete' } });
    await t.client.delete(CONFIGMAP, { namespace: 'default', name: 'd' });
    assert.ok(t.writes.lagging('default/d'));
    t.watches.deliverOne();
    await waitFor('the patch delivered', () => (t.informer.store.get('default/d')?.data as Record<string, string> | undefined)?.v === 'before the delete');
    assert.ok(t.writes.lagging('default/d'), 'the patch does not answer the delete');
    assert.equal(await t.reader.get({ namespace: 'default', name: 'd' }), undefined, 'the API server says it is gone');
    t.watches.deliver();
    await waitFor('the delete delivered', () => !t.writes.lagging('default/d'));
    assert.equal(t.informer.store.get('default/d'), undefined);
    await t.client.create({ ...SECRET, metadata: { name: 's', namespace: 'default' }, stringData: { k: 'v' } });
    assert.equal(t.writes.size, 0, 'a Secret is not a kind this client notes');
  });

  it('a write that removed the last finalizer is waited for until the object is gone: its answer carries the version the cache already has', async () => {
    const t = await setup();
    await t.client.create({ ...configMap('f'), metadata: { name: 'f', namespace: 'default', finalizers: ['example.com/hold'] } });
    await t.client.delete(CONFIGMAP, { namespace: 'default', name: 'f' });
    await waitFor('the deletion timestamp delivered', () => t.informer.store.get('default/f')?.metadata.deletionTimestamp !== undefined && !t.writes.lagging('default/f'));
    const marked = t.informer.store.get('default/f');
    t.watches.hold();
    const answer = await t.client.patch(CONFIGMAP, { namespace: 'default', name: 'f' }, 'merge', { metadata: { finalizers: null } });
    // As kube-apiserver: the answer is the object as it was, its resourceVersion unchanged; the
    // DELETED event that follows carries a new one.
    assert.equal(answer.metadata.resourceVersion, marked?.metadata.resourceVersion);
    assert.ok(t.writes.lagging('default/f'), 'the removal is waited for, though the cache holds the answered version');
    assert.equal(await t.reader.get({ namespace: 'default', name: 'f' }, { confirmAbsent: true }), undefined, 'read from the API server: gone');
    t.watches.deliver();
    await waitFor('the deletion delivered', () => !t.writes.lagging('default/f'));
    assert.equal(t.informer.store.get('default/f'), undefined);
  });

  it('a write never delivered (a relist skipped it) is given up after the bound once the informer delivers other things, not while it delivers nothing', async () => {
    const t = await setup();
    const shortLived = new OwnWrites(t.informer, 30);
    shortLived.wrote('default/never', '999999');
    assert.ok(shortLived.lagging('default/never'));
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.ok(shortLived.lagging('default/never'), 'past the bound, but the informer delivered nothing since: its watch may be down');
    await t.api.create(configMap('other'));
    await waitFor('another object delivered', () => t.informer.store.get('default/other') !== undefined);
    assert.equal(shortLived.lagging('default/never'), false);
  });

  it('distrust sends the next read to the API server, once', async () => {
    const t = await setup();
    await t.client.create(configMap('e'));
    await waitFor('delivered', () => !t.writes.lagging('default/e'));
    const gets = t.gets();
    t.writes.distrust('default/e');
    await t.reader.get({ namespace: 'default', name: 'e' });
    assert.equal(t.gets(), gets + 1);
    await t.reader.get({ namespace: 'default', name: 'e' });
    assert.equal(t.gets(), gets + 1);
  });

  it('reads do not go back in time: after the API server answered a newer version, or that the object is gone, the older cached copy is not read', async () => {
    const t = await setup();
    const key = { namespace: 'default', name: 'g' };
    await t.client.create(configMap('g'));
    await waitFor('delivered', () => !t.writes.lagging('default/g'));
    t.watches.hold();
    // Someone else changes it; the informer has not delivered that yet. A conflict sent this controller to the API server.
    await t.api.patch(CONFIGMAP, key, 'merge', { data: { v: 'other' } });
    t.writes.distrust('default/g');
    assert.deepEqual((await t.reader.get(key))?.data, { v: 'other' }, 'read from the API server');
    const gets = t.gets();
    assert.deepEqual((await t.reader.get(key))?.data, { v: 'other' }, 'not the older copy the cache holds');
    assert.equal(t.gets(), gets + 1, 'read from the API server again');
    assert.deepEqual(t.informer.store.get('default/g')?.data, { v: '1' }, 'the cache is still behind');
    // Someone else deletes it: once the API server said so, the cached copy is not read either.
    await t.api.delete(CONFIGMAP, key);
    t.writes.distrust('default/g');
    assert.equal(await t.reader.get(key, { confirmAbsent: true }), undefined);
    assert.equal(await t.reader.get(key), undefined, 'not the cached copy of a deleted object');
    assert.ok(t.informer.store.get('default/g') !== undefined, 'the cache still has it');
    t.watches.deliver();
    await waitFor('the deletion delivered', () => !t.writes.lagging('default/g'));
    const after = t.gets();
    assert.equal(await t.reader.get(key), undefined);
    assert.equal(t.gets(), after, 'from the cache again');
  });

  it('a write that failed in flight (it may have been made) is waited for until the informer delivers anything of the object', async () => {
    const t = await setup();
    await t.client.create(configMap('f'));
    await waitFor('delivered', () => !t.writes.lagging('default/f'));
    // The server makes the change, the answer is lost on the way.
    const losing = new Proxy(t.api, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (prop !== 'patch') return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        return async (...args: Parameters<Client['patch']>) => {
          await target.patch(...args);
          throw new Error('socket hang up');
        };
      },
    });
    const client = new NotingClient(losing, [{ kind: CONFIGMAP, writes: t.writes }]);
    t.watches.hold();
    await assert.rejects(client.patch(CONFIGMAP, { namespace: 'default', name: 'f' }, 'merge', { data: { v: 'lost answer' } }), /socket hang up/);
    assert.ok(t.writes.lagging('default/f'));
    assert.deepEqual((await t.reader.get({ namespace: 'default', name: 'f' }))?.data, { v: 'lost answer' }, 'read from the API server');
    // A refusal is a definite answer: nothing was written, nothing to wait for.
    t.watches.deliver();
    await waitFor('delivered', () => !t.writes.lagging('default/f'));
    await assert.rejects(t.client.patch(CONFIGMAP, { namespace: 'default', name: 'f' }, 'merge', { metadata: { resourceVersion: '1' }, data: { v: 'stale' } }), (e: Error) => e.name === 'ApiError');
    assert.equal(t.writes.lagging('default/f'), false);
  });
});
