// Deleting a runtime with both managers running: the Kyma goes before the cluster, so that the
// lifecycle manager removes what it installed while the cluster still answers, and neither waits for
// the other (a Kyma whose cluster cannot be reached waits until its kubeconfig Secret goes): the Kyma and the Runtime deleted together
// (`kcp runtime delete` without --wait), the Runtime deleted alone (kubectl), a Failed runtime that
// never had a cluster, and a Kyma whose deletion hangs (the Runtime waits at most a bound).
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { Shoot } from '../../src/api/gardener/index.js';
import { Runtime } from '../../src/api/infrastructuremanager/index.js';
import { Kyma, type KymaObject } from '../../src/api/operator/index.js';
import { AnnotationFailWith } from '../../src/landscape/index.js';
import { findObject } from '../../src/runtime/client/index.js';
import { RecordingLogger } from '../support/log.js';
import { gardenerClusterExists, type Harness, NAMESPACE, startHarness, testKyma, testRuntime, waitFor, waitForRuntime, fastTiming } from './runtime-harness.js';

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
const fastKymas = { lifecycleManager: true, kymaIntervals: { readyMs: 500, busyMs: 200, warningMs: 500, errorMs: 200 } };


async function eventsOf(h: Harness, name: string, reason: string): Promise<{ type: string; note: string }[]> {
  const { items } = await h.land.kcp.list({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: NAMESPACE });
  return items.filter((e) => (e.regarding as { name?: string } | undefined)?.name === name && e.reason === reason).map((e) => ({ type: String(e.type), note: String(e.note) }));
}

function kyma(h: Harness, name: string): Promise<KymaObject | undefined> {
  return findObject<KymaObject>(h.land.kcp, Kyma, { namespace: NAMESPACE, name });
}

async function readyRuntimeWithKyma(h: Harness, name: string): Promise<void> {
  await h.land.kcp.create(testRuntime(name));
  await h.land.kcp.create(testKyma(name));
  await waitForRuntime(h, name, 'Ready', () => true, 30_000);
  await waitFor(`Kyma ${name} Ready`, async () => (await kyma(h, name))?.status?.state === 'Ready', 30_000);
  // What the lifecycle manager put into the cluster, and takes out again on deletion.
  await h.land.shootClient(`c-${name}`).get(CRD, { name: 'kymas.operator.kyma-project.io' });
}

/** Waits until both are gone; reports and returns the time since `t0`. */
async function bothGone(h: Harness, t: TestContext, name: string, t0: number): Promise<number> {
  await waitFor(`Runtime and Kyma ${name} gone`, async () => (await h.runtime(name)) === undefined && (await kyma(h, name)) === undefined, 45_000);
  const ms = Math.round(performance.now() - t0);
  t.diagnostic(`${name}: ${ms} ms from delete to Runtime and Kyma gone`);
  return ms;
}

describe('runtime deletion with its Kyma', () => {
  let h: Harness;
  const log = new RecordingLogger();
  before(async () => {
    h = await startHarness({ logger: log }, fastKymas);
  });

  /** The lifecycle manager skipped the cluster's cleanup because the Runtime said it would never come back. */
  function skippedFor(kymaName: string): unknown[] {
    return log.matching('skipping its cleanup', { kyma: kymaName }).map((r) => r.fields.runtime);
  }
  after(async () => {
    await h.stop();
  });

  it('the Kyma and the Runtime deleted together: the Runtime waits for the Kyma, which cleans the cluster up, and both go', async (t) => {
    await readyRuntimeWithKyma(h, 'del-both');
    const t0 = performance.now();
    await h.land.kcp.delete(Kyma, { namespace: NAMESPACE, name: 'del-both' });
    await h.land.kcp.delete(Runtime, { namespace: NAMESPACE, name: 'del-both' });
    await bothGone(h, t, 'del-both', t0);
    await waitFor('the Deleted Event of the Kyma', async () => (await eventsOf(h, 'del-both', 'Deleted')).length > 0);
    assert.deepEqual(await eventsOf(h, 'del-both', 'Deleted'), [{ type: 'Normal', note: 'Kyma deleted' }], 'the cluster was cleaned up, not skipped');
    await waitFor('the Runtime said it waited for the Kyma', async () =>
      (await eventsOf(h, 'del-both', 'KymaDeletionPending')).some((e) => /^Deprovisioned Unknown: waiting for Kyma del-both to remove its modules from the cluster \(at most until .*\)$/.test(e.note)),
    );
    assert.equal(await h.shoot('c-del-both'), undefined);
    assert.equal(await gardenerClusterExists(h, 'del-both'), false);
  });

  it('the Runtime deleted alone (kubectl): its Kyma is deleted first, cleans the cluster up, and both go', async (t) => {
    await readyRuntimeWithKyma(h, 'del-rt');
    const t0 = performance.now();
    await h.land.kcp.delete(Runtime, { namespace: NAMESPACE, name: 'del-rt' });
    await bothGone(h, t, 'del-rt', t0);
    await waitFor('the Deleted Event of the Kyma', async () => (await eventsOf(h, 'del-rt', 'Deleted')).length > 0);
    assert.deepEqual(await eventsOf(h, 'del-rt', 'Deleted'), [{ type: 'Normal', note: 'Kyma deleted' }]);
    await waitFor('the DeletingKyma Event', async () => (await eventsOf(h, 'del-rt', 'DeletingKyma')).length === 1);
  });

  it('a Kyma of the same name with another runtime id is neither deleted nor waited for', async () => {
    await h.land.kcp.create(testRuntime('del-other'));
    await waitForRuntime(h, 'del-other', 'Ready', () => true, 30_000);
    const foreign = testKyma('del-other');
    foreign.metadata.labels = { ...foreign.metadata.labels, 'kyma-project.io/runtime-id': 'someone-else' };
    await h.land.kcp.create(foreign);
    await h.land.kcp.delete(Runtime, { namespace: NAMESPACE, name: 'del-other' });
    await waitFor('Runtime del-other gone', async () => (await h.runtime('del-other')) === undefined, 30_000);
    const left = await kyma(h, 'del-other');
    assert.ok(left, 'the Kyma is still there');
    assert.equal(left.metadata.deletionTimestamp, undefined);
    await h.land.kcp.delete(Kyma, { namespace: NAMESPACE, name: 'del-other' });
    await waitFor('Kyma del-other gone', async () => (await kyma(h, 'del-other')) === undefined, 30_000);
  });

  it('a Failed runtime that never had a cluster: the Kyma and the Runtime deleted together go without waiting for the cluster', async (t) => {
    await h.land.kcp.create(testRuntime('del-failed'));
    await h.land.kcp.create(testKyma('del-failed'));
    await waitFor('shoot c-del-failed exists', () => h.shoot('c-del-failed'));
    await h.land.garden.patch(Shoot, { namespace: h.land.projectNamespace, name: 'c-del-failed' }, 'merge', { metadata: { annotations: { [AnnotationFailWith]: 'ERR_INFRA_UNAUTHORIZED' } } });
    await waitForRuntime(h, 'del-failed', 'Failed');
    await waitFor('Kyma del-failed waits for its kubeconfig', async () => /waiting for the runtime's kubeconfig/.test((await kyma(h, 'del-failed'))?.status?.lastOperation?.operation ?? ''));
    const t0 = performance.now();
    await h.land.kcp.delete(Kyma, { namespace: NAMESPACE, name: 'del-failed' });
    await h.land.kcp.delete(Runtime, { namespace: NAMESPACE, name: 'del-failed' });
    await bothGone(h, t, 'del-failed', t0);
    await waitFor('the Deleted Event of the Kyma', async () => (await eventsOf(h, 'del-failed', 'Deleted')).length > 0);
    assert.deepEqual(await eventsOf(h, 'del-failed', 'Deleted'), [{ type: 'Warning', note: 'Kyma deleted; the runtime was unreachable, its cleanup was skipped' }]);
    // Skipped because the Runtime is going, not because a bound ran out.
    assert.deepEqual(skippedFor('del-failed'), ['its Runtime is being deleted']);
  });

  it('the Kyma of a Failed runtime that never had a cluster, deleted alone, goes without waiting', async (t) => {
    await h.land.kcp.create(testRuntime('del-failed-k'));
    await h.land.kcp.create(testKyma('del-failed-k'));
    await waitFor('shoot c-del-failed-k exists', () => h.shoot('c-del-failed-k'));
    await h.land.garden.patch(Shoot, { namespace: h.land.projectNamespace, name: 'c-del-failed-k' }, 'merge', { metadata: { annotations: { [AnnotationFailWith]: 'ERR_INFRA_UNAUTHORIZED' } } });
    await waitForRuntime(h, 'del-failed-k', 'Failed');
    const t0 = performance.now();
    await h.land.kcp.delete(Kyma, { namespace: NAMESPACE, name: 'del-failed-k' });
    await waitFor('Kyma del-failed-k gone', async () => (await kyma(h, 'del-failed-k')) === undefined, 45_000);
    t.diagnostic(`del-failed-k: ${Math.round(performance.now() - t0)} ms from delete to Kyma gone`);
    assert.equal((await h.runtime('del-failed-k'))?.status?.state, 'Failed', 'the Runtime is left alone');
    assert.deepEqual(skippedFor('del-failed-k'), ['its Runtime failed before it had a cluster']);
  });
});

describe('runtime deletion with a Kyma whose deletion hangs', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({}, { ...fastKymas, runtimeTiming: { ...fastTiming, kymaDeletionTimeoutMs: 2_000 } });
  });
  after(async () => {
    await h.stop();
  });

  it('the Runtime waits for the Kyma at most the bound, then deletes the cluster anyway', async () => {
    await readyRuntimeWithKyma(h, 'del-hang');
    // Someone else's finalizer keeps the Kyma after the lifecycle manager is done with it.
    await h.land.kcp.patch(Kyma, { namespace: NAMESPACE, name: 'del-hang' }, 'merge', { metadata: { finalizers: [...((await kyma(h, 'del-hang'))?.metadata.finalizers ?? []), 'example.com/hold'] } });
    await h.land.kcp.delete(Runtime, { namespace: NAMESPACE, name: 'del-hang' });
    await waitForRuntime(h, 'del-hang', 'Terminating', (rt) => rt.status?.conditions?.some((c) => c.reason === 'KymaDeletionPending') ?? false);
    assert.ok(await gardenerClusterExists(h, 'del-hang'), 'the kubeconfig stays while the Runtime waits');
    await waitFor('Runtime del-hang gone', async () => (await h.runtime('del-hang')) === undefined, 30_000);
    const k = await kyma(h, 'del-hang');
    assert.ok(k?.metadata.deletionTimestamp, 'the Kyma is still being deleted');
    assert.deepEqual(k.metadata.finalizers, ['example.com/hold'], 'the lifecycle manager was done with it');
    await h.land.kcp.patch(Kyma, { namespace: NAMESPACE, name: 'del-hang' }, 'merge', { metadata: { finalizers: null } });
  });
});
