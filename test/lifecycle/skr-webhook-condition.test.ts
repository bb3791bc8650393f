// What the Kyma's SKRWebhook condition says when events cannot flow although the webhook runs: the
// runtime's certificate could not be renewed (the runtime keeps the one it has, then it expires), and
// no event came from the runtime since the install although its Kyma changed. The installer runs
// against the embedded API server (KCP and one runtime cluster) with a clock the test moves.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, Labels, Namespaces, type KymaObject } from '../../src/api/operator/index.js';
import { startApiServer, type RunningApiServer } from '../../src/apiserver/server.js';
import type { KubeObject } from '../../src/kube/object.js';
import { installControlPlane } from '../../src/landscape/control-plane.js';
import { SkrWebhookInstaller } from '../../src/lifecycle/remote/skr-webhook.js';
import { Store } from '../../src/runtime/cache/store.js';
import { clientFromKubeconfig, type Client } from '../../src/runtime/client/index.js';
import { ApiError } from '../../src/runtime/client/errors.js';
import type { Secret } from '../../src/runtime/remote/secret.js';
import { type CaState, DEFAULT_WATCHER_PKI_SETTINGS, WatcherCertificateAuthority, type WatcherPkiSettings } from '../../src/watcher/certificates.js';
import { SKR_WEBHOOK_NAME } from '../../src/watcher/skr-objects.js';

const NS = 'kcp-system';
const DAY = 24 * 60 * 60 * 1000;
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };

/** A KCP client whose Secret writes fail while `failing` is set (a KCP that refuses the renewal). */
function secretWritesFailing(inner: Client, failing: () => boolean): Client {
  const writes = new Set(['create', 'update', 'patch', 'apply']);
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      if (typeof prop === 'string' && writes.has(prop)) {
        return (...args: unknown[]) => {
          const kind = (args[0] as { kind?: string } | undefined)?.kind;
          if (failing() && kind === 'Secret') return Promise.reject(new ApiError('Forbidden', 'secrets "demo-webhook-tls" is forbidden: the test refuses it', 403));
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (v as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

describe('the SKRWebhook condition names why events cannot flow', () => {
  let server: RunningApiServer;
  let kcp: Client;
  let remote: Client;
  let ca: CaState;
  let t = Date.now();
  let refuse = false;
  let lastEvent: number | undefined;
  const certificates = new Store<Secret>();
  let installer: SkrWebhookInstaller;
  let kyma: KymaObject;

  const remoteKyma = (generation: number) => ({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: 'default', namespace: Namespaces.Remote, generation }, spec: { channel: 'regular' } }) as KymaObject;

  /** The webhook Deployment as the kubelets would report it: one available replica. */
  async function deploymentAvailable(): Promise<void> {
    await remote.patch(DEPLOYMENT, { namespace: Namespaces.Remote, name: SKR_WEBHOOK_NAME }, 'merge', { status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 } }, { subresource: 'status' });
  }

  /** Mirrors the KCP Secret into the informer store the installer reads, as the informer would. */
  async function refreshCertificateCache(): Promise<void> {
    certificates.upsert(await kcp.get<Secret>({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NS, name: 'demo-webhook-tls' }));
  }

  before(async () => {
    server = await startApiServer({ port: 0 });
    kcp = clientFromKubeconfig(server.clusterAccess('default').kubeconfig);
    await installControlPlane(server, kcp);
    const runtime = await server.createCluster('rt-demo');
    remote = clientFromKubeconfig(runtime.kubeconfig);
    await remote.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: Namespaces.Remote } } as KubeObject);
    const pki: WatcherPkiSettings = { ...DEFAULT_WATCHER_PKI_SETTINGS, namespace: NS, now: () => new Date(t) };
    ca = await new WatcherCertificateAuthority(kcp, pki).ensure();
    kyma = await kcp.create<KymaObject>({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: 'demo', namespace: NS, labels: { [Labels.RuntimeID]: 'rt-demo' } }, spec: { channel: 'regular' } } as KymaObject);
    installer = new SkrWebhookInstaller({
      kcp: secretWritesFailing(kcp, () => refuse),
      namespace: NS,
      image: 'kcp-controllers:test',
      kcpAddress: 'kcp.test:8443',
      ca: () => ca,
      pki,
      watchers: new Store(),
      certificates,
      lastEventAt: () => lastEvent,
      now: () => t,
    });
  });
  after(async () => {
    await server?.stop();
  });

  it('installs the webhook and reports it synced once it runs', async () => {
    const first = await installer.sync(kyma, remote, remoteKyma(1), new AbortController().signal);
    assert.match(first.message, /no available replica/, 'the webhook was just installed and does not run yet');
    await refreshCertificateCache();
    await deploymentAvailable();
    const synced = await installer.sync(kyma, remote, remoteKyma(1), new AbortController().signal);
    assert.deepEqual(synced, { status: 'True', message: 'skrwebhook is synchronized', error: false });
  });

  it('puts back a webhook configuration deleted in the runtime and reports it every time, and an edit of its webhooks once per resync interval', async () => {
    const signal = new AbortController().signal;
    const VWC = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' };
    type Configuration = KubeObject & { webhooks?: { name: string }[] };
    const webhooks = async () => ((await remote.get<Configuration>(VWC, { name: SKR_WEBHOOK_NAME })).webhooks ?? []).map((w) => w.name);
    const installed = await webhooks();
    // Deleted: the runtime called no webhook meanwhile. Reported for this check, put back.
    await remote.delete(VWC, { name: SKR_WEBHOOK_NAME });
    const deleted = await installer.sync(kyma, remote, remoteKyma(1), signal);
    assert.equal(deleted.status, 'False');
    assert.match(deleted.message, /the webhook configuration skr-webhook was deleted in the runtime and is put back/);
    assert.deepEqual(await webhooks(), installed, 'put back');
    assert.equal((await installer.sync(kyma, remote, remoteKyma(1), signal)).status, 'True', 'the next check');
    // Its webhooks edited (one added by another tool in the runtime, say): reported once per resync
    // interval. What this process applied is applied again; server-side apply leaves the entry another
    // manager added.
    const edit = async (name: string) => {
      const live = await remote.get<Configuration>(VWC, { name: SKR_WEBHOOK_NAME });
      const other = { name, admissionReviewVersions: ['v1'], sideEffects: 'None', clientConfig: { url: `https://${name}/validate` } };
      await remote.update({ ...live, webhooks: [...(live.webhooks ?? []), other] });
    };
    await edit('one.example.com');
    const edited = await installer.sync(kyma, remote, remoteKyma(1), signal);
    assert.equal(edited.status, 'False');
    assert.match(edited.message, /the webhook configuration skr-webhook was changed in the runtime and is put back/);
    assert.equal((await installer.sync(kyma, remote, remoteKyma(1), signal)).status, 'True', 'the next check');
    await edit('two.example.com');
    assert.deepEqual(await webhooks(), [...installed, 'one.example.com', 'two.example.com']);
    assert.equal((await installer.sync(kyma, remote, remoteKyma(1), signal)).status, 'True', 'an edit again within the resync interval is not reported');
    await remote.delete(VWC, { name: SKR_WEBHOOK_NAME });
    assert.equal((await installer.sync(kyma, remote, remoteKyma(1), signal)).status, 'False', 'a deletion is reported every time');
    assert.deepEqual(await webhooks(), installed, 'put back');
    assert.equal((await installer.sync(kyma, remote, remoteKyma(1), signal)).status, 'True');
  });

  it('names a certificate that could not be renewed, keeps the runtime on it, and says when it expired', async () => {
    const signal = new AbortController().signal;
    const issued = (await kcp.get<Secret>({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NS, name: 'demo-webhook-tls' })).data?.['tls.crt'];
    refuse = true;
    t += 31 * DAY; // inside the renewal period (30 days before the 60-day certificate expires)
    const due = await installer.sync(kyma, remote, remoteKyma(1), signal);
    assert.equal(due.status, 'False');
    assert.equal(due.error, false, 'the runtime still reports with the certificate it has');
    assert.match(due.message, /^skrwebhook is out of sync and needs to be resynchronized: the runtime's watcher certificate expires at \S+ and was not renewed: renewing it failed: secrets "demo-webhook-tls" is forbidden/);
    const kept = await remote.get<Secret>({ apiVersion: 'v1', kind: 'Secret' }, { namespace: Namespaces.Remote, name: 'skr-webhook-tls' });
    assert.equal(kept.data?.['tls.crt'], issued, "the runtime keeps the certificate it has");

    t += 30 * DAY; // past its expiry
    const expired = await installer.sync(kyma, remote, remoteKyma(1), signal);
    assert.equal(expired.error, true, 'an expired certificate stops the events: the Kyma is Error');
    assert.match(expired.message, /the runtime's watcher certificate expired at \S+: renewing it failed: secrets "demo-webhook-tls" is forbidden/);

    // The KCP takes the renewal again: a new certificate, and the condition clears.
    refuse = false;
    const renewed = await installer.sync(kyma, remote, remoteKyma(1), signal);
    assert.deepEqual(renewed, { status: 'True', message: 'skrwebhook is synchronized', error: false });
    await refreshCertificateCache();
    assert.notEqual(certificates.get(`${NS}/demo-webhook-tls`)?.data?.['tls.crt'], issued, 'a new certificate was issued');
    // The Deployment was re-applied with the new certificate's Secret; it still runs.
    await deploymentAvailable();
  });

  it('does not fall back on a stored certificate that is not the runtime\'s intact identity', async () => {
    const signal = new AbortController().signal;
    refuse = false;
    const secretKey = { namespace: NS, name: 'demo-webhook-tls' };
    const inRuntime = async () => (await remote.get<Secret>({ apiVersion: 'v1', kind: 'Secret' }, { namespace: Namespaces.Remote, name: 'skr-webhook-tls' })).data?.['tls.key'];
    const runtimeKey = await inRuntime();
    // The KCP copy's key no longer belongs to its certificate (damaged by hand), and the re-issue is refused.
    const current = await kcp.get<Secret>({ apiVersion: 'v1', kind: 'Secret' }, secretKey);
    const other = await kcp.get<Secret>({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NS, name: 'klm-watcher' });
    await kcp.patch({ apiVersion: 'v1', kind: 'Secret' }, secretKey, 'merge', { data: { 'tls.key': other.data?.['tls.key'] ?? '' } });
    await refreshCertificateCache();
    assert.notEqual(certificates.get(`${NS}/demo-webhook-tls`)?.data?.['tls.key'], current.data?.['tls.key']);
    refuse = true;
    await assert.rejects(installer.sync(kyma, remote, remoteKyma(1), signal), /secrets "demo-webhook-tls" is forbidden/, 'the failure surfaces: the Kyma controller reports it');
    assert.equal(await inRuntime(), runtimeKey, 'the damaged Secret was not pushed into the runtime');
    refuse = false;
    assert.equal((await installer.sync(kyma, remote, remoteKyma(1), signal)).status, 'True', 'a new certificate once the KCP takes it');
    await refreshCertificateCache();
    await deploymentAvailable();
  });

  it('names a runtime whose Kyma changed without an event since the install, and clears once an event arrives', async () => {
    const signal = new AbortController().signal;
    refuse = false;
    // The control: the runtime Kyma at the generation it had when the webhook was installed.
    t += 2 * 60_000;
    assert.equal((await installer.sync(kyma, remote, remoteKyma(1), signal)).status, 'True', 'no change in the runtime: nothing to expect');
    const silent = await installer.sync(kyma, remote, remoteKyma(3), signal);
    assert.equal(silent.status, 'False');
    assert.equal(silent.error, false);
    assert.match(silent.message, /no event received from the runtime since the webhook was installed, although its Kyma changed \(generation 1 -> 3\): check the skr-webhook logs and that the runtime reaches kcp\.test:8443/);
    lastEvent = t;
    assert.equal((await installer.sync(kyma, remote, remoteKyma(3), signal)).status, 'True', 'an event from the runtime clears it');
  });
});
