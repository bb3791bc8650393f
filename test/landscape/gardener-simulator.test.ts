// The Gardener simulator against the embedded API server, as the infrastructure manager sees it
// through the garden cluster's API: a Shoot's Create operation and its cluster, the adminkubeconfig
// subresource and its expiry, Reconcile after a spec change, deletion confirmation and the Delete
// operation, and Gardener's admission of invalid Shoots.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ADMIN_KUBECONFIG_REQUEST_KIND,
  type AdminKubeconfigRequest,
  adminKubeconfigPath,
  AnnotationConfirmationDeletion,
  AnnotationGardenerOperation,
  FinalizerGardener,
  LabelShootStatus,
  newAdminKubeconfigRequest,
  Shoot,
  ShootAPIServerAvailable,
  type ShootObject,
} from '../../src/api/gardener/index.js';
import { clientFromKubeconfig, isForbidden, isInvalid, isNotFound, isUnauthorized } from '../../src/runtime/client/index.js';
import { KubeClient } from '../conformance/http.js';
import { assertInOrder, type Landscape, startLandscape, testShoot, waitFor, followShoot } from '../support/landscape.js';

const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };

describe('Gardener simulator', () => {
  let l: Landscape;
  let gardenHttp: KubeClient;

  before(async () => {
    l = await startLandscape({ simulator: { maxAdminKubeconfigSeconds: 2 } });
    const access = l.server.clusterAccess('garden');
    gardenHttp = new KubeClient({ url: access.url, token: access.token, caPem: l.server.caPem });
  });
  after(async () => {
    gardenHttp.close();
    await l.stop();
  });

  const getShoot = (name: string) => l.garden.get<ShootObject>(Shoot, { namespace: l.projectNamespace, name });

  const follow = (name: string, until: Parameters<typeof followShoot>[2], seen: string[] = []) => followShoot(l, name, until, seen);

  async function createReadyShoot(name: string): Promise<ShootObject> {
    await l.garden.create(testShoot(name, l.projectNamespace));
    return follow(name, (op) => op?.type === 'Create' && op.state === 'Succeeded');
  }

  async function requestKubeconfig(name: string, seconds = 600): Promise<{ status: number; body: AdminKubeconfigRequest & { message?: string } }> {
    const r = await gardenHttp.request('POST', adminKubeconfigPath(l.projectNamespace, name), { body: JSON.stringify(newAdminKubeconfigRequest(seconds)) });
    return { status: r.status, body: JSON.parse(r.text) as AdminKubeconfigRequest & { message?: string } };
  }

  it('a new Shoot goes Pending -> Processing -> Succeeded and its cluster appears with the namespaces of a fresh cluster', async () => {
    await l.garden.create(testShoot('lifecycle', l.projectNamespace));
    const seen: string[] = [];
    const progress = new Set<number>();
    const done = await follow('lifecycle', (op) => {
      if (op?.state === 'Processing') progress.add(op.progress);
      return op?.state === 'Succeeded';
    }, seen);
    assertInOrder(seen, ['Create/Pending', 'Create/Processing', 'Create/Succeeded'], ['Create/Processing', 'Create/Succeeded']);
    assert.ok(progress.size >= 2, `progress moved through several values: ${[...progress].join(',')}`);
    assert.equal(done.status?.lastOperation?.progress, 100);
    assert.equal(done.status?.technicalID, 'shoot--kyma-dev--lifecycle');
    assert.match(done.status?.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(done.status?.observedGeneration, done.metadata.generation);
    assert.equal(done.status?.conditions?.find((c) => c.type === ShootAPIServerAvailable)?.status, 'True');
    assert.deepEqual(done.metadata.finalizers, [FinalizerGardener]);
    await waitFor('health label', async () => (await getShoot('lifecycle')).metadata.labels?.[LabelShootStatus] === 'healthy');
    assert.ok(l.server.hasCluster('shoot--kyma-dev--lifecycle'));
    const namespaces = await l.shootClient('lifecycle').list(NAMESPACE);
    assert.deepEqual(namespaces.items.map((n) => n.metadata.name).sort(), ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
  });

  it('adminkubeconfig is refused before the cluster exists, then hands out a kubeconfig whose token stops working at its expiry', async (t) => {
    await l.garden.create(testShoot('access', l.projectNamespace));
    const early = await requestKubeconfig('access');
    assert.equal(early.status, 422);
    assert.match(early.body.message ?? '', /no kube-apiserver advertised addresses/);
    await follow('access', (op) => op?.state === 'Succeeded');

    // The token's expiry is judged by Date.now() in the server: a mocked Date, on a whole second,
    // moves only when the test ticks it. Only around the token's life; the simulator keeps going.
    const now = Math.ceil(Date.now() / 1000) * 1000;
    t.mock.timers.enable({ apis: ['Date'], now });
    try {
      const granted = await requestKubeconfig('access', 3600);
      assert.equal(granted.status, 201);
      assert.equal(granted.body.kind, ADMIN_KUBECONFIG_REQUEST_KIND);
      assert.equal(granted.body.spec?.expirationSeconds, 2, 'the simulator grants at most maxAdminKubeconfigSeconds');
      const expiresAt = Date.parse(granted.body.status?.expirationTimestamp ?? '');
      assert.equal(expiresAt, now + 2_000, 'it expires the granted 2 s after it was issued');
      const kubeconfig = Buffer.from(granted.body.status?.kubeconfig ?? '', 'base64').toString('utf8');
      const shoot = clientFromKubeconfig(kubeconfig, { retries: 0 });
      try {
        const ns = await shoot.list(NAMESPACE);
        assert.ok(ns.items.some((n) => n.metadata.name === 'kube-system'));
        t.mock.timers.tick(1_999);
        assert.ok((await shoot.list(NAMESPACE)).items.length > 0, 'not refused before its expiry');
        t.mock.timers.tick(1);
        await assert.rejects(shoot.list(NAMESPACE), (err) => isUnauthorized(err), 'refused at its expiry');
      } finally {
        shoot.close();
      }
    } finally {
      t.mock.timers.reset();
    }

    const invalidRequest = await requestKubeconfig('access', 60);
    assert.equal(invalidRequest.status, 422);
    assert.match(invalidRequest.body.message ?? '', /spec\.expirationSeconds/);
    const missing = await requestKubeconfig('no-such-shoot');
    assert.equal(missing.status, 404);
  });

  it('a spec change runs a Reconcile operation that ends Succeeded with the new generation observed', async () => {
    const ready = await createReadyShoot('patched');
    const generation = ready.metadata.generation ?? 1;
    await l.garden.patch(Shoot, { namespace: l.projectNamespace, name: 'patched' }, 'merge', { spec: { kubernetes: { version: '1.32' } } });
    const seen: string[] = [];
    const done = await follow('patched', (op, s) => op?.type === 'Reconcile' && op.state === 'Succeeded' && s.status?.observedGeneration === generation + 1, seen);
    assert.ok(seen.includes('Reconcile/Processing'), `saw ${seen.join(' -> ')}`);
    assert.equal(done.metadata.generation, generation + 1);

    // gardener.cloud/operation=reconcile runs one more Reconcile without a spec change, and goes away.
    await l.garden.patch(Shoot, { namespace: l.projectNamespace, name: 'patched' }, 'merge', { metadata: { annotations: { [AnnotationGardenerOperation]: 'reconcile' } } });
    await follow('patched', (op) => op?.type === 'Reconcile' && op.state === 'Processing');
    const after = await follow('patched', (op, s) => op?.state === 'Succeeded' && !s.metadata.annotations?.[AnnotationGardenerOperation]);
    assert.equal(after.status?.lastOperation?.type, 'Reconcile');
  });

  it('deletion without the confirmation annotation is refused; with it the Delete operation removes the cluster and then the Shoot', async () => {
    await createReadyShoot('doomed');
    const cluster = 'shoot--kyma-dev--doomed';
    await assert.rejects(l.garden.delete(Shoot, { namespace: l.projectNamespace, name: 'doomed' }), (err: unknown) => {
      assert.ok(isForbidden(err), String(err));
      assert.match(String((err as Error).message), /confirmation\.gardener\.cloud\/deletion/);
      return true;
    });
    assert.equal((await getShoot('doomed')).metadata.deletionTimestamp, undefined);

    await l.garden.patch(Shoot, { namespace: l.projectNamespace, name: 'doomed' }, 'merge', { metadata: { annotations: { [AnnotationConfirmationDeletion]: 'true' } } });
    await l.garden.delete(Shoot, { namespace: l.projectNamespace, name: 'doomed' });
    const seen: string[] = [];
    await follow('doomed', (op) => op?.type === 'Delete' && op.state === 'Processing', seen);
    assert.ok(l.server.hasCluster(cluster), 'the cluster stays while the Delete operation runs');
    await waitFor('the Shoot to be gone', async () => {
      try {
        await getShoot('doomed');
        return false;
      } catch (err) {
        return isNotFound(err);
      }
    });
    assert.equal(l.server.hasCluster(cluster), false);
  });

  it('Shoots Gardener would reject are rejected at the API with messages naming the field', async () => {
    const cases: { name: string; edit: (s: ShootObject) => void; field: RegExp }[] = [
      { name: 'bad-provider', edit: (s) => (s.spec.provider.type = 'digitalocean'), field: /spec\.provider\.type: Unsupported value: "digitalocean"/ },
      { name: 'bad-zone', edit: (s) => (s.spec.provider.workers![0].zones = ['eu-central-1a', 'us-east-1a']), field: /spec\.provider\.workers\[0\]\.zones\[1\]: Unsupported value: "us-east-1a"/ },
      {
        name: 'overlap',
        edit: (s) => (s.spec.networking = { ...s.spec.networking, nodes: '100.64.0.0/16' }),
        field: /spec\.networking\.nodes: Invalid value: "100\.64\.0\.0\/16": must not overlap with spec\.networking\.pods/,
      },
      { name: 'min-max', edit: (s) => Object.assign(s.spec.provider.workers![0], { minimum: 3, maximum: 1 }), field: /spec\.provider\.workers\[0\]\.maximum/ },
    ];
    for (const c of cases) {
      await assert.rejects(l.garden.create(testShoot(c.name, l.projectNamespace, c.edit)), (err: unknown) => {
        assert.ok(isInvalid(err), `${c.name}: ${String(err)}`);
        assert.match(String((err as Error).message), c.field, c.name);
        return true;
      });
    }
    // Region and provider type are immutable.
    await createReadyShoot('immutable');
    await assert.rejects(
      l.garden.patch(Shoot, { namespace: l.projectNamespace, name: 'immutable' }, 'merge', { spec: { region: 'eu-west-1', provider: { workers: [{ name: 'cpu-worker-0', machine: { type: 'm6i.large' }, minimum: 1, maximum: 3, zones: ['eu-west-1a'] }] } } }),
      /spec\.region: Invalid value: "eu-west-1": field is immutable/,
    );
  });
});
