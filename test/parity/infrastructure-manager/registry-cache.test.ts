// Parity with upstream's registry cache config controller suite (kyma-project/infrastructure-manager,
// internal/controller/registrycache, grown out of internal/controller/customconfig): the
// RegistryCacheConfigs users create in a runtime reach the Runtime's `spec.imageRegistryCache`
// (`Caching` in upstream's Go types) and from there the Shoot's `registry-cache` extension.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ShootObject } from '../../../src/api/gardener/index.js';
import { kubeconfigSecretName, type RuntimeObject } from '../../../src/api/infrastructuremanager/index.js';
import { RegistryCacheConfigKind } from '../../../src/infrastructure/index.js';
import type { KubeObject } from '../../../src/kube/object.js';
import type { Client } from '../../../src/runtime/client/interface.js';
import { type Harness, NAMESPACE, startHarness, testRuntime, waitFor, waitForRuntime } from '../../infrastructure/runtime-harness.js';

const CRD_KIND = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
const CRD_NAME = 'registrycacheconfigs.core.kyma-project.io';

/** The RegistryCacheConfig CRD as the registry-cache module installs it (spec kept as written). */
function registryCacheConfigCrd(): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: CRD_NAME },
    spec: {
      group: 'core.kyma-project.io',
      scope: 'Namespaced',
      names: { plural: 'registrycacheconfigs', singular: 'registrycacheconfig', kind: 'RegistryCacheConfig', listKind: 'RegistryCacheConfigList' },
      versions: [
        {
          name: 'v1beta1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
        },
      ],
    },
  };
}

async function createConfig(remote: Client, namespace: string, name: string, upstream: string): Promise<KubeObject> {
  // The CRD may take a moment to be served.
  return waitFor(`RegistryCacheConfig ${namespace}/${name} created`, async () => {
    try {
      return await remote.create({ apiVersion: RegistryCacheConfigKind.apiVersion, kind: RegistryCacheConfigKind.kind, metadata: { name, namespace }, spec: { upstream } });
    } catch {
      return undefined;
    }
  });
}

function registryCacheExtension(shoot: ShootObject | undefined) {
  return shoot?.spec.extensions?.find((e) => e.type === 'registry-cache');
}

describe('Registry Cache Config Controller', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({}, { registryCache: { resyncMs: 300 } });
    await Promise.all([
      h.land.kcp.create(testRuntime('rt-cache-new')),
      h.land.kcp.create(
        testRuntime('rt-cache-stale', (rt) => {
          rt.spec.imageRegistryCache = [{ name: 'config3', namespace: 'test3', uid: 'uid-3', config: { upstream: 'some.registry.com' } }];
        }),
      ),
      h.land.kcp.create(testRuntime('rt-cache-untouched')),
    ]);
    await Promise.all(['rt-cache-new', 'rt-cache-stale', 'rt-cache-untouched'].map((id) => waitForRuntime(h, id, 'Ready')));
  });
  after(async () => {
    await h.stop();
  });

  async function enableInCluster(id: string): Promise<KubeObject[]> {
    const remote = h.land.shootClient(`c-${id}`);
    await remote.create(registryCacheConfigCrd());
    await remote.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'test' } });
    return [await createConfig(remote, 'test', 'config1', 'docker.io'), await createConfig(remote, 'test', 'config2', 'quay.io')];
  }

  const expected = (configs: KubeObject[]) =>
    configs.map((c) => ({ name: c.metadata.name, namespace: 'test', uid: c.metadata.uid, config: c.spec as Record<string, unknown> }));

  for (const [entry, id] of [
    ['with registry cache enabled', 'rt-cache-new'],
    ['with registry cache disabled', 'rt-cache-stale'],
  ] as const) {
    it(`Should update Runtime CR ${entry}: the runtime's RegistryCacheConfigs replace spec.imageRegistryCache and reach the Shoot's registry-cache extension`, async () => {
      if (id === 'rt-cache-stale') {
        // The stale entry was on the Shoot from the start.
        assert.deepEqual(registryCacheExtension(await h.shoot(`c-${id}`))?.providerConfig, { apiVersion: 'registry.extensions.gardener.cloud/v1alpha3', kind: 'RegistryConfig', caches: [{ upstream: 'some.registry.com' }] });
      } else {
        assert.equal(registryCacheExtension(await h.shoot(`c-${id}`)), undefined);
      }
      const configs = await enableInCluster(id);
      const rt = await waitFor(`Runtime ${id} lists the two caches`, async () => {
        const r = await h.runtime(id);
        return r?.spec.imageRegistryCache?.length === 2 ? r : undefined;
      });
      assert.deepEqual(rt.spec.imageRegistryCache, expected(configs));
      const shoot = await waitFor(`Shoot c-${id} has the two caches`, async () => {
        const s = await h.shoot(`c-${id}`);
        return (registryCacheExtension(s)?.providerConfig as { caches?: unknown[] } | undefined)?.caches?.length === 2 ? s : undefined;
      });
      assert.deepEqual(registryCacheExtension(shoot), {
        type: 'registry-cache',
        disabled: false,
        providerConfig: { apiVersion: 'registry.extensions.gardener.cloud/v1alpha3', kind: 'RegistryConfig', caches: [{ upstream: 'docker.io' }, { upstream: 'quay.io' }] },
      });
      await waitForRuntime(h, id, 'Ready', (r: RuntimeObject) => r.status?.shootLastOperation?.type === 'Reconcile');
    });
  }

  it('Should disable the registry-cache extension when the runtime stops using registry caches', async () => {
    const id = 'rt-cache-new';
    const remote = h.land.shootClient(`c-${id}`);
    await remote.delete(CRD_KIND, { name: CRD_NAME });
    await waitFor(`Runtime ${id} lists no caches`, async () => ((await h.runtime(id))?.spec.imageRegistryCache?.length === 0 ? true : undefined));
    const shoot = await waitFor(`Shoot c-${id} has the extension disabled`, async () => {
      const s = await h.shoot(`c-${id}`);
      return registryCacheExtension(s)?.disabled === true ? s : undefined;
    });
    assert.deepEqual(registryCacheExtension(shoot)?.providerConfig, { apiVersion: 'registry.extensions.gardener.cloud/v1alpha3', kind: 'RegistryConfig', caches: [{ upstream: 'docker.io' }, { upstream: 'quay.io' }] });
  });

  it('Should not update runtime when secret is not managed by KIM', async () => {
    // A Secret labelled for rt-cache-untouched but managed by someone else, holding the kubeconfig of
    // a cluster with registry caches, and a Secret without labels: neither is read.
    const source = await h.land.kcp.get<KubeObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NAMESPACE, name: kubeconfigSecretName('rt-cache-stale') });
    await h.land.kcp.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'secret-not-managed-by-kim', namespace: NAMESPACE, labels: { 'kyma-project.io/runtime-id': 'rt-cache-untouched', 'operator.kyma-project.io/managed-by': 'something-else' } }, data: source.data });
    await h.land.kcp.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'secret-to-ignore', namespace: NAMESPACE }, data: source.data });
    // In the same window the controller goes on reading the managed Secrets: a third config in
    // rt-cache-stale's cluster reaches its Runtime.
    const third = await createConfig(h.land.shootClient('c-rt-cache-stale'), 'test', 'config3', 'ghcr.io');
    await waitFor('rt-cache-stale lists the third cache', async () => ((await h.runtime('rt-cache-stale'))?.spec.imageRegistryCache?.some((c) => c.uid === third.metadata.uid) ? true : undefined));
    assert.equal((await h.runtime('rt-cache-untouched'))?.spec.imageRegistryCache, undefined);
  });
});
