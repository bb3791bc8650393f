// Issuing leaf certificates: each is signed by the CA it was asked of, also when several CAs take
// turns or share a certificate (the parsed CA and its imported key are kept between calls, by the
// certificate and the key together).
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import { createCertificateAuthority, ExtendedKeyUsages, issueCertificate } from '../../src/util/x509.js';

const validity = () => ({ notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 3_600_000) });

describe('issueCertificate', () => {
  it('signs with the CA it is given, CAs taking turns', async () => {
    const cas = [await createCertificateAuthority({ commonName: 'ca-one', ...validity() }), await createCertificateAuthority({ commonName: 'ca-two', ...validity() })];
    for (const i of [0, 1, 0, 1, 1, 0]) {
      const leaf = await issueCertificate(cas[i], { commonName: `leaf-${i}`, extendedKeyUsages: [ExtendedKeyUsages.ServerAuth], dnsNames: ['localhost'], ...validity() });
      const cert = new X509Certificate(leaf.certPem);
      const own = new X509Certificate(cas[i].certPem);
      const other = new X509Certificate(cas[1 - i].certPem);
      assert.ok(cert.checkIssued(own) && cert.verify(own.publicKey), `leaf-${i} is signed by its CA`);
      assert.equal(cert.verify(other.publicKey), false, `leaf-${i} is not signed by the other CA`);
      assert.match(cert.issuer, new RegExp(`CN=ca-${i === 0 ? 'one' : 'two'}`));
    }
  });

  it('reports a CA whose key cannot be read, and a good pair with the same certificate still signs', async () => {
    const ca = await createCertificateAuthority({ commonName: 'ca-broken', ...validity() });
    const broken = { certPem: ca.certPem, keyPem: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' };
    for (let i = 0; i < 2; i++) {
      await assert.rejects(issueCertificate(broken, { commonName: 'leaf', extendedKeyUsages: [ExtendedKeyUsages.ClientAuth], ...validity() }));
    }
    // The good pair still signs.
    const leaf = await issueCertificate(ca, { commonName: 'leaf', extendedKeyUsages: [ExtendedKeyUsages.ClientAuth], ...validity() });
    assert.ok(new X509Certificate(leaf.certPem).verify(new X509Certificate(ca.certPem).publicKey));
  });
});
