// Sharding against the embedded API server: replicas partition the keys (no key owned twice, none
// orphaned), a killed replica's shards are taken over, a joining replica gets a fair share, and the
// change notifications tell the controllers exactly what they gained and lost.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../../src/apiserver/server.js';
import { clientFromKubeconfig, type HttpClient } from '../../../src/runtime/client/index.js';
import { LEASE_KIND, type Lease } from '../../../src/runtime/leader/lease.js';
import { SHARD_GROUP_LABEL, ShardManager } from '../../../src/runtime/sharding/shards.js';
import { ManualClock } from '../../support/clock.js';
import { waitFor } from '../../support/wait.js';

const timing = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 };
const SHARDS = 12;
const keys = Array.from({ length: 1000 }, (_, i) => `namespace-${i % 17}/object-${i}`);

/** Samples every replica's shards while a test runs and remembers any shard owned twice. */
class OwnershipSampler {
  readonly doubleOwned: string[] = [];
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(private readonly replicas: () => ShardManager[]) {
    this.timer = setInterval(() => this.sample(), 10);
  }

  sample(): void {
    const owner = new Map<number, string>();
    for (const r of this.replicas()) {
      for (const s of r.ownedShards()) {
        const other = owner.get(s);
        if (other) this.doubleOwned.push(`shard ${s}: ${other} and ${r.identity}`);
        owner.set(s, r.identity);
      }
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** The shards a replica owns according to its change notifications alone. */
function trackNotifications(r: ShardManager): Set<number> {
  const owned = new Set<number>();
  r.onChange(({ gained, lost }) => {
    for (const s of lost) assert.ok(owned.delete(s), `${r.identity} lost shard ${s} it never gained`);
    for (const s of gained) {
      assert.ok(!owned.has(s), `${r.identity} gained shard ${s} twice`);
      owned.add(s);
    }
  });
  return owned;
}

function owners(replicas: ShardManager[], key: string): string[] {
  return replicas.filter((r) => r.owns(key)).map((r) => r.identity);
}

function partitioned(replicas: ShardManager[], perReplica: number): boolean {
  const all = replicas.flatMap((r) => r.ownedShards());
  return all.length === SHARDS && new Set(all).size === SHARDS && replicas.every((r) => r.ownedShards().length === perReplica);
}

describe('sharding', () => {
  let server: RunningApiServer;
  const clients: HttpClient[] = [];
  const running: ShardManager[] = [];

  before(async () => {
    server = await startApiServer({ port: 0 });
  });
  after(async () => {
    await Promise.all(running.map((r) => r.stop({ release: false })));
    for (const c of clients) c.close();
    await server.stop();
  });

  function replica(kubeconfig: string, identity: string, t: typeof timing = timing, clock?: ManualClock): ShardManager {
    const client = clientFromKubeconfig(kubeconfig, { retries: 1 });
    clients.push(client);
    const r = new ShardManager({ client, namespace: 'default', name: 'controllers', identity, shardCount: SHARDS, clock, ...t });
    running.push(r);
    return r;
  }

  it('three replicas partition 1,000 keys: no key owned twice, none orphaned; a killed replica is replaced', async () => {
    const kubeconfig = (await server.createCluster('shards-kill')).kubeconfig;
    const replicas = ['replica-a', 'replica-b', 'replica-c'].map((id) => replica(kubeconfig, id));
    const notified = replicas.map(trackNotifications);
    let live = [...replicas];
    const sampler = new OwnershipSampler(() => live);
    try {
      for (const r of replicas) r.start();
      await waitFor('4 shards each', () => partitioned(replicas, SHARDS / 3));
      for (const key of keys) assert.equal(owners(replicas, key).length, 1, `key ${key} has exactly one owner: ${owners(replicas, key).join(', ')}`);
      replicas.forEach((r, i) => assert.deepEqual([...notified[i]].sort((a, b) => a - b), r.ownedShards(), 'notifications match ownership'));
      assert.deepEqual(replicas[0].liveMembers(), ['replica-a', 'replica-b', 'replica-c']);

      // Kill replica c: no release, its Leases must expire.
      const [a, b, c] = replicas;
      const orphaned = c.ownedShards();
      await c.stop({ release: false });
      live = [a, b];
      assert.deepEqual(notified[2].size, 0, 'the killed replica was told it lost everything');
      await waitFor('the survivors own 6 shards each', () => partitioned([a, b], SHARDS / 2));
      for (const s of orphaned) assert.ok(a.ownsShard(s) || b.ownsShard(s), `shard ${s} taken over`);
      for (const key of keys) assert.equal(owners([a, b], key).length, 1, `key ${key} has exactly one owner`);
      [a, b].forEach((r, i) => assert.deepEqual([...notified[i]].sort((x, y) => x - y), r.ownedShards()));
      sampler.sample();
      assert.deepEqual(sampler.doubleOwned, [], 'no shard was ever owned twice');
    } finally {
      sampler.stop();
    }
  });

  it('a joining replica gets its fair share and a cleanly stopped one hands over at once', async () => {
    const kubeconfig = (await server.createCluster('shards-join')).kubeconfig;
    // A long lease: a hand-over by expiry would take at least 6 s, by release about a retry period.
    const slow = { leaseDurationMs: 8000, renewDeadlineMs: 6000, retryPeriodMs: 300 };
    const clocks = [new ManualClock(), new ManualClock()];
    const a = replica(kubeconfig, 'replica-a', slow, clocks[0]);
    const b = replica(kubeconfig, 'replica-b', slow, clocks[1]);
    let live = [a, b];
    const sampler = new OwnershipSampler(() => live);
    try {
      a.start();
      await waitFor('a owns every shard alone', () => partitioned([a], SHARDS));
      b.start();
      await waitFor('a and b own 6 each', () => partitioned([a, b], SHARDS / 2));
      const c = replica(kubeconfig, 'replica-c', slow);
      live = [a, b, c];
      c.start();
      await waitFor('4 each after c joined', () => partitioned([a, b, c], SHARDS / 3));

      // A clean stop releases the shards and leaves the group: the others take over without
      // waiting for the lease duration. Their clocks stand still from now on, so by them no lease
      // of c can expire: only the release can hand c's shards over.
      for (const clock of clocks) clock.freeze();
      await c.stop();
      live = [a, b];
      await waitFor('6 each after c left', () => partitioned([a, b], SHARDS / 2));
      const client = clientFromKubeconfig(kubeconfig);
      try {
        const leases = await client.list<Lease>(LEASE_KIND, { namespace: 'default', labelSelector: `${SHARD_GROUP_LABEL}=controllers` });
        const members = leases.items.filter((l) => l.metadata.name?.includes('-member-')).map((l) => l.spec?.holderIdentity);
        assert.deepEqual(members.sort(), ['replica-a', 'replica-b'], 'c left the group');
        const shardLeases = leases.items.filter((l) => l.metadata.name?.includes('-shard-'));
        assert.equal(shardLeases.length, SHARDS);
        for (const l of shardLeases) {
          const i = Number(l.metadata.name?.split('-').pop());
          const holder = l.spec?.holderIdentity;
          assert.ok(holder === 'replica-a' || holder === 'replica-b', `shard lease ${l.metadata.name} held by ${holder}`);
          assert.ok((holder === 'replica-a' ? a : b).ownsShard(i), `the lease holder of shard ${i} owns it`);
        }
      } finally {
        client.close();
      }
      sampler.sample();
      assert.deepEqual(sampler.doubleOwned, [], 'no shard was ever owned twice');
    } finally {
      sampler.stop();
    }
  });
});
