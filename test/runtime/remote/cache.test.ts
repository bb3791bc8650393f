// The remote cluster client cache against the embedded API server: rotation of a kubeconfig Secret
// is applied as soon as the change is seen, 401 and TLS failures evict and rebuild once, clients
// re-read their Secret after a TTL (kept when unchanged), and 200 clusters stay within the socket budget.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import yaml from 'js-yaml';
import { createCA } from '../../../src/apiserver/pki.js';
import { type RunningApiServer, startApiServer } from '../../../src/apiserver/server.js';
import { clientFromKubeconfig, type HttpClient, isTlsError, isUnauthorized } from '../../../src/runtime/client/index.js';
import { KubeconfigSecretError, kubeconfigFingerprint, RemoteClusterCache, type RemoteClusterCacheOptions } from '../../../src/runtime/remote/cache.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { waitFor } from '../../support/wait.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const NAMESPACE = 'kcp-system';

interface KubeconfigDoc {
  clusters: { cluster: Record<string, string> }[];
  users: { user: { token: string } }[];
}

function editKubeconfig(text: string, edit: (doc: KubeconfigDoc) => void): string {
  const doc = yaml.load(text) as KubeconfigDoc;
  edit(doc);
  return yaml.dump(doc, { lineWidth: -1 });
}

async function mapWithLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

describe('remote cluster client cache', () => {
  let server: RunningApiServer;
  let kcp: HttpClient;
  const caches: RemoteClusterCache[] = [];
  const watches = new AbortController();
  /** The Secret watch loops; a loop that fails fails the suite when it is awaited in after(). */
  const watching: Promise<void>[] = [];

  before(async () => {
    server = await startApiServer({ port: 0 });
    kcp = clientFromKubeconfig(server.clusterAccess('default').kubeconfig, { qps: 0 });
    await kcp.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    for (const name of ['remote-a', 'remote-b']) {
      const access = await server.createCluster(name);
      const c = clientFromKubeconfig(access.kubeconfig);
      await c.create({ ...CONFIGMAP, metadata: { name: 'identity', namespace: 'default' }, data: { cluster: name } });
      c.close();
    }
  });
  after(async () => {
    watches.abort();
    await Promise.all(watching);
    for (const c of caches) c.close();
    kcp.close();
    await server.stop();
  });

  async function putSecret(name: string, kubeconfig: string): Promise<void> {
    const data = { config: Buffer.from(kubeconfig).toString('base64') };
    try {
      const existing = await kcp.get(SECRET, { namespace: NAMESPACE, name });
      await kcp.update({ ...existing, data });
    } catch {
      await kcp.create({ ...SECRET, metadata: { name, namespace: NAMESPACE }, type: 'Opaque', data });
    }
  }

  function cache(opts: Partial<RemoteClusterCacheOptions> = {}): { cache: RemoteClusterCache; built: HttpClient[] } {
    const built: HttpClient[] = [];
    const c = new RemoteClusterCache({
      client: kcp,
      kubeconfigFor: (cluster) => ({ namespace: NAMESPACE, name: `kubeconfig-${cluster}` }),
      buildClient: (text) => {
        const client = clientFromKubeconfig(text, { maxSockets: opts.maxSocketsPerClient ?? 2, retries: 0 });
        built.push(client);
        return client;
      },
      ...opts,
    });
    caches.push(c);
    return { cache: c, built };
  }

  async function whoAnswers(c: RemoteClusterCache, cluster: string): Promise<string> {
    const cm = await c.client(cluster).get<KubeObject & { data: { cluster: string } }>(CONFIGMAP, { namespace: 'default', name: 'identity' });
    return cm.data.cluster;
  }

  it('hands out a client built from the rotated Secret as soon as the change is seen', async () => {
    const a = server.clusterAccess('remote-a').kubeconfig;
    const b = server.clusterAccess('remote-b').kubeconfig;
    await putSecret('kubeconfig-runtime-1', a);
    const { cache: c, built } = cache();
    watching.push(c.watchSecrets({ namespace: NAMESPACE, signal: watches.signal }));
    assert.equal(await whoAnswers(c, 'runtime-1'), 'remote-a');
    assert.equal(c.describe('runtime-1')?.fingerprint, kubeconfigFingerprint(a));

    // Rotation: the Secret now points elsewhere; the old credentials keep working, so only the
    // Secret change can make the cache switch.
    await putSecret('kubeconfig-runtime-1', b);
    await waitFor('the cache saw the rotation', () => c.describe('runtime-1')?.fingerprint === kubeconfigFingerprint(b));
    assert.equal(await whoAnswers(c, 'runtime-1'), 'remote-b');
    const stats = c.stats();
    assert.equal(stats.builds, 2);
    assert.equal(stats.evictions.rotation, 1);
    assert.equal(stats.evictions.credentials, 0, 'switched on the Secret change, not on a failure');
    await assert.rejects(built[0].get(CONFIGMAP, { namespace: 'default', name: 'identity' }), 'the old client is closed');
    assert.equal(built[0].transport.socketCounts().idle, 0);
  });

  it('a Secret event during the build outdates the client only when it carries other content', async () => {
    const a = server.clusterAccess('remote-a').kubeconfig;
    const b = server.clusterAccess('remote-b').kubeconfig;
    await putSecret('kubeconfig-runtime-6', a);
    const secret = await kcp.get<KubeObject & { data: Record<string, string> }>(SECRET, { namespace: NAMESPACE, name: 'kubeconfig-runtime-6' });
    const { cache: c } = cache();

    // The informer's first sight of the Secret races the first build: same content, one build.
    const first = c.acquire('runtime-6');
    c.secretChanged(secret);
    (await first).done();
    assert.equal(await whoAnswers(c, 'runtime-6'), 'remote-a');
    assert.equal(c.stats().builds, 1, 'an event with the content the client was built from does not rebuild it');

    // Other content seen during a build: the next use rebuilds from the Secret.
    c.invalidate('runtime-6');
    const second = c.acquire('runtime-6');
    c.secretChanged({ ...secret, data: { config: Buffer.from(b).toString('base64') } });
    (await second).done();
    await putSecret('kubeconfig-runtime-6', b);
    assert.equal(await whoAnswers(c, 'runtime-6'), 'remote-b');
    assert.equal(c.stats().builds, 3);
    assert.equal(c.stats().evictions.rotation, 1, 'the outdated client was replaced');
  });

  it('builds from the Secret the caller\'s informer holds without reading it, and reads it when the informer has none or lacks the key', async () => {
    const a = server.clusterAccess('remote-a').kubeconfig;
    const b = server.clusterAccess('remote-b').kubeconfig;
    const held = new Map<string, KubeObject & { data: Record<string, string> }>();
    const secretOf = (name: string, data: Record<string, string>) => ({ ...SECRET, metadata: { name, namespace: NAMESPACE }, data });
    // Only in the "informer": the API server has no such Secret, so a GET would fail.
    held.set(`${NAMESPACE}/kubeconfig-runtime-7`, secretOf('kubeconfig-runtime-7', { config: Buffer.from(a).toString('base64') }));
    // In the "informer" without the key, and in the API server with it.
    held.set(`${NAMESPACE}/kubeconfig-runtime-8`, secretOf('kubeconfig-runtime-8', { other: 'eA==' }));
    await putSecret('kubeconfig-runtime-8', b);
    // Not in the "informer" at all.
    await putSecret('kubeconfig-runtime-9', a);
    const { cache: c } = cache({ cachedSecret: (ref) => held.get(`${ref.namespace ?? ''}/${ref.name}`) });
    assert.equal(await whoAnswers(c, 'runtime-7'), 'remote-a', 'built from the held Secret');
    assert.equal(await whoAnswers(c, 'runtime-8'), 'remote-b', 'the held Secret lacks the key: read from the API server');
    assert.equal(await whoAnswers(c, 'runtime-9'), 'remote-a', 'not held: read from the API server');
    assert.equal(c.stats().builds, 3);
    // Nothing held and nothing stored: the caller learns why, as without the informer.
    await assert.rejects(c.client('runtime-10').get(CONFIGMAP, { namespace: 'default', name: 'identity' }), (e: unknown) => e instanceof KubeconfigSecretError && e.reason === 'SecretNotFound');
  });

  it('evicts and rebuilds once on 401', async () => {
    const good = server.clusterAccess('remote-a').kubeconfig;
    const bad = editKubeconfig(good, (d) => {
      d.users[0].user.token = 'not-a-valid-token';
    });
    await putSecret('kubeconfig-runtime-2', bad);
    const { cache: c } = cache(); // no Secret watch: only the failure can tell the cache
    await assert.rejects(whoAnswers(c, 'runtime-2'), (e) => isUnauthorized(e));
    assert.equal(c.stats().builds, 2, 'built, failed, rebuilt once, failed again');
    assert.equal(c.stats().evictions.credentials, 1);

    await putSecret('kubeconfig-runtime-2', good);
    assert.equal(await whoAnswers(c, 'runtime-2'), 'remote-a', 'the 401 made the cache read the fixed Secret');
    assert.equal(c.stats().builds, 3);
    assert.equal(c.describe('runtime-2')?.fingerprint, kubeconfigFingerprint(good));
  });

  it('after a 401 or the TTL, rebuilds from the Secret in the API server, not from the informer\'s copy that may lag', async () => {
    const good = server.clusterAccess('remote-b').kubeconfig;
    const stale = editKubeconfig(good, (d) => {
      d.users[0].user.token = 'revoked-token';
    });
    // The informer still holds the Secret before its rotation; the API server has the rotated one.
    const held = { ...SECRET, metadata: { name: 'kubeconfig-runtime-11', namespace: NAMESPACE }, data: { config: Buffer.from(stale).toString('base64') } };
    await putSecret('kubeconfig-runtime-11', good);
    const { cache: c } = cache({ cachedSecret: () => held });
    assert.equal(await whoAnswers(c, 'runtime-11'), 'remote-b', 'the 401 of the informer\'s copy made the cache read the Secret');
    assert.equal(c.stats().evictions.credentials, 1);
    assert.equal(c.describe('runtime-11')?.fingerprint, kubeconfigFingerprint(good));

    // The TTL too: the informer's copy (now pointing elsewhere) is not what the rebuild reads.
    held.data.config = Buffer.from(server.clusterAccess('remote-a').kubeconfig).toString('base64');
    const { cache: t } = cache({ ttlMs: 200, cachedSecret: () => held });
    assert.equal(await whoAnswers(t, 'runtime-11'), 'remote-a', 'the first build takes the informer\'s copy');
    const first = t.describe('runtime-11')?.builtAt ?? 0;
    await waitFor('a rebuild after the TTL', async () => {
      await whoAnswers(t, 'runtime-11');
      return (t.describe('runtime-11')?.builtAt ?? 0) > first;
    });
    assert.equal(await whoAnswers(t, 'runtime-11'), 'remote-b', 'the rebuild read the Secret from the API server');
  });

  it('evicts and rebuilds once on a TLS failure (server CA rotated)', async () => {
    const good = server.clusterAccess('remote-b').kubeconfig;
    const otherCa = await createCA('some-other-ca');
    const wrongCa = editKubeconfig(good, (d) => {
      d.clusters[0].cluster['certificate-authority-data'] = Buffer.from(otherCa.certPem).toString('base64');
    });
    await putSecret('kubeconfig-runtime-3', wrongCa);
    const { cache: c } = cache();
    await assert.rejects(whoAnswers(c, 'runtime-3'), (e) => isTlsError(e));
    await putSecret('kubeconfig-runtime-3', good);
    assert.equal(await whoAnswers(c, 'runtime-3'), 'remote-b');
    assert.equal(c.stats().evictions.credentials, 2);
  });

  it('re-reads the Secret after its TTL: keeps the client while the kubeconfig is the same, replaces it once it changed', async () => {
    await putSecret('kubeconfig-runtime-4', server.clusterAccess('remote-a').kubeconfig);
    const { cache: c, built } = cache({ ttlMs: 300 });
    assert.equal(await whoAnswers(c, 'runtime-4'), 'remote-a');
    const first = c.describe('runtime-4')?.builtAt ?? 0;
    const opened = built[0].transport.connectionStats().opened;
    const discovered = built[0].mapper.fetches;
    await waitFor('a re-read after the TTL', async () => {
      await whoAnswers(c, 'runtime-4');
      return (c.describe('runtime-4')?.builtAt ?? 0) > first;
    });
    await whoAnswers(c, 'runtime-4');
    assert.ok(c.stats().renewals >= 1, 'the unchanged kubeconfig renewed the client');
    assert.deepEqual([c.stats().builds, c.stats().evictions.ttl, built.length], [1, 0, 1], 'no second client built');
    assert.equal(built[0].transport.connectionStats().opened, opened, 'its kept-alive connection still serves it');
    assert.ok(built[0].mapper.fetches > discovered, 'what it discovered was asked again after the renewal');

    // Changed on the server without an event reaching the cache (no informer, no watch here): the
    // next re-read replaces the client.
    await putSecret('kubeconfig-runtime-4', server.clusterAccess('remote-b').kubeconfig);
    await waitFor('the client replaced after the next TTL', async () => (await whoAnswers(c, 'runtime-4')) === 'remote-b');
    assert.deepEqual([c.stats().builds, c.stats().evictions.ttl], [2, 1]);
    assert.equal(c.stats().evictions.credentials, 0);
  });

  it('drops the client of a deleted Secret and bounds the cached clients (LRU)', async () => {
    for (const n of [5, 6, 7]) await putSecret(`kubeconfig-runtime-${n}`, server.clusterAccess('remote-a').kubeconfig);
    const { cache: c } = cache({ maxClients: 2 });
    watching.push(c.watchSecrets({ namespace: NAMESPACE, signal: watches.signal }));
    for (const n of [5, 6, 7]) assert.equal(await whoAnswers(c, `runtime-${n}`), 'remote-a');
    assert.equal(c.stats().clients, 2);
    assert.equal(c.describe('runtime-5'), undefined, 'the least recently used client was dropped');
    assert.equal(c.stats().evictions.lru, 1);

    await kcp.delete(SECRET, { namespace: NAMESPACE, name: 'kubeconfig-runtime-7' });
    await waitFor('the client of the deleted Secret is dropped', () => c.describe('runtime-7') === undefined);
    await assert.rejects(whoAnswers(c, 'runtime-7'), (e) => e instanceof KubeconfigSecretError && e.reason === 'SecretNotFound');
  });

  it('keeps 200 clusters within the socket budget and closes idle sockets', async () => {
    const names = Array.from({ length: 200 }, (_, i) => `bound-${i}`);
    await mapWithLimit(names, 8, async (name) => {
      const access = await server.createCluster(name);
      await putSecret(`kubeconfig-${name}`, access.kubeconfig);
    });

    const budget = 40;
    const concurrency = 16;
    const { cache: c } = cache({ socketBudget: budget, maxSocketsPerClient: 2, idleSocketTimeoutMs: 3000 });
    let peak = 0;
    await mapWithLimit(names, concurrency, async (name) => {
      const list = await c.client(name).list(CONFIGMAP, { namespace: 'kube-system' });
      assert.ok(Array.isArray(list.items));
      peak = Math.max(peak, c.openSockets().total);
    });
    await waitFor('the sockets of the last answers are within the budget', () => c.openSockets().total <= budget);
    const stats = c.stats();
    assert.equal(stats.clients, 200, 'every client stays cached');
    assert.ok(stats.sockets.total > 0 && stats.sockets.total <= budget, `open sockets ${stats.sockets.total} within the budget ${budget}`);
    assert.ok(peak <= budget + concurrency * 2, `peak ${peak} bounded by the budget plus requests in flight`);
    assert.ok(stats.socketsClosedByBudget >= 200 - budget, `the budget closed idle sockets (${stats.socketsClosedByBudget})`);
    await waitFor('idle sockets closed after the idle timeout', () => c.openSockets().total === 0);
    // A client whose sockets were closed still works.
    assert.ok(Array.isArray((await c.client('bound-0').list(CONFIGMAP, { namespace: 'kube-system' })).items));
  });
});
