// Provisioning scenarios of the Runtime controller on the embedded landscape.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RuntimeFinalizer } from '../../src/api/infrastructuremanager/index.js';
import { condition, type Harness, NAMESPACE, startHarness, testRuntime, waitFor, waitForRuntime } from './runtime-harness.js';

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
