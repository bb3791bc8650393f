// Wiring of sharding into a Manager: the shard manager runs as one of the manager's runnables, the
// manager's gate lets controllers reconcile only keys of owned shards, and a gained shard
// re-enqueues the cached keys (the gate drops those of other shards again).
import { untilAborted } from '../../util/sleep.js';
import type { GatedHost, Runnable } from '../manager.js';
import { ShardManager, type ShardingOptions } from './shards.js';
import { namespacedName } from '../../kube/keys.js';

/** A runnable that takes part in sharding until the manager's signal aborts, then releases its shards. */
export function shardingRunnable(shards: ShardManager, name = 'sharding'): Runnable {
  return {
    name,
    start: async (signal) => {
      shards.start();
      await untilAborted(signal);
      await shards.stop();
    },
  };
}

/** Makes a manager sharded: returns the ShardManager (already added as a runnable). */
export function useSharding(manager: GatedHost, opts: ShardingOptions): ShardManager {
  const shards = new ShardManager(opts);
  shards.onChange(({ gained }) => {
    if (gained.length > 0) manager.requeueAll();
  });
  manager.setGate((_controller, _kind, req) => shards.owns(namespacedName(req)));
  manager.add(shardingRunnable(shards));
  return shards;
}
