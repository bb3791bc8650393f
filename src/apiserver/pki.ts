// Certificates for the embedded API server, its clients and test webhooks: ECDSA P-256 keys, fixed
// validity in days. The X.509 work itself is src/util/x509.ts; this file only sets the profiles.
import {
  createCertificateAuthority,
  createSelfSignedCertificate,
  ExtendedKeyUsages,
  issueCertificate,
  type CertKeyPair,
  type Validity,
} from '../util/x509.js';

export type { CertKeyPair } from '../util/x509.js';

const DAY_MS = 24 * 60 * 60 * 1000;

function validity(days: number): Validity {
  // Backdated a little so that a client with a slightly late clock accepts a fresh certificate.
  const notBefore = new Date(Date.now() - 5 * 60 * 1000);
  return { notBefore, notAfter: new Date(notBefore.getTime() + days * DAY_MS) };
}

/** A CA valid for ten years. */
export function createCA(commonName: string): Promise<CertKeyPair> {
  return createCertificateAuthority({ commonName, ...validity(3650) });
}

export function createServingCert(
  ca: CertKeyPair,
  opts: { commonName: string; dnsNames: string[]; ipAddresses: string[]; days?: number },
): Promise<CertKeyPair> {
  return issueCertificate(ca, {
    commonName: opts.commonName,
    ...validity(opts.days ?? 365),
    extendedKeyUsages: [ExtendedKeyUsages.ServerAuth],
    dnsNames: opts.dnsNames,
    ipAddresses: opts.ipAddresses,
  });
}

export function createClientCert(
  ca: CertKeyPair,
  opts: { commonName: string; organizations?: string[]; days?: number },
): Promise<CertKeyPair> {
  return issueCertificate(ca, {
    commonName: opts.commonName,
    organizations: opts.organizations,
    ...validity(opts.days ?? 365),
    extendedKeyUsages: [ExtendedKeyUsages.ClientAuth],
  });
}

/** Self-signed serving certificate (CA:true, usable as its own CA bundle), e.g. for an admission webhook on 127.0.0.1. */
export function createSelfSigned(opts: {
  commonName: string;
  dnsNames?: string[];
  ipAddresses?: string[];
  days?: number;
}): Promise<CertKeyPair> {
  return createSelfSignedCertificate({
    commonName: opts.commonName,
    ...validity(opts.days ?? 365),
    extendedKeyUsages: [ExtendedKeyUsages.ServerAuth],
    dnsNames: opts.dnsNames,
    ipAddresses: opts.ipAddresses,
  });
}
