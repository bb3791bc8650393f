// X.509 building blocks: ECDSA P-256 key pairs, CA certificates and leaf certificates with explicit
// validity, extended key usages and DNS/IP subject alternative names, with the v3 extensions Go's
// crypto/x509 and Node's TLS expect. A leaf: it imports nothing of the project (only
// @peculiar/x509 and node:crypto), so the embedded API server (src/apiserver/pki.ts) and the
// watcher's CA (src/watcher/certificates.ts) both build on it without depending on each other.
import { webcrypto, randomBytes, createPrivateKey } from 'node:crypto';

export interface CertKeyPair {
  certPem: string;
  /** PKCS#8 PEM, usable by node:tls. */
  keyPem: string;
}

/** The validity window of a certificate. */
export interface Validity {
  notBefore: Date;
  notAfter: Date;
}

/** Extended key usage OIDs (RFC 5280, 4.2.1.12). */
export const ExtendedKeyUsages = {
  ServerAuth: '1.3.6.1.5.5.7.3.1',
  ClientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

export type X509Module = typeof import('@peculiar/x509');

const EC_KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const EC_SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;
const RSA_KEY = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

let x509Loaded: Promise<X509Module> | undefined;

/**
 * @peculiar/x509, ready to use. The library resolves its algorithms through tsyringe, which refuses
 * to load without the Reflect metadata API. The project has no reflect-metadata package, so a minimal
 * in-memory version is installed (only when missing) before the library is imported.
 */
export function loadX509(): Promise<X509Module> {
  x509Loaded ??= (async () => {
    installReflectMetadata();
    const mod = await import('@peculiar/x509');
    mod.cryptoProvider.set(webcrypto as unknown as Parameters<typeof mod.cryptoProvider.set>[0]);
    return mod;
  })();
  return x509Loaded;
}

interface ReflectMetadataApi {
  getMetadata?: (key: unknown, target: object) => unknown;
  getOwnMetadata?: (key: unknown, target: object) => unknown;
  defineMetadata?: (key: unknown, value: unknown, target: object) => void;
  hasMetadata?: (key: unknown, target: object) => boolean;
  metadata?: (key: unknown, value: unknown) => (target: object) => void;
}

function installReflectMetadata(): void {
  const api = Reflect as unknown as ReflectMetadataApi;
  if (typeof api.getMetadata === 'function') return;
  const store = new WeakMap<object, Map<unknown, unknown>>();
  const own = (target: object) => store.get(target);
  api.defineMetadata = (key, value, target) => {
    let entries = store.get(target);
    if (!entries) store.set(target, (entries = new Map()));
    entries.set(key, value);
  };
  api.getOwnMetadata = (key, target) => own(target)?.get(key);
  api.getMetadata = (key, target) => {
    for (let t: object | null = target; t; t = Object.getPrototypeOf(t) as object | null) {
      const entries = own(t);
      if (entries?.has(key)) return entries.get(key);
    }
    return undefined;
  };
  api.hasMetadata = (key, target) => api.getMetadata?.(key, target) !== undefined;
  api.metadata = (key, value) => (target) => api.defineMetadata?.(key, value, target);
}

/** A positive serial number of 16 random bytes (top bit clear, first byte non-zero), hex. */
export function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x01;
  return bytes.toString('hex');
}

/** A new extractable ECDSA P-256 key pair. */
export function generateKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify']);
}

async function privateKeyPem(x509: X509Module, key: webcrypto.CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

/** Imports a signing key from PEM (PKCS#8, SEC1 or PKCS#1, EC or RSA), so a CA made elsewhere works too. */
async function importSigningKey(keyPem: string): Promise<{ key: webcrypto.CryptoKey; algorithm: typeof EC_SIGN | typeof RSA_KEY }> {
  const keyObject = createPrivateKey(keyPem);
  const der = keyObject.export({ type: 'pkcs8', format: 'der' });
  const type = keyObject.asymmetricKeyType;
  if (type === 'ec') return { key: await webcrypto.subtle.importKey('pkcs8', der, EC_KEY, false, ['sign']), algorithm: EC_SIGN };
  if (type === 'rsa') return { key: await webcrypto.subtle.importKey('pkcs8', der, RSA_KEY, false, ['sign']), algorithm: RSA_KEY };
  throw new Error(`unsupported CA key type ${String(type)}`);
}

function subjectName(commonName: string, organizations: readonly string[] = []): Array<Record<string, string[]>> {
  return [...organizations.map((o) => ({ O: [o] })), { CN: [commonName] }];
}

/** The subjectAltName extension, or nothing when there are no names (RFC 5280 forbids an empty one). */
function alternativeNames(x509: X509Module, dnsNames: readonly string[] = [], ipAddresses: readonly string[] = []) {
  if (dnsNames.length === 0 && ipAddresses.length === 0) return [];
  return [
    new x509.SubjectAlternativeNameExtension([
      ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
      ...ipAddresses.map((value) => ({ type: 'ip' as const, value })),
    ]),
  ];
}

/** A self-signed certificate (CA:true) with a new ECDSA P-256 key and the given key usages and extensions. */
async function selfSigned(
  opts: { commonName: string } & Validity,
  keyUsages: (flags: X509Module['KeyUsageFlags']) => number,
  extra: (x509: X509Module) => import('@peculiar/x509').Extension[],
): Promise<CertKeyPair> {
  const x509 = await loadX509();
  const keys = await generateKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerialNumber(),
    name: subjectName(opts.commonName),
    notBefore: opts.notBefore,
    notAfter: opts.notAfter,
    signingAlgorithm: EC_SIGN,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(keyUsages(x509.KeyUsageFlags), true),
      ...extra(x509),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(x509, keys.privateKey) };
}

/** A self-signed CA certificate (CA:true, keyCertSign, cRLSign) with a new ECDSA P-256 key. */
export function createCertificateAuthority(opts: { commonName: string } & Validity): Promise<CertKeyPair> {
  return selfSigned(opts, (f) => f.keyCertSign | f.cRLSign | f.digitalSignature, () => []);
}

export interface LeafOptions extends Validity {
  commonName: string;
  organizations?: readonly string[];
  /** Extended key usage OIDs, e.g. `[ExtendedKeyUsages.ServerAuth, ExtendedKeyUsages.ClientAuth]`. */
  extendedKeyUsages: readonly string[];
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

/** A CA as a signer needs it: its certificate parsed, its key imported, its key identifier. */
interface Signer {
  caCert: import('@peculiar/x509').X509Certificate;
  signer: Awaited<ReturnType<typeof importSigningKey>>;
  authorityKeyId: import('@peculiar/x509').AuthorityKeyIdentifierExtension;
}

/** The CAs last signed with: a fleet's certificates come from one or two, and parsing one in JavaScript costs more than the signature. */
const signers = new Map<string, Promise<Signer>>();
const SIGNERS_KEPT = 8;

function signerOf(x509: X509Module, ca: CertKeyPair): Promise<Signer> {
  const key = `${ca.certPem}\n${ca.keyPem}`;
  let signer = signers.get(key);
  if (!signer) {
    signer = (async () => {
      const caCert = new x509.X509Certificate(ca.certPem);
      const caKeyId = caCert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
      const authorityKeyId = caKeyId ? new x509.AuthorityKeyIdentifierExtension(caKeyId) : await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey);
      return { caCert, signer: await importSigningKey(ca.keyPem), authorityKeyId };
    })();
    // A CA that cannot be used is not kept (unless another entry took its place meanwhile).
    const failed = signer;
    failed.catch(() => {
      if (signers.get(key) === failed) signers.delete(key);
    });
    signers.set(key, signer);
    if (signers.size > SIGNERS_KEPT) signers.delete(signers.keys().next().value as string);
  }
  return signer;
}

/** A leaf certificate (CA:false, digitalSignature + keyEncipherment) with a new ECDSA P-256 key, signed by `ca` (EC or RSA). */
export async function issueCertificate(ca: CertKeyPair, opts: LeafOptions): Promise<CertKeyPair> {
  const x509 = await loadX509();
  const { caCert, signer, authorityKeyId } = await signerOf(x509, ca);
  const keys = await generateKeyPair();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: subjectName(opts.commonName, opts.organizations),
    issuer: caCert.subjectName,
    notBefore: opts.notBefore,
    notAfter: opts.notAfter,
    signingAlgorithm: signer.algorithm,
    publicKey: keys.publicKey,
    signingKey: signer.key,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([...opts.extendedKeyUsages]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      authorityKeyId,
      ...alternativeNames(x509, opts.dnsNames, opts.ipAddresses),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(x509, keys.privateKey) };
}

/**
 * A self-signed certificate that is its own CA bundle (CA:true, keyCertSign besides the leaf key
 * usages), e.g. for an admission webhook on 127.0.0.1.
 */
export function createSelfSignedCertificate(opts: Omit<LeafOptions, 'organizations'>): Promise<CertKeyPair> {
  return selfSigned(opts, (f) => f.digitalSignature | f.keyEncipherment | f.keyCertSign, (x509) => [
    new x509.ExtendedKeyUsageExtension([...opts.extendedKeyUsages]),
    ...alternativeNames(x509, opts.dnsNames, opts.ipAddresses),
  ]);
}

/** The certificates of a PEM bundle, each as its own PEM block without a trailing newline (other blocks and text ignored). */
export function splitPemCertificates(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
}
