// The KCP listener refuses what it must, clearly and without enqueuing anything, and accepts
// upstream's v2 wire form. Each refusal test also sends a valid event in the same window, so a
// listener that enqueued nothing at all could not pass.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { Registry } from '../../src/runtime/metrics.js';
import type { CertKeyPair } from '../../src/util/x509.js';
import { issueListenerCertificate, issueRuntimeCertificate, type CaState } from '../../src/watcher/certificates.js';
import { encodeEvent } from '../../src/watcher/event.js';
import { EventListener, type DeliveredEvent } from '../../src/watcher/listener.js';
import { KcpEventSender } from '../../src/watcher/sender.js';
import { RecordingLogger } from '../support/log.js';
import { DAY, testCa } from './test-ca.js';

const KYMA_EVENT = { watched: { namespace: 'kyma-system', name: 'default' }, watchedGvk: { group: 'operator.kyma-project.io', version: 'v1beta2', kind: 'Kyma' } };
/** The body upstream's runtime-watcher sends (its Go structs marshal `watched` with capitalised keys). */
const UPSTREAM_BODY = '{"watched":{"Namespace":"kyma-system","Name":"default"},"watchedGvk":{"group":"operator.kyma-project.io","version":"v1beta2","kind":"Kyma"}}';

interface Answer {
  status: number;
  body: { reason?: string; message?: string };
}

function post(url: string, opts: { client?: CertKeyPair; ca: string; body: string | Buffer; headers?: Record<string, string>; method?: string; path?: string }): Promise<Answer> {
  const target = new URL(opts.path ?? '/v2/lifecycle-manager/event', url);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      target,
      {
        method: opts.method ?? 'POST',
        ca: opts.ca,
        cert: opts.client?.certPem,
        key: opts.client?.keyPem,
        agent: false,
        headers: { 'content-type': 'application/json', ...opts.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Answer['body']) : {} });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('watcher listener (mutual TLS)', () => {
  let ca: CaState;
  let other: CaState;
  let listener: EventListener;
  let registry: Registry;
  const delivered: DeliveredEvent[] = [];
  const runtime = (id: string, c = ca, now?: Date) => issueRuntimeCertificate(c, { runtimeId: id, dnsNames: ['skr-webhook.kyma-system.svc'], validityMs: 60 * DAY, now });

  before(async () => {
    ca = await testCa('watcher-ca');
    other = await testCa('someone-else');
    const serving = await issueListenerCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], validityMs: 60 * DAY });
    registry = new Registry();
    listener = new EventListener({
      host: '127.0.0.1',
      port: 0,
      mode: { kind: 'mtls', tls: { certPem: serving.certPem, keyPem: serving.keyPem, clientCaPem: ca.trustedPem } },
      registry,
      rate: { perSecond: 5, burst: 10 },
    });
    listener.handle('lifecycle-manager', (e) => {
      if (e.runtimeId === 'unknown') return 'unknown-runtime';
      delivered.push(e);
      return 'enqueued';
    });
    await listener.start();
  });
  after(() => listener.close());

  const rejected = (reason: string): number => {
    const line = registry.render().split('\n').find((l) => l.startsWith(`watcher_events_rejected_total{reason="${reason}"}`));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  async function refusedThenAccepted(refused: () => Promise<Answer>, status: number, reason: string): Promise<void> {
    const before = delivered.length;
    const r = await refused();
    assert.equal(r.status, status, JSON.stringify(r.body));
    assert.equal(r.body.reason, reason);
    assert.ok(r.body.message, 'the refusal says why');
    assert.equal(delivered.length, before, 'nothing enqueued for the refused request');
    // Control, same window: a valid runtime gets through.
    const ok = await post(listener.url, { client: await runtime(`control-${reason}`), ca: ca.trustedPem, body: encodeEvent(KYMA_EVENT) });
    assert.equal(ok.status, 200);
    assert.equal(delivered.length, before + 1);
    assert.equal(delivered[delivered.length - 1].runtimeId, `control-${reason}`);
    assert.ok(rejected(reason) >= 1, `watcher_events_rejected_total{reason="${reason}"} counted`);
  }

  it('accepts upstream\'s v2 body and takes the runtime from the certificate only', async () => {
    const cert = await runtime('rt-a');
    const r = await post(listener.url, { client: cert, ca: ca.trustedPem, body: UPSTREAM_BODY });
    assert.equal(r.status, 200);
    const e = delivered[delivered.length - 1];
    assert.deepEqual({ runtimeId: e.runtimeId, manager: e.manager, event: e.event }, { runtimeId: 'rt-a', manager: 'lifecycle-manager', event: KYMA_EVENT });
    assert.ok(listener.lastEventAt('rt-a'));
  });

  it("accepts the body form of upstream's own listener tests: lower-case keys, an owner (older senders), indented", async () => {
    const cert = await runtime('rt-form');
    const body = JSON.stringify({ owner: { name: 'rt-form', namespace: 'kcp-system' }, watched: { name: 'default', namespace: 'kyma-system' }, watchedGvk: { kind: 'Kyma', group: 'operator.kyma-project.io', version: 'v1beta2' } }, null, 2);
    const r = await post(listener.url, { client: cert, ca: ca.trustedPem, body, headers: { 'content-type': 'application/json', 'user-agent': 'Go-http-client/1.1', 'accept-encoding': 'gzip' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const e = delivered[delivered.length - 1];
    assert.deepEqual({ runtimeId: e.runtimeId, event: e.event }, { runtimeId: 'rt-form', event: KYMA_EVENT }, 'the owner is not what decides: the certificate is');
  });

  it('refuses a request without a client certificate', () => refusedThenAccepted(() => post(listener.url, { ca: ca.trustedPem, body: UPSTREAM_BODY }), 401, 'no-client-certificate'));

  it('refuses a certificate from another CA', async () => {
    const foreign = await runtime('rt-a', other);
    await refusedThenAccepted(() => post(listener.url, { client: foreign, ca: ca.trustedPem, body: UPSTREAM_BODY }), 401, 'certificate-untrusted');
  });

  it('refuses an expired certificate', async () => {
    const expired = await issueRuntimeCertificate(ca, { runtimeId: 'rt-old', dnsNames: [], validityMs: DAY, now: new Date(Date.now() - 3 * DAY) });
    await refusedThenAccepted(() => post(listener.url, { client: expired, ca: ca.trustedPem, body: UPSTREAM_BODY }), 401, 'certificate-expired');
  });

  it('refuses X-Forwarded-Client-Cert sent directly (no gateway is trusted)', async () => {
    const cert = await runtime('rt-b');
    const forged = `Hash=00;Subject="CN=rt-victim";URI=`;
    await refusedThenAccepted(() => post(listener.url, { client: cert, ca: ca.trustedPem, body: UPSTREAM_BODY, headers: { 'x-forwarded-client-cert': forged } }), 401, 'forwarded-certificate-untrusted');
  });

  it('refuses a body over 16 KiB', async () => {
    const cert = await runtime('rt-c');
    const big = JSON.stringify({ ...JSON.parse(UPSTREAM_BODY) as object, padding: 'x'.repeat(17 * 1024) });
    await refusedThenAccepted(() => post(listener.url, { client: cert, ca: ca.trustedPem, body: big }), 413, 'body-too-large');
  });

  it('refuses other methods and a body that is not an event', async () => {
    const cert = await runtime('rt-d');
    await refusedThenAccepted(() => post(listener.url, { client: cert, ca: ca.trustedPem, body: '', method: 'GET' }), 405, 'method-not-allowed');
    await refusedThenAccepted(() => post(listener.url, { client: cert, ca: ca.trustedPem, body: '{"watched":{}}' }), 400, 'bad-body');
    const unknown = await runtime('unknown');
    await refusedThenAccepted(() => post(listener.url, { client: unknown, ca: ca.trustedPem, body: UPSTREAM_BODY }), 404, 'unknown-runtime');
  });

  it('answers a flood from one runtime with 429 while another runtime gets through', async () => {
    const flooder = await runtime('rt-flood');
    const fromFlooder = () => delivered.filter((e) => e.runtimeId === 'rt-flood').length;
    const results = await Promise.all(Array.from({ length: 40 }, () => post(listener.url, { client: flooder, ca: ca.trustedPem, body: UPSTREAM_BODY })));
    const codes = results.map((r) => r.status);
    assert.ok(codes.filter((c) => c === 429).length >= 20, `most of the flood is refused: ${codes.join(',')}`);
    assert.ok(codes.filter((c) => c === 200).length >= 10, 'the burst passes');
    assert.equal(fromFlooder(), codes.filter((c) => c === 200).length, 'only the accepted events were handed on; nothing for a 429');
    const neighbour = await post(listener.url, { client: await runtime('rt-neighbour'), ca: ca.trustedPem, body: UPSTREAM_BODY });
    assert.equal(neighbour.status, 200, 'another runtime is unaffected');
  });

  it('keeps every event through a CA rotation (new CA trusted first, server switched later)', async () => {
    const next = await testCa('watcher-ca-2');
    const bundle = [next.signing.certPem, ca.signing.certPem].map((pem) => (pem.endsWith('\n') ? pem : `${pem}\n`)).join('');
    const oldClient = await runtime('rt-rotate');
    const sender = new KcpEventSender({ kcpAddress: listener.url, credentials: { certPem: oldClient.certPem, keyPem: oldClient.keyPem, caPem: ca.trustedPem } });
    const before = delivered.filter((e) => e.runtimeId === 'rt-rotate').length;
    let sent = 0;
    const send = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await sender.send('lifecycle-manager', KYMA_EVENT);
        sent++;
        await new Promise((r) => setTimeout(r, 120));
      }
    };
    // 1. The new CA joins the trusted bundle; the server still presents the old chain.
    const serving = await issueListenerCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], validityMs: 60 * DAY });
    listener.updateTls({ certPem: serving.certPem, keyPem: serving.keyPem, clientCaPem: bundle });
    await send(3);
    // 2. The runtime is re-issued by the new CA and gets the bundle.
    const rotated = { ...next, trustedPem: bundle };
    const newClient = await issueRuntimeCertificate(rotated, { runtimeId: 'rt-rotate', dnsNames: [], validityMs: 60 * DAY });
    sender.updateCredentials({ certPem: newClient.certPem, keyPem: newClient.keyPem, caPem: bundle });
    await send(3);
    // 3. After the grace period the server presents the new CA and trusts only it.
    const newServing = await issueListenerCertificate(rotated, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], validityMs: 60 * DAY });
    listener.updateTls({ certPem: newServing.certPem, keyPem: newServing.keyPem, clientCaPem: next.signing.certPem });
    await send(3);
    sender.close();
    assert.equal(sent, 9);
    assert.equal(delivered.filter((e) => e.runtimeId === 'rt-rotate').length - before, 9, 'every event arrived');
    // And the old certificate is out once the old CA is no longer trusted.
    const stale = await post(listener.url, { client: oldClient, ca: bundle, body: UPSTREAM_BODY });
    assert.equal(stale.status, 401);
  });
});

describe('watcher listener behind a trusted gateway', () => {
  let ca: CaState;
  let listener: EventListener;
  const delivered: DeliveredEvent[] = [];

  before(async () => {
    ca = await testCa('watcher-ca');
    listener = new EventListener({ host: '127.0.0.1', port: 0, mode: { kind: 'gateway', clientCaPem: ca.trustedPem } });
    listener.handle('lifecycle-manager', (e) => {
      delivered.push(e);
      return 'enqueued';
    });
    await listener.start();
  });
  after(() => listener.close());

  function postPlain(body: string, xfcc?: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(new URL('/v2/lifecycle-manager/event', listener.url), { method: 'POST', headers: { 'content-type': 'application/json', ...(xfcc ? { 'x-forwarded-client-cert': xfcc } : {}) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('reads the runtime from the certificate Istio forwards, and refuses what the CA did not issue', async () => {
    const cert = await issueRuntimeCertificate(ca, { runtimeId: 'rt-gw', dnsNames: [], validityMs: DAY });
    // Envoy's form: the URL-encoded PEM in Cert, the subject in Subject.
    const xfcc = `By=spiffe://cluster.local/ns/istio-system/sa/gateway;Hash=abc;Cert="${encodeURIComponent(cert.certPem)}";Subject="CN=rt-gw";URI=`;
    assert.equal(await postPlain(UPSTREAM_BODY, xfcc), 200);
    assert.equal(delivered[delivered.length - 1].runtimeId, 'rt-gw');
    const foreignCa = await testCa('foreign');
    const foreign = await issueRuntimeCertificate(foreignCa, { runtimeId: 'rt-victim', dnsNames: [], validityMs: DAY });
    const count = delivered.length;
    assert.equal(await postPlain(UPSTREAM_BODY, `Cert="${encodeURIComponent(foreign.certPem)}";Subject="CN=rt-victim"`), 401);
    assert.equal(await postPlain(UPSTREAM_BODY), 401, 'no header, no identity');
    assert.equal(delivered.length, count, 'nothing enqueued for the refused ones');
  });
});

describe('watcher listener logs', () => {
  it('warns about a refused event with the runtime and the reason once per sender and reason, then logs at debug', async () => {
    const ca = await testCa('watcher-ca-logs');
    const serving = await issueListenerCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], validityMs: 60 * DAY });
    const log = new RecordingLogger();
    const listener = new EventListener({ host: '127.0.0.1', port: 0, mode: { kind: 'mtls', tls: { certPem: serving.certPem, keyPem: serving.keyPem, clientCaPem: ca.trustedPem } }, log });
    listener.handle('lifecycle-manager', (e) => (e.runtimeId.startsWith('gone') ? 'unknown-runtime' : 'enqueued'));
    await listener.start();
    try {
      const gone = await issueRuntimeCertificate(ca, { runtimeId: 'gone-1', dnsNames: [], validityMs: DAY });
      const gone2 = await issueRuntimeCertificate(ca, { runtimeId: 'gone-2', dnsNames: [], validityMs: DAY });
      for (const client of [gone, gone, gone, gone2]) assert.equal((await post(listener.url, { client, ca: ca.trustedPem, body: UPSTREAM_BODY })).status, 404);
      const refused = log.matching('watcher event refused');
      assert.deepEqual(
        refused.map((r) => [r.level, r.fields.runtime, r.fields.reason]),
        [
          ['warn', 'gone-1', 'unknown-runtime'],
          ['debug', 'gone-1', 'unknown-runtime'],
          ['debug', 'gone-1', 'unknown-runtime'],
          ['warn', 'gone-2', 'unknown-runtime'],
        ],
      );
      assert.match(String(refused[0]?.fields.message), /no Kyma has runtime-id gone-1/);
    } finally {
      await listener.close();
    }
  });
});
