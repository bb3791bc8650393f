// Retries, Retry-After, rate limiting, discovery refresh and discovery shared per server version
// against the embedded API server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { ApiError, createClient, type HttpClient, isUnreachable, isNoKindMatch, loadKubeconfig, RestMapper, SharedDiscovery, TokenBucket } from '../../src/runtime/client/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { sleep } from '../../src/util/sleep.js';
import { FakeClock } from '../support/fake-clock.js';
import { ioTurn } from '../support/io.js';

const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };

function crd(group: string, kind: string, plural: string, scope: 'Namespaced' | 'Cluster' = 'Namespaced'): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
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

describe('client resilience', () => {
  let server: RunningApiServer;
  let kubeconfig: string;
  const clients: HttpClient[] = [];
  const client = (opts: Parameters<typeof createClient>[1] = {}) => {
    const c = createClient(loadKubeconfig(kubeconfig), opts);
    clients.push(c);
    return c;
  };

  before(async () => {
    server = await startApiServer({ port: 0 });
    kubeconfig = (await server.createCluster('flaky')).kubeconfig;
  });
  after(async () => {
    for (const c of clients) c.close();
    await server.stop();
  });

  it('waits as long as a 429 Retry-After says, then succeeds', async (t) => {
    const c = client({ qps: 0, retries: { attempts: 10 } });
    await c.resourceFor(NAMESPACE);
    // The client sleeps on a mocked setTimeout; the test moves that clock 1 ms per event-loop turn
    // and counts how far it had to move it before the retry reached the server.
    const clock = new FakeClock(t);
    server.setFaults('flaky', { errorRate: 1, errorCodes: [429], retryAfterSeconds: 1 });
    const received = server.requestCount();
    let list: { items: unknown[] } | undefined;
    const listing = c.list(NAMESPACE).then((l) => (list = l));
    for (let turns = 0; server.requestCount() === received; turns++) {
      assert.ok(turns < 100_000, 'the first attempt reached the server');
      await ioTurn();
    }
    server.setFaults('flaky', undefined);
    const rejectedAt = clock.now();
    for (let turns = 0; server.requestCount() === received + 1; turns++) {
      assert.ok(turns < 100_000, 'the client retried');
      clock.tick(1);
      await ioTurn();
    }
    const waited = clock.now() - rejectedAt;
    await listing;
    assert.ok(list && list.items.length > 0);
    assert.ok(waited >= 1000, `waited the second Retry-After asked for (${waited} ms on the client's clock)`);
    assert.equal(server.requestCount(), received + 2, 'one 429, then one successful retry');
  });

  it('retries reads after 5xx answers', async () => {
    const c = client({ qps: 0, retries: { attempts: 20, baseDelayMs: 20, maxDelayMs: 100 } });
    await c.resourceFor(CONFIGMAP);
    server.setFaults('flaky', { errorRate: 1, errorCodes: [500] });
    const clear = setTimeout(() => server.setFaults('flaky', undefined), 200);
    const list = await c.list(CONFIGMAP, { namespace: 'default' });
    clearTimeout(clear);
    assert.ok(Array.isArray(list.items));
  });

  it('waits out throttling longer than other failures (throttledAttempts)', async () => {
    // maxDelayMs caps the server's Retry-After, so the attempts follow each other quickly.
    const c = client({ qps: 0, retries: { attempts: 2, throttledAttempts: 4, baseDelayMs: 5, maxDelayMs: 10 } });
    await c.resourceFor(CONFIGMAP);
    const answered = (code: number) => server.faultCounts('flaky').errors[code] ?? 0;
    try {
      server.setFaults('flaky', { errorRate: 1, errorCodes: [429], retryAfterSeconds: 1 });
      const throttled = answered(429);
      await assert.rejects(c.list(CONFIGMAP, { namespace: 'default' }), (e) => e instanceof ApiError && e.reason === 'TooManyRequests');
      assert.equal(answered(429) - throttled, 4, 'four attempts while throttled');
      server.setFaults('flaky', { errorRate: 1, errorCodes: [500] });
      const failed = answered(500);
      await assert.rejects(c.list(CONFIGMAP, { namespace: 'default' }), (e) => e instanceof ApiError && e.reason === 'InternalError');
      assert.equal(answered(500) - failed, 2, 'two attempts on server errors');
    } finally {
      server.setFaults('flaky', undefined);
    }
  });

  it('does not repeat a create after a 500 but does after a 503', async () => {
    const c = client({ qps: 0, retries: { attempts: 20, baseDelayMs: 20, maxDelayMs: 100 } });
    await c.resourceFor(CONFIGMAP);
    server.setFaults('flaky', { errorRate: 1, errorCodes: [500] });
    const cm = (name: string) => ({ ...CONFIGMAP, metadata: { name, namespace: 'default' } });
    await assert.rejects(c.create(cm('after-500')), (e) => e instanceof ApiError && e.reason === 'InternalError');
    server.setFaults('flaky', { errorRate: 1, errorCodes: [503] });
    const clear = setTimeout(() => server.setFaults('flaky', undefined), 200);
    const created = await c.create(cm('after-503'));
    clearTimeout(clear);
    assert.equal(created.metadata.name, 'after-503');
  });

  it('limits requests per second (qps 20, burst 5)', async (t) => {
    // The token bucket reads performance.now() and waits on setTimeout: both run on a fake clock
    // that the test moves 1 ms per event-loop turn until every request has been answered.
    const clock = new FakeClock(t);
    const c = client({ qps: 20, burst: 5 });
    const beforeDiscovery = server.requestCount();
    await c.resourceFor(NAMESPACE);
    // Discovery took tokens of the burst too.
    const burstLeft = 5 - (server.requestCount() - beforeDiscovery);
    const start = clock.now();
    const received = server.requestCount();
    let answered = 0;
    const all = Promise.all(Array.from({ length: 30 }, () => c.get(NAMESPACE, { name: 'default' }).then(() => answered++)));
    // What is left of the burst goes out with the clock standing still, and nothing more: the
    // rest are answered as the last of the burst are, and then another 100 turns.
    for (let turns = 0; answered < burstLeft; turns++) {
      assert.ok(turns < 100_000, 'the rest of the burst answered');
      await ioTurn();
    }
    for (let i = 0; i < 100; i++) await ioTurn();
    assert.deepEqual([server.requestCount() - received, answered], [burstLeft, burstLeft], 'only the burst goes out while the clock stands still');
    for (let turns = 0; answered < 30; turns++) {
      assert.ok(turns < 1_000_000, 'every request answered');
      clock.tick(1);
      await ioTurn();
    }
    await all;
    const took = clock.now() - start;
    // The burst at once, then the others at 20 per second (50 ms apart on the limiter's clock).
    assert.ok(took >= (30 - burstLeft) * 50, `30 requests took ${took} ms on the limiter's clock (burst left: ${burstLeft})`);
    assert.ok(took >= 1250, `at least 25 x 50 ms: ${took} ms`);
    assert.equal(server.requestCount(), received + 30);
  });

  it('keeps at most maxSockets connections per cluster and closes idle ones on request', async () => {
    const c = client({ qps: 0, maxSockets: 2 });
    await c.resourceFor(NAMESPACE);
    server.setFaults('flaky', { latencyMs: 100 });
    let most = 0;
    const sample = setInterval(() => (most = Math.max(most, c.transport.socketCounts().active)), 10);
    try {
      await Promise.all(Array.from({ length: 10 }, () => c.get(NAMESPACE, { name: 'default' })));
    } finally {
      clearInterval(sample);
      server.setFaults('flaky', undefined);
    }
    assert.ok(most >= 1 && most <= 2, `at most 2 connections in use (${most})`);
    assert.ok(c.transport.socketCounts().idle > 0, 'connections are kept alive');
    c.transport.destroyIdleSockets();
    await eventually('idle connections closed', async () => assert.equal(c.transport.socketCounts().idle, 0));
    assert.equal((await c.get(NAMESPACE, { name: 'default' })).metadata.name, 'default', 'a new connection afterwards');
  });

  it('closes each kept-alive connection unused for idleSocketTimeoutMs, while the one in use stays', async () => {
    const c = client({ qps: 0, maxSockets: 2, idleSocketTimeoutMs: 400 });
    await c.resourceFor(NAMESPACE);
    // A burst opens both connections.
    server.setFaults('flaky', { latencyMs: 100 });
    try {
      await Promise.all([c.get(NAMESPACE, { name: 'default' }), c.get(NAMESPACE, { name: 'default' })]);
    } finally {
      server.setFaults('flaky', undefined);
    }
    assert.equal(c.transport.socketCounts().idle, 2, 'both kept after the burst');
    // One request at a time, every 100 ms for longer than the idle timeout: one connection serves
    // them all, and the other, unused, is closed by the client.
    for (let i = 0; i < 12; i++) {
      await c.get(NAMESPACE, { name: 'default' });
      await sleep(100);
    }
    const counts = c.transport.socketCounts();
    assert.equal(counts.active + counts.idle, 1, `one connection left: ${JSON.stringify(counts)}`);
    assert.equal(c.transport.connectionStats().opened, 2, 'no reconnect meanwhile');
    assert.equal(c.transport.connectionStats().closedIdle, 1, 'counted as closed by the idle timeout');
    // Unused altogether, the last one goes too.
    await eventually('the last idle connection closed', async () => assert.equal(c.transport.socketCounts().idle, 0), 3_000);
    assert.equal(c.transport.connectionStats().closedIdle, 2);
  });

  it('ends a watch when the server drops it or the cluster goes away', async () => {
    const c = client({ qps: 0 });
    server.setFaults('flaky', { dropWatchesAfterMs: 200 });
    try {
      const events = [];
      for await (const ev of c.watch(CONFIGMAP, { namespace: 'default' })) events.push(ev);
      assert.ok(Array.isArray(events), 'the iteration ended by itself');
    } finally {
      server.setFaults('flaky', undefined);
    }
    const gone = await server.createCluster('going');
    const goneClient = createClient(loadKubeconfig(gone.kubeconfig), { qps: 0, retries: 0 });
    clients.push(goneClient);
    await goneClient.resourceFor(CONFIGMAP);
    const watching = (async () => {
      let n = 0;
      for await (const ev of goneClient.watch(CONFIGMAP, { namespace: 'default' })) n += ev.type ? 1 : 0;
      return n;
    })();
    await eventually('watch open', async () => assert.equal(goneClient.transport.socketCounts().watches, 1));
    await server.deleteCluster('going');
    assert.equal(typeof (await watching), 'number', 'the watch ended when its cluster was deleted');
    await assert.rejects(goneClient.list(CONFIGMAP), (e) => isUnreachable(e));
  });

  it('gives an aborted rate-limit wait back', async () => {
    const bucket = new TokenBucket(1, 1);
    await bucket.acquire();
    const abort = new AbortController();
    const waiting = bucket.acquire(abort.signal);
    abort.abort(new Error('stop'));
    await assert.rejects(waiting, /stop/);
  });

  it('refreshes discovery once when a kind appears later', async () => {
    const c = client({ qps: 0 });
    await assert.rejects(c.resourceFor({ apiVersion: 'later.example.com/v1', kind: 'Sprocket' }), (e) => isNoKindMatch(e));
    await c.create(crd('later.example.com', 'Sprocket', 'sprockets'));
    const info = await eventually('Sprocket is served', () => c.resourceFor({ apiVersion: 'later.example.com/v1', kind: 'Sprocket' }));
    assert.equal(info.resource, 'sprockets');

    // A second kind in a group/version already cached: concurrent lookups share one refresh.
    await c.create(crd('later.example.com', 'Gear', 'gears'));
    const crdKind = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
    await eventually('Gear CRD established', async () => {
      const o = await c.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(crdKind, { name: 'gears.later.example.com' });
      assert.ok(o.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True'));
    });
    const before = c.mapper.fetches;
    const found = await Promise.all(Array.from({ length: 5 }, () => c.resourceFor({ apiVersion: 'later.example.com/v1', kind: 'Gear' })));
    assert.ok(found.every((f) => f.resource === 'gears'));
    assert.equal(c.mapper.fetches, before + 1, 'one discovery fetch for five lookups');
    await c.resourceFor({ apiVersion: 'later.example.com/v1', kind: 'Sprocket' });
    assert.equal(c.mapper.fetches, before + 1, 'known kinds come from the cache');
  });

  it('builds the mapper from /api/v1 and /apis', async () => {
    const c = client({ qps: 0 });
    const all = await c.mapper.allResources();
    const byKind = new Map(all.map((r) => [`${r.group}/${r.kind}`, r]));
    assert.equal(byKind.get('/ConfigMap')?.resource, 'configmaps');
    assert.equal(byKind.get('/Namespace')?.namespaced, false);
    assert.deepEqual(byKind.get('apps/Deployment')?.subresources.includes('status'), true);
  });

  it('shares one discovery fetch between concurrent lookups (fake server)', async () => {
    let calls = 0;
    const mapper = new RestMapper(async (path) => {
      calls++;
      await sleep(20);
      assert.equal(path, '/apis/x.example.com/v1');
      return { resources: [{ name: 'things', kind: 'Thing', namespaced: true, verbs: ['get'] }, { name: 'things/status', kind: 'Thing', namespaced: true }] };
    });
    const results = await Promise.all(Array.from({ length: 10 }, () => mapper.resourceFor({ apiVersion: 'x.example.com/v1', kind: 'Thing' })));
    assert.equal(calls, 1);
    assert.deepEqual(results[0]?.subresources, ['status']);
  });
  it('shares discovery per server version, and a cluster whose CRDs differ discovers for itself', async () => {
    const shared = new SharedDiscovery();
    const clusters = await Promise.all(['same-a', 'same-b', 'same-c'].map((name) => server.createCluster(name)));
    const [a, b, c] = clusters.map((access) => {
      const built = createClient(loadKubeconfig(access.kubeconfig), { qps: 0, discovery: shared });
      clients.push(built);
      return built;
    });
    await a.get(NAMESPACE, { name: 'default' });
    assert.equal(a.mapper.fetches, 2, '/version and /api/v1');
    for (const other of [b, c]) {
      await other.get(NAMESPACE, { name: 'default' });
      assert.equal(other.mapper.fetches, 1, 'only /version: /api/v1 came from the shared table');
    }
    assert.equal(shared.versions().length, 1);

    // A CRD in cluster a only: b borrows a's table, gets a 404 for the resource, and its own
    // discovery says NoKindMatch; a list in a works.
    const widget = { apiVersion: 'shared.example.com/v1', kind: 'Widget' };
    await a.create(crd('shared.example.com', 'Widget', 'widgets'));
    await eventually('Widget served in a', () => a.list(widget, { namespace: 'default' }));
    const bFetches = b.mapper.fetches;
    await assert.rejects(b.list(widget, { namespace: 'default' }), (e) => isNoKindMatch(e));
    assert.equal(b.mapper.fetches, bFetches + 1, 'b re-discovered the group itself after the 404');
    await assert.rejects(b.create({ ...widget, metadata: { name: 'w', namespace: 'default' } }), (e) => isNoKindMatch(e));

    // A CRD of the same group in cluster b only: b's lookup misses, b discovers, and it is served.
    const gizmo = { apiVersion: 'shared.example.com/v1', kind: 'Gizmo' };
    await b.create(crd('shared.example.com', 'Gizmo', 'gizmos'));
    await eventually('Gizmo served in b', () => b.create({ ...gizmo, metadata: { name: 'g', namespace: 'default' } }));
    assert.equal((await b.list(gizmo, { namespace: 'default' })).items.length, 1);
    // c serves neither: whichever table it borrows, its answer is NoKindMatch for both.
    await assert.rejects(c.list(gizmo, { namespace: 'default' }), (e) => isNoKindMatch(e));
    await assert.rejects(c.list(widget, { namespace: 'default' }), (e) => isNoKindMatch(e));
    // And a still serves Widget, not Gizmo.
    assert.equal((await a.list(widget, { namespace: 'default' })).items.length, 0);
    await assert.rejects(a.list(gizmo, { namespace: 'default' }), (e) => isNoKindMatch(e));
  });

  it('a kind namespaced in the shared table but cluster-scoped on this server is discovered again, not refused for a missing namespace', async () => {
    const shared = new SharedDiscovery();
    const [a, b] = (await Promise.all(['scope-a', 'scope-b'].map((name) => server.createCluster(name)))).map((access) => {
      const built = createClient(loadKubeconfig(access.kubeconfig), { qps: 0, discovery: shared });
      clients.push(built);
      return built;
    });
    const sample = { apiVersion: 'scope.example.com/v1', kind: 'Sample' };
    await a.create(crd('scope.example.com', 'Sample', 'samples'));
    await b.create(crd('scope.example.com', 'Sample', 'samples', 'Cluster'));
    await eventually('Sample served in a', () => a.list(sample, { namespace: 'default' }));
    // b borrows a's table (namespaced); its server serves the kind cluster-scoped.
    await eventually('a cluster-scoped Sample created in b', () => b.create({ ...sample, metadata: { name: 'global' } }));
    const global = await b.get(sample, { name: 'global' });
    assert.equal(global.metadata.namespace, undefined, 'cluster-scoped');
    // a still refuses a Sample without a namespace: its own server serves it namespaced.
    await assert.rejects(a.create({ ...sample, metadata: { name: 'global' } }), /a namespace is required/);
  });
});
