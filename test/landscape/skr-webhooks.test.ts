// The landscape's skr-webhook host: each runtime's webhook is served (in the host's worker thread)
// with the runtime's own key pair once its Deployment and Secret are there; a key pair that cannot
// be used gives that runtime no webhook, and a usable one later brings it back; a deleted runtime's
// state goes from the thread.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { startApiServer, type RunningApiServer } from '../../src/apiserver/server.js';
import { clientFromKubeconfig, type HttpClient } from '../../src/runtime/client/index.js';
import { Registry } from '../../src/runtime/metrics.js';
import { SkrWebhookHost } from '../../src/landscape/skr-webhooks.js';
import { createCertificateAuthority, ExtendedKeyUsages, issueCertificate } from '../../src/util/x509.js';
import { waitFor } from '../support/wait.js';

const SERVICE = { namespace: 'kyma-system', name: 'skr-webhook', port: 443 };
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** POSTs an AdmissionReview to the runtime's webhook as its API server would (SNI selects the runtime), on a new connection. */
function review(url: string, servername: string, caPem: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u-1',
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      name: 'c',
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'someone' },
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } },
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'someone' },
    },
  });
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      { host: u.hostname, port: u.port, path: '/validate/lifecycle-manager', method: 'POST', agent: false, servername, ca: caPem, checkServerIdentity: () => undefined, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('skr-webhook host', () => {
  let server: RunningApiServer;
  let host: SkrWebhookHost;
  let runtime: HttpClient;
  const metrics = new Registry();
  before(async () => {
    server = await startApiServer({ port: 0 });
    await server.createCluster('rt-1');
    runtime = clientFromKubeconfig(server.clusterAccess('rt-1').kubeconfig, { qps: 0 });
    await runtime.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kyma-system' } });
    host = new SkrWebhookHost(server, { registry: metrics, sweepMs: 50 });
    await host.start();
  });
  after(async () => {
    await host.stop();
    await server.stop();
  });

  it('serves a runtime with its own key pair; an unusable one gives it no webhook until it is replaced', async () => {
    assert.equal(host.resolver('rt-1', SERVICE), undefined, 'no Deployment, no Secret: no webhook');

    await runtime.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'skr-webhook', namespace: 'kyma-system' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'skr-webhook' } },
        template: { metadata: { labels: { app: 'skr-webhook' } }, spec: { containers: [{ name: 'server', image: 'skr-webhook', env: [{ name: 'KCP_ADDR', value: '127.0.0.1:1' }] }] } },
      },
    });
    await runtime.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'skr-webhook-tls', namespace: 'kyma-system' }, data: { 'tls.crt': b64('not a certificate'), 'tls.key': b64('not a key'), 'ca.crt': b64('') } });
    // The state goes to the thread (the resolver answers before the thread has looked at it); the
    // thread finds the key pair unusable and says so.
    assert.ok(host.resolver('rt-1', SERVICE), 'sent to the thread');
    await waitFor('the key pair found unusable', () => host.resolver('rt-1', SERVICE) === undefined);
    assert.equal(host.cachedRuntimes(), 0);

    const now = Date.now();
    const ca = await createCertificateAuthority({ commonName: 'skr-test-ca', notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000) });
    const leaf = await issueCertificate(ca, {
      commonName: 'rt-1',
      extendedKeyUsages: [ExtendedKeyUsages.ServerAuth, ExtendedKeyUsages.ClientAuth],
      dnsNames: ['skr-webhook.kyma-system.svc'],
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 3_600_000),
    });
    const secret = await runtime.get({ apiVersion: 'v1', kind: 'Secret' }, { namespace: 'kyma-system', name: 'skr-webhook-tls' });
    assert.ok(secret);
    await runtime.update({ ...secret, data: { 'tls.crt': b64(leaf.certPem), 'tls.key': b64(leaf.keyPem), 'ca.crt': b64(ca.certPem) } });

    const target = host.resolver('rt-1', SERVICE);
    assert.ok(target, 'a usable key pair: the webhook is served again');
    assert.equal(host.cachedRuntimes(), 1);
    const answer = await review(target.url, target.servername ?? '', ca.certPem);
    assert.equal(answer.status, 200);
    assert.equal((answer.body.response as { allowed?: boolean }).allowed, true);
    // Counted in the thread, added to the host's registry.
    await waitFor('the request counted', () => metrics.render().includes('watcher_webhook_requests_total{manager="lifecycle-manager",event="true"} 1'));

    // The runtime goes, and no call comes for it again: the host's sweep takes its state from the thread.
    await server.deleteCluster('rt-1');
    await waitFor('the deleted runtime dropped', () => host.cachedRuntimes() === 0);
    assert.equal(host.resolver('rt-1', SERVICE), undefined);
    // The thread let it go too: a new connection for it is refused.
    await assert.rejects(review(target.url, target.servername ?? '', ca.certPem));
  });
});
