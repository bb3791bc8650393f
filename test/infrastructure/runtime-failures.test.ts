// Failure paths of the Runtime controller: Gardener errors it waits out, Gardener errors that fail
// the Runtime until it is fixed, and Runtimes that cannot be converted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Shoot } from '../../src/api/gardener/index.js';
import { Runtime } from '../../src/api/infrastructuremanager/index.js';
import { RUNTIME_CONTROLLER_NAME } from '../../src/infrastructure/runtime/controller.js';
import { AnnotationFailWith } from '../../src/landscape/index.js';
import { countReconciles } from '../support/metrics.js';
import { condition, type Harness, NAMESPACE, startHarness, testRuntime, waitFor, waitForRuntime } from './runtime-harness.js';

describe('runtime failures', () => {
  let h: Harness;
  before(async () => {
    // A slower Create leaves time to inject a failure into the Shoot before it passes half-way.
    h = await startHarness({ simulator: { createMs: 2_000, recoverAfterMs: 1_000 } });
  });
  after(async () => {
    await h.stop();
  });

  async function injectFailure(shootName: string, code: string | null): Promise<void> {
    await waitFor(`shoot ${shootName} exists`, () => h.shoot(shootName));
    await h.land.garden.patch(Shoot, { namespace: h.land.projectNamespace, name: shootName }, 'merge', { metadata: { annotations: { [AnnotationFailWith]: code } } });
  }

  it('a retryable Gardener error keeps the Runtime Pending until Gardener recovers, then it is Ready', async () => {
    await h.land.kcp.create(testRuntime('rt-retry'));
    await injectFailure('c-rt-retry', 'ERR_INFRA_RESOURCES_DEPLETED');
    const pending = await waitForRuntime(h, 'rt-retry', 'Pending', (rt) => /ERR_INFRA_RESOURCES_DEPLETED/.test(condition(rt, 'Provisioned')?.message ?? ''));
    assert.equal(condition(pending, 'Provisioned')?.status, 'Unknown');
    const ready = await waitForRuntime(h, 'rt-retry', 'Ready');
    assert.equal(condition(ready, 'Provisioned')?.reason, 'ShootCreationCompleted');
  });

  it('a non-retryable Gardener error fails the Runtime with the error in the condition; fixing and editing the Runtime recovers it', async () => {
    await h.land.kcp.create(testRuntime('rt-final'));
    await injectFailure('c-rt-final', 'ERR_INFRA_UNAUTHORIZED');
    const failed = await waitForRuntime(h, 'rt-final', 'Failed');
    const provisioned = condition(failed, 'Provisioned');
    assert.equal(provisioned?.status, 'False');
    assert.equal(provisioned?.reason, 'CreationErr');
    assert.match(provisioned?.message ?? '', /ERR_INFRA_UNAUTHORIZED/);
    assert.deepEqual(failed.status?.shootLastErrors?.[0].codes, ['ERR_INFRA_UNAUTHORIZED']);

    // It stays Failed: nothing is retried until the Runtime's spec changes. Positive control: two
    // annotation changes (they pass the controller's predicates but are no new spec) make it
    // reconcile the Runtime; once the second reconcile has started, the first has completed, and
    // it left the Runtime Failed without touching the Shoot.
    const reconciles = countReconciles(h.im.manager);
    const key = `${NAMESPACE}/rt-final`;
    const shootBefore = await h.shoot('c-rt-final');
    const started = reconciles(RUNTIME_CONTROLLER_NAME, key);
    const poke = (n: number) => h.land.kcp.patch(Runtime, { namespace: NAMESPACE, name: 'rt-final' }, 'merge', { metadata: { annotations: { 'example.com/poke': String(n) } } });
    await poke(1);
    await waitFor('a reconcile after the first change', () => reconciles(RUNTIME_CONTROLLER_NAME, key) >= started + 1);
    await poke(2);
    await waitFor('a reconcile after the second change', () => reconciles(RUNTIME_CONTROLLER_NAME, key) >= started + 2);
    assert.equal((await h.runtime('rt-final'))?.status?.state, 'Failed');
    const shootAfter = await h.shoot('c-rt-final');
    assert.equal(shootAfter?.metadata.generation, shootBefore?.metadata.generation, 'the Shoot was not patched');
    assert.equal(shootAfter?.status?.lastOperation?.state, 'Failed', 'no new operation was started');

    // The credentials are fixed on the infrastructure side, and the Runtime is edited.
    await injectFailure('c-rt-final', null);
    await h.edit('rt-final', (rt) => {
      rt.spec.shoot.provider.workers[0].maximum = 4;
    });
    const ready = await waitForRuntime(h, 'rt-final', 'Ready');
    assert.equal(condition(ready, 'Provisioned')?.status, 'True');
    assert.equal((await h.shoot('c-rt-final'))?.spec.provider.workers?.[0].maximum, 4);
  });

  it('a Runtime without a required label fails with ConversionErr naming the label, and no Shoot is created', async () => {
    await h.land.kcp.create(
      testRuntime('rt-nolabel', (rt) => {
        delete rt.metadata.labels?.['kyma-project.io/subaccount-id'];
      }),
    );
    const failed = await waitForRuntime(h, 'rt-nolabel', 'Failed');
    assert.equal(condition(failed, 'Provisioned')?.reason, 'ConversionErr');
    assert.match(condition(failed, 'Provisioned')?.message ?? '', /metadata\.labels\[kyma-project\.io\/subaccount-id\]/);
    assert.equal(await h.shoot('c-rt-nolabel'), undefined);

    await h.edit('rt-nolabel', (rt) => {
      rt.metadata.labels = { ...rt.metadata.labels, 'kyma-project.io/subaccount-id': 'sa-1' };
    });
    await waitForRuntime(h, 'rt-nolabel', 'Ready');
  });

  it('overlapping networks and a zone outside the region fail with ConversionErr naming the fields', async () => {
    await h.land.kcp.create(
      testRuntime('rt-badnet', (rt) => {
        rt.spec.shoot.networking.services = '100.64.0.0/13';
        rt.spec.shoot.provider.workers[0].zones = ['eu-west-1a'];
      }),
    );
    const failed = await waitForRuntime(h, 'rt-badnet', 'Failed');
    const message = condition(failed, 'Provisioned')?.message ?? '';
    assert.equal(condition(failed, 'Provisioned')?.reason, 'ConversionErr');
    assert.match(message, /spec\.shoot\.networking\.services/);
    assert.match(message, /spec\.shoot\.provider\.workers\[0\]\.zones\[0\]/);
    assert.equal(await h.shoot('c-rt-badnet'), undefined);
    await h.land.kcp.delete(Runtime, { namespace: NAMESPACE, name: 'rt-badnet' });
    await waitFor('invalid runtime deleted', async () => (await h.runtime('rt-badnet')) === undefined);
  });
});
