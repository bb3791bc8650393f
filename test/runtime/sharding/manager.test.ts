// Sharding and leader election wired into real Managers: two sharded replicas split the
// ConfigMaps of a namespace between them (every key reconciled by its owner, new keys by their
// owner only), and a leader-elected manager reconciles only while it leads.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../../src/apiserver/server.js';
import { clientFromKubeconfig, type HttpClient } from '../../../src/runtime/client/index.js';
import { useLeaderElection } from '../../../src/runtime/leader/manager.js';
import { silentLogger } from '../../../src/runtime/log.js';
import { Manager, newControllerManagedBy } from '../../../src/runtime/manager.js';
import { useSharding } from '../../../src/runtime/sharding/manager.js';
import type { ShardManager } from '../../../src/runtime/sharding/shards.js';
import { namespacedName } from '../../../src/kube/keys.js';
import { waitFor } from '../../support/wait.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const timing = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 };
const NS = 'work';

describe('coordination wired into the manager', () => {
  let server: RunningApiServer;
  const clients: HttpClient[] = [];
  const stops: AbortController[] = [];
  const runs: Promise<void>[] = [];

  before(async () => {
    server = await startApiServer({ port: 0 });
  });
  after(async () => {
    for (const s of stops) s.abort();
    await Promise.all(runs);
    for (const c of clients) c.close();
    await server.stop();
  });

  function client(kubeconfig: string): HttpClient {
    const c = clientFromKubeconfig(kubeconfig, { qps: 0 });
    clients.push(c);
    return c;
  }

  /** A manager with one ConfigMap controller recording which keys it reconciled. */
  function replica(kubeconfig: string): { manager: Manager; reconciled: string[] } {
    const manager = new Manager({ client: client(kubeconfig), logger: silentLogger });
    const reconciled: string[] = [];
    newControllerManagedBy(manager)
      .named('configmaps')
      .for(CONFIGMAP, { namespace: NS })
      .complete(async (req) => {
        reconciled.push(namespacedName(req));
      });
    return { manager, reconciled };
  }

  function run(manager: Manager): void {
    const stop = new AbortController();
    stops.push(stop);
    runs.push(manager.start(stop.signal));
  }

  it('sharded replicas reconcile each key on its owner only', async () => {
    const kubeconfig = (await server.createCluster('sharded-managers')).kubeconfig;
    const kcp = client(kubeconfig);
    await kcp.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (let i = 0; i < 40; i++) await kcp.create({ ...CONFIGMAP, metadata: { name: `before-${i}`, namespace: NS } });

    const replicas = ['replica-a', 'replica-b'].map((identity) => {
      const r = replica(kubeconfig);
      const shards = useSharding(r.manager, { client: client(kubeconfig), namespace: 'default', name: 'configmaps', identity, shardCount: 8, ...timing });
      return { ...r, shards };
    });
    for (const r of replicas) run(r.manager);
    const owner = (key: string): (typeof replicas)[number] | undefined => replicas.find((r) => r.shards.owns(key));
    const balanced = (shards: ShardManager[]): boolean => shards.every((s) => s.ownedShards().length === 4);
    await waitFor('4 shards each', () => balanced(replicas.map((r) => r.shards)));
    // Every existing key is reconciled by its owner (re-enqueued when the shard was gained).
    const before = Array.from({ length: 40 }, (_, i) => `${NS}/before-${i}`);
    await waitFor('existing keys reconciled by their owners', () => before.every((k) => owner(k)?.reconciled.includes(k)));

    // New keys, once ownership is stable: reconciled by their owner, never by the other replica.
    for (const r of replicas) r.reconciled.length = 0;
    const fresh = Array.from({ length: 40 }, (_, i) => `${NS}/after-${i}`);
    for (const k of fresh) await kcp.create({ ...CONFIGMAP, metadata: { name: k.split('/')[1], namespace: NS } });
    await waitFor('new keys reconciled', () => fresh.every((k) => owner(k)?.reconciled.includes(k)));
    for (const k of fresh) {
      const by = replicas.filter((r) => r.reconciled.includes(k)).length;
      assert.equal(by, 1, `${k} reconciled by exactly one replica`);
    }
    assert.ok(balanced(replicas.map((r) => r.shards)), 'ownership stayed stable during the check');
  });

  it('with shardKeyOf, objects that share a shard key are reconciled by one replica', async () => {
    const kubeconfig = (await server.createCluster('grouped-shards')).kubeconfig;
    const kcp = client(kubeconfig);
    await kcp.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    // 12 groups of 4 ConfigMaps; a ConfigMap's shard key is its group's, from the label.
    const groups = Array.from({ length: 12 }, (_, g) => `group-${g}`);
    const members = (g: string): string[] => Array.from({ length: 4 }, (_, i) => `${NS}/${g}-member-${i}`);

    const replicas = ['replica-a', 'replica-b'].map((identity) => {
      const r = replica(kubeconfig);
      const cached = r.manager.cache(CONFIGMAP, { namespace: NS });
      const shardKeyOf = (_c: string, _k: unknown, req: { namespace?: string; name: string }): string => `${NS}/${cached.get(namespacedName(req))?.metadata.labels?.group ?? req.name}`;
      const shards = useSharding(r.manager, { client: client(kubeconfig), namespace: 'default', name: 'grouped', identity, shardCount: 8, shardKeyOf, ...timing });
      return { ...r, shards };
    });
    // Hashed on their own keys, some groups would be split across the shards: the grouping matters.
    assert.ok(groups.some((g) => new Set(members(g).map((k) => replicas[0].shards.shardOf(k))).size > 1), 'some group spans shards by its own keys');
    for (const r of replicas) run(r.manager);
    await waitFor('4 shards each', () => replicas.every((r) => r.shards.ownedShards().length === 4));
    // Created once ownership is stable, as in the test above.
    for (const g of groups) for (const k of members(g)) await kcp.create({ ...CONFIGMAP, metadata: { name: k.split('/')[1], namespace: NS, labels: { group: g } } });
    const ownerOf = (g: string) => replicas.find((r) => r.shards.owns(`${NS}/${g}`));
    await waitFor('every ConfigMap reconciled by its group\'s owner', () => groups.every((g) => members(g).every((k) => ownerOf(g)?.reconciled.includes(k))));
    assert.ok(replicas.every((r) => r.shards.ownedShards().length === 4), 'ownership stayed stable during the check');
    for (const g of groups) {
      const other = replicas.find((r) => r !== ownerOf(g));
      assert.deepEqual(members(g).filter((k) => other?.reconciled.includes(k)), [], `no member of ${g} reconciled by the other replica`);
    }
  });

  it('a leader-elected manager reconciles only while leading; the follower takes over on shutdown', async () => {
    const kubeconfig = (await server.createCluster('elected-managers')).kubeconfig;
    const kcp = client(kubeconfig);
    await kcp.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await kcp.create({ ...CONFIGMAP, metadata: { name: 'one', namespace: NS } });
    const a = replica(kubeconfig);
    const b = replica(kubeconfig);
    const electorA = useLeaderElection(a.manager, { client: client(kubeconfig), namespace: 'default', name: 'configmaps-leader', identity: 'replica-a', ...timing });
    const electorB = useLeaderElection(b.manager, { client: client(kubeconfig), namespace: 'default', name: 'configmaps-leader', identity: 'replica-b', ...timing });
    run(a.manager);
    await waitFor('a leads', () => electorA.isLeader());
    run(b.manager);
    await waitFor('a reconciled the key', () => a.reconciled.includes(`${NS}/one`));
    await waitFor('b follows', () => electorB.leader() === 'replica-a');
    await kcp.create({ ...CONFIGMAP, metadata: { name: 'two', namespace: NS } });
    await waitFor('a reconciled the new key', () => a.reconciled.includes(`${NS}/two`));
    assert.deepEqual(b.reconciled, [], 'the follower reconciled nothing');

    // Shut a down: it releases the Lease, b takes over and re-enqueues everything.
    stops[stops.length - 2].abort();
    await waitFor('b leads', () => electorB.isLeader());
    await waitFor('b reconciled both keys', () => b.reconciled.includes(`${NS}/one`) && b.reconciled.includes(`${NS}/two`));
  });
});
