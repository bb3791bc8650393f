// Parity with upstream's TestNewRegistryCacheExtension (pkg/gardener/shoot/extender/extensions/
// registry_config_test.go) and the registry cache part of its extensions extender tests: the
// Runtime's `spec.imageRegistryCache` becomes the Shoot's `registry-cache` extension on create and
// patch, and a patch without caches disables an existing one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { planShootPatch, toShoot } from '../../../src/infrastructure/converter/index.js';
import { converterConfig, runtimeFor } from '../../infrastructure/converter-fixtures.js';

const project = 'kyma-dev';
const registryConfig = (caches: unknown[]) => ({ apiVersion: 'registry.extensions.gardener.cloud/v1alpha3', kind: 'RegistryConfig', caches });

describe('TestNewRegistryCacheExtension', () => {
  const withCaches = runtimeFor('aws', (rt) => {
    rt.spec.imageRegistryCache = [
      { name: 'cache1', namespace: 'test', uid: 'id1', config: { upstream: 'ghcr.io', garbageCollection: { ttl: '24h0m0s' }, secretReferenceName: 'secret', volume: { size: '10Gi', storageClassName: 'storageClass' } } },
      { name: 'cache2', namespace: 'test', uid: 'id2', config: { upstream: 'my-registry.io:5000', remoteURL: 'http://my-registry.io:5000', proxy: { httpProxy: 'http://proxy.io:5000', httpsProxy: 'https://proxy.io:5000' } } },
    ];
  });

  test('should create registry cache extension: one cache per RegistryCacheConfig, enabled', () => {
    const shoot = toShoot(withCaches, converterConfig(), { project });
    assert.deepEqual(shoot.spec.extensions?.find((e) => e.type === 'registry-cache'), {
      type: 'registry-cache',
      disabled: false,
      providerConfig: registryConfig([
        { upstream: 'ghcr.io', volume: { size: '10Gi', storageClassName: 'storageClass' }, garbageCollection: { ttl: '24h0m0s' }, secretReferenceName: 'secret' },
        { upstream: 'my-registry.io:5000', remoteURL: 'http://my-registry.io:5000', proxy: { httpProxy: 'http://proxy.io:5000', httpsProxy: 'https://proxy.io:5000' } },
      ]),
    });
  });

  test('should not add the extension when the Runtime has no registry caches', () => {
    const shoot = toShoot(runtimeFor('aws'), converterConfig(), { project });
    assert.equal(shoot.spec.extensions?.find((e) => e.type === 'registry-cache'), undefined);
  });

  test('should disable the extension on a patch when the Runtime has no registry caches any more, without secret references', () => {
    const existing = toShoot(withCaches, converterConfig(), { project });
    const { shoot } = planShootPatch(runtimeFor('aws'), converterConfig(), { project, existing });
    assert.deepEqual(shoot.spec.extensions?.find((e) => e.type === 'registry-cache'), {
      type: 'registry-cache',
      disabled: true,
      providerConfig: registryConfig([
        { upstream: 'ghcr.io', volume: { size: '10Gi', storageClassName: 'storageClass' }, garbageCollection: { ttl: '24h0m0s' } },
        { upstream: 'my-registry.io:5000', remoteURL: 'http://my-registry.io:5000', proxy: { httpProxy: 'http://proxy.io:5000', httpsProxy: 'https://proxy.io:5000' } },
      ]),
    });
  });

  test('should replace the caches on a patch', () => {
    const existing = toShoot(withCaches, converterConfig(), { project });
    const changed = runtimeFor('aws', (rt) => {
      rt.spec.imageRegistryCache = [{ name: 'cache3', namespace: 'test', uid: 'id3', config: { upstream: 'quay.io' } }];
    });
    const { shoot } = planShootPatch(changed, converterConfig(), { project, existing });
    assert.deepEqual(shoot.spec.extensions?.find((e) => e.type === 'registry-cache'), { type: 'registry-cache', disabled: false, providerConfig: registryConfig([{ upstream: 'quay.io' }]) });
  });
});
