// Upstream's private-registry targets (kyma-project/lifecycle-manager tests/e2e
// oci_reg_cred_secret_test.go and skr_image_pull_secret_sync_test.go, configured by their .mk files
// and helm-values/*.yaml): the lifecycle manager started with `--oci-registry-cred-secret` pulls the
// module from a registry that requires credentials; started with `--skr-image-pull-secret` it copies
// that Secret into every runtime and points the module's workloads at it. The registry is a real one
// (Debian's docker-registry) with htpasswd auth; the module is pushed with `kcp module push`'s code.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Labels, Namespaces, type KymaObject, type ManifestObject } from '../../../src/api/operator/index.js';
import { DOCKER_CONFIG_JSON_KEY, DOCKER_CONFIG_JSON_TYPE } from '../../../src/lifecycle/artifacts/credentials.js';
import { OciArtifactFetcher } from '../../../src/lifecycle/artifacts/fetcher.js';
import { readModuleDir } from '../../../src/lifecycle/artifacts/module-dir.js';
import { moduleReleaseMetaFor, moduleTemplateFor, packageModule, pushModule } from '../../../src/lifecycle/artifacts/push.js';
import { ArtifactError, type RegistryCredentials } from '../../../src/lifecycle/artifacts/types.js';
import { SKR_IMAGE_PULL_SECRET_ENV } from '../../../src/lifecycle/manifest/images.js';
import type { Client } from '../../../src/runtime/client/interface.js';
import { isNotFound } from '../../../src/runtime/client/errors.js';
import type { KubeObject } from '../../../src/kube/object.js';
import type { Secret } from '../../../src/runtime/remote/secret.js';
import { NS, startKymaEnv, waitFor, type KymaEnv } from '../../lifecycle/kyma-env.js';
import { markDeploymentReady } from '../../lifecycle/manifest-env.js';
import { REGISTRY_PULLER, startRegistry, type TestRegistry, writeSampleModule } from '../../support/registry.js';

const MODULE = 'template-operator';
const VERSION = '1.1.1';
const MANAGER = `${MODULE}-manager`;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;
const SAMPLE = { apiVersion: 'operator.example.com/v1alpha1', kind: 'Sample' } as const;

/** Pushes the sample module to `registry` and publishes its ModuleTemplate and ModuleReleaseMeta (regular channel). */
async function publishFromRegistry(env: KymaEnv, registry: TestRegistry, credentials?: RegistryCredentials): Promise<string> {
  // No manager named: the manifest's Deployment is the manager, as upstream finds it.
  const mod = writeSampleModule({ name: MODULE, version: VERSION });
  try {
    const source = readModuleDir(mod.dir);
    const pushed = await pushModule(packageModule(source), VERSION, { registry: registry.host, repository: `kyma-modules/${MODULE}`, credentials, plainHttp: true });
    await env.kcp.create(moduleTemplateFor(source, pushed.link));
    await env.kcp.create(moduleReleaseMetaFor(source));
    return pushed.link;
  } finally {
    mod.remove();
  }
}

function dockerConfigSecret(name: string, registry: string, c: RegistryCredentials): KubeObject {
  const auths = { [registry]: { auth: Buffer.from(`${c.username}:${c.password}`).toString('base64') } };
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS }, type: DOCKER_CONFIG_JSON_TYPE, data: { [DOCKER_CONFIG_JSON_KEY]: Buffer.from(JSON.stringify({ auths })).toString('base64') } };
}

async function exists(client: Client, kind: { apiVersion: string; kind: string }, namespace: string, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.get(kind, { namespace, name });
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

type Rt = Awaited<ReturnType<KymaEnv['runtime']>>;

/** Acts as the module's operator and the kubelet: the manager Deployment available, the default CR Ready. */
async function operateModule(rt: Rt): Promise<void> {
  await waitFor('the manager Deployment in the runtime', () => exists(rt.remote, DEPLOYMENT, Namespaces.Remote, MANAGER));
  await markDeploymentReady(rt.remote, Namespaces.Remote, MANAGER);
  await waitFor('the module CR in the runtime', () => exists(rt.remote, SAMPLE, Namespaces.Remote, 'default'));
  await rt.remote.patch(SAMPLE, { namespace: Namespaces.Remote, name: 'default' }, 'merge', { status: { state: 'Ready' } });
}

const moduleManifest = async (env: KymaEnv, kyma: string): Promise<ManifestObject | undefined> => (await env.manifests(kyma)).find((m) => m.metadata.labels?.[Labels.ModuleName] === MODULE);

async function kymasReady(env: KymaEnv, rt: Rt): Promise<KymaObject> {
  const kyma = await waitFor('the KCP Kyma Ready', async () => {
    const k = await env.kyma(rt.kymaName);
    return k.status?.state === 'Ready' && k.status.modules?.[0]?.state === 'Ready' ? k : undefined;
  });
  await waitFor('the SKR Kyma Ready', async () => (await env.remoteKyma(rt)).status?.state === 'Ready');
  return kyma;
}

describe('upstream parity: private registries', () => {
  describe('oci-reg-cred-secret', () => {
    const credSecret = 'private-oci-reg-creds';
    let registry: TestRegistry;
    let env: KymaEnv;
    let link: string;

    before(async () => {
      registry = await startRegistry({ htpasswd: [REGISTRY_PULLER] });
      env = await startKymaEnv({ ociRegistryCredSecret: credSecret, artifacts: new OciArtifactFetcher() });
      link = await publishFromRegistry(env, registry, REGISTRY_PULLER);
    });

    after(async () => {
      await env.stop();
      await registry.stop();
    });

    it('oci-reg-cred-secret: the Manifest pulls the module through the registry credentials Secret and the module becomes Ready', async () => {
      // The registry really wants credentials: an anonymous pull is refused.
      await assert.rejects(new OciArtifactFetcher().fetchManifest(link), (e: unknown) => e instanceof ArtifactError && e.reason === 'Unauthorized');

      // Given a runtime; when the module is enabled in the SKR Kyma before the Secret exists, the
      // Manifest says which Secret it misses.
      const rt = await env.runtime('kyma-sample');
      await env.setRemoteModules(rt, [{ name: MODULE, channel: 'regular' }]);
      const missing = await waitFor('the Manifest in Error for the missing Secret', async () => {
        const m = await moduleManifest(env, rt.kymaName);
        return m?.status?.state === 'Error' ? m : undefined;
      });
      assert.match(missing.status?.lastOperation?.operation ?? '', /no private oci registry auth secret found: kcp-system\/private-oci-reg-creds/);

      // And the private registry Secret exists in the KCP.
      await env.kcp.create(dockerConfigSecret(credSecret, registry.host, REGISTRY_PULLER));
      await waitFor('the private registry Secret in the KCP', () => exists(env.kcp, SECRET, NS, credSecret));

      // Then the Manifest exists, installs from the private registry and becomes Ready.
      await operateModule(rt);
      const manifest = await waitFor('the Manifest Ready', async () => {
        const m = await moduleManifest(env, rt.kymaName);
        return m?.status?.state === 'Ready' ? m : undefined;
      });
      assert.equal((manifest.spec.install.source as { url?: string }).url, link);
      assert.ok(link.startsWith(`oci://${registry.host}/`), 'the install source is the private registry');
      // And the module CR exists in the SKR, the module's operator Deployment is ready.
      assert.ok(await exists(rt.remote, SAMPLE, Namespaces.Remote, 'default'));
      const deploy = await rt.remote.get(DEPLOYMENT, { namespace: Namespaces.Remote, name: MANAGER });
      assert.equal((deploy.status as { readyReplicas?: number } | undefined)?.readyReplicas, 1);
      // And the KCP and SKR Kymas are Ready.
      await kymasReady(env, rt);
    });
  });

  describe('skr-image-pull-secret-sync', () => {
    const pullSecret = 'some-special-image-pull-secret';
    let registry: TestRegistry;
    let env: KymaEnv;

    before(async () => {
      registry = await startRegistry();
      env = await startKymaEnv({ skrImagePullSecret: pullSecret, artifacts: new OciArtifactFetcher() });
      await publishFromRegistry(env, registry);
      // Some Secret is created as the SKR image pull Secret in the KCP.
      await env.kcp.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: pullSecret, namespace: NS, labels: { team: 'modules' } }, type: 'Opaque', data: { token: Buffer.from('one').toString('base64') } });
    });

    after(async () => {
      await env.stop();
      await registry.stop();
    });

    it('skr-image-pull-secret-sync: the Secret is synced into the runtime and module Deployments reference it', async () => {
      // When the SKR image pull Secret exists in the KCP.
      await waitFor('the image pull Secret in the KCP', () => exists(env.kcp, SECRET, NS, pullSecret));
      const rt = await env.runtime('kyma-sample');
      // Then the SKR cluster has that Secret synced, and the Kyma's condition says so.
      const synced = await waitFor('the Secret in the runtime', () => exists(rt.remote, SECRET, Namespaces.Remote, pullSecret));
      assert.deepEqual(synced.data, { token: Buffer.from('one').toString('base64') });
      assert.equal(synced.type, 'Opaque');
      assert.equal(synced.metadata.labels?.team, 'modules');
      const kyma = await waitFor('the SKRImagePullSecretSync condition', async () => {
        const k = await env.kyma(rt.kymaName);
        return k.status?.conditions?.some((c) => c.type === 'SKRImagePullSecretSync' && c.status === 'True') ? k : undefined;
      });
      assert.equal(kyma.status?.conditions?.find((c) => c.type === 'SKRImagePullSecretSync')?.message, 'skr image pull secret is synchronized');

      // When the module is enabled on the SKR Kyma.
      await env.setRemoteModules(rt, [{ name: MODULE, channel: 'regular' }]);
      // Then imagePullSecrets of its Deployment contain the Secret, and its containers have SKR_IMG_PULL_SECRET.
      const deploy = await waitFor('the module Deployment', () => exists(rt.remote, DEPLOYMENT, Namespaces.Remote, MANAGER));
      const podSpec = (deploy.spec as { template: { spec: { imagePullSecrets?: { name: string }[]; containers: { env?: { name: string; value?: string }[] }[] } } }).template.spec;
      assert.deepEqual(podSpec.imagePullSecrets, [{ name: pullSecret }]);
      for (const c of podSpec.containers) assert.deepEqual(c.env?.filter((e) => e.name === SKR_IMAGE_PULL_SECRET_ENV), [{ name: SKR_IMAGE_PULL_SECRET_ENV, value: pullSecret }]);
      await operateModule(rt);
      await kymasReady(env, rt);

      // A change of the KCP Secret reaches the runtime.
      await env.kcp.patch(SECRET, { namespace: NS, name: pullSecret }, 'merge', { data: { token: Buffer.from('two').toString('base64') } });
      await waitFor('the changed Secret in the runtime', async () => ((await exists(rt.remote, SECRET, Namespaces.Remote, pullSecret)) as Secret | undefined)?.data?.token === Buffer.from('two').toString('base64'));

      // Without the KCP Secret the Kyma is Error, as upstream, and the condition does not hold.
      await env.kcp.delete(SECRET, { namespace: NS, name: pullSecret });
      const failed = await waitFor('the Kyma Error', async () => {
        const k = await env.kyma(rt.kymaName);
        return k.status?.state === 'Error' ? k : undefined;
      });
      assert.match(failed.status?.lastOperation?.operation ?? '', /^could not sync image pull secret: image pull secret not found/);
      assert.equal(failed.status?.conditions?.find((c) => c.type === 'SKRImagePullSecretSync')?.status, 'False');
    });
  });
});
