// Webhook passes without a webhook in the runtime. A watcher event about the webhook's own
// Deployment can come before the runtime's API server stored the status it reports (the webhook is
// called before the write is stored): the Kyma's webhook pass that finds the webhook not available
// yet looks once more a moment later, so the webhook is confirmed without waiting for another pass.
// And a Kyma whose last check found only the webhook not holding looks at the webhook alone on its
// next pass, whatever brought it. The API server here runs no webhook: the test hands the router
// the event itself, and no event comes for the status it then writes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, LabelValues, Labels, Namespaces } from '../../src/api/operator/index.js';
import { SKR_WEBHOOK_NAME } from '../../src/watcher/skr-objects.js';
import { counterValue } from '../support/metrics.js';
import { eventDrivenConfig, HOUR } from '../support/event-driven-config.js';
import { NS, startKymaEnv, waitFor, type KymaEnv } from './kyma-env.js';

const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };

describe('Kyma controller: webhook passes', () => {
  let env: KymaEnv;
  const metric = (name: string, labels: Record<string, string> = {}) => counterValue(env.lm.manager.registry, name, labels);

  before(async () => {
    // Every periodic pass an hour away: within the test only the event and its recheck move the Kyma.
    env = await startKymaEnv(eventDrivenConfig({ kymaIntervals: { readyMs: HOUR, busyMs: HOUR, warningMs: HOUR, errorMs: HOUR }, kymaRuntimeCheckMs: HOUR, manifestDriftCheckMs: HOUR, watcherEventRecheckMs: 2_000 }));
  });
  after(() => env.stop());

  it('a webhook pass that finds the Deployment not available yet looks once more and confirms it', async () => {
    const rt = await env.runtime('early', {}, { [Labels.ManagedBy]: LabelValues.LifecycleManager });
    const webhookCondition = async () => (await env.kyma('early')).status?.conditions?.find((c) => c.type === 'SKRWebhook');
    await waitFor('the first full check, with the webhook installed and not available', async () => (await webhookCondition())?.status === 'False');
    const router = env.lm.lifecycle?.watcherEvents;
    assert.ok(router, 'the watcher runs');
    const rechecks = metric('lifecycle_mgr_kyma_event_rechecks_total');
    // The event comes; the status it reports is not stored yet.
    assert.equal(router.moduleStatusChanged({ runtimeId: 'early', event: { watchedGvk: { group: 'apps', kind: 'Deployment' }, watched: { namespace: Namespaces.Remote, name: SKR_WEBHOOK_NAME } } }), 'enqueued');
    await waitFor('the webhook pass asked for a recheck', () => metric('lifecycle_mgr_kyma_event_rechecks_total') > rechecks);
    assert.equal(metric('lifecycle_mgr_kyma_webhook_passes_total', { why: 'event' }), 1);
    assert.equal((await webhookCondition())?.status, 'False');
    // Now it is stored (and no event comes for it).
    await rt.remote.patch(DEPLOYMENT, { namespace: Namespaces.Remote, name: SKR_WEBHOOK_NAME }, 'merge', { status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 } }, { subresource: 'status' });
    await waitFor('the webhook confirmed and the Kyma Ready', async () => {
      const kyma = await env.kyma('early');
      return kyma.status?.state === 'Ready' && kyma.status.conditions?.find((c) => c.type === 'SKRWebhook')?.status === 'True';
    }, 8_000);
    assert.equal(metric('lifecycle_mgr_kyma_webhook_passes_total', { why: 'recheck' }), 1);
    assert.equal(metric('lifecycle_mgr_full_runtime_checks_total', { reason: 'unhealthy' }), 0, 'by the recheck, not a full check');
  });

  it('the next pass of a Kyma whose webhook was not confirmed looks at the webhook alone, whatever brought it', async () => {
    const rt = await env.runtime('unconfirmed', {}, { [Labels.ManagedBy]: LabelValues.LifecycleManager });
    const webhookCondition = async () => (await env.kyma('unconfirmed')).status?.conditions?.find((c) => c.type === 'SKRWebhook');
    await waitFor('the first full check, with the webhook installed and not available', async () => (await webhookCondition())?.status === 'False');
    // The pass its own finalizer write brought (an unconfirmed webhook pass too) done before counting.
    const queue = env.lm.manager.getControllers().find((c) => c.name === 'kyma')?.queue;
    assert.ok(queue, 'the Kyma controller runs');
    await waitFor('the Kyma controller idle', () => queue.length === 0 && queue.inFlight === 0);
    const before = { unconfirmed: metric('lifecycle_mgr_kyma_webhook_passes_total', { why: 'unconfirmed' }), changed: metric('lifecycle_mgr_full_runtime_checks_total', { reason: 'changed' }) };
    await rt.remote.patch(DEPLOYMENT, { namespace: Namespaces.Remote, name: SKR_WEBHOOK_NAME }, 'merge', { status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 } }, { subresource: 'status' });
    // No event: an annotation on the Kyma brings a pass (one that needs no full check for itself).
    await env.kcp.patch(Kyma, { namespace: NS, name: 'unconfirmed' }, 'merge', { metadata: { annotations: { 'example.test/touch': '1' } } });
    await waitFor('the webhook confirmed and the Kyma Ready', async () => {
      const kyma = await env.kyma('unconfirmed');
      return kyma.status?.state === 'Ready' && kyma.status.conditions?.find((c) => c.type === 'SKRWebhook')?.status === 'True';
    }, 8_000);
    assert.equal(metric('lifecycle_mgr_kyma_webhook_passes_total', { why: 'unconfirmed' }), before.unconfirmed + 1);
    assert.equal(metric('lifecycle_mgr_full_runtime_checks_total', { reason: 'unhealthy' }), 0, 'no full check for it');
    assert.equal(metric('lifecycle_mgr_full_runtime_checks_total', { reason: 'changed' }), before.changed);
  });
});
