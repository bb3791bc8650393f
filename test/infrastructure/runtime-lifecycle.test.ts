// Deletion of a Runtime and a controller restart in the middle of provisioning.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Shoot, type ShootObject } from '../../src/api/gardener/index.js';
import { Runtime } from '../../src/api/infrastructuremanager/index.js';
import { ShootRuntimeIDAnnotation } from '../../src/infrastructure/converter/index.js';
import { isNotFound } from '../../src/runtime/client/errors.js';
import { gardenerClusterExists, type Harness, NAMESPACE, startHarness, testRuntime, waitFor, waitForRuntime } from './runtime-harness.js';

describe('runtime lifecycle', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ simulator: { createMs: 1_500 } });
  });
  after(async () => {
    await h.stop();
  });

  async function secretExists(name: string): Promise<boolean> {
    try {
      await h.land.kcp.get({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NAMESPACE, name });
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }

  it('deleting a Runtime leaves no Shoot, no kubeconfig Secret, no GardenerCluster and no cluster; it is Terminating meanwhile', async () => {
    await h.land.kcp.create(testRuntime('rt-delete'));
    await waitForRuntime(h, 'rt-delete', 'Ready');
    const clusterName = h.land.shootClusterName('c-rt-delete');
    assert.ok(h.land.server.hasCluster(clusterName));
    assert.ok(await secretExists('kubeconfig-rt-delete'));

    const metric = (name: string) => Number(new RegExp(`^${name}\\{controller="runtime"\\} (\\d+)`, 'm').exec(h.registry.render())?.[1] ?? 0);
    const errorsBefore = metric('controller_runtime_reconcile_errors_total');
    await h.land.kcp.delete(Runtime, { namespace: NAMESPACE, name: 'rt-delete' });
    await waitForRuntime(h, 'rt-delete', 'Terminating');
    await waitFor('runtime gone', async () => (await h.runtime('rt-delete')) === undefined, 20_000);
    // The pass that removed the finalizer is over (no worker busy) and wrote nothing after it: a
    // status write to the Runtime it just let go would fail and count as an error.
    await waitFor('the runtime controller idle', () => metric('controller_runtime_active_workers') === 0);
    assert.equal(metric('controller_runtime_reconcile_errors_total'), errorsBefore, 'no reconcile failed while deleting');
    assert.equal(await h.shoot('c-rt-delete'), undefined);
    assert.equal(await secretExists('kubeconfig-rt-delete'), false);
    assert.equal(await gardenerClusterExists(h, 'rt-delete'), false);
    assert.equal(h.land.server.hasCluster(clusterName), false);
    assert.doesNotMatch(h.registry.render(), /runtimeId="rt-delete"/);
  });

  it('a controller stopped while Gardener creates the Shoot and started again creates no second Shoot and finishes', async () => {
    await h.land.kcp.create(testRuntime('rt-restart'));
    const processing = await waitFor('shoot creation processing', async () => {
      const s = await h.shoot('c-rt-restart');
      return s?.status?.lastOperation?.state === 'Processing' ? s : undefined;
    });
    await h.stopManager();
    const before = await h.shoot('c-rt-restart');
    assert.equal(before?.metadata.uid, processing.metadata.uid);

    await h.startManager();
    await waitForRuntime(h, 'rt-restart', 'Ready');
    const { items } = await h.land.garden.list<ShootObject>(Shoot, { namespace: h.land.projectNamespace });
    const forRuntime = items.filter((s) => s.metadata.annotations?.[ShootRuntimeIDAnnotation] === 'rt-restart' || s.metadata.name === 'c-rt-restart');
    assert.equal(forRuntime.length, 1);
    assert.equal(forRuntime[0].metadata.uid, processing.metadata.uid, 'the same Shoot, not a new one');
  });
});
