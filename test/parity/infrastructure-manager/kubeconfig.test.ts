// Parity with upstream's GardenerCluster (kubeconfig) controller suite (kyma-project/infrastructure-manager,
// internal/controller/kubeconfig/gardener_cluster_controller_test.go): the Secret created, rotated,
// left alone and deleted, the Error state, and the metrics upstream asserts with each
// (`im_gardener_clusters_state` with runtime id, shoot, state and reason; `im_kubeconfig_expiration`).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AnnotationForceKubeconfigRotation, AnnotationLastKubeconfigSync, GardenerCluster, type GardenerClusterObject } from '../../../src/api/infrastructuremanager/index.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { isNotFound } from '../../../src/runtime/client/index.js';
import { Registry } from '../../../src/runtime/metrics.js';
import { type Landscape, waitFor } from '../../support/landscape.js';
import { gardenerCluster, gardenerClusterLabels, type GardenerClusterEnv, NAMESPACE, startGardenerClusterEnv } from '../../infrastructure/gardener-cluster-env.js';

const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const SHOOT = 'kc-shoot';
type Secret = KubeObject & { data?: Record<string, string> };

/** The label sets of a metric's series with their values, parsed from the exposition text. */
function series(registry: Registry, metric: string): { labels: Record<string, string>; value: number }[] {
  const out: { labels: Record<string, string>; value: number }[] = [];
  for (const line of registry.render().split('\n')) {
    const m = new RegExp(`^${metric}\\{(.*)\\} (\\S+)$`).exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const [, k, v] of m[1].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    out.push({ labels, value: Number(m[2]) });
  }
  return out;
}

describe('Gardener Cluster controller', () => {
  let env: GardenerClusterEnv;
  let landscape: Landscape;
  const registry = new Registry();

  const getSecret = (runtimeId: string) => landscape.kcp.get<Secret>(SECRET, { namespace: NAMESPACE, name: `kubeconfig-${runtimeId}` });
  const getCluster = (runtimeId: string) => landscape.kcp.get<GardenerClusterObject>(GardenerCluster, { namespace: NAMESPACE, name: runtimeId });
  const stateSeries = (runtimeId: string) => series(registry, 'im_gardener_clusters_state').filter((s) => s.labels.runtimeId === runtimeId);
  const readyCluster = (runtimeId: string) =>
    waitFor(`GardenerCluster ${runtimeId} Ready`, async () => {
      const c = await getCluster(runtimeId);
      return c.status?.state === 'Ready' ? c : undefined;
    });

  /** A kubeconfig Secret as the controller writes it, synced at `lastSync`, holding `kubeconfig`. */
  function existingSecret(runtimeId: string, lastSync: string, kubeconfig: string): Secret {
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: `kubeconfig-${runtimeId}`,
        namespace: NAMESPACE,
        labels: { ...gardenerClusterLabels(runtimeId, SHOOT), 'operator.kyma-project.io/managed-by': 'infrastructure-manager', 'operator.kyma-project.io/cluster-name': runtimeId },
        annotations: { [AnnotationLastKubeconfigSync]: lastSync },
      },
      data: { config: Buffer.from(kubeconfig).toString('base64') },
    };
  }

  before(async () => {
    env = await startGardenerClusterEnv(SHOOT, registry);
    landscape = env.landscape;
  });

  after(async () => {
    await env.stop();
  });

  it('Should create secret, and set Ready status on CR: the state metric says Ready / KubeconfigSecretCreated, the expiration metric is there', async () => {
    await landscape.kcp.create(gardenerCluster('kc-created', SHOOT));
    const secret = await waitFor('the kubeconfig Secret', () => getSecret('kc-created').catch(() => undefined));
    await readyCluster('kc-created');
    assert.deepEqual(secret.metadata.labels, { ...gardenerClusterLabels('kc-created', SHOOT), 'operator.kyma-project.io/managed-by': 'infrastructure-manager', 'operator.kyma-project.io/cluster-name': 'kc-created' });
    assert.ok(secret.metadata.annotations?.[AnnotationLastKubeconfigSync]);
    await waitFor('the state metric', () => (stateSeries('kc-created').length === 1 ? true : undefined));
    assert.deepEqual(stateSeries('kc-created'), [{ labels: { runtimeId: 'kc-created', shootName: SHOOT, state: 'Ready', reason: 'KubeconfigSecretCreated' }, value: 1 }]);
    const expiration = series(registry, 'im_kubeconfig_expiration').filter((s) => s.labels.runtimeId === 'kc-created');
    assert.equal(expiration.length, 1);
    assert.equal(expiration[0].labels.shootName, SHOOT);
    const lastSync = Date.parse(secret.metadata.annotations?.[AnnotationLastKubeconfigSync] ?? '') / 1000;
    assert.ok(expiration[0].value > lastSync && expiration[0].value <= lastSync + 3600, `rotation at ${expiration[0].value}, synced at ${lastSync}`);
  });

  it('Should delete secret: and the metrics of the GardenerCluster go', async () => {
    await landscape.kcp.create(gardenerCluster('kc-deleted', SHOOT));
    await waitFor('the kubeconfig Secret', () => getSecret('kc-deleted').catch(() => undefined));
    await readyCluster('kc-deleted');
    await waitFor('the state metric', () => (stateSeries('kc-deleted').length === 1 ? true : undefined));
    await landscape.kcp.delete(GardenerCluster, { namespace: NAMESPACE, name: 'kc-deleted' });
    await waitFor('the Secret gone', () => getSecret('kc-deleted').then(() => false, (e: unknown) => isNotFound(e)));
    await waitFor('the metrics gone', () => (stateSeries('kc-deleted').length === 0 && !series(registry, 'im_kubeconfig_expiration').some((s) => s.labels.runtimeId === 'kc-deleted') ? true : undefined));
  });

  it('Should set Error status on CR if failed to fetch kubeconfig: the state metric says Error / FailedToGetKubeconfig', async () => {
    await landscape.kcp.create(gardenerCluster('kc-error', 'no-such-shoot'));
    const cluster = await waitFor('state Error', async () => {
      const c = await getCluster('kc-error');
      return c.status?.state === 'Error' ? c : undefined;
    });
    const condition = cluster.status?.conditions?.find((c) => c.type === 'KubeconfigManagement');
    assert.equal(condition?.reason, 'FailedToGetKubeconfig');
    assert.match(condition?.message ?? '', /^Failed to get kubeconfig\. Error: /);
    await waitFor('the state metric', () => (stateSeries('kc-error').length === 1 ? true : undefined));
    assert.deepEqual(stateSeries('kc-error'), [{ labels: { runtimeId: 'kc-error', shootName: 'no-such-shoot', state: 'Error', reason: 'FailedToGetKubeconfig' }, value: 1 }]);
  });

  it('Should update secret / Rotate kubeconfig when rotation epoch passed', async () => {
    const valid = Buffer.from((await getSecret('kc-created')).data?.config ?? '', 'base64').toString('utf8');
    const previous = '2023-10-09T23:00:00Z';
    await landscape.kcp.create(existingSecret('kc-epoch', previous, valid));
    await landscape.kcp.create(gardenerCluster('kc-epoch', SHOOT));
    const rotated = await waitFor('a new sync time', async () => {
      const s = await getSecret('kc-epoch');
      return s.metadata.annotations?.[AnnotationLastKubeconfigSync] !== previous ? s : undefined;
    });
    assert.notEqual(rotated.data?.config, Buffer.from(valid).toString('base64'));
    await readyCluster('kc-epoch');
  });

  it('Should update secret / Force rotation', async () => {
    const valid = Buffer.from((await getSecret('kc-created')).data?.config ?? '', 'base64').toString('utf8');
    const previous = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await landscape.kcp.create(existingSecret('kc-forced', previous, valid));
    await landscape.kcp.create(gardenerCluster('kc-forced', SHOOT, { [AnnotationForceKubeconfigRotation]: 'true' }));
    await waitFor('a new kubeconfig', async () => ((await getSecret('kc-forced')).data?.config !== Buffer.from(valid).toString('base64') ? true : undefined));
    await waitFor('Ready without the force annotation', async () => {
      const c = await getCluster('kc-forced');
      return c.status?.state === 'Ready' && c.metadata.annotations?.[AnnotationForceKubeconfigRotation] === undefined ? true : undefined;
    });
  });

  it('Should skip rotation: a fresh kubeconfig of the Shoot is kept', async () => {
    const valid = (await getSecret('kc-created')).data?.config ?? '';
    const previous = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await landscape.kcp.create(existingSecret('kc-skip', previous, Buffer.from(valid, 'base64').toString('utf8')));
    await landscape.kcp.create(gardenerCluster('kc-skip', SHOOT));
    // The controller handled the GardenerCluster (Ready, the state metric) and left the Secret alone.
    await readyCluster('kc-skip');
    await waitFor('the state metric', () => (stateSeries('kc-skip').length === 1 ? true : undefined));
    const kept = await getSecret('kc-skip');
    assert.equal(kept.metadata.annotations?.[AnnotationLastKubeconfigSync], previous);
    assert.equal(kept.data?.config, valid);
  });
});
