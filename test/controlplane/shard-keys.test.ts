// With --shards the fleet is split by runtime: a Manifest and a SyncResource hash on their Kyma's
// key, everything else on its own key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Kyma, type KymaObject, Labels, Manifest, type ManifestObject, ModuleTemplate, SyncResource, type SyncResourceObject } from '../../src/api/operator/index.js';
import { kymasOfShards, runtimeShardKey } from '../../src/controlplane/shard-keys.js';
import { shardOf } from '../../src/runtime/sharding/hash.js';
import { Store } from '../../src/runtime/cache/store.js';

const NS = 'kcp-system';

describe('runtimeShardKey', () => {
  const manifests = new Store<ManifestObject>();
  const syncResources = new Store<SyncResourceObject>();
  manifests.upsert({ apiVersion: Manifest.apiVersion, kind: Manifest.kind, metadata: { name: 'rt-1-alpha-x1', namespace: NS, labels: { [Labels.KymaName]: 'rt-1' } }, spec: {} } as unknown as ManifestObject);
  manifests.upsert({ apiVersion: Manifest.apiVersion, kind: Manifest.kind, metadata: { name: 'unlabelled', namespace: NS }, spec: {} } as unknown as ManifestObject);
  syncResources.upsert({ apiVersion: SyncResource.apiVersion, kind: SyncResource.kind, metadata: { name: 'sync-a', namespace: NS }, spec: { kyma: 'rt-2', items: [] } } as unknown as SyncResourceObject);
  const keyOf = runtimeShardKey({ manifests, syncResources });

  it('hashes a Manifest on the Kyma named by its label', () => {
    assert.equal(keyOf('manifest', Manifest, { namespace: NS, name: 'rt-1-alpha-x1' }), `${NS}/rt-1`);
    // The ModuleConfig controller is keyed by Manifests as well.
    assert.equal(keyOf('module-config', Manifest, { namespace: NS, name: 'rt-1-alpha-x1' }), `${NS}/rt-1`);
  });

  it('hashes a SyncResource on its spec.kyma', () => {
    assert.equal(keyOf('sync-resource', SyncResource, { namespace: NS, name: 'sync-a' }), `${NS}/rt-2`);
  });

  it('keeps the own key for Kymas, catalog objects, and objects it cannot place', () => {
    assert.equal(keyOf('kyma', Kyma, { namespace: NS, name: 'rt-1' }), `${NS}/rt-1`);
    assert.equal(keyOf('mandatory', ModuleTemplate, { namespace: NS, name: 'rt-1-alpha-x1' }), `${NS}/rt-1-alpha-x1`);
    assert.equal(keyOf('manifest', Manifest, { namespace: NS, name: 'unlabelled' }), `${NS}/unlabelled`);
    assert.equal(keyOf('manifest', Manifest, { namespace: NS, name: 'gone' }), `${NS}/gone`);
  });

  it('lists the cached Kymas of given shards', () => {
    const kymas = new Store<KymaObject>();
    const names = Array.from({ length: 8 }, (_, i) => `rt-${i}`);
    for (const name of names) kymas.upsert({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name, namespace: NS }, spec: {} } as unknown as KymaObject);
    const inShard1 = names.map((n) => `${NS}/${n}`).filter((k) => shardOf(k, 2) === 1);
    assert.ok(inShard1.length > 0 && inShard1.length < names.length, 'both shards have Kymas');
    assert.deepEqual(kymasOfShards(kymas, [1], 2).sort(), inShard1.sort());
    assert.deepEqual(kymasOfShards(kymas, [0, 1], 2).length, names.length);
  });
});
