// Parity with upstream's Runtime state machine tests (kyma-project/infrastructure-manager,
// internal/controller/runtime/fsm/*_test.go) where this project had no scenario following them:
// Gardener refusing the Shoot patch (TestFSMPatchShoot), mandatory audit logging (TestFSMPatchShoot,
// sFnCreateShoot) and the seed check before the Shoot is created (sFnCreateShoot). Each runs on the
// embedded landscape; the Gardener simulator refuses updates on request
// (`simulator.example/refuse-spec-updates`).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Shoot } from '../../../src/api/gardener/index.js';
import type { RuntimeObject } from '../../../src/api/infrastructuremanager/index.js';
import { ShootRuntimeGenerationAnnotation } from '../../../src/infrastructure/converter/index.js';
import { AnnotationRefuseSpecUpdates } from '../../../src/landscape/constants.js';
import { condition, converterConfig, type Harness, NAMESPACE, startHarness, testRuntime, waitFor, waitForRuntime } from '../../infrastructure/runtime-harness.js';

async function eventNotes(h: Harness, name: string, reason: string): Promise<string[]> {
  const { items } = await h.land.kcp.list({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: NAMESPACE });
  return items.filter((e) => (e.regarding as { name?: string } | undefined)?.name === name && e.reason === reason).map((e) => String(e.note));
}

async function annotateShoot(h: Harness, shootName: string, annotations: Record<string, string | null>): Promise<void> {
  await h.land.garden.patch(Shoot, { namespace: h.land.projectNamespace, name: shootName }, 'merge', { metadata: { annotations } });
}

/** The value of `im_runtime_fsm_stop_total{reason}` (0 when the series does not exist yet). */
function fsmStops(h: Harness, reason: string): number {
  const m = new RegExp(`^im_runtime_fsm_stop_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(h.registry.render());
  return m ? Number(m[1]) : 0;
}

/** The Provisioned condition without its timestamps, to compare by value. */
function provisioned(rt: RuntimeObject | undefined): { status: string; reason: string; message: string } | undefined {
  const c = condition(rt, 'Provisioned');
  return c ? { status: c.status, reason: c.reason, message: c.message } : undefined;
}

describe('TestFSMPatchShoot: Gardener refusing the Shoot patch', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.stop();
  });

  /** A Ready Runtime whose Shoot refuses spec updates with `code`, then edited so that the Shoot must be patched. */
  async function readyRuntimeRefusingUpdates(id: string, code: number, change: (rt: RuntimeObject) => void, create?: (rt: RuntimeObject) => void): Promise<RuntimeObject> {
    await h.land.kcp.create(testRuntime(id, create));
    await waitForRuntime(h, id, 'Ready');
    await annotateShoot(h, `c-${id}`, { [AnnotationRefuseSpecUpdates]: String(code) });
    return h.edit(id, change);
  }

  for (const [code, what] of [
    [409, 'conflict'],
    [403, 'forbidden'],
  ] as const) {
    const upstream = what === 'conflict' ? 'inConflict' : 'forbidden';
    it(`should transition to Pending Unknown when cannot execute Patch shoot with ${upstream} error: Pending while refused, patched once Gardener accepts`, async () => {
      const id = `rt-patch-${code}`;
      const edited = await readyRuntimeRefusingUpdates(id, code, (rt) => {
        rt.spec.shoot.provider.workers[0].maximum = 5;
      });
      const pending = await waitForRuntime(h, id, 'Pending', (rt) => condition(rt, 'Provisioned')?.message === `Shoot is pending for update after ${what} error`);
      assert.deepEqual(provisioned(pending), { status: 'Unknown', reason: 'Processing', message: `Shoot is pending for update after ${what} error` });
      // The condition change is an Event, as every one; the Shoot keeps its old spec meanwhile.
      await waitFor('an Event with the Pending condition', async () => (await eventNotes(h, id, 'Processing')).includes(`Provisioned Unknown: Shoot is pending for update after ${what} error`));
      const shoot = await h.shoot(`c-${id}`);
      assert.equal(shoot?.spec.provider.workers?.[0]?.maximum, 3);
      // Gardener accepts again: the next retry patches the Shoot and the Runtime gets Ready.
      await annotateShoot(h, `c-${id}`, { [AnnotationRefuseSpecUpdates]: null });
      const ready = await waitForRuntime(h, id, 'Ready', (rt) => condition(rt, 'Provisioned')?.reason === 'ConfigurationCompleted' && rt.status?.shootLastOperation?.type === 'Reconcile');
      assert.equal(ready.status?.state, 'Ready');
      const patched = await h.shoot(`c-${id}`);
      assert.equal(patched?.spec.provider.workers?.[0]?.maximum, 5);
      assert.equal(patched?.metadata.annotations?.[ShootRuntimeGenerationAnnotation], String(edited.metadata.generation));
    });
  }

  it('should transition to Failed state when cannot execute Patch shoot with any other error: Failed, ProcessingErr, no retry', async () => {
    const id = 'rt-patch-401';
    const stopsBefore = fsmStops(h, 'ProcessingErr');
    await readyRuntimeRefusingUpdates(id, 401, (rt) => {
      rt.spec.shoot.provider.workers[0].maximum = 5;
    });
    const failed = await waitForRuntime(h, id, 'Failed');
    const c = provisioned(failed);
    assert.equal(c?.status, 'False');
    assert.equal(c?.reason, 'ProcessingErr');
    assert.match(c?.message ?? '', /^Gardener API shoot patch error: .*update refused on request \(simulator\.example\/refuse-spec-updates: 401 Unauthorized\)$/);
    assert.ok(fsmStops(h, 'ProcessingErr') > stopsBefore);
    // No retry of its own: a look an earlier pass asked for (at most gardenerRequeueMs, 300 ms,
    // away) may still come and be refused again, but then the count stays (a retry loop would
    // keep it rising) and the Runtime stays Failed.
    let last = -1;
    await waitFor('the stop count stays the same for a second', async () => {
      const now = fsmStops(h, 'ProcessingErr');
      if (now !== last) {
        last = now;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        return fsmStops(h, 'ProcessingErr') === now;
      }
      return true;
    });
    assert.ok(last - stopsBefore <= 3, `fsm stops: ${last - stopsBefore}`);
    assert.equal((await h.runtime(id))?.status?.state, 'Failed');
    assert.equal((await h.shoot(`c-${id}`))?.spec.provider.workers?.[0]?.maximum, 3);
  });

  // Upstream's "Update shoot" calls replace the worker pools; here the guarded JSON patch that
  // removes the pools the Runtime dropped is that call.
  const twoPools = (rt: RuntimeObject) => {
    rt.spec.shoot.provider.additionalWorkers = [{ name: 'extra', machine: { type: 'm6i.large' }, minimum: 1, maximum: 2, maxSurge: 1, maxUnavailable: 0, zones: ['eu-central-1a'] }];
  };
  const dropPool = (rt: RuntimeObject) => {
    delete rt.spec.shoot.provider.additionalWorkers;
  };

  it('should transition to Pending Unknown when cannot execute Update shoot with inConflict error: removing a worker pool waits and then goes through', async () => {
    const id = 'rt-upd-409';
    await readyRuntimeRefusingUpdates(id, 409, dropPool, twoPools);
    await waitForRuntime(h, id, 'Pending', (rt) => condition(rt, 'Provisioned')?.message === 'Shoot is pending for update after conflict error');
    assert.deepEqual((await h.shoot(`c-${id}`))?.spec.provider.workers?.map((w) => w.name), ['cpu-worker-0', 'extra']);
    await annotateShoot(h, `c-${id}`, { [AnnotationRefuseSpecUpdates]: null });
    await waitForRuntime(h, id, 'Ready', (rt) => condition(rt, 'Provisioned')?.reason === 'ConfigurationCompleted');
    assert.deepEqual((await h.shoot(`c-${id}`))?.spec.provider.workers?.map((w) => w.name), ['cpu-worker-0']);
  });

  it('should transition to Pending Unknown when cannot execute Update shoot with forbidden error', async () => {
    const id = 'rt-upd-403';
    await readyRuntimeRefusingUpdates(id, 403, dropPool, twoPools);
    const pending = await waitForRuntime(h, id, 'Pending', (rt) => condition(rt, 'Provisioned')?.message === 'Shoot is pending for update after forbidden error');
    assert.deepEqual(provisioned(pending), { status: 'Unknown', reason: 'Processing', message: 'Shoot is pending for update after forbidden error' });
    await annotateShoot(h, `c-${id}`, { [AnnotationRefuseSpecUpdates]: null });
    await waitForRuntime(h, id, 'Ready', (rt) => condition(rt, 'Provisioned')?.reason === 'ConfigurationCompleted');
  });

  it('should transition to Failed state when cannot execute Update shoot with any other error', async () => {
    const id = 'rt-upd-401';
    await readyRuntimeRefusingUpdates(id, 401, dropPool, twoPools);
    const failed = await waitForRuntime(h, id, 'Failed');
    assert.equal(provisioned(failed)?.reason, 'ProcessingErr');
    assert.match(provisioned(failed)?.message ?? '', /^Gardener API shoot update error: /);
    assert.deepEqual((await h.shoot(`c-${id}`))?.spec.provider.workers?.map((w) => w.name), ['cpu-worker-0', 'extra']);
  });
});

describe('TestFSMPatchShoot and sFnCreateShoot: mandatory audit logging', () => {
  let h: Harness;
  const withTenant = () => {
    const cfg = converterConfig();
    cfg.auditLogging = {
      policyConfigMapName: 'audit-policy',
      tenants: { aws: { 'eu-central-1': { tenantID: 'test-tenant', serviceURL: 'https://auditlog.example.com:3001', secretName: 'auditlog-secret' } } },
    };
    return cfg;
  };
  before(async () => {
    h = await startHarness({ converterConfig: withTenant() }, { auditLogMandatory: true });
  });
  after(async () => {
    await h.stop();
  });

  it('should transition to Pending Unknown state after successful patching when Audit Logs are mandatory and Audit Log Config can be read', async () => {
    const id = 'rt-audit-ok';
    await h.land.kcp.create(testRuntime(id));
    await waitForRuntime(h, id, 'Ready');
    const created = await h.shoot(`c-${id}`);
    assert.deepEqual(
      created?.spec.extensions?.find((e) => e.type === 'shoot-auditlog-service')?.providerConfig,
      { apiVersion: 'service.auditlog.extensions.gardener.cloud/v1alpha1', kind: 'AuditlogConfig', type: 'standard', tenantID: 'test-tenant', serviceURL: 'https://auditlog.example.com:3001', secretReferenceName: 'auditlog-credentials' },
    );
    await h.edit(id, (rt) => {
      rt.spec.shoot.provider.workers[0].maximum = 4;
    });
    await waitFor('an Event with the Pending condition after the patch', async () => (await eventNotes(h, id, 'Processing')).includes('Provisioned Unknown: Shoot is pending for update after patch'));
    await waitForRuntime(h, id, 'Ready', (rt) => condition(rt, 'Provisioned')?.reason === 'ConfigurationCompleted');
    assert.equal((await h.shoot(`c-${id}`))?.spec.provider.workers?.[0]?.maximum, 4);
  });

  it('should transition to Failed state when Audit Logs are mandatory and Audit Log Config cannot be read (creation): no Shoot', async () => {
    const id = 'rt-audit-create';
    const stopsBefore = fsmStops(h, 'AuditLogErr');
    // No tenant for aws in eu-west-1.
    await h.land.kcp.create(
      testRuntime(id, (rt) => {
        rt.spec.shoot.region = 'eu-west-1';
        rt.spec.shoot.provider.workers[0].zones = ['eu-west-1a'];
      }),
    );
    const failed = await waitForRuntime(h, id, 'Failed');
    assert.deepEqual(provisioned(failed), { status: 'False', reason: 'AuditLogErr', message: 'Failed to configure audit logs: no audit log tenant configured for aws in eu-west-1' });
    // Counted per reconciliation that ends on it (a Runtime without a Shoot is looked at again on its next event).
    assert.ok(fsmStops(h, 'AuditLogErr') > stopsBefore);
    assert.equal(await h.shoot(`c-${id}`), undefined);
  });

  it('should transition to Failed state when Audit Logs are mandatory and Audit Log Config cannot be read (patch): the Shoot is not patched', async () => {
    const id = 'rt-audit-patch';
    await h.land.kcp.create(testRuntime(id));
    await waitForRuntime(h, id, 'Ready');
    const before = await h.shoot(`c-${id}`);
    // The manager restarts with a configuration that has no audit logging section at all.
    await h.stopManager();
    const cfg = converterConfig();
    delete cfg.auditLogging;
    h.converterConfig = cfg;
    await h.startManager();
    try {
      await h.edit(id, (rt) => {
        rt.spec.shoot.provider.workers[0].maximum = 4;
      });
      const failed = await waitForRuntime(h, id, 'Failed');
      assert.deepEqual(provisioned(failed), { status: 'False', reason: 'AuditLogErr', message: 'Failed to configure audit logs: the converter configuration has no auditLogging section' });
      const after = await h.shoot(`c-${id}`);
      assert.equal(after?.metadata.generation, before?.metadata.generation);
      assert.equal(after?.spec.provider.workers?.[0]?.maximum, 3);
    } finally {
      await h.stopManager();
      h.converterConfig = withTenant();
      await h.startManager();
    }
  });
});

describe('sFnCreateShoot: a seed in the region before the Shoot is created (enforceSeedLocation)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.stop();
  });

  const enforce = (region: string) => (rt: RuntimeObject) => {
    rt.spec.shoot.enforceSeedLocation = true;
    rt.spec.shoot.region = region;
    rt.spec.shoot.provider.workers[0].zones = [`${region}a`];
  };

  it('Should successfully create new Shoot when a seed is available in the region: the Shoot selects seeds of the region', async () => {
    const id = 'rt-seed-ok';
    await h.land.kcp.create(testRuntime(id, enforce('eu-central-1')));
    await waitForRuntime(h, id, 'Ready');
    assert.deepEqual((await h.shoot(`c-${id}`))?.spec.seedSelector, { matchLabels: { 'seed.gardener.cloud/region': 'eu-central-1' } });
  });

  it('Should fail with SeedNotFound when no seed is available in the region: no Shoot, the regions with seeds named', async () => {
    const id = 'rt-seed-missing';
    const stopsBefore = fsmStops(h, 'SeedNotFound');
    await h.land.kcp.create(testRuntime(id, enforce('ap-southeast-1')));
    const failed = await waitForRuntime(h, id, 'Failed');
    assert.deepEqual(provisioned(failed), {
      status: 'False',
      reason: 'SeedNotFound',
      message: 'Cannot find an available seed for the region ap-southeast-1. The following regions have seeds ready: [eu-central-1, eu-west-1, us-east-1].',
    });
    // Counted per reconciliation that ends on it (a Runtime without a Shoot is looked at again on its next event).
    assert.ok(fsmStops(h, 'SeedNotFound') > stopsBefore);
    assert.equal(await h.shoot(`c-${id}`), undefined);
  });
});
