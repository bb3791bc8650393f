// With `--shards`, the fleet is split by runtime: every object of a runtime hashes on the key of its
// Kyma, `namespace/<kyma-name>`. A runtime's Runtime, GardenerCluster and Kyma share that name (the
// runtime-id) already; its Manifests (and the ModuleConfig controller's keys, which are Manifest
// keys) carry the Kyma's name in a label, its SyncResources in spec.kyma. So one replica reconciles
// all of a runtime: only that replica builds a client for it, and the runtime's watcher events,
// which reach the listener of the replica that installed its webhook, wake keys that replica owns.
// Everything else (catalog, Watchers) hashes on its own key.
import { type KymaObject, Labels, Manifest, type ManifestObject, SyncResource, type SyncResourceObject } from '../api/operator/index.js';
import { shardOf } from '../runtime/sharding/hash.js';
import { namespacedName } from '../kube/keys.js';
import type { Store } from '../runtime/cache/store.js';
import type { KindRef } from '../kube/object.js';
import type { Request } from '../runtime/controller.js';
import type { ShardKeyOf } from '../runtime/sharding/manager.js';

const sameKind = (a: KindRef, b: KindRef): boolean => a.kind === b.kind && a.apiVersion === b.apiVersion;

/** The shard key of a request: its runtime's Kyma key where the object belongs to one, else its own key. */
export function runtimeShardKey(caches: { manifests: Store<ManifestObject>; syncResources: Store<SyncResourceObject> }): ShardKeyOf {
  return (_controller: string, kind: KindRef, req: Request): string => {
    const key = namespacedName(req);
    let kyma: string | undefined;
    if (sameKind(kind, Manifest)) kyma = caches.manifests.get(key)?.metadata.labels?.[Labels.KymaName];
    else if (sameKind(kind, SyncResource)) kyma = caches.syncResources.get(key)?.spec.kyma;
    // Not cached (deleted, or not seen yet): the object's own key; its reconcile finds nothing to do.
    return kyma ? namespacedName({ namespace: req.namespace, name: kyma }) : key;
  };
}

/** Keys of the cached Kymas whose shard is one of `shards` (of `shardCount`). */
export function kymasOfShards(kymas: Store<KymaObject>, shards: number[], shardCount: number): string[] {
  const wanted = new Set(shards);
  return [...kymas.keys()].filter((key) => wanted.has(shardOf(key, shardCount)));
}
