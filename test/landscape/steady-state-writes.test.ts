// Once a runtime and its module are Ready, the controllers' periodic passes write nothing: no
// POST/PUT/PATCH/DELETE to the KCP, the garden or the runtime cluster. "Changed?" is decided by value,
// and the API server returns custom resources with sorted keys as kube-apiserver does, so a
// comparison by JSON text (the controllers build statuses in their own key order) would write on
// every pass. The whole landscape as `kcp up` runs it, with short requeue intervals.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Runtime, type RuntimeObject } from '../../src/api/infrastructuremanager/index.js';
import { Kyma, type KymaObject, Labels, Namespaces } from '../../src/api/operator/index.js';
import { GARDEN_CLUSTER } from '../../src/landscape/gardener/index.js';
import { shootClusterName } from '../../src/landscape/index.js';
import { type InProcessUp, startUp } from '../../src/up/index.js';
import { testRuntime } from '../infrastructure/runtime-harness.js';
import { fastUpOptions } from '../support/fast-landscape.js';
import { waitFor } from '../support/wait.js';

const NS = Namespaces.ControlPlane;
const ID = 'rt-steady';
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Forced passes of every controller in the observed window. */
const PASSES = 3;

describe('steady state: no writes when nothing changed', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kcp-steady-'));
  let up: InProcessUp | undefined;
  after(async () => {
    await up?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('periodic passes of the Kyma, Manifest, Runtime and GardenerCluster controllers write nothing once all is Ready', async () => {
    up = await startUp(fastUpOptions(dataDir, ['--kubeconfig-expiration-time=10m']));
    const land = up.landscape;
    const passes = new Map<string, number>();
    up.controlPlane.manager.setGate((controller) => {
      passes.set(controller, (passes.get(controller) ?? 0) + 1);
      return true;
    });

    await land.kcp.create(testRuntime(ID));
    await land.kcp.create<KymaObject>({
      apiVersion: Kyma.apiVersion,
      kind: Kyma.kind,
      metadata: { name: ID, namespace: NS, labels: { [Labels.KymaName]: ID, 'kyma-project.io/runtime-id': ID } },
      spec: { channel: 'regular', modules: [{ name: 'autoscaler' }] },
    });
    await waitFor('the Runtime Ready', async () => (await land.kcp.get<RuntimeObject>(Runtime, { namespace: NS, name: ID })).status?.state === 'Ready', 30_000);
    await waitFor('the Kyma and its module Ready', async () => {
      const kyma = await land.kcp.get<KymaObject>(Kyma, { namespace: NS, name: ID });
      return kyma.status?.state === 'Ready' && kyma.status.modules?.length === 1 && kyma.status.modules[0].state === 'Ready';
    }, 30_000);

    const runtimeCluster = shootClusterName(land.projectNamespace, `c-${ID}`);
    const watched = new Map([['default', 'KCP'], [GARDEN_CLUSTER, 'garden'], [runtimeCluster, 'runtime']]);
    const controllers = ['kyma', 'manifest', 'runtime', 'gardener-cluster'];
    const passesNow = () => controllers.map((c) => passes.get(c) ?? 0);
    /** Forces a pass of every controller over every object it has (a periodic pass), and waits for them. */
    const forcePass = async (what: string) => {
      const before = passesNow();
      up!.controlPlane.manager.requeueAll();
      await waitFor(what, () => passesNow().every((n, i) => n > before[i]), 30_000).catch((e: unknown) => {
        throw new Error(`${(e as Error).message}: passes ${JSON.stringify([...passes])}`);
      });
    };
    // Settle: a last status write may follow Ready.
    await forcePass('a pass of every controller after Ready');

    const writes: string[] = [];
    const stopObserving = land.server.observeRequests((r) => {
      const where = watched.get(r.cluster);
      if (where && WRITES.has(r.method)) writes.push(`${where} ${r.method} ${r.path}${r.query}`);
    });
    try {
      const start = passesNow();
      // One more forced pass than counted: a key's passes run one after another, so the counted ones have finished.
      for (let i = 0; i <= PASSES; i++) await forcePass(`forced pass ${i + 1} of ${controllers.join(', ')}`);
      const ran = passesNow().map((n, i) => `${controllers[i]} ${n - start[i]}`);
      assert.deepEqual(writes, [], `no writes while the controllers ran (${ran.join(', ')} passes)`);
    } finally {
      stopObserving();
    }
  });
});
