// Time-based rotation on the embedded landscape with short-lived credentials: Gardener grants
// kubeconfigs valid for 6 s only, and a consumer that reads the Secret afresh on every call never
// gets a 401 because the controller rotates well before each credential expires (even when it uses
// what it read a second later).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AnnotationLastKubeconfigSync, GardenerCluster, type GardenerClusterObject } from '../../src/api/infrastructuremanager/index.js';
import { msUntilRotation, rotationAfterMs, rotationPolicy, setupGardenerClusterController } from '../../src/infrastructure/gardener-cluster/index.js';
import { clientFromKubeconfig, isUnauthorized } from '../../src/runtime/client/index.js';
import { silentLogger } from '../../src/runtime/log.js';
import { newManager } from '../../src/runtime/manager.js';
import type { KubeObject } from '../../src/kube/object.js';
import { type Landscape, startLandscape, testShoot, waitFor } from '../support/landscape.js';
import { sleep } from '../../src/util/sleep.js';

const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const NAMESPACE = 'kcp-system';
const GRANTED_SECONDS = 6;
const CONSUMER_LAG_MS = 1000;

describe('kubeconfig rotation before expiry', () => {
  let landscape: Landscape;
  const stop = new AbortController();
  let running: Promise<void>;

  before(async () => {
    landscape = await startLandscape({ simulator: { maxAdminKubeconfigSeconds: GRANTED_SECONDS } });
    await landscape.garden.create(testShoot('rot-shoot', landscape.projectNamespace));
    await waitFor('the shoot cluster', () => landscape.server.hasCluster(landscape.shootClusterName('rot-shoot')));
    const manager = newManager({ client: landscape.kcp, logger: silentLogger });
    // Asks for 10 minutes (Gardener's minimum); the simulator grants 6 s, and rotation follows the grant.
    setupGardenerClusterController(manager, { garden: landscape.garden, kcp: landscape.kcp, project: landscape.project, namespace: NAMESPACE, expirationSeconds: 600 });
    running = manager.start(stop.signal);
    await manager.ready();
  });

  after(async () => {
    stop.abort();
    await running;
    await landscape.stop();
  });

  it('a consumer re-reading the Secret on each call (and using it a second later) never sees a 401 across several expirations', async () => {
    const cluster: GardenerClusterObject = {
      apiVersion: GardenerCluster.apiVersion,
      kind: GardenerCluster.kind,
      metadata: { name: 'rt-rotating', namespace: NAMESPACE, labels: { 'kyma-project.io/runtime-id': 'rt-rotating', 'operator.kyma-project.io/kyma-name': 'rt-rotating' } },
      spec: { kubeconfig: { secret: { name: 'kubeconfig-rt-rotating', namespace: NAMESPACE, key: 'config' } }, shoot: { name: 'rot-shoot' } },
    };
    await landscape.kcp.create(cluster);
    const readSecret = () => landscape.kcp.get<KubeObject & { data?: Record<string, string> }>(SECRET, { namespace: NAMESPACE, name: 'kubeconfig-rt-rotating' });
    await waitFor('the kubeconfig Secret', () => readSecret().catch(() => undefined));

    const seen = new Set<string>();
    const syncs = new Set<string>();
    let calls = 0;
    // The run is counted in rotations, not in seconds: a kubeconfig is replaced after 57 % of its
    // 6 s and expires before the one after next appears, so once four kubeconfigs were seen, the
    // first two expired while the consumer kept calling. (The deadline only gives up.)
    const giveUpAt = Date.now() + 60_000;
    while (seen.size < 4 || syncs.size < 4 || calls < 10) {
      assert.ok(Date.now() < giveUpAt, `gave up waiting for four rotations: saw ${seen.size} kubeconfigs, ${calls} calls`);
      const secret = await readSecret();
      const kubeconfig = Buffer.from(secret.data?.config ?? '', 'base64').toString('utf8');
      seen.add(kubeconfig);
      syncs.add(secret.metadata.annotations?.[AnnotationLastKubeconfigSync] ?? '');
      // The consumer acts on what it read a moment later (a cache's lag): the kubeconfig must still be valid then.
      await sleep(CONSUMER_LAG_MS);
      const consumer = clientFromKubeconfig(kubeconfig, { retries: 0 });
      try {
        await consumer.list({ apiVersion: 'v1', kind: 'Namespace' });
        calls++;
      } catch (e) {
        assert.fail(`call ${calls + 1} with the Secret's current kubeconfig failed${isUnauthorized(e) ? ' with 401' : ''}: ${String(e)}`);
      } finally {
        consumer.close();
      }
    }
    // Credentials of 6 s: at least three kubeconfigs were in use, each one before it expired.
    assert.ok(seen.size >= 3, `expected at least 3 kubeconfigs, saw ${seen.size}`);
    assert.ok(syncs.size >= 3, `expected at least 3 last-sync values, saw ${syncs.size}`);
    assert.ok(calls >= 10, `the consumer made ${calls} calls`);

    const status = (await landscape.kcp.get<GardenerClusterObject>(GardenerCluster, { namespace: NAMESPACE, name: 'rt-rotating' })).status;
    assert.equal(status?.state, 'Ready');
    assert.equal(status?.conditions?.find((c) => c.type === 'KubeconfigManagement')?.reason, 'KubeconfigSecretRotated');
  });
});

describe('rotation timing', () => {
  it('rotates after 0.95 x 0.6 of the validity by default, and follows a shorter grant', () => {
    const policy = rotationPolicy();
    assert.equal(policy.expirationSeconds, 24 * 60 * 60);
    assert.equal(rotationAfterMs(policy), 49_248_000, '13.68 h');
    const synced = Date.parse('2026-01-01T00:00:00Z');
    // Asked for 24 h, granted 1 h: rotation after 57 % of the hour.
    assert.equal(msUntilRotation(policy, synced, synced, synced + 3600_000), 2_052_000);
    // A grant longer than asked does not delay rotation.
    assert.equal(msUntilRotation(policy, synced, synced, synced + 48 * 3600_000), rotationAfterMs(policy));
    assert.equal(msUntilRotation(policy, undefined, synced), 0, 'a Secret without last-sync is rotated at once');
    assert.equal(rotationAfterMs(rotationPolicy({ expirationSeconds: 100, minimalRotationTimeRatio: 0.5, rotationPeriodRatio: 0.5 })), 25_000);
  });
});
