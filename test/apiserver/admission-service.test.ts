// Validating admission webhooks given by clientConfig.service: the embedder's ServiceResolver says
// where the service is served; the certificate is checked against <name>.<namespace>.svc whatever
// SNI is sent; connections to a webhook are kept alive and reused.
import assert from 'node:assert/strict';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { type CertKeyPair, createCA, createServingCert, createSelfSigned } from '../../src/apiserver/pki.js';
import { type ResolvedService, type RunningApiServer, type ServiceResolver, startApiServer } from '../../src/apiserver/server.js';
import { WebhookClient, type WebhookTarget, webhookTarget } from '../../src/apiserver/webhook-client.js';
import { KubeClient } from '../conformance/http.js';

interface Received {
  url: string;
  servername: string | false | null;
  host: string | undefined;
  review: { request: { uid: string; name: string; namespace: string; dryRun: boolean } };
}

/** A validating webhook over HTTPS on 127.0.0.1 that records what it gets and counts TLS handshakes. */
class TestWebhook {
  readonly received: Received[] = [];
  handshakes = 0;
  open = 0;
  answer: { allowed: boolean; status?: Record<string, unknown> } = { allowed: true };
  /** Runs before each answer (e.g. another client writing the object meanwhile). */
  beforeAnswer: (() => Promise<void>) | undefined;
  private idleWaiters: (() => void)[] = [];
  private constructor(
    private readonly server: https.Server,
    readonly url: string,
  ) {}

  static async start(cert: CertKeyPair): Promise<TestWebhook> {
    const server = https.createServer({ cert: cert.certPem, key: cert.keyPem });
    // Longer than any test: a connection closes only because a client closes it.
    server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const hook = new TestWebhook(server, `https://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('secureConnection', (s: TLSSocket) => {
      hook.handshakes++;
      hook.open++;
      s.on('close', () => {
        hook.open--;
        if (hook.open === 0) for (const w of hook.idleWaiters.splice(0)) w();
      });
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (text += c));
      req.on('end', () => {
        const review = JSON.parse(text) as Received['review'];
        hook.received.push({ url: req.url ?? '', servername: (req.socket as TLSSocket).servername, host: req.headers.host, review });
        (hook.beforeAnswer ?? (() => Promise.resolve()))().then(() => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, ...hook.answer } }));
        }, (e: unknown) => {
          res.writeHead(500);
          res.end(String(e));
        });
      });
    });
    return hook;
  }

  /** Resolves once no connection to this webhook is open. */
  allClosed(): Promise<void> {
    if (this.open === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

const SVC = { namespace: 'ns', name: 'svc-name' };
const HOOK_NAME = 'svc.kc.example.com';

function webhookConfig(caPem: string, opts: { failurePolicy?: string; port?: number; path?: string | null } = {}): string {
  const service: Record<string, unknown> = { ...SVC };
  if (opts.path !== null) service.path = opts.path ?? '/validate/lifecycle-manager';
  if (opts.port !== undefined) service.port = opts.port;
  return JSON.stringify({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'service-hook' },
    webhooks: [
      {
        name: HOOK_NAME,
        clientConfig: { service, caBundle: Buffer.from(caPem).toString('base64') },
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        failurePolicy: opts.failurePolicy ?? 'Fail',
        sideEffects: 'None',
        timeoutSeconds: 7,
        admissionReviewVersions: ['v1'],
      },
    ],
  });
}

const cm = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });

describe('validating webhooks by service reference', () => {
  let server: RunningApiServer;
  let ca: CertKeyPair;
  let hook: TestWebhook;
  /** Serves a certificate for other.ns.svc, from the same CA. */
  let wrongHost: TestWebhook;
  const resolverCalls: { cluster: string; service: { namespace: string; name: string; port: number } }[] = [];
  let resolve: (cluster: string) => ResolvedService | undefined = () => undefined;
  const resolver: ServiceResolver = (cluster, service) => {
    resolverCalls.push({ cluster, service });
    return resolve(cluster);
  };
  const clients: KubeClient[] = [];

  /** A fresh logical cluster with the service webhook registered; returns a client for it. */
  async function clusterWithHook(name: string, opts: Parameters<typeof webhookConfig>[1] = {}): Promise<KubeClient> {
    const access = await server.createCluster(name);
    const client = new KubeClient({ url: access.url, token: access.token, caPem: server.caPem });
    clients.push(client);
    const r = await client.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: webhookConfig(ca.certPem, opts) });
    assert.equal(r.status, 201, r.text);
    return client;
  }

  before(async () => {
    ca = await createCA('webhook-test-ca');
    hook = await TestWebhook.start(await createServingCert(ca, { commonName: 'svc-name.ns.svc', dnsNames: ['svc-name.ns.svc'], ipAddresses: [] }));
    wrongHost = await TestWebhook.start(await createServingCert(ca, { commonName: 'other.ns.svc', dnsNames: ['other.ns.svc'], ipAddresses: [] }));
    server = await startApiServer({ port: 0, serviceResolver: resolver });
  });
  after(async () => {
    for (const c of clients) c.close();
    await server.stop();
    await hook.stop();
    await wrongHost.stop();
  });

  it('asks the resolver with the logical cluster and service, and posts to its URL with path, timeout and SNI', async () => {
    resolve = (cluster) => (cluster === 'svc-a' ? { url: hook.url, servername: 'runtime-a.webhooks.example' } : undefined);
    const client = await clusterWithHook('svc-a');
    resolverCalls.length = 0;
    const seen0 = hook.received.length;
    const r = await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('first') });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(resolverCalls, [{ cluster: 'svc-a', service: { namespace: 'ns', name: 'svc-name', port: 443 } }]);
    const got = hook.received.slice(seen0);
    assert.equal(got.length, 1);
    assert.equal(got[0].url, '/validate/lifecycle-manager?timeout=7s');
    assert.equal(got[0].servername, 'runtime-a.webhooks.example');
    assert.equal(got[0].host, 'svc-name.ns.svc:443');
    assert.equal(got[0].review.request.name, 'first');
    assert.equal(got[0].review.request.namespace, 'default');
  });

  it('tries a patch without resourceVersion again when the object changed during the webhook call, as kube-apiserver does; an update naming its version gets 409', async () => {
    resolve = () => ({ url: hook.url });
    const client = await clusterWithHook('svc-race');
    const path = '/api/v1/namespaces/default/configmaps/race';
    assert.equal((await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('race') })).status, 201);
    const before = (JSON.parse((await client.request('GET', path)).text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    // While the webhook is asked about the patch, someone else writes the object (once).
    let raced = false;
    hook.beforeAnswer = async () => {
      if (raced) return;
      raced = true;
      const r = await client.request('PATCH', path, { body: JSON.stringify({ data: { other: 'x' } }), contentType: 'application/merge-patch+json' });
      assert.equal(r.status, 200, r.text);
    };
    const seen0 = hook.received.length;
    try {
      const r = await client.request('PATCH', path, { body: JSON.stringify({ data: { mine: 'y' } }), contentType: 'application/merge-patch+json' });
      assert.equal(r.status, 200, r.text);
      const data = (JSON.parse(r.text) as { data: Record<string, string> }).data;
      assert.deepEqual(data, { a: '1', other: 'x', mine: 'y' }, 'both writes kept');
      assert.equal(hook.received.length - seen0, 3, 'the racing patch, the first try, and the second try were admitted');
      // An update naming the version it read is a conflict, as before.
      raced = false;
      const stale = await client.request('PUT', path, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'race', resourceVersion: before }, data: { a: '2' } }) });
      assert.equal(stale.status, 409, stale.text);
    } finally {
      hook.beforeAnswer = undefined;
    }
  });

  it('sends the service DNS name as SNI when the resolver gives none, passes the port and defaults the path to /', async () => {
    resolve = () => ({ url: hook.url });
    const client = await clusterWithHook('svc-b', { port: 8443, path: null });
    resolverCalls.length = 0;
    const seen0 = hook.received.length;
    assert.equal((await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('b') })).status, 201);
    assert.deepEqual(resolverCalls, [{ cluster: 'svc-b', service: { namespace: 'ns', name: 'svc-name', port: 8443 } }]);
    const got = hook.received.slice(seen0);
    assert.equal(got.length, 1);
    assert.equal(got[0].url, '/?timeout=7s');
    assert.equal(got[0].servername, 'svc-name.ns.svc');
    assert.equal(got[0].host, 'svc-name.ns.svc:8443');
  });

  it('puts the path of the resolved URL before the webhook path', async () => {
    resolve = () => ({ url: `${hook.url}/runtimes/svc-p/` });
    const client = await clusterWithHook('svc-p');
    const seen0 = hook.received.length;
    assert.equal((await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('p') })).status, 201);
    assert.deepEqual(
      hook.received.slice(seen0).map((x) => x.url),
      ['/runtimes/svc-p/validate/lifecycle-manager?timeout=7s'],
    );
  });

  it('reuses one TLS connection for several writes', async () => {
    resolve = () => ({ url: hook.url, servername: 'runtime-c.webhooks.example' });
    const client = await clusterWithHook('svc-c');
    const handshakes = hook.handshakes;
    const seen0 = hook.received.length;
    for (let i = 0; i < 5; i++) {
      const r = await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm(`c${i}`) });
      assert.equal(r.status, 201, r.text);
    }
    assert.equal(hook.received.length - seen0, 5);
    assert.equal(hook.handshakes - handshakes, 1, 'one handshake for five calls');
  });

  it('still denies when the webhook says no', async () => {
    resolve = () => ({ url: hook.url });
    const client = await clusterWithHook('svc-d');
    hook.answer = { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'not in this runtime' } };
    try {
      const r = await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('denied') });
      assert.equal(r.status, 403);
      const status = JSON.parse(r.text) as { message: string; reason: string };
      assert.equal(status.message, `admission webhook "${HOOK_NAME}" denied the request: not in this runtime`);
      assert.equal(status.reason, 'Forbidden');
    } finally {
      hook.answer = { allowed: true };
    }
    assert.equal((await client.request('GET', '/api/v1/namespaces/default/configmaps/denied')).status, 404);
  });

  it('refuses a certificate for another name, whatever SNI is sent (Fail: 500 naming the service URL)', async () => {
    // The SNI names the host the certificate is for: it is still refused, as the service name is checked.
    resolve = () => ({ url: wrongHost.url, servername: 'other.ns.svc' });
    const client = await clusterWithHook('svc-e');
    const r = await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('e') });
    assert.equal(r.status, 500, r.text);
    const status = JSON.parse(r.text) as { message: string; reason: string };
    assert.equal(status.reason, 'InternalError');
    assert.equal(
      status.message,
      `Internal error occurred: failed calling webhook "${HOOK_NAME}": failed to call webhook: Post "https://svc-name.ns.svc:443/validate/lifecycle-manager?timeout=7s": x509: certificate is valid for other.ns.svc, not svc-name.ns.svc`,
    );
    assert.equal(wrongHost.received.length, 0, 'nothing was posted over the refused connection');
    assert.equal((await client.request('GET', '/api/v1/namespaces/default/configmaps/e')).status, 404);
  });

  it('lets the write through a refused certificate when the failure policy is Ignore', async () => {
    resolve = () => ({ url: wrongHost.url });
    const client = await clusterWithHook('svc-f', { failurePolicy: 'Ignore' });
    assert.equal((await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('f') })).status, 201);
    assert.equal(wrongHost.received.length, 0);
  });

  it('fails a service the resolver does not know as kube-apiserver does, or ignores it', async () => {
    resolve = () => undefined;
    const client = await clusterWithHook('svc-g');
    const r = await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('g') });
    assert.equal(r.status, 500, r.text);
    const status = JSON.parse(r.text) as { message: string; details: { causes: { message: string }[] } };
    const why = `failed calling webhook "${HOOK_NAME}": failed to call webhook: Post "https://svc-name.ns.svc:443/validate/lifecycle-manager?timeout=7s": service "svc-name" not found`;
    assert.equal(status.message, `Internal error occurred: ${why}`);
    assert.deepEqual(status.details.causes, [{ message: why }]);
    const ignoring = await clusterWithHook('svc-h', { failurePolicy: 'Ignore' });
    assert.equal((await ignoring.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('h') })).status, 201);
  });

  it('takes a resolver installed after start, and can have it removed', async () => {
    const other = await startApiServer({ port: 0 });
    try {
      const access = await other.createCluster('late');
      const client = new KubeClient({ url: access.url, token: access.token, caPem: other.caPem });
      clients.push(client);
      assert.equal((await client.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: webhookConfig(ca.certPem) })).status, 201);
      const write = (name: string) => client.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm(name) });
      const noResolver = await write('l1');
      assert.equal(noResolver.status, 500);
      assert.match((JSON.parse(noResolver.text) as { message: string }).message, /: service "svc-name" not found$/);
      const seen: string[] = [];
      other.setServiceResolver((cluster) => {
        seen.push(cluster);
        return { url: hook.url };
      });
      const seen0 = hook.received.length;
      assert.equal((await write('l2')).status, 201);
      assert.deepEqual(seen, ['late']);
      assert.deepEqual(hook.received.slice(seen0).map((x) => x.review.request.name), ['l2']);
      other.setServiceResolver(undefined);
      assert.equal((await write('l3')).status, 500);
    } finally {
      await other.stop();
    }
  });

  it('closes its connections to webhooks when the server stops', { timeout: 10_000 }, async () => {
    // A webhook of its own, so that its open connections are this server's only. Neither side
    // closes an idle connection within the test's time: only stop() can.
    const own = await TestWebhook.start(await createServingCert(ca, { commonName: 'svc-name.ns.svc', dnsNames: ['svc-name.ns.svc'], ipAddresses: [] }));
    const other = await startApiServer({ port: 0, serviceResolver: () => ({ url: own.url }) });
    let stopped = false;
    try {
      const access = await other.createCluster('stopping');
      const client = new KubeClient({ url: access.url, token: access.token, caPem: other.caPem });
      clients.push(client);
      assert.equal((await client.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: webhookConfig(ca.certPem) })).status, 201);
      assert.equal((await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('s') })).status, 201);
      assert.equal(own.received.length, 1);
      assert.equal(own.open, 1, 'the connection is kept open after the call');
      stopped = true;
      await other.stop();
      await own.allClosed();
      assert.equal(own.open, 0);
    } finally {
      if (!stopped) await other.stop();
      await own.stop();
    }
  });
});

describe('webhook connection pool', () => {
  let hook: TestWebhook;
  let caPem: string;
  before(async () => {
    const cert = await createSelfSigned({ commonName: 'x.ns.svc', dnsNames: ['x.ns.svc'], ipAddresses: ['127.0.0.1'], days: 1 });
    caPem = Buffer.from(cert.certPem).toString('base64');
    hook = await TestWebhook.start(cert);
  });
  after(() => hook.stop());

  it('reuses a connection for a URL webhook', async () => {
    const client = new WebhookClient();
    try {
      const target = webhookTarget('default', { url: `${hook.url}/check`, caBundle: caPem }, 5, undefined);
      const handshakes = hook.handshakes;
      for (let i = 0; i < 4; i++) await client.post(target, { request: { uid: `u${i}` } }, 5000);
      assert.equal(hook.handshakes - handshakes, 1);
      assert.deepEqual(hook.received.slice(-4).map((x) => x.url), Array(4).fill('/check?timeout=5s'));
    } finally {
      client.destroy();
    }
  });

  it('keeps at most maxAgents targets, dropping the least recently used', async () => {
    const client = new WebhookClient({ maxAgents: 2, maxSocketsPerAgent: 2, maxIdlePerAgent: 1, idleTimeoutMs: 30_000 });
    // Three targets that differ only by SNI cannot share connections.
    const target = (sni: string) => webhookTarget('default', { service: { namespace: 'ns', name: 'x' }, caBundle: caPem }, 5, () => ({ url: hook.url, servername: sni }));
    const a = target('a.example');
    const b = target('b.example');
    const c = target('c.example');
    try {
      const handshakes = hook.handshakes;
      const call = (t: WebhookTarget) => client.post(t, { request: { uid: 'x' } }, 5000);
      await call(a);
      await call(b);
      await call(a); // a is kept: still one handshake each
      assert.equal(hook.handshakes - handshakes, 2);
      await call(c); // evicts b, the least recently used
      assert.equal(client.agentCount(), 2);
      await call(a); // a survived
      assert.equal(hook.handshakes - handshakes, 3);
      await call(b); // b was dropped: a new handshake
      assert.equal(hook.handshakes - handshakes, 4);
      assert.equal(client.agentCount(), 2);
    } finally {
      client.destroy();
    }
  });

  it('counts its calls and the connections they opened', async () => {
    const client = new WebhookClient();
    try {
      const target = webhookTarget('default', { url: `${hook.url}/check`, caBundle: caPem }, 5, undefined);
      for (let i = 0; i < 3; i++) await client.post(target, { request: { uid: `s${i}` } }, 5000);
      assert.deepEqual(client.stats, { calls: 3, connections: 1, resumed: 0 });
    } finally {
      client.destroy();
    }
  });

  it('drops an agent nobody called for agentIdleMs, and keeps one in use', async () => {
    const client = new WebhookClient({ maxAgents: 10, maxSocketsPerAgent: 2, maxIdlePerAgent: 1, idleTimeoutMs: 30_000, agentIdleMs: 1000 });
    const target = (sni: string) => webhookTarget('default', { service: { namespace: 'ns', name: 'x' }, caBundle: caPem }, 5, () => ({ url: hook.url, servername: sni }));
    const call = (t: WebhookTarget) => client.post(t, { request: { uid: 'x' } }, 5000);
    const [a, b] = [target('idle-a.example'), target('idle-b.example')];
    try {
      await call(a);
      await call(b);
      assert.equal(client.agentCount(), 2);
      await new Promise((r) => setTimeout(r, 100));
      await call(b); // b used again; a idle for about 100 ms, under the limit
      assert.equal(client.agentCount(), 2);
      await new Promise((r) => setTimeout(r, 1000));
      await call(b); // a idle for over a second: swept on this call
      assert.equal(client.agentCount(), 1);
      const connections = client.stats.connections;
      await call(b);
      assert.equal(client.stats.connections, connections, 'b kept its connection');
    } finally {
      client.destroy();
    }
  });

  it('calls again on a fresh connection when a kept-alive one was closed by the server', async () => {
    // A webhook server that hangs up, without answering, on the second request of each connection.
    const cert = await createSelfSigned({ commonName: 'x.ns.svc', dnsNames: ['x.ns.svc'], ipAddresses: ['127.0.0.1'], days: 1 });
    let handshakes = 0;
    let answered = 0;
    const perSocket = new WeakMap<object, number>();
    const flaky = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      if (n > 1) {
        req.socket.destroy();
        return;
      }
      req.resume();
      req.on('end', () => {
        answered++;
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ response: { allowed: true } }));
      });
    });
    flaky.keepAliveTimeout = 120_000;
    flaky.on('secureConnection', () => handshakes++);
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    const client = new WebhookClient();
    try {
      const url = `https://127.0.0.1:${(flaky.address() as AddressInfo).port}/`;
      const target = webhookTarget('default', { url, caBundle: Buffer.from(cert.certPem).toString('base64') }, 5, undefined);
      assert.deepEqual(await client.post(target, {}, 5000), { response: { allowed: true } });
      assert.deepEqual(await client.post(target, {}, 5000), { response: { allowed: true } });
      assert.equal(answered, 2);
      assert.equal(handshakes, 2);
    } finally {
      client.destroy();
      flaky.closeAllConnections();
      await new Promise((resolve) => flaky.close(resolve));
    }
  });
});
