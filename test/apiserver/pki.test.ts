import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createCA, createServingCert, createClientCert, createSelfSigned, type CertKeyPair } from '../../src/apiserver/pki.js';

interface Served {
  port: number;
  close(): Promise<void>;
}

/** An HTTPS server answering with the client certificate's subject (or "anonymous"). */
async function serve(serving: CertKeyPair, clientCa?: string): Promise<Served> {
  const server = https.createServer(
    { cert: serving.certPem, key: serving.keyPem, ca: clientCa, requestCert: Boolean(clientCa), rejectUnauthorized: false },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      const peer = socket.getPeerCertificate();
      res.end(socket.authorized && peer.subject ? `${String(peer.subject.O)}/${String(peer.subject.CN)}` : 'anonymous');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

function get(port: number, opts: { ca: string; servername?: string; cert?: CertKeyPair }): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1', port, path: '/', ca: opts.ca, servername: opts.servername, agent: false,
        cert: opts.cert?.certPem, key: opts.cert?.keyPem,
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(text));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const caPromise = createCA('test-ca');

test('a client trusting the CA reaches a server by IP and by DNS name; another CA is refused', async () => {
  const ca = await caPromise;
  const serving = await createServingCert(ca, { commonName: 'apiserver', dnsNames: ['localhost', 'kubernetes'], ipAddresses: ['127.0.0.1'] });
  const server = await serve(serving);
  try {
    assert.equal(await get(server.port, { ca: ca.certPem }), 'anonymous');
    assert.equal(await get(server.port, { ca: ca.certPem, servername: 'kubernetes' }), 'anonymous');
    await assert.rejects(get(server.port, { ca: ca.certPem, servername: 'other.example.com' }), /altnames|Hostname/);
    const otherCa = await createCA('other-ca');
    await assert.rejects(get(server.port, { ca: otherCa.certPem }), /self.signed|unable to verify|local issuer/i);
  } finally {
    await server.close();
  }
});

test('client certificates carry CN and organizations and are verified against the CA', async () => {
  const ca = await caPromise;
  const serving = await createServingCert(ca, { commonName: 'apiserver', dnsNames: [], ipAddresses: ['127.0.0.1'] });
  const client = await createClientCert(ca, { commonName: 'admin', organizations: ['system:masters'] });
  const server = await serve(serving, ca.certPem);
  try {
    assert.equal(await get(server.port, { ca: ca.certPem, cert: client }), 'system:masters/admin');
    const stranger = await createClientCert(await createCA('stranger'), { commonName: 'eve' });
    assert.equal(await get(server.port, { ca: ca.certPem, cert: stranger }), 'anonymous');
  } finally {
    await server.close();
  }
});

test('a self-signed certificate is its own CA bundle', async () => {
  const self = await createSelfSigned({ commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'] });
  const server = await serve(self);
  try {
    assert.equal(await get(server.port, { ca: self.certPem }), 'anonymous');
    await assert.rejects(get(server.port, { ca: (await caPromise).certPem }));
  } finally {
    await server.close();
  }
});

test('certificates carry the extensions Go clients check', async () => {
  const ca = await caPromise;
  const caCert = new X509Certificate(ca.certPem);
  const serving = new X509Certificate(
    (await createServingCert(ca, { commonName: 'apiserver', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1', '::1'], days: 2 })).certPem,
  );
  assert.equal(caCert.ca, true);
  assert.equal(serving.ca, false);
  assert.ok(serving.verify(caCert.publicKey));
  assert.ok(serving.checkIssued(caCert));
  assert.match(serving.subjectAltName ?? '', /DNS:localhost/);
  assert.match(serving.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);
  assert.match(serving.subjectAltName ?? '', /IP Address:0:0:0:0:0:0:0:1/);
  assert.ok(Number.parseInt(serving.serialNumber.slice(0, 2), 16) < 0x80, 'serial number must be positive');
  const lifetime = Date.parse(serving.validTo) - Date.parse(serving.validFrom);
  assert.ok(Math.abs(lifetime - 2 * 86400_000) < 2000);
  const key = createPrivateKey((await createClientCert(ca, { commonName: 'x' })).keyPem);
  assert.equal(key.asymmetricKeyType, 'ec');
});

function opensslAvailable(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('openssl verifies the purposes of each certificate', { skip: !opensslAvailable() && 'openssl not installed' }, async () => {
  const ca = await caPromise;
  const dir = mkdtempSync(join(tmpdir(), 'pki-test-'));
  try {
    const files: Record<string, string> = {
      ca: ca.certPem,
      serving: (await createServingCert(ca, { commonName: 's', dnsNames: ['localhost'], ipAddresses: [] })).certPem,
      client: (await createClientCert(ca, { commonName: 'c', organizations: ['g'] })).certPem,
    };
    for (const [name, pem] of Object.entries(files)) writeFileSync(join(dir, `${name}.pem`), pem);
    const verify = (purpose: string, name: string) =>
      execFileSync('openssl', ['verify', '-purpose', purpose, '-CAfile', join(dir, 'ca.pem'), join(dir, `${name}.pem`)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }).toString();
    assert.match(verify('sslserver', 'serving'), /OK/);
    assert.match(verify('sslclient', 'client'), /OK/);
    assert.throws(() => verify('sslserver', 'client'));
    assert.throws(() => verify('sslclient', 'serving'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
