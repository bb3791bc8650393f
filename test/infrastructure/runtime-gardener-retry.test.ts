// Shoot operations Gardener gave up on (lastOperation Failed): errors worth waiting for are retried
// by the infrastructure manager itself after a backoff (Gardener does not retry a Failed operation),
// on creation and on an update; final errors fail the Runtime until a person asks for a retry with
// the Runtime annotation `infrastructuremanager.kyma-project.io/retry` (`kcp runtime retry`).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AnnotationGardenerOperation, Shoot } from '../../src/api/gardener/index.js';
import { AnnotationRetryRequested, Runtime } from '../../src/api/infrastructuremanager/index.js';
import { RUNTIME_CONTROLLER_NAME } from '../../src/infrastructure/runtime/controller.js';
import { AnnotationFailOperations, AnnotationFailRecover, AnnotationFailWith } from '../../src/landscape/index.js';
import { RecordingLogger } from '../support/log.js';
import { countReconciles } from '../support/metrics.js';
import { condition, type Harness, NAMESPACE, startHarness, testRuntime, waitFor, waitForRuntime } from './runtime-harness.js';

describe('runtime: shoot operations Gardener gave up on', () => {
  let h: Harness;
  const log = new RecordingLogger();
  before(async () => {
    // A slower Create leaves time to inject a failure into the Shoot before it passes half-way.
    h = await startHarness({ simulator: { createMs: 2_000 }, logger: log });
  });
  after(async () => {
    await h.stop();
  });

  async function annotateShoot(shootName: string, annotations: Record<string, string | null>): Promise<void> {
    await waitFor(`shoot ${shootName} exists`, () => h.shoot(shootName));
    await h.land.garden.patch(Shoot, { namespace: h.land.projectNamespace, name: shootName }, 'merge', { metadata: { annotations } });
  }

  async function eventNotes(name: string, reason: string): Promise<string[]> {
    const { items } = await h.land.kcp.list({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: NAMESPACE });
    return items.filter((e) => (e.regarding as { name?: string } | undefined)?.name === name && e.reason === reason).map((e) => String(e.note));
  }

  it('a creation Gardener gave up on with errors worth waiting for is retried by the manager, and the Runtime becomes Ready', async () => {
    await h.land.kcp.create(testRuntime('rt-giveup'));
    // Rate limits: Gardener's last operation goes to Failed and stays there (no recovery by itself).
    await annotateShoot('c-rt-giveup', { [AnnotationFailWith]: 'ERR_INFRA_RATE_LIMITS_EXCEEDED', [AnnotationFailRecover]: 'false' });
    const ready = await waitForRuntime(h, 'rt-giveup', 'Ready');
    assert.equal(condition(ready, 'Provisioned')?.reason, 'ShootCreationCompleted');
    // The Runtime said what went on while it was Pending (its condition changes are Events).
    await waitFor('an Event with the Pending condition saying Gardener gave up and a retry was requested', async () =>
      (await eventNotes('rt-giveup', 'Pending')).some((n) => /^Provisioned Unknown: Gardener gave up on the shoot creation \(ERR_INFRA_RATE_LIMITS_EXCEEDED: .*\); retry requested at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(n)),
    );
    const shoot = await h.shoot('c-rt-giveup');
    assert.equal(shoot?.metadata.annotations?.[AnnotationGardenerOperation], undefined, 'Gardener took the retry annotation');
    const warned = log.matching('retry requested', { shoot: 'c-rt-giveup' });
    assert.equal(warned.length, 1, 'one retry asked for');
    assert.equal(warned[0].level, 'warn');
    assert.equal(warned[0].fields.operation, 'Create');
  });

  it('an update Gardener gave up on with errors worth waiting for is retried, with a reconcile reason, and the Runtime becomes Ready', async () => {
    await h.land.kcp.create(testRuntime('rt-giveup-upd'));
    await waitForRuntime(h, 'rt-giveup-upd', 'Ready');
    await annotateShoot('c-rt-giveup-upd', { [AnnotationFailWith]: 'ERR_INFRA_QUOTA_EXCEEDED', [AnnotationFailOperations]: 'Reconcile' });
    await h.edit('rt-giveup-upd', (rt) => {
      rt.spec.shoot.provider.workers[0].maximum = 5;
    });
    const ready = await waitForRuntime(h, 'rt-giveup-upd', 'Ready', (rt) => condition(rt, 'Provisioned')?.reason === 'ConfigurationCompleted');
    assert.equal(condition(ready, 'Provisioned')?.reason, 'ConfigurationCompleted');
    assert.equal((await h.shoot('c-rt-giveup-upd'))?.spec.provider.workers?.[0].maximum, 5);
    // Reason Processing (an update is not a creation), message saying what happened.
    await waitFor('an Event with the Processing condition saying Gardener gave up and a retry was requested', async () =>
      (await eventNotes('rt-giveup-upd', 'Processing')).some((n) => /^Provisioned Unknown: Gardener gave up on the shoot reconciliation \(ERR_INFRA_QUOTA_EXCEEDED: .*\); retry requested at /.test(n)),
    );
    const warned = log.matching('retry requested', { shoot: 'c-rt-giveup-upd' });
    assert.equal(warned.length, 1);
    assert.equal(warned[0].fields.operation, 'Reconcile');
  });

  it('a final error fails the Runtime (logged as an error with the codes); a retry asked for on the Runtime after the cause is fixed makes it Ready', async () => {
    await h.land.kcp.create(testRuntime('rt-retry-ask'));
    await annotateShoot('c-rt-retry-ask', { [AnnotationFailWith]: 'ERR_INFRA_UNAUTHORIZED', [AnnotationFailRecover]: 'false' });
    const failed = await waitForRuntime(h, 'rt-retry-ask', 'Failed');
    assert.equal(condition(failed, 'Provisioned')?.reason, 'CreationErr');
    const logged = log.matching('shoot creation failed', { shoot: 'c-rt-retry-ask' });
    assert.equal(logged.length, 1);
    assert.equal(logged[0].level, 'error');
    assert.equal(logged[0].fields.codes, 'ERR_INFRA_UNAUTHORIZED');
    assert.equal(logged[0].fields.runtime, `${NAMESPACE}/rt-retry-ask`);

    // The operator fixes the cause (the injected failure goes), then asks for a retry.
    await annotateShoot('c-rt-retry-ask', { [AnnotationFailWith]: null, [AnnotationFailRecover]: null });
    const askedAt = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await h.land.kcp.patch(Runtime, { namespace: NAMESPACE, name: 'rt-retry-ask' }, 'merge', { metadata: { annotations: { [AnnotationRetryRequested]: askedAt } } });
    const ready = await waitForRuntime(h, 'rt-retry-ask', 'Ready');
    assert.equal(condition(ready, 'Provisioned')?.reason, 'ShootCreationCompleted');
    assert.equal(ready.metadata.annotations?.[AnnotationRetryRequested], undefined, 'the retry annotation is removed');
    const notes = await waitFor('the RetryRequested Event', async () => {
      const found = await eventNotes('rt-retry-ask', 'RetryRequested');
      return found.length > 0 ? found : undefined;
    });
    assert.equal(notes.length, 1);
    assert.match(notes[0], new RegExp(`^retry requested at ${askedAt}: asked Gardener to retry the shoot creation \\(it failed with ERR_INFRA_UNAUTHORIZED\\)$`));
    // The Runtime went back to Pending with a condition saying a person asked.
    await waitFor('an Event with the Pending condition saying a person asked for the retry', async () =>
      (await eventNotes('rt-retry-ask', 'Pending')).some((n) => n === `Provisioned Unknown: retry of the shoot creation requested at ${askedAt} by a person; waiting for Gardener`),
    );
  });

  it('a second retry can be asked for later: the Runtime fails again, and recovers again', async () => {
    // Same Runtime as above would need a new failure of the same Create; a reconcile failure serves.
    await h.land.kcp.create(testRuntime('rt-retry-twice'));
    await waitForRuntime(h, 'rt-retry-twice', 'Ready');
    await annotateShoot('c-rt-retry-twice', { [AnnotationFailWith]: 'ERR_CONFIGURATION_PROBLEM', [AnnotationFailOperations]: 'Reconcile', [AnnotationFailRecover]: 'false' });
    for (const [round, maximum] of [[1, 4], [2, 5]] as const) {
      await h.edit('rt-retry-twice', (rt) => {
        rt.spec.shoot.provider.workers[0].maximum = maximum;
      });
      const failed = await waitForRuntime(h, 'rt-retry-twice', 'Failed', (rt) => rt.status?.conditions?.find((c) => c.type === 'Provisioned')?.observedGeneration === rt.metadata.generation);
      assert.equal(condition(failed, 'Provisioned')?.reason, 'ProcessingErr', `round ${round}`);
      await h.land.kcp.patch(Runtime, { namespace: NAMESPACE, name: 'rt-retry-twice' }, 'merge', { metadata: { annotations: { [AnnotationRetryRequested]: new Date().toISOString() } } });
      const ready = await waitForRuntime(h, 'rt-retry-twice', 'Ready', (rt) => rt.metadata.annotations?.[AnnotationRetryRequested] === undefined);
      assert.equal(condition(ready, 'Provisioned')?.reason, 'ConfigurationCompleted', `round ${round}`);
      assert.equal((await h.shoot('c-rt-retry-twice'))?.spec.provider.workers?.[0].maximum, maximum);
    }
  });

  it('a retry asked for on a Runtime that is not Failed only removes the annotation, with an Event saying there is nothing to retry', async () => {
    await h.land.kcp.create(testRuntime('rt-retry-ready'));
    await waitForRuntime(h, 'rt-retry-ready', 'Ready');
    const reconciles = countReconciles(h.im.manager);
    const key = `${NAMESPACE}/rt-retry-ready`;
    const started = reconciles(RUNTIME_CONTROLLER_NAME, key);
    const shootBefore = await h.shoot('c-rt-retry-ready');
    await h.land.kcp.patch(Runtime, { namespace: NAMESPACE, name: 'rt-retry-ready' }, 'merge', { metadata: { annotations: { [AnnotationRetryRequested]: new Date().toISOString() } } });
    const rt = await waitFor('the annotation removed', async () => {
      const r = await h.runtime('rt-retry-ready');
      return r && r.metadata.annotations?.[AnnotationRetryRequested] === undefined ? r : undefined;
    });
    assert.ok(reconciles(RUNTIME_CONTROLLER_NAME, key) > started, 'the controller looked at the Runtime');
    assert.equal(rt.status?.state, 'Ready');
    const shootAfter = await h.shoot('c-rt-retry-ready');
    assert.equal(shootAfter?.metadata.annotations?.[AnnotationGardenerOperation], undefined);
    assert.equal(shootAfter?.metadata.generation, shootBefore?.metadata.generation);
    assert.equal(shootAfter?.status?.lastOperation?.lastUpdateTime, shootBefore?.status?.lastOperation?.lastUpdateTime, 'no operation started');
    await waitFor('an Event saying there is nothing to retry', async () => (await eventNotes('rt-retry-ready', 'NothingToRetry')).length === 1);
  });
});
