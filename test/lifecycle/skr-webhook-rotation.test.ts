// Through a CA rotation, the runtime's API server trusts the skr-webhook's serving certificate after
// every write of the installer: the caBundle of the ValidatingWebhookConfiguration verifies the
// certificate in the Secret skr-webhook-tls. Were it not so in between two writes, an admission call
// on a new connection would fail verification and, the webhook failing open, the write would send no
// event (a lost event of watcher-zero-downtime). The installer runs against the embedded API server.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Kyma, Labels, Namespaces, type KymaObject, type WatcherObject } from '../../src/api/operator/index.js';
import { startApiServer, type RunningApiServer } from '../../src/apiserver/server.js';
import type { KubeObject } from '../../src/kube/object.js';
import { installControlPlane } from '../../src/landscape/control-plane.js';
import { SkrWebhookInstaller } from '../../src/lifecycle/remote/skr-webhook.js';
import { Store } from '../../src/runtime/cache/store.js';
import { clientFromKubeconfig, type Client } from '../../src/runtime/client/index.js';
import type { Secret } from '../../src/runtime/remote/secret.js';
import { splitPemCertificates } from '../../src/util/x509.js';
import { type CaState, DEFAULT_WATCHER_PKI_SETTINGS, WatcherCertificateAuthority, type WatcherPkiSettings } from '../../src/watcher/certificates.js';
import { DEFAULT_LISTENER } from '../../src/watcher/constants.js';
import { defaultWatchers } from '../../src/watcher/defaults.js';
import { SKR_WEBHOOK_NAME, SKR_WEBHOOK_TLS_SECRET } from '../../src/watcher/skr-objects.js';

const NS = 'kcp-system';
const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const VWC = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' };

type VwcObject = KubeObject & { webhooks: { name: string; clientConfig: { caBundle: string } }[] };

const text = (b64: string | undefined): string => Buffer.from(b64 ?? '', 'base64').toString('utf8');

/** Whether a CA of the bundle issued the certificate. */
function trusts(bundlePem: string, certPem: string): boolean {
  const cert = new X509Certificate(certPem);
  return splitPemCertificates(bundlePem).some((pem) => {
    const ca = new X509Certificate(pem);
    return cert.checkIssued(ca) && cert.verify(ca.publicKey);
  });
}

describe('the skr-webhook stays trusted by its runtime through a CA rotation', () => {
  let server: RunningApiServer;
  let kcp: Client;
  let remote: Client;
  let authority: WatcherCertificateAuthority;
  let ca: CaState;
  let t = Date.now();
  const certificates = new Store<Secret>();
  const watchers = new Store<WatcherObject>();
  let installer: SkrWebhookInstaller;
  let kyma: KymaObject;
  /** Runtime writes after which the webhook's serving certificate was not trusted. */
  const untrusted: string[] = [];

  const remoteKyma = { apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: 'default', namespace: Namespaces.Remote, generation: 1 }, spec: { channel: 'regular' } } as KymaObject;

  /** The runtime client, checking after every apply what its API server would verify the webhook with. */
  function checking(inner: Client): Client {
    return new Proxy(inner, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== 'function') return v;
        if (prop !== 'apply') return (v as (...a: unknown[]) => unknown).bind(target);
        return async (...args: unknown[]) => {
          const applied = await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          const vwc = await inner.get<VwcObject>(VWC, { name: SKR_WEBHOOK_NAME }).catch(() => undefined);
          const secret = await inner.get<Secret>(SECRET, { namespace: Namespaces.Remote, name: SKR_WEBHOOK_TLS_SECRET }).catch(() => undefined);
          const cert = text(secret?.data?.['tls.crt']);
          if (vwc && cert && vwc.webhooks.some((w) => !trusts(text(w.clientConfig.caBundle), cert))) untrusted.push(`${(args[0] as KubeObject).kind} (CA rotating: ${ca.rotating})`);
          return applied;
        };
      },
    });
  }

  async function sync(): Promise<void> {
    await installer.sync(kyma, remote, remoteKyma, new AbortController().signal);
    // What the informer would show the next sync.
    certificates.upsert(await kcp.get<Secret>(SECRET, { namespace: NS, name: 'demo-webhook-tls' }));
  }

  before(async () => {
    server = await startApiServer({ port: 0 });
    kcp = clientFromKubeconfig(server.clusterAccess('default').kubeconfig);
    await installControlPlane(server, kcp);
    const runtime = await server.createCluster('rt-demo');
    remote = checking(clientFromKubeconfig(runtime.kubeconfig));
    await remote.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: Namespaces.Remote } } as KubeObject);
    const pki: WatcherPkiSettings = { ...DEFAULT_WATCHER_PKI_SETTINGS, namespace: NS, now: () => new Date(t) };
    authority = new WatcherCertificateAuthority(kcp, pki);
    ca = await authority.ensure();
    for (const w of defaultWatchers(NS, DEFAULT_LISTENER)) watchers.upsert(w);
    kyma = await kcp.create<KymaObject>({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: 'demo', namespace: NS, labels: { [Labels.RuntimeID]: 'rt-demo' } }, spec: { channel: 'regular' } } as KymaObject);
    installer = new SkrWebhookInstaller({
      kcp,
      namespace: NS,
      image: 'kcp-controllers:test',
      kcpAddress: 'kcp.test:8443',
      ca: () => ca,
      pki,
      watchers,
      certificates,
      lastEventAt: () => undefined,
      now: () => t,
    });
  });
  after(async () => {
    await server?.stop();
  });

  it('the caBundle verifies the serving certificate after every write: install, rotation start, rotation end, and a second rotation', async () => {
    await sync();
    const first = text((await remote.get<Secret>(SECRET, { namespace: Namespaces.Remote, name: SKR_WEBHOOK_TLS_SECRET })).data?.['tls.crt']);
    for (let round = 1; round <= 2; round++) {
      ca = await authority.rotate();
      assert.equal(ca.rotating, true);
      await sync();
      t += authority.settings.rotationGraceMs;
      ca = await authority.ensure();
      assert.equal(ca.rotating, false, `rotation ${round} ended`);
      await sync();
    }
    const last = text((await remote.get<Secret>(SECRET, { namespace: Namespaces.Remote, name: SKR_WEBHOOK_TLS_SECRET })).data?.['tls.crt']);
    assert.notEqual(last, first, 'the runtime got certificates of the new CAs');
    assert.deepEqual(untrusted, [], 'writes after which the runtime API server would not trust its webhook');
  });
});
