// Certificates for the embedded API server, its clients and test webhooks: ECDSA P-256 keys,
// X.509 v3 extensions as Go's crypto/x509 and Node's TLS expect them.
import { webcrypto, randomBytes, createPrivateKey } from 'node:crypto';

export interface CertKeyPair {
  certPem: string;
  /** PKCS#8 PEM, usable by node:tls. */
  keyPem: string;
}

type X509Module = typeof import('@peculiar/x509');

const EC_KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const EC_SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;
const RSA_KEY = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;

let x509Loaded: Promise<X509Module> | undefined;

/**
 * @peculiar/x509 resolves its algorithms through tsyringe, which refuses to load without the
 * Reflect metadata API. The project has no reflect-metadata package, so a minimal in-memory
 * version is installed (only when missing) before the library is imported.
 */
function loadX509(): Promise<X509Module> {
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

/** A positive serial number of 16 random bytes (top bit clear, first byte non-zero). */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x01;
  return bytes.toString('hex');
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  // Backdated a little so that a client with a slightly late clock accepts a fresh certificate.
  const notBefore = new Date(Date.now() - 5 * 60 * 1000);
  return { notBefore, notAfter: new Date(notBefore.getTime() + days * DAY_MS) };
}

function subjectName(commonName: string, organizations: string[] = []): Array<Record<string, string[]>> {
  return [...organizations.map((o) => ({ O: [o] })), { CN: [commonName] }];
}

async function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify']);
}

async function privateKeyPem(x509: X509Module, key: webcrypto.CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

/** Imports a signing key from PEM (PKCS#8, SEC1 or PKCS#1), so a CA made elsewhere works too. */
async function importSigningKey(keyPem: string): Promise<{ key: webcrypto.CryptoKey; algorithm: typeof EC_SIGN | typeof RSA_KEY }> {
  const keyObject = createPrivateKey(keyPem);
  const der = keyObject.export({ type: 'pkcs8', format: 'der' });
  const type = keyObject.asymmetricKeyType;
  if (type === 'ec') {
    const key = await webcrypto.subtle.importKey('pkcs8', der, EC_KEY, false, ['sign']);
    return { key: key, algorithm: EC_SIGN };
  }
  if (type === 'rsa') {
    const key = await webcrypto.subtle.importKey('pkcs8', der, RSA_KEY, false, ['sign']);
    return { key: key, algorithm: RSA_KEY };
  }
  throw new Error(`unsupported CA key type ${String(type)}`);
}

function alternativeNames(x509: X509Module, dnsNames: string[], ipAddresses: string[]) {
  return new x509.SubjectAlternativeNameExtension([
    ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...ipAddresses.map((value) => ({ type: 'ip' as const, value })),
  ]);
}

export async function createCA(commonName: string): Promise<CertKeyPair> {
  const x509 = await loadX509();
  const keys = await generateKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: subjectName(commonName),
    ...validity(3650),
    signingAlgorithm: EC_SIGN,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(x509, keys.privateKey) };
}

interface LeafSpec {
  commonName: string;
  organizations?: string[];
  days: number;
  extendedUsage: string;
  extraExtensions: (x509: X509Module) => import('@peculiar/x509').Extension[];
}

async function issueLeaf(ca: CertKeyPair, spec: LeafSpec): Promise<CertKeyPair> {
  const x509 = await loadX509();
  const caCert = new x509.X509Certificate(ca.certPem);
  const signer = await importSigningKey(ca.keyPem);
  const keys = await generateKeys();
  const caKeyId = caCert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
  const authorityKeyId = caKeyId
    ? new x509.AuthorityKeyIdentifierExtension(caKeyId)
    : await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: subjectName(spec.commonName, spec.organizations),
    issuer: caCert.subjectName,
    ...validity(spec.days),
    signingAlgorithm: signer.algorithm,
    publicKey: keys.publicKey,
    signingKey: signer.key,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([spec.extendedUsage]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      authorityKeyId,
      ...spec.extraExtensions(x509),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(x509, keys.privateKey) };
}

export function createServingCert(
  ca: CertKeyPair,
  opts: { commonName: string; dnsNames: string[]; ipAddresses: string[]; days?: number },
): Promise<CertKeyPair> {
  return issueLeaf(ca, {
    commonName: opts.commonName,
    days: opts.days ?? 365,
    extendedUsage: '1.3.6.1.5.5.7.3.1',
    extraExtensions: (x509) => [alternativeNames(x509, opts.dnsNames, opts.ipAddresses)],
  });
}

export function createClientCert(
  ca: CertKeyPair,
  opts: { commonName: string; organizations?: string[]; days?: number },
): Promise<CertKeyPair> {
  return issueLeaf(ca, {
    commonName: opts.commonName,
    organizations: opts.organizations,
    days: opts.days ?? 365,
    extendedUsage: '1.3.6.1.5.5.7.3.2',
    extraExtensions: () => [],
  });
}

/** Self-signed serving certificate (CA:true, usable as its own CA bundle), e.g. for an admission webhook on 127.0.0.1. */
export async function createSelfSigned(opts: {
  commonName: string;
  dnsNames?: string[];
  ipAddresses?: string[];
  days?: number;
}): Promise<CertKeyPair> {
  const x509 = await loadX509();
  const keys = await generateKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: subjectName(opts.commonName),
    ...validity(opts.days ?? 365),
    signingAlgorithm: EC_SIGN,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyCertSign,
        true,
      ),
      new x509.ExtendedKeyUsageExtension(['1.3.6.1.5.5.7.3.1']),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      alternativeNames(x509, opts.dnsNames ?? [], opts.ipAddresses ?? []),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(x509, keys.privateKey) };
}
