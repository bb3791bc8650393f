// Upstream's runtime-access scenarios (kyma-project/lifecycle-manager tests/e2e): a runtime that is
// gone turns the Kyma and its module entries Error; credentials that lose their rights (403) turn
// the Kyma and the Manifest Error until the kubeconfig Secret is replaced; a kubeconfig Secret that
// points nowhere installs nothing until it is fixed. Steps and outcomes follow the upstream tests,
// on the embedded landscape (logical clusters as runtimes).
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Kyma, Labels, Manifest, Namespaces, States, type KymaObject, type ManifestObject } from '../../../src/api/operator/index.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { clientFromKubeconfig, isNotFound } from '../../../src/runtime/client/index.js';
import { KYMA_CONTROLLER_NAME } from '../../../src/lifecycle/kyma/controller.js';
import { countReconciles } from '../../support/metrics.js';
import { serviceAccountKubeconfig } from '../../support/service-account.js';
import { createTestRuntime } from '../../support/skr.js';
import { NS, startKymaEnv, waitFor, type KymaEnv } from '../../lifecycle/kyma-env.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const SERVICE_ACCOUNT = { apiVersion: 'v1', kind: 'ServiceAccount' };
const CLUSTER_ROLE_BINDING = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' };
const MODULE = 'template-operator';
/** The module's "CR" in the runtime: the ConfigMap the test fetcher puts into every module. */
const MODULE_CR = { namespace: Namespaces.Remote, name: `${MODULE}-info` };

type SecretObject = KubeObject & { data?: Record<string, string> };

/** A loopback port nothing listens on: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('parity: lifecycle manager runtime access', () => {
  let env: KymaEnv;
  let reconciles: (controller: string, key: string) => number;
  const clients: { close(): void }[] = [];

  before(async () => {
    env = await startKymaEnv();
    reconciles = countReconciles(env.lm.manager);
    // Like upstream's template-operator, the module installs RBAC, which a `view` binding may not read.
    env.fetcher.extraObjects.set(MODULE, () => [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `${MODULE}-manager-role` }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }] } as KubeObject,
    ]);
    await env.publish(MODULE, ['1.0.0'], { channels: { regular: '1.0.0' } });
  });

  after(async () => {
    for (const c of clients) c.close();
    await env.stop();
  });

  const kymaState = async (name: string) => (await env.kyma(name)).status?.state;
  const moduleEntry = async (name: string) => (await env.kyma(name)).status?.modules?.find((m) => m.name === MODULE);
  const manifestOf = async (kyma: string) => (await env.manifests(kyma)).find((m) => m.metadata.labels?.[Labels.ModuleName] === MODULE);
  const waitState = (name: string, state: string) => waitFor(`Kyma ${name} ${state}`, async () => (await kymaState(name)) === state);
  /** "Consistently": the Kyma controller completes `passes` more reconciles of the Kyma and `check` holds after each. */
  async function holdsOverPasses(kyma: string, passes: number, check: () => Promise<boolean>): Promise<void> {
    const key = `${NS}/${kyma}`;
    for (let i = 0; i < passes; i++) {
      const seen = reconciles(KYMA_CONTROLLER_NAME, key);
      await waitFor(`a further reconcile of ${kyma}`, () => reconciles(KYMA_CONTROLLER_NAME, key) >= seen + 2);
      assert.ok(await check(), `still holds after ${i + 1} more reconcile(s) of ${kyma}`);
    }
  }

  it('module-status-on-skr-connection-lost: a runtime that is gone turns the Kyma Error and its status.modules Error', async () => {
    const rt = await env.runtime('kyma-sample-lost');
    // When the module is enabled on the SKR cluster, its CR comes up there.
    await env.setRemoteModules(rt, [{ name: MODULE, channel: 'regular' }]);
    await waitFor('the module CR in the runtime', () => rt.remote.get(CONFIGMAP, MODULE_CR));
    await waitState(rt.kymaName, States.Ready);
    await waitFor('status.modules Ready', async () => (await moduleEntry(rt.kymaName))?.state === States.Ready);

    // When the SKR cluster is removed.
    await env.api.server.deleteCluster(rt.cluster);
    await waitState(rt.kymaName, States.Error);
    const entry = await waitFor('status.modules Error', async () => {
      const m = await moduleEntry(rt.kymaName);
      return m?.state === States.Error ? m : undefined;
    });
    assert.match(entry.message ?? '', /runtime cluster of Kyma kyma-sample-lost is unreachable/);
    const text = env.lm.manager.registry.render();
    assert.match(text, new RegExp(`lifecycle_mgr_module_state\\{module_name="${MODULE}",kyma_name="kyma-sample-lost",state="Error"[^}]*\\} 1`), 'the module state metric follows');
  });

  it('simulate-skr-secret-rotation-evict-client-cache: credentials reduced to view turn Kyma and Manifest Error; a replaced kubeconfig Secret brings both back Ready', async () => {
    const id = 'kyma-sample-rotation';
    // A new SKR admin user (a ServiceAccount here) bound to cluster-admin, and the Kyma Secret with its kubeconfig.
    const rt = await createTestRuntime(env.api.server, env.kcp, id);
    const admin = clientFromKubeconfig(env.api.server.clusterAccess(rt.cluster).kubeconfig, { retries: 1 });
    try {
      await admin.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'alice', namespace: 'default' } });
      const bind = (name: string, role: string) =>
        admin.create({ ...CLUSTER_ROLE_BINDING, metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects: [{ kind: 'ServiceAccount', name: 'alice', namespace: 'default' }] } as KubeObject);
      await bind('alice-cluster-admin', 'cluster-admin');
      await waitFor('the ServiceAccount', () => admin.get(SERVICE_ACCOUNT, { namespace: 'default', name: 'alice' }));
      const aliceConfig = await serviceAccountKubeconfig(env.api.server, rt.cluster, 'default', 'alice');
      const original = await env.kcp.get<SecretObject>(SECRET, { namespace: NS, name: rt.secretName });
      await env.kcp.patch(SECRET, { namespace: NS, name: rt.secretName }, 'merge', { data: { config: Buffer.from(aliceConfig).toString('base64') } });

      // Setup Kyma with the test SKR admin: Ready in the KCP and in the runtime.
      await env.kcp.create({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id } }, spec: { channel: 'regular', modules: [] } });
      await waitState(id, States.Ready);
      await waitFor('the runtime Kyma Ready', async () => (await admin.get<KymaObject>(Kyma, { namespace: Namespaces.Remote, name: 'default' })).status?.state === States.Ready);
      // When the module is enabled on the SKR cluster: its CR there, the Kyma and status.modules Ready.
      await admin.patch(Kyma, { namespace: Namespaces.Remote, name: 'default' }, 'merge', { spec: { modules: [{ name: MODULE, channel: 'regular' }] } });
      await waitFor('the module CR in the runtime', () => admin.get(CONFIGMAP, MODULE_CR));
      await waitFor('Kyma and module Ready', async () => (await kymaState(id)) === States.Ready && (await moduleEntry(id))?.state === States.Ready);

      // Reduce the SKR admin's permission: cluster-admin replaced by view.
      await admin.delete(CLUSTER_ROLE_BINDING, { name: 'alice-cluster-admin' });
      await bind('alice-view', 'view');
      const failed = await waitFor('Kyma and Manifest Error', async () => {
        const [k, m] = [await env.kyma(id), await manifestOf(id)];
        return k.status?.state === States.Error && m?.status?.state === States.Error ? { k, m } : undefined;
      });
      assert.match(failed.k.status?.lastOperation?.operation ?? '', /rejected the credentials/);
      assert.match(failed.m.status?.lastOperation?.operation ?? '', /forbidden|rejected the credentials/i);
      await holdsOverPasses(id, 2, async () => (await kymaState(id)) === States.Error && (await manifestOf(id))?.status?.state === States.Error);

      // Update the Kyma Secret: delete it (gone), create it anew with the default cluster-admin kubeconfig.
      await env.kcp.delete(SECRET, { namespace: NS, name: rt.secretName });
      await waitFor('the Secret gone', () => env.kcp.get(SECRET, { namespace: NS, name: rt.secretName }).then(() => false, (e: unknown) => isNotFound(e)));
      await env.kcp.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: rt.secretName, namespace: NS, labels: original.metadata.labels }, data: original.data } as KubeObject);
      await waitFor('Kyma and Manifest Ready', async () => (await kymaState(id)) === States.Ready && (await manifestOf(id))?.status?.state === States.Ready);
      await holdsOverPasses(id, 2, async () => (await kymaState(id)) === States.Ready && (await manifestOf(id))?.status?.state === States.Ready);
    } finally {
      admin.close();
    }
  });

  it('misconfigured-kyma-secret: a kubeconfig Secret pointing nowhere installs nothing (no Manifest) until it is corrected', async () => {
    const id = 'kyma-sample-misconfigured';
    // A Kyma Secret whose kubeconfig names a server that is not there, then the Kyma.
    const rt = await createTestRuntime(env.api.server, env.kcp, id);
    const original = await env.kcp.get<SecretObject>(SECRET, { namespace: NS, name: rt.secretName });
    const good = Buffer.from(original.data?.config ?? '', 'base64').toString();
    const port = await closedPort();
    const bad = good.replace(new URL(env.api.server.url).host, `127.0.0.1:${port}`);
    assert.notEqual(bad, good, 'the kubeconfig names another server');
    await env.kcp.patch(SECRET, { namespace: NS, name: rt.secretName }, 'merge', { data: { config: Buffer.from(bad).toString('base64') } });
    const admin = clientFromKubeconfig(env.api.server.clusterAccess(rt.cluster).kubeconfig, { retries: 1 });
    clients.push(admin);
    await env.kcp.create({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id } }, spec: { channel: 'regular', modules: [] } });
    // When the module is enabled (in the KCP Kyma).
    await env.kcp.patch(Kyma, { namespace: NS, name: id }, 'merge', { spec: { modules: [{ name: MODULE, channel: 'regular' }] } });

    // Then the module is not created: the Kyma controller has looked (Error, unreachable) and made no Manifest.
    const failed = await waitFor('Kyma Error', async () => {
      const k = await env.kyma(id);
      return k.status?.state === States.Error ? k : undefined;
    });
    assert.match(failed.status?.lastOperation?.operation ?? '', /is unreachable/);
    await holdsOverPasses(id, 2, async () => (await env.manifests(id)).length === 0);
    assert.equal((await env.kcp.list<ManifestObject>(Manifest, { namespace: NS, labelSelector: `${Labels.KymaName}=${id}` })).items.length, 0, 'no Manifest CR exists');
    await assert.rejects(admin.get(CONFIGMAP, MODULE_CR), (e: unknown) => isNotFound(e), 'the module is not in the runtime');

    // When the Kyma Secret is corrected: deleted (gone), then created with the right kubeconfig.
    await env.kcp.delete(SECRET, { namespace: NS, name: rt.secretName });
    await waitFor('the Secret gone', () => env.kcp.get(SECRET, { namespace: NS, name: rt.secretName }).then(() => false, (e: unknown) => isNotFound(e)));
    await env.kcp.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: rt.secretName, namespace: NS, labels: original.metadata.labels }, data: original.data } as KubeObject);

    // Then the module is created, and its Manifest is Ready.
    await waitFor('the module CR in the runtime', () => admin.get(CONFIGMAP, MODULE_CR));
    await waitFor('the Manifest Ready', async () => (await manifestOf(id))?.status?.state === States.Ready);
  });
});
