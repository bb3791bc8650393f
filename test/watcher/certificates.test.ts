// The watcher's PKI against the embedded API server: the CA Secret (created once, shared by
// concurrent callers, rotated per upstream ADR 007 with a manual clock), runtime certificates proven
// by real mutual-TLS handshakes, renewal reasons, and the per-Kyma certificate Secret.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { Kyma, type KymaObject } from '../../src/api/operator/index.js';
import { startApiServer, type RunningApiServer } from '../../src/apiserver/server.js';
import { installControlPlane } from '../../src/landscape/control-plane.js';
import { clientFromKubeconfig, isNotFound, type Client } from '../../src/runtime/client/index.js';
import { SECRET_KIND, type Secret } from '../../src/runtime/remote/secret.js';
import { splitPemCertificates } from '../../src/util/x509.js';
import {
  type CaState,
  certificateFactsStats,
  certificateNotAfter,
  DEFAULT_WATCHER_PKI_SETTINGS,
  ensureRuntimeCertificate,
  issueListenerCertificate,
  issueRuntimeCertificate,
  keyMatches,
  renewalReason,
  runtimeDnsNames,
  WatcherCaError,
  WatcherCertificateAuthority,
  type WatcherPkiSettings,
} from '../../src/watcher/certificates.js';
import { countingClient } from '../support/counting-client.js';
import { waitFor } from '../support/wait.js';

const DAY = 24 * 60 * 60 * 1000;
const NS = 'kcp-system';

/** A clock that stands still until the test moves it; starts at the real time so that fresh certificates are valid for TLS. */
class ManualDateClock {
  private t = Date.now();
  readonly now = (): Date => new Date(this.t);
  advance(ms: number): void {
    this.t += ms;
  }
}

function settingsWith(clock: ManualDateClock, caSecretName: string): WatcherPkiSettings {
  return { ...DEFAULT_WATCHER_PKI_SETTINGS, caSecretName, now: clock.now };
}

interface Side {
  cert: string;
  key: string;
  ca: string;
}

interface Handshake {
  ok: boolean;
  /** The CN of the client certificate as the server saw it (when the handshake succeeded). */
  clientCn?: string;
  error?: string;
}

/**
 * A real mutual-TLS handshake: a server requiring a client certificate (verified against server.ca),
 * a client verifying the server (against client.ca, for `servername`).
 */
async function handshake(server: Side, client: Side, servername: string): Promise<Handshake> {
  let clientCn: string | undefined;
  const srv = tls.createServer({ cert: server.cert, key: server.key, ca: server.ca, requestCert: true, rejectUnauthorized: true }, (socket) => {
    const cn = socket.getPeerCertificate().subject?.CN;
    clientCn = Array.isArray(cn) ? cn.join(',') : cn;
    socket.end('hello');
  });
  srv.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  try {
    return await new Promise<Handshake>((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port, servername, cert: client.cert, key: client.key, ca: client.ca });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('end', () => resolve(text === 'hello' ? { ok: true, clientCn } : { ok: false, error: 'the server closed the connection' }));
      socket.on('error', (e) => resolve({ ok: false, error: e.message }));
    });
  } finally {
    await new Promise<void>((resolve) => srv.close(() => resolve()));
  }
}

function certCount(pem: string): number {
  return splitPemCertificates(pem).length;
}

function decoded(secret: Secret, key: string): string {
  const value = secret.data?.[key];
  assert.ok(value !== undefined, `Secret ${secret.metadata.name ?? ''} has ${key}`);
  return Buffer.from(value, 'base64').toString('utf8');
}

function signedBy(certPem: string, caPem: string): boolean {
  return new X509Certificate(certPem).verify(new X509Certificate(caPem).publicKey);
}

describe('watcher PKI', () => {
  let server: RunningApiServer;
  let kcp: Client;

  before(async () => {
    server = await startApiServer({ port: 0 });
    kcp = clientFromKubeconfig(server.clusterAccess('default').kubeconfig, { qps: 0 });
    await installControlPlane(server, kcp);
  });

  after(async () => {
    kcp.close();
    await server.stop();
  });

  describe('the CA', () => {
    it('is created once and reused: a second ensure() reads and does not write', async () => {
      const counting = countingClient(kcp);
      const clock = new ManualDateClock();
      const authority = new WatcherCertificateAuthority(counting.client, settingsWith(clock, 'ca-once'));
      const first = await authority.ensure();
      assert.equal(counting.count('create'), 1);
      assert.equal(certCount(first.trustedPem), 1);
      assert.equal(first.signing.certPem, first.serving.certPem);
      assert.equal(first.caAddedToBundleAt, undefined);
      assert.ok(new X509Certificate(first.signing.certPem).ca);
      const notAfter = certificateNotAfter(first.signing.certPem);
      assert.ok(notAfter);
      // 90 days from the clock, to the second (X.509 times have no milliseconds).
      assert.ok(Math.abs(notAfter.getTime() - (clock.now().getTime() + 90 * DAY)) < 1000);

      counting.reset();
      clock.advance(10 * DAY);
      const second = await authority.ensure();
      assert.equal(counting.count('create') + counting.count('update') + counting.count('patch'), 0);
      assert.equal(second.resourceVersion, first.resourceVersion);
      assert.equal(second.signing.certPem, first.signing.certPem);

      const secret = await kcp.get<Secret>(SECRET_KIND, { namespace: NS, name: 'ca-once' });
      assert.equal(secret.type, 'kubernetes.io/tls');
      assert.equal(decoded(secret, 'tls.crt'), first.signing.certPem);
      assert.equal(decoded(secret, 'ca.crt'), first.trustedPem);
      assert.deepEqual(WatcherCertificateAuthority.stateOf(secret), first);
    });

    it('two concurrent ensure() calls (two replicas) end with one CA', async () => {
      const clock = new ManualDateClock();
      const a = new WatcherCertificateAuthority(kcp, settingsWith(clock, 'ca-race'));
      const b = new WatcherCertificateAuthority(kcp, settingsWith(clock, 'ca-race'));
      const [sa, sb] = await Promise.all([a.ensure(), b.ensure()]);
      assert.equal(sa.signing.certPem, sb.signing.certPem);
      const stored = WatcherCertificateAuthority.stateOf(await kcp.get<Secret>(SECRET_KIND, { namespace: NS, name: 'ca-race' }));
      assert.equal(stored?.signing.certPem, sa.signing.certPem);

      // Near expiry both replicas see the need to rotate; only one rotation happens.
      clock.advance(61 * DAY);
      const [ra, rb] = await Promise.all([a.ensure(), b.ensure()]);
      assert.equal(ra.signing.certPem, rb.signing.certPem);
      assert.notEqual(ra.signing.certPem, sa.signing.certPem);
      assert.equal(certCount(ra.trustedPem), 2);
    });

    it('starts a rotation by itself when the CA nears expiry (30 days before), not earlier', async () => {
      const clock = new ManualDateClock();
      const authority = new WatcherCertificateAuthority(kcp, settingsWith(clock, 'ca-expiry'));
      const first = await authority.ensure();
      clock.advance(59 * DAY);
      const early = await authority.ensure();
      assert.equal(early.resourceVersion, first.resourceVersion);
      assert.equal(early.rotating, false);

      clock.advance(1 * DAY + 60_000);
      const rotated = await authority.ensure();
      assert.equal(rotated.rotating, true);
      assert.notEqual(rotated.signing.certPem, first.signing.certPem);
      assert.equal(rotated.serving.certPem, first.signing.certPem);
      assert.deepEqual(rotated.caAddedToBundleAt, clock.now());
      const newNotAfter = certificateNotAfter(rotated.signing.certPem);
      assert.ok(newNotAfter && Math.abs(newNotAfter.getTime() - (clock.now().getTime() + 90 * DAY)) < 1000);
    });

    it('a Secret without a usable key is reported, not replaced', async () => {
      const clock = new ManualDateClock();
      const authority = new WatcherCertificateAuthority(kcp, settingsWith(clock, 'ca-broken'));
      const good = await authority.ensure();
      await kcp.create<Secret>({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'ca-broken-2', namespace: NS },
        type: 'kubernetes.io/tls',
        data: { 'tls.crt': Buffer.from(good.signing.certPem).toString('base64'), 'tls.key': Buffer.from('not a key').toString('base64') },
      });
      const broken = new WatcherCertificateAuthority(kcp, settingsWith(clock, 'ca-broken-2'));
      await assert.rejects(broken.ensure(), (e: unknown) => e instanceof WatcherCaError && /tls\.key/.test(e.message));
      const kept = await kcp.get<Secret>(SECRET_KIND, { namespace: NS, name: 'ca-broken-2' });
      assert.equal(Buffer.from(kept.data?.['tls.key'] ?? '', 'base64').toString(), 'not a key');
    });

    it('refuses settings under which the previous CA would expire within the grace period', () => {
      assert.throws(() => new WatcherCertificateAuthority(kcp, { caRenewBeforeMs: 2 * DAY, rotationGraceMs: 4 * DAY }), /rotationGraceMs/);
    });
  });

  describe('runtime certificates', () => {
    let ca: CaState;
    let clock: ManualDateClock;
    let settings: WatcherPkiSettings;
    const kyma = { metadata: { name: 'k1', annotations: { 'skr-domain': 'api.k1.kyma.example' } } } as unknown as KymaObject;

    before(async () => {
      clock = new ManualDateClock();
      settings = settingsWith(clock, 'ca-runtime');
      ca = await new WatcherCertificateAuthority(kcp, settings).ensure();
    });

    it('carry CN = runtime id, the DNS names, 60 days, and serve and authenticate in a real mutual-TLS handshake', async () => {
      const dnsNames = runtimeDnsNames(kyma);
      assert.deepEqual(dnsNames, ['api.k1.kyma.example', 'skr-webhook.kyma-system.svc', 'skr-webhook.kyma-system.svc.cluster.local']);
      const issued = await issueRuntimeCertificate(ca, { runtimeId: 'rt-1', dnsNames, validityMs: settings.certValidityMs, now: clock.now() });
      const x = new X509Certificate(issued.certPem);
      assert.equal(x.subject, 'CN=rt-1');
      assert.equal(x.subjectAltName, 'DNS:api.k1.kyma.example, DNS:skr-webhook.kyma-system.svc, DNS:skr-webhook.kyma-system.svc.cluster.local');
      assert.equal(issued.caPem, ca.trustedPem);
      assert.ok(x.checkIssued(new X509Certificate(ca.signing.certPem)));
      assert.equal(issued.notAfter.getTime(), clock.now().getTime() + 60 * DAY);
      assert.deepEqual(certificateNotAfter(issued.certPem), new Date(Math.floor(issued.notAfter.getTime() / 1000) * 1000));

      // The same key pair as server (serverAuth) and as client (clientAuth), each side trusting the bundle.
      const side: Side = { cert: issued.certPem, key: issued.keyPem, ca: issued.caPem };
      const result = await handshake(side, side, 'skr-webhook.kyma-system.svc');
      assert.deepEqual(result, { ok: true, clientCn: 'rt-1' });

      // A certificate of another CA is refused by both sides.
      const otherCa = await new WatcherCertificateAuthority(kcp, settingsWith(clock, 'ca-other')).ensure();
      const stranger = await issueRuntimeCertificate(otherCa, { runtimeId: 'rt-x', dnsNames, validityMs: DAY });
      const strangerSide: Side = { cert: stranger.certPem, key: stranger.keyPem, ca: stranger.caPem };
      assert.equal((await handshake(side, { ...strangerSide, ca: side.ca }, 'skr-webhook.kyma-system.svc')).ok, false);
      assert.equal((await handshake({ ...strangerSide, ca: side.ca }, side, 'skr-webhook.kyma-system.svc')).ok, false);
      // And the server name must be one of the certificate's DNS names.
      assert.equal((await handshake(side, side, 'elsewhere.example')).ok, false);
    });

    it('renewalReason: none for a fresh one; expiring soon, other CN or DNS names, other bundle, garbage', async () => {
      const dnsNames = runtimeDnsNames(kyma);
      const want = { runtimeId: 'rt-1', dnsNames };
      const issued = await issueRuntimeCertificate(ca, { ...want, validityMs: settings.certValidityMs, now: clock.now() });
      const stored = { certPem: issued.certPem, caPem: issued.caPem };
      assert.equal(renewalReason(stored, ca, want, settings), undefined);
      assert.equal(renewalReason(stored, ca, { ...want, dnsNames: [...dnsNames].reverse() }, settings), undefined, 'order of DNS names does not matter');
      assert.match(renewalReason(undefined, ca, want, settings) ?? '', /no certificate/);
      assert.match(renewalReason(stored, ca, { ...want, runtimeId: 'rt-2' }, settings) ?? '', /common name rt-1 differs/);
      assert.match(renewalReason(stored, ca, { ...want, dnsNames: dnsNames.slice(1) }, settings) ?? '', /DNS names/);
      assert.match(renewalReason({ ...stored, caPem: '' }, ca, want, settings) ?? '', /bundle/);
      assert.match(renewalReason({ ...stored, certPem: 'garbage' }, ca, want, settings) ?? '', /cannot be parsed/);

      const later = new ManualDateClock();
      later.advance(clock.now().getTime() - Date.now() + 29 * DAY);
      assert.equal(renewalReason(stored, ca, want, { ...settings, now: later.now }), undefined, '31 days left');
      later.advance(1 * DAY + 1000);
      assert.match(renewalReason(stored, ca, want, { ...settings, now: later.now }) ?? '', /expires at .* within the renewal period/);
    });

    it('parses a runtime certificate once for all syncs; its key match and a renewed certificate are judged anew', async () => {
      const want = { runtimeId: 'rt-facts', dnsNames: runtimeDnsNames(kyma) };
      const issued = await issueRuntimeCertificate(ca, { ...want, validityMs: settings.certValidityMs, now: clock.now() });
      const other = await issueRuntimeCertificate(ca, { ...want, validityMs: settings.certValidityMs / 2, now: clock.now() });
      const stored = { certPem: issued.certPem, caPem: issued.caPem };
      const before = certificateFactsStats().parsed;
      for (let sync = 0; sync < 5; sync++) {
        assert.equal(renewalReason(stored, ca, want, settings), undefined);
        assert.equal(keyMatches(issued.certPem, issued.keyPem), true);
        assert.deepEqual(certificateNotAfter(issued.certPem), new Date(Math.floor(issued.notAfter.getTime() / 1000) * 1000));
      }
      assert.equal(certificateFactsStats().parsed - before, 1, 'five syncs parsed the certificate once');
      // A remembered match says nothing about another key, and another certificate has its own facts.
      assert.equal(keyMatches(issued.certPem, other.keyPem), false);
      assert.equal(keyMatches(other.certPem, other.keyPem), true);
      assert.deepEqual(certificateNotAfter(other.certPem), new Date(Math.floor(other.notAfter.getTime() / 1000) * 1000));
      assert.notDeepEqual(certificateNotAfter(other.certPem), certificateNotAfter(issued.certPem));
      assert.equal(certificateFactsStats().parsed - before, 2);
    });
  });

  it('a full rotation: new CA trusted first, old certificates keep working, the server switches after the grace period', async () => {
    const clock = new ManualDateClock();
    const settings = settingsWith(clock, 'ca-rotation');
    const authority = new WatcherCertificateAuthority(kcp, settings);
    const want = { runtimeId: 'rt-rot', dnsNames: ['skr-webhook.kyma-system.svc'] };
    const listenerName = 'listener.kcp.example';

    const initial = await authority.ensure();
    const oldCert = await issueRuntimeCertificate(initial, { ...want, validityMs: settings.certValidityMs, now: clock.now() });
    assert.equal(renewalReason(oldCert, initial, want, settings), undefined);

    const during = await authority.rotate();
    assert.equal(certCount(during.trustedPem), 2);
    assert.equal(splitPemCertificates(during.trustedPem)[0], during.signing.certPem.trim(), 'newest first');
    assert.notEqual(during.signing.certPem, initial.signing.certPem);
    assert.equal(during.serving.certPem, initial.signing.certPem, 'the listener still presents the old CA');
    assert.deepEqual(during.caAddedToBundleAt, clock.now());
    assert.match(renewalReason(oldCert, during, want, settings) ?? '', /previous CA/);
    assert.equal((await authority.rotate()).resourceVersion, during.resourceVersion, 'rotate() during a rotation changes nothing');

    // The listener during the rotation: a certificate of the old CA, trusting both CAs for clients.
    const listener = await issueListenerCertificate(during, { dnsNames: [listenerName], ipAddresses: ['127.0.0.1'], validityMs: DAY, now: clock.now() });
    assert.ok(signedBy(listener.certPem, initial.signing.certPem));
    const listenerSide: Side = { cert: listener.certPem, key: listener.keyPem, ca: listener.caPem };
    // A runtime not yet updated (old certificate, old bundle) still gets through, both ways.
    assert.deepEqual(await handshake(listenerSide, { cert: oldCert.certPem, key: oldCert.keyPem, ca: oldCert.caPem }, listenerName), { ok: true, clientCn: 'rt-rot' });
    // A runtime with its re-issued certificate (new CA) and the two-CA bundle gets through too.
    const newCert = await issueRuntimeCertificate(during, { ...want, validityMs: settings.certValidityMs, now: clock.now() });
    assert.ok(signedBy(newCert.certPem, during.signing.certPem));
    const newSide: Side = { cert: newCert.certPem, key: newCert.keyPem, ca: newCert.caPem };
    assert.deepEqual(await handshake(listenerSide, newSide, listenerName), { ok: true, clientCn: 'rt-rot' });
    // And the runtime's API server (trusting the new bundle) reaches its webhook serving the new certificate.
    assert.equal((await handshake(newSide, newSide, 'skr-webhook.kyma-system.svc')).ok, true);

    // Just before the grace period ends nothing changes.
    clock.advance(4 * DAY - 60_000);
    const stillDuring = await authority.ensure();
    assert.equal(stillDuring.resourceVersion, during.resourceVersion);

    clock.advance(60_000);
    const afterGrace = await authority.ensure();
    assert.equal(afterGrace.rotating, false);
    assert.equal(certCount(afterGrace.trustedPem), 1);
    assert.equal(afterGrace.signing.certPem, during.signing.certPem);
    assert.equal(afterGrace.serving.certPem, during.signing.certPem, 'the listener switches to the new CA');
    assert.deepEqual(afterGrace.caAddedToBundleAt, during.caAddedToBundleAt, 'the time stays recorded');
    const secret = await kcp.get<Secret>(SECRET_KIND, { namespace: NS, name: 'ca-rotation' });
    assert.equal(secret.data?.['previous.crt'], undefined);
    assert.equal(decoded(secret, 'ca.crt'), afterGrace.trustedPem);

    // The re-issued certificate only needs the new bundle; the old one is out.
    assert.match(renewalReason(newCert, afterGrace, want, settings) ?? '', /bundle/);
    assert.equal(renewalReason({ ...newCert, caPem: afterGrace.trustedPem }, afterGrace, want, settings), undefined);
    assert.match(renewalReason(oldCert, afterGrace, want, settings) ?? '', /not issued by the current watcher CA/);
    // (Issued at the real time: the TLS stack checks validity against the real clock.)
    const newListener = await issueListenerCertificate(afterGrace, { dnsNames: [listenerName], ipAddresses: [], validityMs: DAY, now: new Date() });
    const newListenerSide: Side = { cert: newListener.certPem, key: newListener.keyPem, ca: newListener.caPem };
    assert.equal((await handshake(newListenerSide, { ...newSide, ca: afterGrace.trustedPem }, listenerName)).ok, true);
    assert.equal((await handshake(newListenerSide, { cert: oldCert.certPem, key: oldCert.keyPem, ca: oldCert.caPem }, listenerName)).ok, false);
  });

  describe('ensureRuntimeCertificate', () => {
    it('creates the Secret with labels and owner, leaves a valid one alone, re-issues after a rotation, refreshes the bundle after it, and goes with the Kyma', async () => {
      const clock = new ManualDateClock();
      const settings = settingsWith(clock, 'ca-secrets');
      const authority = new WatcherCertificateAuthority(kcp, settings);
      const kyma = await kcp.create<KymaObject>({
        apiVersion: Kyma.apiVersion,
        kind: Kyma.kind,
        metadata: { name: 'kyma-a', namespace: NS, labels: { 'kyma-project.io/runtime-id': 'runtime-a', 'operator.kyma-project.io/kyma-name': 'kyma-a' }, annotations: { 'skr-domain': 'api.a.kyma.example' } },
        spec: { channel: 'regular' },
      });
      const want = { runtimeId: 'runtime-a', dnsNames: runtimeDnsNames(kyma) };
      let ca = await authority.ensure();

      const created = await ensureRuntimeCertificate(kcp, kyma, ca, settings, undefined);
      assert.equal(created.issued, true);
      assert.match(created.reason ?? '', /no certificate/);
      const s = created.secret;
      assert.equal(s.metadata.name, 'kyma-a-webhook-tls');
      assert.equal(s.metadata.namespace, NS);
      assert.equal(s.type, 'kubernetes.io/tls');
      assert.deepEqual(s.metadata.labels, { 'operator.kyma-project.io/purpose': 'klm-watcher-cert-manager', 'operator.kyma-project.io/kyma-name': 'kyma-a' });
      assert.deepEqual(s.metadata.ownerReferences, [{ apiVersion: Kyma.apiVersion, kind: 'Kyma', name: 'kyma-a', uid: kyma.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      assert.equal(decoded(s, 'ca.crt'), ca.trustedPem);
      assert.equal(new X509Certificate(decoded(s, 'tls.crt')).subject, 'CN=runtime-a');
      assert.equal(renewalReason({ certPem: decoded(s, 'tls.crt'), caPem: decoded(s, 'ca.crt') }, ca, want, settings), undefined);
      const side: Side = { cert: decoded(s, 'tls.crt'), key: decoded(s, 'tls.key'), ca: decoded(s, 'ca.crt') };
      assert.deepEqual(await handshake(side, side, 'api.a.kyma.example'), { ok: true, clientCn: 'runtime-a' });

      // Valid: returned as it is, nothing written.
      const counting = countingClient(kcp);
      const again = await ensureRuntimeCertificate(counting.client, kyma, ca, settings, s);
      assert.equal(again.issued, false);
      assert.equal(again.reason, undefined);
      assert.equal(again.secret.metadata.resourceVersion, s.metadata.resourceVersion);
      assert.equal(counting.count(), 0);
      // Without a cached copy the Secret is found (the create is refused) and left alone too.
      const uncached = await ensureRuntimeCertificate(kcp, kyma, ca, settings, undefined);
      assert.equal(uncached.issued, false);
      assert.equal(uncached.secret.metadata.resourceVersion, s.metadata.resourceVersion);

      // The CA rotates: a new key pair from the new CA, with both CAs in the bundle.
      ca = await authority.rotate();
      const reissued = await ensureRuntimeCertificate(kcp, kyma, ca, settings, s);
      assert.equal(reissued.issued, true);
      assert.match(reissued.reason ?? '', /previous CA/);
      assert.notEqual(reissued.secret.metadata.resourceVersion, s.metadata.resourceVersion);
      assert.ok(signedBy(decoded(reissued.secret, 'tls.crt'), ca.signing.certPem));
      assert.equal(certCount(decoded(reissued.secret, 'ca.crt')), 2);
      // A stale cached copy (the one before) leads to a conflict, a re-read, and no second issuance.
      const stale = await ensureRuntimeCertificate(kcp, kyma, ca, settings, s);
      assert.equal(stale.issued, false);
      assert.equal(stale.secret.metadata.resourceVersion, reissued.secret.metadata.resourceVersion);

      // The rotation ends: only ca.crt changes, the key pair stays.
      clock.advance(settings.rotationGraceMs);
      ca = await authority.ensure();
      assert.equal(ca.rotating, false);
      const refreshed = await ensureRuntimeCertificate(kcp, kyma, ca, settings, reissued.secret);
      assert.equal(refreshed.issued, false);
      assert.match(refreshed.reason ?? '', /bundle/);
      assert.equal(decoded(refreshed.secret, 'tls.crt'), decoded(reissued.secret, 'tls.crt'));
      assert.equal(decoded(refreshed.secret, 'tls.key'), decoded(reissued.secret, 'tls.key'));
      assert.equal(decoded(refreshed.secret, 'ca.crt'), ca.trustedPem);

      // Deleting the Kyma takes the Secret with it (garbage collection through the owner reference).
      await kcp.delete(Kyma, { namespace: NS, name: 'kyma-a' });
      await waitFor('the certificate Secret to go with its Kyma', async () => {
        try {
          await kcp.get(SECRET_KIND, { namespace: NS, name: 'kyma-a-webhook-tls' });
          return false;
        } catch (e) {
          return isNotFound(e);
        }
      });
    });

    it('names a Kyma without a runtime-id label by its name (the broker names Kymas by runtime id)', async () => {
      const clock = new ManualDateClock();
      const settings = settingsWith(clock, 'ca-secrets');
      const ca = await new WatcherCertificateAuthority(kcp, settings).ensure();
      const kyma = await kcp.create<KymaObject>({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: 'no-id', namespace: NS }, spec: { channel: 'regular' } } as KymaObject);
      const { secret } = await ensureRuntimeCertificate(kcp, kyma, ca, settings, undefined);
      const cert = new X509Certificate(Buffer.from(secret.data?.['tls.crt'] ?? '', 'base64').toString('utf8'));
      assert.match(cert.subject, /CN=no-id/);
    });
  });
});
