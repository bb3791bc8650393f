// Provisioning scenarios of the Runtime controller on the embedded landscape.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RuntimeFinalizer } from '../../src/api/infrastructuremanager/index.js';
import { condition, fastTiming, type Harness, NAMESPACE, startHarness, testRuntime, waitFor, waitForRuntime } from './runtime-harness.js';

describe('runtime provisioning', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.stop();
  });

  it('a new Runtime becomes Ready with its Shoot created, a kubeconfig Secret and the cluster prepared', async () => {
    await h.land.kcp.create(testRuntime('rt-provision'));
    const rt = await waitForRuntime(h, 'rt-provision', 'Ready');
    assert.deepEqual(rt.metadata.finalizers, [RuntimeFinalizer]);
    assert.equal(rt.status?.provisioningCompleted, true);
    assert.equal(condition(rt, 'Provisioned')?.status, 'True');
    assert.equal(condition(rt, 'KubeconfigReady')?.reason, 'GardenerClusterCRReady');
    assert.equal(condition(rt, 'Configured')?.reason, 'AdministratorsConfigured');
    const shoot = await h.shoot('c-rt-provision');
    assert.ok(shoot, 'the shoot exists');
    assert.ok(shoot.metadata.managedFields?.some((f) => (f as { manager?: string }).manager === 'kim'), 'the shoot is applied by field manager kim');
    const secret = await h.land.kcp.get({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NAMESPACE, name: 'kubeconfig-rt-provision' });
    assert.ok(secret);
    const remote = h.land.shootClient('c-rt-provision');
    await remote.get({ apiVersion: 'v1', kind: 'Namespace' }, { name: 'kyma-system' });
    await waitFor('an Event for each condition change', async () => {
      const { items } = await h.land.kcp.list({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: NAMESPACE });
      const reasons = new Set(items.filter((e) => (e.regarding as { name?: string } | undefined)?.name === 'rt-provision').map((e) => e.reason as string));
      return ['Initialised', 'Pending', 'ShootCreationCompleted', 'GardenerClusterCRCreated', 'GardenerClusterCRReady', 'AdministratorsConfigured'].every((r) => reasons.has(r));
    });
    assert.match(h.registry.render(), /im_runtime_state\{runtimeId="rt-provision",runtimeName="rt-provision",shootName="c-rt-provision",state="Ready"\} 1/);
  });
});

describe('runtime provisioning, woken by the Shoot', () => {
  let h: Harness;
  before(async () => {
    // Gardener reports its progress 20 times while it creates the Shoot; the Runtime's own poll is an hour away.
    h = await startHarness({ simulator: { pendingMs: 100, createMs: 2_000, progressSteps: 20 } }, { runtimeTiming: { ...fastTiming, shootCreateRequeueMs: 3_600_000 } });
  });
  after(async () => {
    await h.stop();
  });

  it('Gardener\'s progress reports do not reconcile the Runtime; the operation\'s state changes do', async () => {
    const controller = h.im.manager.getControllers().find((c) => c.name === 'runtime');
    assert.ok(controller, 'the runtime controller');
    let passes = 0;
    controller.onReconcileStart = (key) => {
      if (key === `${NAMESPACE}/rt-woken`) passes++;
    };
    let progressWrites = 0;
    const progress = new Set<number>();
    const watch = setInterval(() => {
      h.shoot('c-rt-woken')
        .then((s) => {
          const p = s?.status?.lastOperation?.progress;
          if (p !== undefined && !progress.has(p)) {
            progress.add(p);
            progressWrites++;
          }
        })
        .catch(() => undefined);
    }, 20);
    try {
      await h.land.kcp.create(testRuntime('rt-woken'));
      await waitForRuntime(h, 'rt-woken', 'Ready');
    } finally {
      clearInterval(watch);
    }
    assert.ok(progressWrites >= 10, `Gardener reported its progress step by step: ${[...progress].sort((a, b) => a - b).join(', ')}`);
    // Created, Shoot created, Pending, Processing, Succeeded, then the kubeconfig and the cluster's
    // configuration: about ten passes, however often Gardener reports its progress.
    assert.ok(passes <= 12, `Runtime passes from creation to Ready: ${passes}`);
  });
});
