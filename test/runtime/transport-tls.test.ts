// TLS of the runtime client's transport against a loopback server that requires client
// certificates: one SecureContext per credential set shared by all transports using it, a new one
// for changed credentials, and reconnects that resume the TLS session.
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { type CertKeyPair, createCA, createClientCert, createServingCert } from '../../src/apiserver/pki.js';
import { Transport } from '../../src/runtime/client/transport.js';
import { SecureContextCache } from '../../src/util/tls-contexts.js';
import { waitFor } from '../support/wait.js';

interface Answer {
  cn: string;
  resumed: boolean;
}

describe('transport TLS contexts and sessions', () => {
  let server: https.Server;
  let url: string;
  let ca: CertKeyPair;
  let alice: CertKeyPair;
  let bob: CertKeyPair;
  /** Connections the server accepted. */
  let accepted = 0;

  before(async () => {
    ca = await createCA('test-ca');
    const serving = await createServingCert(ca, { commonName: 'server', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    alice = await createClientCert(ca, { commonName: 'alice' });
    bob = await createClientCert(ca, { commonName: 'bob' });
    server = https.createServer({ key: serving.keyPem, cert: serving.certPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const socket = req.socket as TLSSocket;
      const answer: Answer = { cn: String(socket.getPeerCertificate().subject?.CN ?? ''), resumed: socket.isSessionReused() };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
    server.on('secureConnection', () => accepted++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  function transport(contexts: SecureContextCache, user: CertKeyPair): Transport {
    return new Transport({ name: 'test', server: url, tls: { ca: ca.certPem, cert: user.certPem, key: user.keyPem } }, { secureContexts: contexts, maxSockets: 1 });
  }

  async function ask(t: Transport): Promise<Answer> {
    const res = await t.request({ method: 'GET', path: '/' });
    assert.equal(res.status, 200);
    return JSON.parse(res.body) as Answer;
  }

  it('builds one context per credential set, however many transports and connections use it', async () => {
    const contexts = new SecureContextCache();
    const before = accepted;
    const sameCredentials = Array.from({ length: 5 }, () => transport(contexts, alice));
    const answers = await Promise.all(sameCredentials.map((t) => ask(t)));
    assert.deepEqual(answers.map((a) => a.cn), ['alice', 'alice', 'alice', 'alice', 'alice']);
    assert.equal(accepted - before, 5, 'each transport opened its own connection');
    assert.deepEqual(contexts.stats(), { contexts: 1, held: 1, created: 1, reused: 4 });

    const other = transport(contexts, bob);
    assert.equal((await ask(other)).cn, 'bob');
    assert.equal(contexts.stats().created, 2, 'a second credential set gets its own context');
    for (const t of [...sameCredentials, other]) t.close();
    assert.equal(contexts.stats().held, 0, 'closed transports hold no context');
  });

  it('a changed credential gets a new context, and the unchanged one is found again', async () => {
    const contexts = new SecureContextCache();
    const first = transport(contexts, alice);
    assert.equal((await ask(first)).cn, 'alice');
    first.close();
    // The credential rotates: the rebuilt client presents the new certificate.
    const rotated = transport(contexts, bob);
    assert.equal((await ask(rotated)).cn, 'bob');
    assert.equal(contexts.stats().created, 2);
    rotated.close();
    // A client rebuilt with unchanged credentials (a TTL rebuild) reuses the kept context.
    const rebuilt = transport(contexts, bob);
    assert.equal((await ask(rebuilt)).cn, 'bob');
    assert.equal(contexts.stats().created, 2);
    rebuilt.close();
  });

  it('a reconnect after the idle connection was closed resumes the TLS session', async () => {
    const t = transport(new SecureContextCache(), alice);
    const first = await ask(t);
    assert.equal(first.resumed, false, 'the first connection does a full handshake');
    t.destroyIdleSockets();
    await waitFor('the idle connection closed', () => t.openRequestSockets === 0);
    const second = await ask(t);
    assert.equal(second.resumed, true, 'the server saw a resumed session');
    assert.equal(second.cn, 'alice', 'the resumed session still carries the client certificate');
    assert.deepEqual(t.connectionStats(), { opened: 2, resumed: 1, closedIdle: 0 });
    t.close();
  });
});
