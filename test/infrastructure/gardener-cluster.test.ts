// The GardenerCluster controller on the embedded landscape: the kubeconfig Secret of a Shoot is
// created from Gardener's adminkubeconfig subresource with the labels consumers select by, repaired
// when deleted, rotated at once on request, deleted with its GardenerCluster, and a Shoot Gardener
// does not know is reported in the KubeconfigManagement condition.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AnnotationForceKubeconfigRotation, AnnotationLastKubeconfigSync, GardenerCluster, type GardenerClusterObject } from '../../src/api/infrastructuremanager/index.js';
import { clientFromKubeconfig, isNotFound } from '../../src/runtime/client/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { Registry } from '../../src/runtime/metrics.js';
import { type CountingClient, countingClient } from '../support/counting-client.js';
import { type Landscape, waitFor } from '../support/landscape.js';
import { reconcileCount } from '../support/metrics.js';
import { gardenerCluster, type GardenerClusterEnv, NAMESPACE, startGardenerClusterEnv } from './gardener-cluster-env.js';

const SECRET = { apiVersion: 'v1', kind: 'Secret' };
type Secret = KubeObject & { data?: Record<string, string> };

function kubeconfigOf(s: Secret): string {
  return Buffer.from(s.data?.config ?? '', 'base64').toString('utf8');
}

describe('GardenerCluster controller', () => {
  let env: GardenerClusterEnv;
  let landscape: Landscape;
  const shootName = 'gc-shoot';

  const getSecret = (runtimeId: string) => landscape.kcp.get<Secret>(SECRET, { namespace: NAMESPACE, name: `kubeconfig-${runtimeId}` });
  const getCluster = (runtimeId: string) => landscape.kcp.get<GardenerClusterObject>(GardenerCluster, { namespace: NAMESPACE, name: runtimeId });

  const registry = new Registry();
  let kcp: CountingClient | undefined;

  before(async () => {
    env = await startGardenerClusterEnv(shootName, registry, (c) => (kcp = countingClient(c)).client);
    landscape = env.landscape;
  });

  after(async () => {
    await env.stop();
  });

  it('creates Secret kubeconfig-<runtime-id> with the labels consumers select by and a working kubeconfig', async () => {
    await landscape.kcp.create(gardenerCluster('rt-basic', shootName));
    const secret = await waitFor('the kubeconfig Secret', () => getSecret('rt-basic').catch(() => undefined));
    assert.deepEqual(secret.metadata.labels, {
      'kyma-project.io/runtime-id': 'rt-basic',
      'operator.kyma-project.io/kyma-name': 'rt-basic',
      'kyma-project.io/shoot-name': shootName,
      'kyma-project.io/global-account-id': 'ga-1',
      'operator.kyma-project.io/managed-by': 'infrastructure-manager',
      'operator.kyma-project.io/cluster-name': 'rt-basic',
    });
    assert.match(secret.metadata.annotations?.[AnnotationLastKubeconfigSync] ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const shootAdmin = clientFromKubeconfig(kubeconfigOf(secret), { retries: 0 });
    try {
      const namespaces = await shootAdmin.list({ apiVersion: 'v1', kind: 'Namespace' });
      assert.ok(namespaces.items.some((n) => n.metadata.name === 'kube-system'), 'the kubeconfig opens the shoot cluster');
    } finally {
      shootAdmin.close();
    }

    const cluster = await waitFor('state Ready', async () => {
      const c = await getCluster('rt-basic');
      return c.status?.state === 'Ready' ? c : undefined;
    });
    const condition = cluster.status?.conditions?.find((c) => c.type === 'KubeconfigManagement');
    assert.deepEqual([condition?.status, condition?.reason, condition?.message], ['True', 'KubeconfigSecretCreated', 'Secret created successfully.']);
  });

  it('passes over a GardenerCluster whose Secret is current read it and the Secret from the caches', async () => {
    await landscape.kcp.create(gardenerCluster('rt-cached', shootName));
    await waitFor('Ready', async () => (await getCluster('rt-cached')).status?.state === 'Ready');
    const gets = () => (kcp?.count('get', 'GardenerCluster') ?? 0) + (kcp?.count('get', 'Secret') ?? 0);
    const before = gets();
    const passes = reconcileCount(registry, 'gardener-cluster');
    for (let i = 1; i <= 3; i++) {
      const seen = reconcileCount(registry, 'gardener-cluster');
      // An annotation: the GardenerCluster's labels are copied to the Secret, whose repair would be a write of its own.
      await landscape.kcp.patch(GardenerCluster, { namespace: NAMESPACE, name: 'rt-cached' }, 'merge', { metadata: { annotations: { 'example.test/poke': String(i) } } });
      await waitFor(`a pass after change ${i}`, () => reconcileCount(registry, 'gardener-cluster') > seen);
    }
    assert.ok(reconcileCount(registry, 'gardener-cluster') - passes >= 3);
    // Each pass used to GET both; nothing this controller wrote is on its way now (one pass right
    // after Ready may still find its status write on the way).
    assert.ok(gets() - before <= 1, `${gets() - before} GETs of GardenerClusters and Secrets in ${reconcileCount(registry, 'gardener-cluster') - passes} passes`);
    assert.equal((await getCluster('rt-cached')).status?.state, 'Ready');
  });

  it('a forced rotation replaces the kubeconfig at once and removes the annotation', async () => {
    await landscape.kcp.create(gardenerCluster('rt-forced', shootName));
    const first = await waitFor('the kubeconfig Secret', () => getSecret('rt-forced').catch(() => undefined));
    await landscape.kcp.patch(GardenerCluster, { namespace: NAMESPACE, name: 'rt-forced' }, 'merge', { metadata: { annotations: { [AnnotationForceKubeconfigRotation]: 'true' } } });

    const rotated = await waitFor('a new kubeconfig', async () => {
      const s = await getSecret('rt-forced');
      return kubeconfigOf(s) !== kubeconfigOf(first) ? s : undefined;
    });
    const cluster = await waitFor('the annotation removed and the condition Rotated', async () => {
      const c = await getCluster('rt-forced');
      const reason = c.status?.conditions?.find((x) => x.type === 'KubeconfigManagement')?.reason;
      return c.metadata.annotations?.[AnnotationForceKubeconfigRotation] === undefined && reason === 'KubeconfigSecretRotated' ? c : undefined;
    });
    assert.equal(cluster.status?.state, 'Ready');
    const shootAdmin = clientFromKubeconfig(kubeconfigOf(rotated), { retries: 0 });
    try {
      await shootAdmin.list({ apiVersion: 'v1', kind: 'Namespace' });
    } finally {
      shootAdmin.close();
    }
  });

  it('a deleted kubeconfig Secret is written again', async () => {
    await landscape.kcp.create(gardenerCluster('rt-repair', shootName));
    const first = await waitFor('the kubeconfig Secret', () => getSecret('rt-repair').catch(() => undefined));
    await landscape.kcp.delete(SECRET, { namespace: NAMESPACE, name: 'kubeconfig-rt-repair' });
    await waitFor('the Secret written again', async () => {
      const s = await getSecret('rt-repair').catch(() => undefined);
      return s !== undefined && s.metadata.uid !== first.metadata.uid;
    });
  });

  it('deleting the GardenerCluster deletes its Secret', async () => {
    await landscape.kcp.create(gardenerCluster('rt-deleted', shootName));
    await waitFor('the kubeconfig Secret', () => getSecret('rt-deleted').catch(() => undefined));
    await landscape.kcp.delete(GardenerCluster, { namespace: NAMESPACE, name: 'rt-deleted' });
    await waitFor('the Secret gone', () => getSecret('rt-deleted').then(() => false, (e: unknown) => isNotFound(e)));
  });

  it('a Shoot Gardener does not know puts the GardenerCluster in Error with FailedToGetKubeconfig', async () => {
    await landscape.kcp.create(gardenerCluster('rt-noshoot', 'no-such-shoot'));
    const cluster = await waitFor('state Error', async () => {
      const c = await getCluster('rt-noshoot');
      return c.status?.state === 'Error' ? c : undefined;
    });
    const condition = cluster.status?.conditions?.find((c) => c.type === 'KubeconfigManagement');
    assert.equal(condition?.status, 'False');
    assert.equal(condition?.reason, 'FailedToGetKubeconfig');
    assert.match(condition?.message ?? '', /^Failed to get kubeconfig\. Error: /);
    await assert.rejects(getSecret('rt-noshoot'), isNotFound);
  });
});
