// The pure part of sharding: which shard a key belongs to, how many shards a replica may hold, and
// the order in which a replica prefers shards. Documented in docs/sharding.md; changing any of it
// moves keys between shards, so it is versioned by never changing it.

import { fnv1a32 } from '../../util/fnv.js';

export { fnv1a32 };

/** The shard of a work-queue key (`namespace/name`, or `name` for cluster-scoped objects). */
export function shardOf(key: string, shardCount: number): number {
  if (!Number.isInteger(shardCount) || shardCount < 1) throw new Error(`shard count must be a positive integer, got ${shardCount}`);
  return fnv1a32(key) % shardCount;
}

/** The most shards one replica may hold: ceil(shards / live replicas). */
export function fairShare(shardCount: number, liveReplicas: number): number {
  return Math.ceil(shardCount / Math.max(1, liveReplicas));
}

/**
 * Shards ordered by this replica's preference (rendezvous hashing: highest FNV-1a of
 * `identity#shard` first). Replicas prefer different shards, so they rarely race for the same
 * free shard, and a replica's preferences do not depend on who else is there.
 */
export function preferenceOrder(identity: string, shards: Iterable<number>): number[] {
  const scored = [...shards].map((shard) => ({ shard, score: fnv1a32(`${identity}#${shard}`) }));
  scored.sort((a, b) => b.score - a.score || a.shard - b.shard);
  return scored.map((s) => s.shard);
}

/**
 * Which held shards to give up so that at most `target` remain: the least preferred ones.
 * Pure so that the rebalancing rule can be tested without a server.
 */
export function shardsToRelease(identity: string, held: Iterable<number>, target: number): number[] {
  const ordered = preferenceOrder(identity, held);
  return ordered.slice(Math.max(0, target));
}

/** Which free shards to try to acquire so that at most `target` are held: the most preferred ones. */
export function shardsToAcquire(identity: string, heldCount: number, free: Iterable<number>, target: number): number[] {
  return preferenceOrder(identity, free).slice(0, Math.max(0, target - heldCount));
}
