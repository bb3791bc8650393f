// Rotation under load: the kubeconfigs of every runtime are rotated at once (the force-rotation
// annotation on all GardenerClusters) while the lifecycle manager installs modules into those
// runtimes. Every status written meanwhile is watched (not only the last one): no Runtime Failed,
// no GardenerCluster, Kyma, Manifest or module in Error, at any moment; and everything ends Ready
// with every kubeconfig replaced. The whole landscape as `kcp up` runs it. The same at fleet size:
// `npm run bench:rotation` (docs/benchmarks.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnnotationForceKubeconfigRotation, AnnotationKubeconfigSha256, GardenerCluster, kubeconfigSecretName, Runtime } from '../../src/api/infrastructuremanager/index.js';
import { Kyma, Labels, Manifest, Namespaces } from '../../src/api/operator/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { Informer } from '../../src/runtime/cache/informer.js';
import { testRuntime } from '../infrastructure/runtime-harness.js';
import { upForSuite } from '../support/fast-landscape.js';
import { waitFor } from '../support/wait.js';

const NS = Namespaces.ControlPlane;
const RUNTIMES = 20;
const MODULES = ['autoscaler', 'gateway'];
const SECRET = { apiVersion: 'v1', kind: 'Secret' };

type Watched = KubeObject & { status?: { state?: string; modules?: { name: string; state?: string; message?: string }[]; conditions?: { type: string; status: string; message?: string }[] } };

/** Every error state any watched object showed, as `Kind ns/name: state (message)`. */
function errorsOf(kind: string, o: Watched): string[] {
  const where = `${kind} ${o.metadata.name ?? ''}`;
  const out: string[] = [];
  const state = o.status?.state;
  if (state === 'Error' || state === 'Failed') {
    const failing = o.status?.conditions?.find((c) => c.status === 'False');
    out.push(`${where}: ${state}${failing?.message ? ` (${failing.message})` : ''}`);
  }
  for (const m of o.status?.modules ?? []) if (m.state === 'Error') out.push(`${where}: module ${m.name} Error${m.message ? ` (${m.message})` : ''}`);
  return out;
}

describe('rotation under load', () => {
  const suite = upForSuite('kcp-rotation-load-');

  it(`all ${RUNTIMES} kubeconfigs forced at once while modules install: no error in any status at any time, all ends Ready`, async (t) => {
    const up = await suite.start();
    const kcp = up.landscape.kcp;
    const names = Array.from({ length: RUNTIMES }, (_, i) => `rot-${String(i).padStart(2, '0')}`);

    // Watch every status from the start.
    const seenErrors = new Set<string>();
    const informers = {
      Runtime: new Informer<Watched>(kcp, { kind: Runtime, namespace: NS }),
      GardenerCluster: new Informer<Watched>(kcp, { kind: GardenerCluster, namespace: NS }),
      Kyma: new Informer<Watched>(kcp, { kind: Kyma, namespace: NS }),
      Manifest: new Informer<Watched>(kcp, { kind: Manifest, namespace: NS }),
    };
    let statusesSeen = 0;
    for (const [kind, inf] of Object.entries(informers)) {
      const look = (o: Watched) => {
        statusesSeen++;
        for (const e of errorsOf(kind, o)) seenErrors.add(e);
      };
      inf.addHandlers({ onAdd: look, onUpdate: (_old, o) => look(o) });
      inf.run(suite.lifetime).catch(() => undefined);
      await inf.synced;
    }

    // The runtimes first, so that every kubeconfig exists before the modules start installing.
    await Promise.all(names.map((name) => kcp.create(testRuntime(name))));
    await waitFor(`${RUNTIMES} Runtimes Ready`, () => informers.Runtime.store.list().filter((r) => r.status?.state === 'Ready').length === RUNTIMES, 120_000);
    const shaOf = async (name: string) => (await kcp.get<KubeObject>(SECRET, { namespace: NS, name: kubeconfigSecretName(name) })).metadata.annotations?.[AnnotationKubeconfigSha256];
    const before = new Map(await Promise.all(names.map(async (n) => [n, await shaOf(n)] as const)));

    // Then the Kymas, and at once every kubeconfig forced, while the modules install.
    await Promise.all(
      names.map((name) =>
        kcp.create({
          apiVersion: Kyma.apiVersion,
          kind: Kyma.kind,
          metadata: { name, namespace: NS, labels: { [Labels.KymaName]: name, 'kyma-project.io/runtime-id': name } },
          spec: { channel: 'regular', modules: MODULES.map((m) => ({ name: m })) },
        }),
      ),
    );
    const installing = RUNTIMES - informers.Kyma.store.list().filter((k) => k.status?.state === 'Ready').length;
    await Promise.all(names.map((name) => kcp.patch(GardenerCluster, { namespace: NS, name }, 'merge', { metadata: { annotations: { [AnnotationForceKubeconfigRotation]: 'true' } } })));
    assert.ok(installing > 0, 'the rotation was forced while Kymas were still installing their modules');

    await waitFor('every kubeconfig rotated', async () => (await Promise.all(names.map(async (n) => (await shaOf(n)) !== before.get(n)))).every(Boolean), 120_000);
    const readyManifests = () => informers.Manifest.store.list().filter((m) => m.status?.state === 'Ready').length;
    t.diagnostic(`when the rotation was forced ${installing}/${RUNTIMES} Kymas were installing; once every kubeconfig was replaced ${readyManifests()}/${RUNTIMES * MODULES.length} Manifests were Ready`);
    await waitFor(`${RUNTIMES} Kymas with ${MODULES.length} modules Ready`, () => {
      const ready = informers.Kyma.store.list().filter((k) => k.status?.state === 'Ready' && (k.status.modules ?? []).filter((m) => m.state === 'Ready').length === MODULES.length);
      return ready.length === RUNTIMES;
    }, 180_000);
    await waitFor('every force annotation removed', () => informers.GardenerCluster.store.list().every((gc) => gc.metadata.annotations?.[AnnotationForceKubeconfigRotation] === undefined), 60_000);

    assert.deepEqual([...seenErrors], [], 'no status showed an error at any time');
    assert.equal(informers.Manifest.store.list().filter((m) => m.status?.state === 'Ready').length, RUNTIMES * MODULES.length);
    assert.ok(informers.Runtime.store.list().every((r) => r.status?.state === 'Ready'));
    assert.ok(statusesSeen > RUNTIMES * (MODULES.length + 3), `statuses were watched throughout (${statusesSeen} seen)`);
  });
});
