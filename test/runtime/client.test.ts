// The HTTP client against the embedded API server: CRUD, status, patches, server-side apply, delete
// preconditions, list paging, watch, typed errors.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import {
  clientFromKubeconfig,
  createClient,
  errorFromWatchEvent,
  type HttpClient,
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isNoKindMatch,
  isNotFound,
  isUnauthorized,
  isUnreachable,
  loadKubeconfig,
  staticToken,
  typed,
} from '../../src/runtime/client/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import type { WatchEvent } from '../../src/runtime/client/interface.js';
import { sleep } from '../../src/util/sleep.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
const WIDGET = { apiVersion: 'test.example.com/v1', kind: 'Widget' };

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { phase?: string };
}

function configMap(name: string, data: Record<string, string> = {}, namespace = 'default'): ConfigMap {
  return { ...CONFIGMAP, metadata: { name, namespace }, data };
}

function widgetCrd(group: string, kind: string, plural: string): KubeObject {
  return {
    ...CRD,
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

async function eventually<T>(what: string, fn: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`, { cause: e });
      await sleep(50);
    }
  }
}

async function rejectsWith(p: Promise<unknown>, check: (e: unknown) => boolean, what: string): Promise<void> {
  await assert.rejects(p, (e) => {
    assert.ok(check(e), `${what}: got ${String(e)}`);
    return true;
  });
}

describe('HttpClient against the embedded API server', () => {
  let server: RunningApiServer;
  let client: HttpClient;

  before(async () => {
    server = await startApiServer({ port: 0, historyLimit: 50 });
    const access = await server.createCluster('crud');
    client = clientFromKubeconfig(access.kubeconfig, { qps: 0 });
  });
  after(async () => {
    client.close();
    await server.stop();
  });

  it('creates, reads, updates and deletes an object', async () => {
    const created = await client.create(configMap('crud-1', { a: '1' }));
    assert.equal(created.metadata.name, 'crud-1');
    assert.ok(created.metadata.uid);
    const read = await client.get<ConfigMap>(CONFIGMAP, { namespace: 'default', name: 'crud-1' });
    assert.deepEqual(read.data, { a: '1' });
    const updated = await client.update({ ...read, data: { a: '2' } });
    assert.deepEqual(updated.data, { a: '2' });
    assert.notEqual(updated.metadata.resourceVersion, read.metadata.resourceVersion);
    await rejectsWith(client.update({ ...read, data: { a: '3' } }), isConflict, 'update with a stale resourceVersion');
    await rejectsWith(client.create(configMap('crud-1')), isAlreadyExists, 'second create');
    await client.delete(CONFIGMAP, { namespace: 'default', name: 'crud-1' });
    await rejectsWith(client.get(CONFIGMAP, { namespace: 'default', name: 'crud-1' }), isNotFound, 'get after delete');
    await rejectsWith(client.delete(CONFIGMAP, { namespace: 'default', name: 'crud-1' }), isNotFound, 'second delete');
  });

  it('listens on a request\'s signal only while the request or the watch runs', async () => {
    const caller = new AbortController();
    await client.create(configMap('signal-1'), { signal: caller.signal });
    await client.get(CONFIGMAP, { namespace: 'default', name: 'signal-1' }, { signal: caller.signal });
    assert.equal(getEventListeners(caller.signal, 'abort').length, 0, 'after the requests');
    const events = client.watch(CONFIGMAP, { namespace: 'default', signal: caller.signal })[Symbol.asyncIterator]();
    const first = await events.next();
    assert.equal(first.done, false);
    assert.ok(getEventListeners(caller.signal, 'abort').length > 0, 'the open watch follows the signal');
    await events.return?.(undefined);
    assert.equal(getEventListeners(caller.signal, 'abort').length, 0, 'after the watch');
    await client.delete(CONFIGMAP, { namespace: 'default', name: 'signal-1' });
  });

  it('reads and writes cluster-scoped objects', async () => {
    const ns = await client.create<KubeObject>({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'scoped' } });
    assert.equal(ns.metadata.namespace, undefined);
    const read = await client.get({ apiVersion: 'v1', kind: 'Namespace' }, { name: 'scoped' });
    assert.equal(read.metadata.uid, ns.metadata.uid);
    const all = await client.list({ apiVersion: 'v1', kind: 'Namespace' });
    assert.ok(all.items.some((n) => n.metadata.name === 'scoped'));
    assert.ok(all.items.every((n) => n.kind === 'Namespace' && n.apiVersion === 'v1'), 'list items carry apiVersion and kind');
  });

  it('refuses a namespaced object without a namespace before sending it', async () => {
    await rejectsWith(client.get(CONFIGMAP, { name: 'x' }), (e) => e instanceof Error && /namespace is required/.test(e.message), 'no namespace');
  });

  it('patches with merge, JSON and strategic merge patches', async () => {
    await client.create(configMap('patched', { a: '1' }));
    const key = { namespace: 'default', name: 'patched' };
    const merged = await client.patch<ConfigMap>(CONFIGMAP, key, 'merge', { data: { b: '2' } });
    assert.deepEqual(merged.data, { a: '1', b: '2' });
    const jsonPatched = await client.patch<ConfigMap>(CONFIGMAP, key, 'json', [{ op: 'remove', path: '/data/a' }]);
    assert.deepEqual(jsonPatched.data, { b: '2' });
    const strategic = await client.patch<ConfigMap>(CONFIGMAP, key, 'strategic', { data: { c: '3' } });
    assert.deepEqual(strategic.data, { b: '2', c: '3' });
    await rejectsWith(client.patch(CONFIGMAP, key, 'json', [{ op: 'test', path: '/data/b', value: 'nope' }]), (e) => e instanceof Error && 'code' in e && (e.code === 422 || e.code === 409), 'failed JSON patch test');
  });

  it('applies server-side with field managers, conflicts and force', async () => {
    const first = await client.apply(configMap('applied', { owner: 'alice' }), { fieldManager: 'alice' });
    assert.deepEqual(first.data, { owner: 'alice' });
    const again = await client.apply(configMap('applied', { owner: 'alice' }), { fieldManager: 'alice' });
    assert.equal(again.metadata.resourceVersion, first.metadata.resourceVersion, 'applying the same configuration is a no-op');
    await rejectsWith(client.apply(configMap('applied', { owner: 'bob' }), { fieldManager: 'bob' }), isConflict, 'apply by a second manager');
    const forced = await client.apply(configMap('applied', { owner: 'bob' }), { fieldManager: 'bob', force: true });
    assert.deepEqual(forced.data, { owner: 'bob' });
    const managers = (forced.metadata.managedFields as { manager: string }[]).map((m) => m.manager);
    assert.ok(managers.includes('bob'), `bob manages a field (${managers.join(', ')})`);
  });

  it('deletes with preconditions', async () => {
    const cm = await client.create(configMap('guarded'));
    const key = { namespace: 'default', name: 'guarded' };
    await rejectsWith(client.delete(CONFIGMAP, key, { preconditions: { uid: 'not-the-uid' } }), isConflict, 'wrong uid');
    await rejectsWith(client.delete(CONFIGMAP, key, { preconditions: { resourceVersion: '1' } }), isConflict, 'wrong resourceVersion');
    await client.delete(CONFIGMAP, key, { preconditions: { uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion } });
    await rejectsWith(client.get(CONFIGMAP, key), isNotFound, 'deleted');
  });

  it('updates the status subresource of a custom resource', async () => {
    await client.create(widgetCrd('test.example.com', 'Widget', 'widgets'));
    const widgets = typed<Widget>(client, WIDGET);
    await eventually('Widget is served', () => widgets.resource());
    const info = await widgets.resource();
    assert.deepEqual([info.group, info.version, info.resource, info.namespaced], ['test.example.com', 'v1', 'widgets', true]);
    assert.ok(info.subresources.includes('status'));
    const w = await widgets.create({ metadata: { name: 'w1', namespace: 'default' }, spec: { size: 1 }, status: { phase: 'ignored' } });
    assert.equal(w.status, undefined, 'status is not written by create');
    const withStatus = await widgets.updateStatus({ ...w, status: { phase: 'Ready' } });
    assert.equal(withStatus.status?.phase, 'Ready');
    const ignored = await widgets.update({ ...withStatus, spec: { size: 2 }, status: { phase: 'Changed' } });
    assert.equal(ignored.spec?.size, 2);
    assert.equal(ignored.status?.phase, 'Ready', 'update does not write status');
    const patched = await widgets.patch({ namespace: 'default', name: 'w1' }, 'merge', { status: { phase: 'Done' } }, { subresource: 'status' });
    assert.equal(patched.status?.phase, 'Done');
    const applied = await widgets.apply({ metadata: { name: 'w1', namespace: 'default' }, status: { phase: 'Applied' } }, { fieldManager: 'status-writer', subresource: 'status', force: true });
    assert.equal(applied.status?.phase, 'Applied');
  });

  it('lists 250 objects in pages of 100', async () => {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'paging' } });
    for (let i = 0; i < 250; i += 25) {
      await Promise.all(Array.from({ length: 25 }, (_, j) => client.create(configMap(`cm-${String(i + j).padStart(3, '0')}`, {}, 'paging'))));
    }
    const first = await client.list(CONFIGMAP, { namespace: 'paging', limit: 100, singlePage: true });
    assert.equal(first.items.length, 100);
    assert.ok(first.continue, 'a continue token for the rest');
    const second = await client.list(CONFIGMAP, { namespace: 'paging', limit: 100, continue: first.continue });
    assert.equal(second.items.length, 100);
    const all = await client.list(CONFIGMAP, { namespace: 'paging', limit: 100 });
    // The namespace also holds its kube-root-ca.crt, as every namespace does.
    const ours = all.items.map((i) => i.metadata.name).filter((n) => n !== 'kube-root-ca.crt');
    assert.equal(ours.length, 250);
    assert.equal(new Set(ours).size, 250);
    assert.equal(all.continue, undefined);
    assert.ok(all.resourceVersion);
    const selected = await client.list(CONFIGMAP, { namespace: 'paging', fieldSelector: 'metadata.name=cm-007' });
    assert.deepEqual(selected.items.map((i) => i.metadata.name), ['cm-007']);
  });

  it('watches from a resourceVersion until the signal aborts', async () => {
    const cm = await client.create(configMap('watched', { n: '0' }));
    const key = { namespace: 'default', name: 'watched' };
    await client.patch(CONFIGMAP, key, 'merge', { data: { n: '1' } });
    await client.patch(CONFIGMAP, key, 'merge', { data: { n: '2' } });
    const abort = new AbortController();
    const seen: WatchEvent<ConfigMap>[] = [];
    const timer = setTimeout(() => abort.abort(), 10_000);
    for await (const ev of client.watch<ConfigMap>(CONFIGMAP, { namespace: 'default', resourceVersion: cm.metadata.resourceVersion, signal: abort.signal })) {
      if (ev.object.metadata.name !== 'watched') continue;
      seen.push(ev);
      if (seen.length === 2) client.delete(CONFIGMAP, key).catch(() => abort.abort());
      if (ev.type === 'DELETED') abort.abort();
    }
    clearTimeout(timer);
    assert.deepEqual(seen.map((e) => `${e.type} ${e.object.data?.n ?? ''}`), ['MODIFIED 1', 'MODIFIED 2', 'DELETED 2']);
    assert.equal(client.transport.socketCounts().watches, 0, 'the watch connection is closed');
  });

  it('ends a watch when the consumer stops reading', async () => {
    await client.create(configMap('early-exit'));
    for await (const ev of client.watch(CONFIGMAP, { namespace: 'default' })) {
      assert.equal(ev.type, 'ADDED');
      break;
    }
    await eventually('watch socket closed', async () => assert.equal(client.transport.socketCounts().watches, 0));
  });

  it('yields a Gone ERROR event for a too-old resourceVersion', async () => {
    const events: WatchEvent[] = [];
    for await (const ev of client.watch(CONFIGMAP, { namespace: 'default', resourceVersion: '2' })) events.push(ev);
    assert.equal(events.length, 1);
    assert.equal(events[0]?.type, 'ERROR');
    assert.ok(isGone(errorFromWatchEvent(events[0] as WatchEvent)));
  });

  it('answers typed errors: Invalid, Unauthorized, NoKindMatch, Unreachable', async () => {
    await rejectsWith(client.create(configMap('Not_A_Valid_Name')), isInvalid, 'invalid name');
    const access = server.clusterAccess('crud');
    const config = loadKubeconfig(access.kubeconfig);
    const stranger = createClient({ ...config, auth: staticToken('wrong-token') }, { retries: 0 });
    await rejectsWith(stranger.list({ apiVersion: 'v1', kind: 'Namespace' }), isUnauthorized, 'wrong token');
    stranger.close();
    await rejectsWith(client.get({ apiVersion: 'nothing.example.com/v1', kind: 'Nothing' }, { name: 'x' }), isNoKindMatch, 'unknown kind');

    const doomed = await server.createCluster('doomed');
    const doomedClient = createClient(loadKubeconfig(doomed.kubeconfig), { retries: 0 });
    await doomedClient.list(CONFIGMAP);
    await server.deleteCluster('doomed');
    await rejectsWith(doomedClient.list(CONFIGMAP), isUnreachable, 'deleted logical cluster');
    doomedClient.close();
  });

  it('binds a typed facade to one kind', async () => {
    const maps = typed<ConfigMap>(client, CONFIGMAP);
    const cm = await maps.create({ metadata: { name: 'typed', namespace: 'default' }, data: { k: 'v' } });
    assert.equal(cm.kind, 'ConfigMap');
    assert.equal((await maps.get({ namespace: 'default', name: 'typed' })).data?.k, 'v');
    assert.ok((await maps.list({ namespace: 'default' })).items.some((i) => i.metadata.name === 'typed'));
    await maps.delete({ namespace: 'default', name: 'typed' });
    await rejectsWith(maps.get({ namespace: 'default', name: 'typed' }), isNotFound, 'typed get after delete');
  });
});
