// Sharding of controller work across replicas with Leases (algorithm in docs/sharding.md).
//
// A key belongs to shard fnv1a32(key) % shardCount. Each shard is owned through its own Lease
// `<name>-shard-<i>`, acquired and renewed with the same rules as leader election (leader/lease.ts),
// so a shard has at most one owner at a time. Each replica announces itself with a membership Lease
// `<name>-member-<hash of identity>` and, every retry period: renews it, lists the group's Leases
// (one request), renews the shards it holds, gives up shards beyond its fair share
// ceil(shards / live replicas) and takes free (released or expired) shards up to it.
// Losing a shard is announced to listeners *before* its Lease is released, and when a renewal
// misses the renew deadline, so the controllers stop reconciling its keys before anyone else starts.
import type { Client } from '../client/interface.js';
import { LEASE_KIND, type Lease, LeaseLock, LeaseObservation } from '../leader/lease.js';
import { type LeaderElectionTiming, resolveTiming } from '../leader/election.js';
import { type Clock, Deadline, systemClock, withTimeout } from '../timers.js';
import { pause } from '../../util/sleep.js';
import { fairShare, fnv1a32, shardOf, shardsToAcquire, shardsToRelease } from './hash.js';
import { type Logger, silentLogger } from '../log.js';

export { fnv1a32, shardOf, fairShare } from './hash.js';

export const SHARD_GROUP_LABEL = 'sharding.kyma-project.io/group';
export const SHARD_ROLE_LABEL = 'sharding.kyma-project.io/role';

export interface ShardingOptions extends LeaderElectionTiming {
  client: Client;
  /** Namespace of the Leases. */
  namespace: string;
  /** The shard group (a DNS label): Lease names and the group label derive from it. */
  name: string;
  /** This replica's identity, unique among replicas. */
  identity: string;
  shardCount: number;
  clock?: Clock;
  log?: Logger;
}

/** What changed for this replica. Gained: re-enqueue the shards' keys. Lost: stop reconciling them. */
export interface ShardChange {
  gained: number[];
  lost: number[];
}

export type ShardListener = (change: ShardChange) => void;

/** At most this many Lease writes of one replica run at once. */
const WRITE_CONCURRENCY = 8;

export class ShardManager {
  private readonly timing: Required<LeaderElectionTiming>;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly shardLocks: LeaseLock[];
  private readonly shardDeadlines: Deadline[];
  private readonly memberLock: LeaseLock;
  private readonly members = new Map<string, LeaseObservation>();
  private readonly held = new Set<number>();
  /** Per shard: start of the last successful acquire/renew attempt (the renew deadline counts from here). */
  private readonly lastRenewStart: number[] = [];
  private readonly listeners = new Set<ShardListener>();
  private loopAbort: AbortController | undefined;
  private loopDone: Promise<void> | undefined;
  private rounds = 0;

  constructor(private readonly opts: ShardingOptions) {
    if (!Number.isInteger(opts.shardCount) || opts.shardCount < 1) throw new Error(`shardCount must be a positive integer, got ${opts.shardCount}`);
    this.timing = resolveTiming(opts);
    this.clock = opts.clock ?? systemClock;
    this.log = (opts.log ?? silentLogger).child('sharding', { group: opts.name, identity: opts.identity });
    const lock = (name: string, role: string): LeaseLock =>
      new LeaseLock({
        client: opts.client,
        namespace: opts.namespace,
        name,
        identity: opts.identity,
        leaseDurationMs: this.timing.leaseDurationMs,
        labels: { [SHARD_GROUP_LABEL]: opts.name, [SHARD_ROLE_LABEL]: role },
        clock: this.clock,
      });
    this.shardLocks = Array.from({ length: opts.shardCount }, (_, i) => lock(shardLeaseName(opts.name, i), 'shard'));
    this.shardDeadlines = this.shardLocks.map((_, i) => new Deadline(() => this.drop([i], 'renew deadline passed')));
    this.memberLock = lock(memberLeaseName(opts.name, opts.identity), 'member');
  }

  get identity(): string {
    return this.opts.identity;
  }

  get shardCount(): number {
    return this.opts.shardCount;
  }

  shardOf(key: string): number {
    return shardOf(key, this.opts.shardCount);
  }

  /** True when this replica currently owns the key's shard (reconcile it); false: leave it alone. */
  owns(key: string): boolean {
    return this.held.has(this.shardOf(key));
  }

  ownsShard(shard: number): boolean {
    return this.held.has(shard);
  }

  ownedShards(): number[] {
    return [...this.held].sort((a, b) => a - b);
  }

  /** Identities of the replicas seen alive in the last round (including this one). */
  liveMembers(): string[] {
    const now = this.clock.now();
    const live = new Set<string>([this.opts.identity]);
    for (const m of this.members.values()) if (!m.free(now)) live.add(m.holder());
    return [...live].sort();
  }

  /** Subscribes to shard changes; returns the unsubscribe function. Listeners run synchronously. */
  onChange(listener: ShardListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    if (this.loopAbort) return;
    this.loopAbort = new AbortController();
    this.rounds = 0;
    this.loopDone = this.loop(this.loopAbort.signal);
  }

  /**
   * Stops. With `release` (default true) every shard is released and the membership Lease deleted,
   * so the others take over at once; without it (a crash), they wait for the Leases to expire.
   * Either way the listeners first hear that every shard is lost.
   */
  async stop(opts: { release?: boolean } = {}): Promise<void> {
    if (!this.loopAbort) return;
    this.loopAbort.abort();
    await this.loopDone;
    this.loopAbort = undefined;
    const shards = this.ownedShards();
    this.drop(shards, 'stopping');
    if (opts.release ?? true) {
      const never = new AbortController().signal;
      await forEachLimited(shards, WRITE_CONCURRENCY, (i) => this.quietly('release shard', () => withTimeout(never, this.timing.renewDeadlineMs, (s) => this.shardLocks[i].release(s))));
      await this.quietly('leave group', () => withTimeout(never, this.timing.renewDeadlineMs, (s) => this.memberLock.remove(s)));
    }
  }

  private async loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.round(signal);
      if (signal.aborted) break;
      await pause(this.timing.retryPeriodMs, signal);
    }
  }

  /** One round: heartbeat, observe, renew, rebalance. Never rejects. */
  private async round(signal: AbortSignal): Promise<void> {
    const { client, namespace, name } = this.opts;
    await this.quietly('renew membership', () => withTimeout(signal, this.timing.retryPeriodMs, (s) => this.memberLock.tryAcquireOrRenew(s, 'observed')));
    let observed = false;
    await this.quietly('list leases', async () => {
      const list = await withTimeout(signal, this.timing.retryPeriodMs, (s) => client.list<Lease>(LEASE_KIND, { namespace, labelSelector: `${SHARD_GROUP_LABEL}=${name}`, signal: s }));
      this.observeGroup(list.items);
      observed = true;
    });
    if (signal.aborted) return;
    await forEachLimited(this.ownedShards(), WRITE_CONCURRENCY, (i) => this.renewShard(i, signal));
    // Rebalance only on fresh observations, and not in the first round: the other replicas'
    // membership Leases may not be visible yet, and taking everything to give most of it back a
    // moment later would make every controller re-enqueue twice.
    if (observed && this.rounds > 0 && !signal.aborted) await this.rebalance(signal);
    this.rounds++;
  }

  private observeGroup(leases: Lease[]): void {
    const byName = new Map(leases.map((l) => [l.metadata.name ?? '', l]));
    this.shardLocks.forEach((lock) => lock.observe(byName.get(lock.name)));
    const memberPrefix = `${this.opts.name}-member-`;
    for (const [leaseName, lease] of byName) {
      if (!leaseName.startsWith(memberPrefix) || lease.metadata.labels?.[SHARD_ROLE_LABEL] !== 'member') continue;
      let m = this.members.get(leaseName);
      if (!m) this.members.set(leaseName, (m = new LeaseObservation()));
      m.observe(lease, this.clock.now());
    }
    for (const leaseName of [...this.members.keys()]) if (!byName.has(leaseName)) this.members.delete(leaseName);
    // A shard we think we hold but someone else validly holds was lost (our lease ran out in their view).
    const now = this.clock.now();
    const taken = this.ownedShards().filter((i) => this.shardLocks[i].observation.heldByOther(this.opts.identity, now));
    if (taken.length > 0) this.drop(taken, 'taken by another replica');
  }

  private async renewShard(i: number, signal: AbortSignal): Promise<void> {
    const started = this.clock.now();
    const ok = await this.tryHold(i, signal, 'renew shard');
    if (!ok && this.shardLocks[i].observation.heldByOther(this.opts.identity, this.clock.now())) this.drop([i], 'taken by another replica');
    // Renewed after the deadline had already dropped it: that is a fresh acquisition.
    else if (ok && this.keep(i, started)) this.emit({ gained: [i], lost: [] });
  }

  private async rebalance(signal: AbortSignal): Promise<void> {
    const target = fairShare(this.opts.shardCount, this.liveMembers().length);
    if (this.held.size > target) {
      const extra = shardsToRelease(this.opts.identity, this.held, target);
      this.drop(extra, 'rebalancing');
      await forEachLimited(extra, WRITE_CONCURRENCY, (i) => this.quietly('release shard', () => withTimeout(signal, this.timing.renewDeadlineMs, (s) => this.shardLocks[i].release(s))));
      return;
    }
    const now = this.clock.now();
    const free = this.shardLocks.map((lock, i) => ({ lock, i })).filter(({ lock, i }) => !this.held.has(i) && lock.observation.free(now)).map(({ i }) => i);
    const wanted = shardsToAcquire(this.opts.identity, this.held.size, free, target);
    const gained: number[] = [];
    await forEachLimited(wanted, WRITE_CONCURRENCY, async (i) => {
      const started = this.clock.now();
      if (await this.tryHold(i, signal, 'acquire shard')) {
        if (this.keep(i, started)) gained.push(i);
      }
    });
    if (gained.length > 0 && !signal.aborted) this.emit({ gained: gained.sort((a, b) => a - b), lost: [] });
  }

  private async tryHold(i: number, signal: AbortSignal, what: string): Promise<boolean> {
    const held = this.held.has(i);
    const budget = held ? this.lastRenewStart[i] + this.timing.renewDeadlineMs - this.clock.now() : this.timing.renewDeadlineMs;
    let ok = false;
    await this.quietly(what, async () => {
      ok = await withTimeout(signal, Math.max(1, budget), (s) => this.shardLocks[i].tryAcquireOrRenew(s, 'observed'));
    });
    return ok && !signal.aborted;
  }

  /** Records a successful acquire/renew that started at `started`; false when it came too late to count. */
  private keep(i: number, started: number): boolean {
    const remaining = started + this.timing.renewDeadlineMs - this.clock.now();
    if (remaining <= 0) {
      if (this.held.has(i)) this.drop([i], 'renew deadline passed');
      return false;
    }
    const isNew = !this.held.has(i);
    this.held.add(i);
    this.lastRenewStart[i] = started;
    this.shardDeadlines[i].arm(remaining);
    return isNew;
  }

  private drop(shards: number[], why: string): void {
    const lost = shards.filter((i) => this.held.delete(i));
    for (const i of shards) this.shardDeadlines[i].clear();
    if (lost.length === 0) return;
    this.log.info('lost shards', { shards: lost, reason: why });
    this.emit({ gained: [], lost: lost.sort((a, b) => a - b) });
  }

  private emit(change: ShardChange): void {
    if (change.gained.length > 0) this.log.info('gained shards', { shards: change.gained });
    for (const l of this.listeners) {
      try {
        l(change);
      } catch (e) {
        this.log.error('shard listener failed', { error: e });
      }
    }
  }

  private async quietly(what: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      if (!this.loopAbort?.signal.aborted) this.log.debug(`${what} failed`, { error: e });
    }
  }
}

export function shardLeaseName(group: string, shard: number): string {
  return `${group}-shard-${shard}`;
}

/** Identities need not be DNS names (pod name + random suffix, host:port): the Lease name uses their hash. */
export function memberLeaseName(group: string, identity: string): string {
  return `${group}-member-${fnv1a32(identity).toString(16).padStart(8, '0')}`;
}

/** Runs `fn` over `items` with at most `limit` running at once; `fn` must not reject. */
async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
