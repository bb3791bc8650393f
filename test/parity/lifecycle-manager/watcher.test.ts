// Upstream's runtime watcher scenarios (kyma-project/lifecycle-manager .github/workflows/test-e2e.yml:
// watcher-enqueue, watcher-zero-downtime, self-signed-certificate-rotation; tests/e2e/
// watcher_test.go, watcher_zero_downtime_test.go, self_signed_certificate_rotation_test.go and their
// .mk and helm-values settings), step by step on the in-memory landscape. Upstream's short settings
// (Kyma requeue 1 s, CA rotation every minute with a 30 s server certificate switch, a 30 s renew
// buffer) are scaled to seconds here.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, Namespaces, Watcher, type KymaObject } from '../../../src/api/operator/index.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { isNotFound } from '../../../src/runtime/client/errors.js';
import type { Secret } from '../../../src/runtime/remote/secret.js';
import { SKR_WEBHOOK_NAME, SKR_WEBHOOK_NETWORK_POLICIES, SKR_WEBHOOK_TLS_SECRET } from '../../../src/watcher/skr-objects.js';
import { waitFor } from '../../support/wait.js';
import { DEPLOYMENT, NS, SECRET, sample, startWatcherEnv, type WatcherEnv } from './watcher-env.js';

const VWC = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' };
const NETWORK_POLICY = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' };
const RUNTIME_KYMA = { namespace: Namespaces.Remote, name: 'default' };
const WEBHOOK = { namespace: Namespaces.Remote, name: SKR_WEBHOOK_NAME };
const WEBHOOK_TLS = { namespace: Namespaces.Remote, name: SKR_WEBHOOK_TLS_SECRET };

type DeploymentObject = KubeObject & { status?: { readyReplicas?: number } };
type VwcObject = KubeObject & { webhooks: { name: string; rules: { resources: string[] }[] }[] };

function webhookReady(kyma: KymaObject | undefined): boolean {
  return kyma?.status?.state === 'Ready' && (kyma.status.conditions ?? []).some((c) => c.type === 'SKRWebhook' && c.status === 'True');
}

describe('parity: runtime watcher events', () => {
  let env: WatcherEnv;
  before(async () => {
    env = await startWatcherEnv({
      // Upstream's watcher-zero-downtime: the server certificate switches 30 s after a new CA; here 3 s.
      watcher: { pki: { rotationGraceMs: 3_000 }, caRefreshMs: 200 },
      // Upstream's Kyma success requeue of 1 s: a runtime check (which puts the webhook back) every second.
      config: { kymaIntervals: { readyMs: 1_000, busyMs: 200, warningMs: 1_000, errorMs: 300 }, kymaRuntimeCheckMs: 1_000 },
    });
  });
  after(async () => {
    await env?.stop();
  });

  const received = () => sample(env.metrics(), 'watcher_events_received_total', { manager: 'lifecycle-manager' }) ?? 0;
  // Reconciles that answered a runtime Kyma event: an event pass, or a full check due anyway (every second here).
  const eventChecks = () => (sample(env.metrics(), 'lifecycle_mgr_kyma_runtime_events_total', { pass: 'event' }) ?? 0) + (sample(env.metrics(), 'lifecycle_mgr_kyma_runtime_events_total', { pass: 'full' }) ?? 0);
  const failedRequests = () => sample(env.webhookMetrics.render(), 'watcher_failed_kcp_total', { error_reason: 'failed-request' }) ?? 0;

  it('watcher-enqueue: the webhook Deployment and TLS Secret come back when deleted, spec and status changes of the runtime Kyma enqueue its KCP Kyma, and its channel switch takes effect', async () => {
    const id = 'kyma-sample';
    const remote = await env.runtime(id);

    // When Runtime Watcher deployment is ready, and is deleted: Then it is ready again.
    const first = await waitFor('the skr-webhook Deployment ready', async () => {
      const d = await remote.get<DeploymentObject>(DEPLOYMENT, WEBHOOK);
      return d.status?.readyReplicas === 1 ? d : undefined;
    });
    // And Network Policy is created (upstream's four, around the webhook pod; the egress to the KCP on its port).
    for (const name of Object.values(SKR_WEBHOOK_NETWORK_POLICIES)) await remote.get(NETWORK_POLICY, { namespace: Namespaces.Remote, name });
    const toKcp = await remote.get<KubeObject & { spec: { egress: { ports: { port: number }[] }[] } }>(NETWORK_POLICY, { namespace: Namespaces.Remote, name: SKR_WEBHOOK_NETWORK_POLICIES.WatcherToApiServer });
    assert.deepEqual(toKcp.spec.egress.flatMap((e) => e.ports.map((p) => p.port)), [Number(env.cp.watcher?.kcpAddress.split(':').pop())]);
    await remote.delete(DEPLOYMENT, WEBHOOK);
    await waitFor('the skr-webhook Deployment ready again', async () => {
      const d = await remote.get<DeploymentObject>(DEPLOYMENT, WEBHOOK);
      return d.metadata.uid !== first.metadata.uid && d.status?.readyReplicas === 1;
    }, 30_000);

    // When TLS Secret is deleted on SKR Cluster: Then TLS Secret is recreated.
    await remote.get(SECRET, WEBHOOK_TLS);
    await remote.delete(SECRET, WEBHOOK_TLS);
    await waitFor('the skr-webhook TLS Secret recreated', () => remote.get(SECRET, WEBHOOK_TLS).catch(() => undefined), 30_000);
    await waitFor('the Kyma Ready with its webhook again', async () => webhookReady(await env.kyma(id)), 30_000);

    // When spec of SKR Kyma CR is changed: Then new reconciliation gets triggered for KCP Kyma CR
    // (upstream reads KLM's log line "event received from SKR, adding kcp-system/kyma-sample to
    // queue"; here the listener's count and the runtime check the event asked for).
    let events = received();
    let checks = eventChecks();
    // Upstream's step switches the runtime Kyma's channel to fast; the runtime Kyma is the source of
    // truth for the channel (upstream's ReplaceSpec), so the switch takes effect and the KCP Kyma follows.
    assert.equal((await env.kyma(id)).spec.channel, 'regular', 'the KCP Kyma starts on regular');
    await remote.patch(Kyma, RUNTIME_KYMA, 'merge', { spec: { channel: 'fast' } });
    await waitFor('the spec change received and reconciled', () => received() > events && eventChecks() > checks, 15_000);
    await waitFor('the KCP Kyma on the runtime\'s channel fast, and reconciled on it', async () => {
      const kyma = await env.kyma(id);
      return kyma.spec.channel === 'fast' && kyma.status?.activeChannel === 'fast' && webhookReady(kyma);
    }, 15_000);
    await waitFor('the active channel mirrored into the runtime Kyma', async () => (await remote.get<KymaObject>(Kyma, RUNTIME_KYMA)).status?.activeChannel === 'fast', 15_000);
    assert.equal((await remote.get<KymaObject>(Kyma, RUNTIME_KYMA)).spec.channel, 'fast', 'the runtime Kyma keeps the channel its admin set');

    // When Runtime Watcher spec field is changed to status.
    await env.land.kcp.patch(Watcher, { namespace: NS, name: 'klm-watcher' }, 'merge', { spec: { field: 'status' } });
    await waitFor('the runtime webhook watching the Kyma status subresource', async () => {
      const vwc = await remote.get<VwcObject>(VWC, { name: SKR_WEBHOOK_NAME });
      return vwc.webhooks.find((w) => w.name === `${NS}.klm-watcher.operator.kyma-project.io`)?.rules.some((r) => r.resources.includes('kymas/status'));
    }, 15_000);
    await waitFor('the Kyma Ready with its webhook', async () => webhookReady(await env.kyma(id)), 15_000);
    // And SKR Kyma CR Status is updated: Then new reconciliation gets triggered for KCP Kyma CR.
    events = received();
    checks = eventChecks();
    await remote.patch(Kyma, RUNTIME_KYMA, 'merge', { status: { state: 'Warning', lastOperation: { operation: 'Updated Kyma Status subresource for test', lastUpdateTime: new Date().toISOString() } } }, { subresource: 'status' });
    await waitFor('the status change received and reconciled', () => received() > events && eventChecks() > checks, 15_000);
    // The lifecycle manager's own status, mirrored back.
    await waitFor('the runtime Kyma status mirrored back', async () => (await remote.get<KymaObject>(Kyma, RUNTIME_KYMA)).status?.state === 'Ready', 15_000);
    await env.land.kcp.patch(Watcher, { namespace: NS, name: 'klm-watcher' }, 'merge', { spec: { field: 'spec' } });

    // Then KCP Kyma CR is deleted, and with it the KCP TLS certificate Secret.
    await env.land.kcp.delete(Kyma, { namespace: NS, name: id });
    await waitFor('the Kyma gone', () => env.kyma(id).then(() => false, (e: unknown) => isNotFound(e)), 30_000);
    await waitFor('the KCP certificate Secret gone', () => env.land.kcp.get(SECRET, { namespace: NS, name: `${id}-webhook-tls` }).then(() => false, (e: unknown) => isNotFound(e)), 15_000);
  });

  it('watcher-zero-downtime: events reach the listener before and after the server certificate switch of every CA rotation, and the webhook counts no failed request', async () => {
    const id = 'kyma-zero';
    const remote = await env.runtime(id);
    const watcher = env.cp.watcher;
    assert.ok(watcher, 'the watcher runs');
    // Triggering a watcher request: the runtime Kyma's channel flips between regular and fast (it keeps
    // what the last flip set, the runtime Kyma owning its channel), its event must arrive.
    const trigger = async (when: string): Promise<void> => {
      const before = received();
      const current = (await remote.get<KymaObject>(Kyma, RUNTIME_KYMA)).spec.channel;
      await remote.patch(Kyma, RUNTIME_KYMA, 'merge', { spec: { channel: current === 'fast' ? 'regular' : 'fast' } });
      await waitFor(`the event ${when} received`, () => received() > before, 15_000);
      assert.equal(failedRequests(), 0, `no failed request to the KCP ${when}`);
    };
    const sentBefore = sample(env.webhookMetrics.render(), 'watcher_kcp_requests_total') ?? 0;
    for (let round = 1; round <= 3; round++) {
      // The CA rotates (upstream forces the CA certificate's renewal).
      await watcher.authority.rotate();
      await watcher.refresh();
      assert.equal(watcher.ca()?.rotating, true, 'a rotation in progress');
      await trigger(`in rotation ${round}, while the listener presents the previous CA`);
      await waitFor(`rotation ${round}: the listener switched to the new CA`, () => watcher.ca()?.rotating === false, 20_000);
      await trigger(`after rotation ${round}'s server certificate switch`);
    }
    // The webhook's thread relays its counters a turn after it counts them.
    await waitFor('the webhook counted every event it sent', () => (sample(env.webhookMetrics.render(), 'watcher_kcp_requests_total') ?? 0) - sentBefore >= 6);
    assert.equal(failedRequests(), 0);
  });
});

describe('parity: runtime watcher certificates', () => {
  let env: WatcherEnv;
  before(async () => {
    env = await startWatcherEnv({
      // Runtime certificates of 30 s, renewed 24 s before their end (6 s after issue), not-renewed after 2 s more
      // (upstream's self-signed-certificate-rotation sets --self-signed-cert-renew-buffer=30s).
      watcher: { pki: { certValidityMs: 30_000, certRenewBeforeMs: 24_000, certRenewBufferMs: 2_000 }, caRefreshMs: 500 },
      config: { kymaIntervals: { readyMs: 1_000, busyMs: 200, warningMs: 1_000, errorMs: 300 }, kymaRuntimeCheckMs: 1_000 },
    });
  });
  after(async () => {
    await env?.stop();
  });

  it('self-signed-certificate-rotation: the runtime certificate is renewed with the Kyma Ready; a renewal that cannot be written sets lifecycle_mgr_self_signed_cert_not_renew, which goes once a certificate is issued again', async () => {
    const id = 'kyma-cert';
    const remote = await env.runtime(id);
    const kcpSecret = { namespace: NS, name: `${id}-webhook-tls` };
    const notRenewed = () => sample(env.metrics(), 'lifecycle_mgr_self_signed_cert_not_renew', { kyma_name: id });

    // When self signed certificate exists.
    const issued = (await env.land.kcp.get<Secret>(SECRET, kcpSecret)).data?.['tls.crt'];
    assert.ok(issued, 'the runtime certificate in the KCP');
    // Then it is renewed before it ends, reaches the runtime, and the Kyma stays Ready with SKRWebhook True.
    const renewed = await waitFor('the certificate renewed', async () => {
      const cert = (await env.land.kcp.get<Secret>(SECRET, kcpSecret)).data?.['tls.crt'];
      return cert !== issued ? cert : undefined;
    }, 30_000);
    await waitFor('the renewed certificate in the runtime', async () => (await remote.get<Secret>(SECRET, WEBHOOK_TLS)).data?.['tls.crt'] === renewed, 15_000);
    await waitFor('the Kyma Ready with SKRWebhook True', async () => webhookReady(await env.kyma(id)), 15_000);
    assert.equal(notRenewed(), undefined, 'no not-renewed series while renewals go through');

    // Then the renewal stops (upstream stops cert-manager; here the certificate Secret cannot be written any more).
    await env.land.kcp.patch(SECRET, kcpSecret, 'merge', { immutable: true });
    // Then lifecycle_mgr_self_signed_cert_not_renew increased to 1.
    await waitFor('lifecycle_mgr_self_signed_cert_not_renew 1', () => notRenewed() === 1, 30_000);
    const blocked = await env.kyma(id);
    assert.ok(
      (blocked.status?.conditions ?? []).some((c) => c.type === 'SKRWebhook' && c.status === 'False'),
      `the SKRWebhook condition says the webhook is out of sync: ${JSON.stringify(blocked.status?.conditions)}`,
    );

    // Then the renewal works again (upstream starts cert-manager; here the stuck Secret is removed).
    await env.land.kcp.delete(SECRET, kcpSecret);
    // Then lifecycle_mgr_self_signed_cert_not_renew is deleted, and the Kyma is Ready with its webhook.
    await waitFor('lifecycle_mgr_self_signed_cert_not_renew deleted', () => notRenewed() === undefined, 30_000);
    await waitFor('the Kyma Ready with SKRWebhook True again', async () => webhookReady(await env.kyma(id)), 30_000);
  });
});
