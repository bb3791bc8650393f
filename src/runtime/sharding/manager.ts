// Wiring of sharding into a Manager: the shard manager runs as one of the manager's runnables, the
// manager's gate lets controllers reconcile only keys of owned shards, and a gained shard
// re-enqueues the cached keys (the gate drops those of other shards again), after `onGained`. By default a request
// hashes on its own key; `shardKeyOf` lets objects that belong together (a runtime's Kyma and its
// Manifests) hash on one key, so that one replica reconciles all of them.
import { untilAborted } from '../../util/sleep.js';
import type { Request } from '../controller.js';
import type { GatedHost, ReconcileGate, Runnable } from '../manager.js';
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

/** The key a request is sharded on (default: its own `namespace/name`). */
export type ShardKeyOf = (...args: Parameters<ReconcileGate>) => string;

const ownKey: ShardKeyOf = (_controller, _kind, req: Request) => namespacedName(req);

/** Makes a manager sharded: returns the ShardManager (already added as a runnable). */
export function useSharding(manager: GatedHost, opts: ShardingOptions & { shardKeyOf?: ShardKeyOf; onGained?: (shards: number[]) => void }): ShardManager {
  const { shardKeyOf = ownKey, onGained, ...options } = opts;
  const shards = new ShardManager(options);
  shards.onChange(({ gained }) => {
    if (gained.length === 0) return;
    // Before the keys are enqueued: what onGained marks is there when they are reconciled.
    onGained?.(gained);
    manager.requeueAll();
  });
  manager.setGate((controller, kind, req) => shards.owns(shardKeyOf(controller, kind, req)));
  manager.add(shardingRunnable(shards));
  return shards;
}
