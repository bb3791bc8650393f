// A kubeconfig Secret that no longer holds its runtime's kubeconfig (garbage, another runtime's
// kubeconfig, the key removed) is rewritten from Gardener on the GardenerCluster controller's next
// pass, which the Secret's change itself triggers (no forced rotation, no waiting for the regular
// one), and the lifecycle manager reaches the runtime again with it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AnnotationKubeconfigSha256, AnnotationKubeconfigShoot, kubeconfigSecretName } from '../../src/api/infrastructuremanager/index.js';
import { Kyma, type KymaObject } from '../../src/api/operator/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { clientFromKubeconfig, findObject } from '../../src/runtime/client/index.js';
import { RecordingLogger } from '../support/log.js';
import { type Harness, NAMESPACE, startHarness, testKyma, testRuntime, waitFor, waitForRuntime } from './runtime-harness.js';

type SecretObject = KubeObject & { data?: Record<string, string> };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const REMOTE_KYMA = { namespace: 'kyma-system', name: 'default' };


describe('a garbled kubeconfig Secret is repaired on the next pass', () => {
  let h: Harness;
  const log = new RecordingLogger();
  before(async () => {
    // Rotation only after hours: whatever rewrites the Secret within this test is the repair.
    h = await startHarness({ logger: log }, { lifecycleManager: true, kubeconfigExpirationSeconds: 24 * 3600, kymaIntervals: { readyMs: 500, busyMs: 200, warningMs: 500, errorMs: 200 } });
  });
  after(async () => {
    await h.stop();
  });

  const secret = (id: string) => h.land.kcp.get<SecretObject>(SECRET, { namespace: NAMESPACE, name: kubeconfigSecretName(id) });
  const text = (s: SecretObject) => Buffer.from(s.data?.config ?? '', 'base64').toString('utf8');

  /** Overwrites the Secret's data, then waits until the controller rewrote it; returns the rewritten Secret. */
  async function garbleAndWait(id: string, data: Record<string, string>, problem: RegExp): Promise<SecretObject> {
    const before = await secret(id);
    const repairsBefore = log.matching('kubeconfig secret repaired', { name: id }).length;
    const garbled = await h.land.kcp.update<SecretObject>({ ...before, data });
    const repaired = await waitFor(`Secret of ${id} rewritten after the overwrite`, async () => {
      const s = await secret(id);
      return s.metadata.resourceVersion !== garbled.metadata.resourceVersion ? s : undefined;
    });
    const repairs = log.matching('kubeconfig secret repaired', { name: id });
    assert.equal(repairs.length, repairsBefore + 1, 'one repair, logged');
    assert.match(String(repairs.at(-1)?.fields.problem), problem);
    return repaired;
  }

  /** The repaired kubeconfig reaches the runtime's own cluster and is what the annotations say. */
  async function assertUsable(id: string, repaired: SecretObject): Promise<void> {
    const kubeconfig = text(repaired);
    assert.equal(repaired.metadata.annotations?.[AnnotationKubeconfigShoot], testRuntime(id).spec.shoot.name);
    assert.match(repaired.metadata.annotations?.[AnnotationKubeconfigSha256] ?? '', /^[0-9a-f]{64}$/);
    const client = clientFromKubeconfig(kubeconfig);
    try {
      // The runtime's own cluster: it holds the marker the test put there.
      const marker = await client.get<KubeObject & { data?: Record<string, string> }>(CONFIG_MAP, { namespace: 'default', name: 'whose-cluster' });
      assert.deepEqual(marker.data, { runtime: id });
    } finally {
      client.close();
    }
  }

  it('garbage, another runtime\'s kubeconfig, a missing key: each is fetched again from Gardener, and the lifecycle manager reaches the runtime again', async () => {
    await h.land.kcp.create(testRuntime('kr-a'));
    await h.land.kcp.create(testRuntime('kr-b'));
    await h.land.kcp.create(testKyma('kr-a'));
    await waitForRuntime(h, 'kr-a', 'Ready', () => true, 30_000);
    await waitForRuntime(h, 'kr-b', 'Ready', () => true, 30_000);
    await waitFor('Kyma kr-a Ready', async () => (await findObject<KymaObject>(h.land.kcp, Kyma, { namespace: NAMESPACE, name: 'kr-a' }))?.status?.state === 'Ready', 30_000);
    for (const id of ['kr-a', 'kr-b']) {
      await h.land.shootClient(testRuntime(id).spec.shoot.name).create({ ...CONFIG_MAP, metadata: { namespace: 'default', name: 'whose-cluster' }, data: { runtime: id } });
    }

    let repaired = await garbleAndWait('kr-a', { config: Buffer.from('this is not a kubeconfig {{{').toString('base64') }, /SHA-256 differs/);
    await assertUsable('kr-a', repaired);

    const other = text(await secret('kr-b'));
    repaired = await garbleAndWait('kr-a', { config: Buffer.from(other).toString('base64') }, /SHA-256 differs/);
    assert.notEqual(text(repaired), other);
    await assertUsable('kr-a', repaired);

    repaired = await garbleAndWait('kr-a', { somethingElse: Buffer.from('x').toString('base64') }, /key config is missing/);
    await assertUsable('kr-a', repaired);

    // The lifecycle manager uses the repaired Secret: the runtime's copy of the Kyma, deleted in the
    // runtime, is put back by it.
    const runtime = h.land.shootClient(testRuntime('kr-a').spec.shoot.name);
    const old = await runtime.get<KymaObject>(Kyma, REMOTE_KYMA);
    await runtime.delete(Kyma, REMOTE_KYMA);
    await waitFor('the lifecycle manager re-created the runtime Kyma', async () => {
      const now = await findObject<KymaObject>(runtime, Kyma, REMOTE_KYMA);
      return now !== undefined && now.metadata.uid !== old.metadata.uid;
    }, 30_000);
    await waitFor('Kyma kr-a Ready', async () => (await findObject<KymaObject>(h.land.kcp, Kyma, { namespace: NAMESPACE, name: 'kr-a' }))?.status?.state === 'Ready', 30_000);
  });
});
