// A Manifest whose state changed after its first pass reports a module under way: the Kyma's pass
// it brings goes ahead of other Kymas' first passes, so a Kyma is Ready once its modules are, not
// once every Kyma created before had its first pass. One worker; the other Kymas' first passes are
// slowed down (their finalizer write waits), so they queue up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, Manifest } from '../../src/api/operator/index.js';
import type { Client } from '../../src/runtime/client/index.js';
import { sleep } from '../../src/util/sleep.js';
import { intercepting } from '../support/intercept.js';
import { NS, startKymaEnv, waitFor, type KymaEnv } from './kyma-env.js';

const HOUR = 3_600_000;
const QUEUED = 8;

/** A KCP client whose updates of the Kymas named `queued-*` take `ms` longer. */
function slowUpdatesOfQueuedKymas(inner: Client, ms: number): Client {
  return intercepting(inner, 'update', async (args, call) => {
    const o = args[0] as { kind?: string; metadata?: { name?: string } };
    if (o.kind === Kyma.kind && o.metadata?.name?.startsWith('queued-')) await sleep(ms);
    return call();
  });
}

describe('Kyma controller: a Manifest under way goes ahead of new Kymas', () => {
  let env: KymaEnv;

  before(async () => {
    env = await startKymaEnv({ kymaWorkers: 1, kymaIntervals: { readyMs: HOUR, busyMs: HOUR, warningMs: HOUR, errorMs: HOUR }, wrapKcp: (c) => slowUpdatesOfQueuedKymas(c, 400) });
    await env.publish('lane', ['1.0.0']);
  });
  after(() => env.stop());

  it("a Manifest's change brings its Kyma's pass before the queued first passes of newer Kymas", async () => {
    await env.runtime('under-way', { modules: [{ name: 'lane' }] });
    await waitFor('the Kyma Ready', async () => (await env.kyma('under-way')).status?.state === 'Ready');
    const [manifest] = await env.manifests('under-way');
    assert.ok(manifest?.status?.state, 'its Manifest was reconciled');
    const controller = env.lm.manager.getControllers().find((c) => c.name === 'kyma');
    assert.ok(controller);
    const order: string[] = [];
    controller.onReconcileStart = (key) => order.push(key);
    for (let i = 0; i < QUEUED; i++) await env.runtime(`queued-${i}`);
    await waitFor('first passes queued', () => controller.queue.length >= 3);
    // Its state changes (as a module failing would change it; the Manifest controller puts it back).
    await env.kcp.patch(Manifest, { namespace: NS, name: manifest.metadata.name ?? '' }, 'merge', { status: { state: 'Warning' } }, { subresource: 'status' });
    await waitFor('every Kyma reconciled', () => order.includes(`${NS}/under-way`) && Array.from({ length: QUEUED }, (_, i) => `${NS}/queued-${i}`).every((k) => order.includes(k)), 20_000);
    const at = order.indexOf(`${NS}/under-way`);
    // First passes (a Kyma's first reconcile; its own label write brings a second one later) that came after it.
    const firstPassesAfter = Array.from({ length: QUEUED }, (_, i) => `${NS}/queued-${i}`).filter((k) => order.indexOf(k) > at);
    // At most the pass in flight when the change came was before it; the ones still queued came after.
    assert.ok(firstPassesAfter.length >= 2, `reconciles in order: ${order.join(', ')}`);
  });
});
