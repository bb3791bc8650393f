// Two Runtimes with one runtime id: the admission webhook refuses the second (create or relabel)
// with a message naming the first; when it is bypassed (down, or not configured), the controller
// blocks the later Runtime, which never gets a Shoot, a GardenerCluster or the kubeconfig, and
// deleting either one never removes what the other one holds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sleep } from '../../src/util/sleep.js';
import { GardenerCluster, type GardenerClusterObject, kubeconfigSecretName, Runtime, type RuntimeObject } from '../../src/api/infrastructuremanager/index.js';
import { RUNTIME_ADMISSION_CA_SECRET, RUNTIME_ID_WEBHOOK_NAME, runtimeAdmissionConfigurationName } from '../../src/controlplane/runtime-admission.js';
import type { KubeObject } from '../../src/kube/object.js';
import { findObject } from '../../src/runtime/client/index.js';

type SecretObject = KubeObject & { data?: Record<string, string> };
import { condition, type Harness, NAMESPACE, startHarness, testRuntime, waitFor, waitForRuntime } from './runtime-harness.js';

const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const VWC = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' };

/** A Runtime named `name` that carries runtime id `id` (its own Shoot name unless `shootOf` names another Runtime's). */
function runtimeWithId(name: string, id: string, shootOf = name): RuntimeObject {
  const own = testRuntime(shootOf);
  return testRuntime(name, (rt) => {
    rt.metadata.labels = { ...rt.metadata.labels, 'kyma-project.io/runtime-id': id, 'kyma-project.io/shoot-name': own.spec.shoot.name };
    rt.spec.shoot.name = own.spec.shoot.name;
  });
}

function gardenerCluster(h: Harness, id: string): Promise<GardenerClusterObject | undefined> {
  return findObject<GardenerClusterObject>(h.land.kcp, GardenerCluster, { namespace: NAMESPACE, name: id });
}

function blockedBy(holder: string): (rt: RuntimeObject) => boolean {
  return (rt) => {
    const c = condition(rt, 'Provisioned');
    return c?.reason === 'DuplicateRuntimeID' && c.status === 'False' && c.message.includes(`Runtime ${NAMESPACE}/${holder}`);
  };
}

describe('duplicate runtime id: the controller alone (no webhook)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.stop();
  });

  it('the later Runtime is blocked, gets nothing, and deleting it or the holder never removes the other\'s kubeconfig or Shoot', async () => {
    await h.land.kcp.create(runtimeWithId('dup-a', 'dup-id'));
    const a = await waitForRuntime(h, 'dup-a', 'Ready', () => true, 30_000);
    const secretBefore = await h.land.kcp.get<SecretObject>(SECRET, { namespace: NAMESPACE, name: kubeconfigSecretName('dup-id') });

    // Two later Runtimes with the same id: one with a Shoot of its own, one naming the holder's Shoot.
    await h.land.kcp.create(runtimeWithId('dup-b', 'dup-id'));
    await h.land.kcp.create(runtimeWithId('dup-c', 'dup-id', 'dup-a'));
    const b = await waitForRuntime(h, 'dup-b', 'Failed', blockedBy('dup-a'));
    await waitForRuntime(h, 'dup-c', 'Failed', blockedBy('dup-a'));
    assert.match(condition(b, 'Provisioned')?.message ?? '', /^runtime id dup-id is already used by Runtime kcp-system\/dup-a; this Runtime is not provisioned/);
    // The controller ran on both (their Failed status proves it): no Shoot of B's, the GardenerCluster still A's.
    assert.equal(await h.shoot(testRuntime('dup-b').spec.shoot.name), undefined);
    assert.equal((await gardenerCluster(h, 'dup-id'))?.spec.shoot.name, a.spec.shoot.name);
    assert.equal(condition(await h.runtime('dup-c'), 'Provisioned')?.reason, 'DuplicateRuntimeID');
    assert.equal((await h.runtime('dup-c'))?.status?.shootLastOperation, undefined, 'the holder\'s Shoot status is not shown on the blocked Runtime');

    // Deleting the blocked ones: both go; A's GardenerCluster, kubeconfig Secret and Shoot stay untouched.
    await h.land.kcp.delete(Runtime, { namespace: NAMESPACE, name: 'dup-b' });
    await h.land.kcp.delete(Runtime, { namespace: NAMESPACE, name: 'dup-c' });
    await waitFor('dup-b and dup-c gone', async () => (await h.runtime('dup-b')) === undefined && (await h.runtime('dup-c')) === undefined, 30_000);
    const shootA = await h.shoot(a.spec.shoot.name);
    assert.ok(shootA, 'the holder\'s Shoot is there');
    assert.equal(shootA.metadata.deletionTimestamp, undefined, 'and not being deleted');
    const cluster = await gardenerCluster(h, 'dup-id');
    assert.ok(cluster && cluster.metadata.deletionTimestamp === undefined, 'the holder\'s GardenerCluster is there');
    const secretAfter = await h.land.kcp.get<SecretObject>(SECRET, { namespace: NAMESPACE, name: kubeconfigSecretName('dup-id') });
    assert.equal(secretAfter.metadata.uid, secretBefore.metadata.uid);
    assert.deepEqual(secretAfter.data, secretBefore.data);
    assert.equal((await h.runtime('dup-a'))?.status?.state, 'Ready');

    // A later duplicate waits while the holder exists, and is provisioned once the holder is gone.
    await h.land.kcp.create(runtimeWithId('dup-d', 'dup-id'));
    await waitForRuntime(h, 'dup-d', 'Failed', blockedBy('dup-a'));
    await h.land.kcp.delete(Runtime, { namespace: NAMESPACE, name: 'dup-a' });
    await waitFor('dup-a gone', async () => (await h.runtime('dup-a')) === undefined, 30_000);
    const d = await waitForRuntime(h, 'dup-d', 'Ready', () => true, 30_000);
    assert.equal((await gardenerCluster(h, 'dup-id'))?.spec.shoot.name, d.spec.shoot.name, 'the GardenerCluster is now the new holder\'s');
    assert.ok(await h.shoot(d.spec.shoot.name));
  });
});

describe('duplicate runtime id: an older Runtime relabelled onto a provisioned one\'s id (no webhook)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.stop();
  });

  it('is blocked: the id stays with the Runtime its GardenerCluster was made for, whose kubeconfig and Shoot stay its own', async () => {
    await h.land.kcp.create(runtimeWithId('relabel-old', 'relabel-old-id'));
    await waitForRuntime(h, 'relabel-old', 'Ready', () => true, 30_000);
    // Created later (a later creationTimestamp second), provisioned with the id.
    await sleep(1100);
    await h.land.kcp.create(runtimeWithId('relabel-new', 'relabel-id'));
    const holder = await waitForRuntime(h, 'relabel-new', 'Ready', () => true, 30_000);
    const secretBefore = await h.land.kcp.get<SecretObject>(SECRET, { namespace: NAMESPACE, name: kubeconfigSecretName('relabel-id') });

    await h.edit('relabel-old', (rt) => (rt.metadata.labels = { ...rt.metadata.labels, 'kyma-project.io/runtime-id': 'relabel-id' }));
    await waitForRuntime(h, 'relabel-old', 'Failed', blockedBy('relabel-new'));
    assert.equal((await h.runtime('relabel-new'))?.status?.state, 'Ready');
    assert.equal((await gardenerCluster(h, 'relabel-id'))?.spec.shoot.name, holder.spec.shoot.name, 'the GardenerCluster still names the holder\'s Shoot');
    const secretAfter = await h.land.kcp.get<SecretObject>(SECRET, { namespace: NAMESPACE, name: kubeconfigSecretName('relabel-id') });
    assert.deepEqual([secretAfter.metadata.uid, secretAfter.data], [secretBefore.metadata.uid, secretBefore.data]);
  });
});

describe('duplicate runtime id: the admission webhook', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({}, { runtimeAdmission: { listen: { host: '127.0.0.1', port: 0 } } });
  });
  after(async () => {
    await h.stop();
  });

  it('is configured in the KCP with the CA the control plane keeps, failurePolicy Ignore', async () => {
    const vwc = await h.land.kcp.get<KubeObject & { webhooks: { name: string; failurePolicy: string; clientConfig: { url?: string; caBundle: string } }[] }>(VWC, { name: runtimeAdmissionConfigurationName(NAMESPACE) });
    assert.equal(vwc.webhooks.length, 1);
    assert.equal(vwc.webhooks[0].name, RUNTIME_ID_WEBHOOK_NAME);
    assert.equal(vwc.webhooks[0].failurePolicy, 'Ignore');
    assert.equal(vwc.webhooks[0].clientConfig.url, h.im.runtimeAdmission?.url);
    const ca = await h.land.kcp.get<SecretObject>(SECRET, { namespace: NAMESPACE, name: RUNTIME_ADMISSION_CA_SECRET });
    assert.equal(Buffer.from(vwc.webhooks[0].clientConfig.caBundle, 'base64').toString(), Buffer.from(ca.data?.['ca.crt'] ?? '', 'base64').toString());
  });

  it('refuses a second Runtime with the id, and a relabel onto it, naming the Runtime that has it; other updates pass', async () => {
    await h.land.kcp.create(runtimeWithId('adm-a', 'adm-id'));
    await h.land.kcp.create(runtimeWithId('adm-e', 'adm-e'));
    // Once the controller wrote a status, the webhook's cache (the controller's) has both.
    await waitForRuntime(h, 'adm-a', 'Ready', () => true, 30_000);
    await waitForRuntime(h, 'adm-e', 'Ready', () => true, 30_000);

    await assert.rejects(h.land.kcp.create(runtimeWithId('adm-b', 'adm-id')), (e: Error) => {
      assert.match(e.message, /admission webhook "runtime-id\.infrastructuremanager\.kyma-project\.io" denied the request: runtime id adm-id is already used by Runtime kcp-system\/adm-a/);
      return true;
    });
    assert.equal(await h.runtime('adm-b'), undefined);

    await assert.rejects(
      h.edit('adm-e', (rt) => {
        rt.metadata.labels = { ...rt.metadata.labels, 'kyma-project.io/runtime-id': 'adm-id' };
      }),
      /runtime id adm-id is already used by Runtime kcp-system\/adm-a/,
    );
    const edited = await h.edit('adm-e', (rt) => {
      rt.metadata.annotations = { ...rt.metadata.annotations, 'example.com/note': 'kept' };
    });
    assert.equal(edited.metadata.labels?.['kyma-project.io/runtime-id'], 'adm-e');
  });

  it('down, it lets the Runtime through (Ignore) and the controller blocks it once it runs again', async () => {
    await h.stopManager();
    await h.land.kcp.create(runtimeWithId('adm-c', 'adm-id'));
    await h.startManager();
    await waitForRuntime(h, 'adm-c', 'Failed', blockedBy('adm-a'));
    assert.equal(await h.shoot(testRuntime('adm-c').spec.shoot.name), undefined);
    assert.equal((await h.runtime('adm-a'))?.status?.state, 'Ready');
  });
});
