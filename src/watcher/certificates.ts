// The runtime watcher's PKI: the control plane's own CA (no cert-manager) and one certificate per
// runtime, which is both the skr-webhook's serving certificate and its client certificate towards
// the KCP listener (CN = runtime id). Upstream (kyma-project/lifecycle-manager) builds the same with
// cert-manager: a self-signed CA `klm-watcher-serving` (Secret `klm-watcher`, 90 days) and a
// Certificate `<kyma>-webhook-tls` per Kyma (60 days, renewed 30 days before expiry).
//
// Deviation from upstream: every key is ECDSA P-256, the CA's too (upstream: RSA 4096). With 10,000
// runtimes a CA rotation re-issues 10,000 certificates; P-256 signs them in a fraction of the time.
// A CA Secret holding an RSA CA (e.g. one cert-manager wrote) is still read and signs.
//
// CA rotation follows upstream ADR 007: the new CA first joins the trusted bundle (and signs every
// new certificate, so runtime certificates issued before are re-issued and carry the new bundle),
// while the listener keeps presenting a certificate of the previous CA; only after a grace period
// does the previous CA leave the bundle and the listener switch. A runtime that received its new
// certificate and bundle within the grace period is never locked out.
//
// Layout of the CA Secret (`kcp-system/klm-watcher`, type kubernetes.io/tls):
//   tls.crt, tls.key        the newest CA (signs every new certificate), as cert-manager writes a CA
//   ca.crt                  the trusted bundle, newest first: tls.crt alone outside a rotation (as
//                           cert-manager writes it for a self-signed CA), tls.crt + previous.crt during one
//   previous.crt, previous.key   the previous CA, only while a rotation is in progress
//   annotation operator.kyma-project.io/ca-added-to-bundle-at   (upstream's caAddedToBundleAt) RFC 3339
//                           time at which tls.crt joined the bundle; absent before the first rotation,
//                           kept after a rotation ended
// stateOf derives the bundle from tls.crt and previous.crt; ca.crt is written for readers.
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto';
import { Annotations, Kyma, Labels, LabelValues, Namespaces, type KymaObject } from '../api/operator/index.js';
import type { OwnerReference } from '../kube/object.js';
import type { Client } from '../runtime/client/interface.js';
import { isAlreadyExists, isConflict, isNotFound } from '../runtime/client/errors.js';
import { SECRET_KIND, type Secret } from '../runtime/remote/secret.js';
import {
  createCertificateAuthority,
  ExtendedKeyUsages,
  issueCertificate,
  splitPemCertificates,
  type CertKeyPair,
} from '../util/x509.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Certificates start a little in the past, so that a peer with a slightly late clock accepts a fresh one. */
const BACKDATE_MS = 5 * 60 * 1000;
/** How often ensure/rotate/ensureRuntimeCertificate re-read after a conflict before giving up. */
const MAX_ATTEMPTS = 5;

export interface WatcherPkiSettings {
  /** KCP namespace of the CA Secret and of the runtime certificate Secrets (kcp-system). */
  namespace: string;
  /** Name of the CA Secret (upstream: `klm-watcher`). */
  caSecretName: string;
  /** Validity of a new CA (upstream: 90 days). */
  caValidityMs: number;
  /** A rotation starts this long before the CA expires. Must exceed rotationGraceMs. */
  caRenewBeforeMs: number;
  /** After the new CA joined the bundle, the listener switches to it and the previous CA is dropped (upstream ADR 007: 4 days). */
  rotationGraceMs: number;
  /** Validity of a runtime certificate (upstream: 60 days). */
  certValidityMs: number;
  /** A runtime certificate is re-issued this long before it expires (upstream: 30 days). */
  certRenewBeforeMs: number;
  /**
   * How long past its renewal time a runtime certificate may stay un-renewed before it counts as not
   * renewed (metric lifecycle_mgr_self_signed_cert_not_renew; upstream's --self-signed-cert-renew-buffer, 24 h).
   */
  certRenewBufferMs?: number;
  /** The clock (default: the system clock). */
  now?: () => Date;
  /** Common name of a new CA (default: the watcher's, WATCHER_CA_COMMON_NAME); other users of this CA code set their own. */
  caCommonName?: string;
  /** Labels of a new CA Secret (default: managed by the lifecycle manager). */
  caSecretLabels?: Record<string, string>;
}

export const DEFAULT_WATCHER_PKI_SETTINGS: WatcherPkiSettings = {
  namespace: Namespaces.ControlPlane,
  caSecretName: 'klm-watcher',
  caValidityMs: 90 * DAY_MS,
  caRenewBeforeMs: 30 * DAY_MS,
  rotationGraceMs: 4 * DAY_MS,
  certValidityMs: 60 * DAY_MS,
  certRenewBeforeMs: 30 * DAY_MS,
  certRenewBufferMs: DAY_MS,
};

/** Common name of the watcher CA (upstream's CA Certificate is named `klm-watcher-serving`). */
export const WATCHER_CA_COMMON_NAME = 'klm-watcher-serving';

/** Data keys of the CA Secret (layout: see the top of this file). */
export const CaSecretKeys = {
  Cert: 'tls.crt',
  Key: 'tls.key',
  Bundle: 'ca.crt',
  PreviousCert: 'previous.crt',
  PreviousKey: 'previous.key',
} as const;

/** Data keys of a runtime certificate Secret (kubernetes.io/tls, as cert-manager writes it). */
export const RuntimeCertificateKeys = { Cert: 'tls.crt', Key: 'tls.key', CA: 'ca.crt' } as const;

const TLS_SECRET_TYPE = 'kubernetes.io/tls';

export interface CaState {
  /** The newest CA: signs every new certificate. */
  signing: CertKeyPair;
  /** The CA whose certificate the listener presents: the previous CA until the grace period ends, then the newest. */
  serving: CertKeyPair;
  /** Every trusted CA (newest first), PEM concatenated: what the listener accepts client certificates from and what runtimes get as ca.crt. */
  trustedPem: string;
  /** When the newest CA joined the bundle (undefined when there was never a rotation). */
  caAddedToBundleAt?: Date;
  /** Whether a rotation is in progress (the previous CA is still trusted and serving). */
  rotating: boolean;
  /** resourceVersion of the CA Secret. */
  resourceVersion: string;
}

/** The CA Secret exists but cannot be used (a key missing or unparsable). ensure() does not replace it. */
export class WatcherCaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WatcherCaError';
  }
}

function resolveSettings(partial: Partial<WatcherPkiSettings> | undefined): WatcherPkiSettings {
  const s = { ...DEFAULT_WATCHER_PKI_SETTINGS, ...partial };
  if (!(s.caRenewBeforeMs > s.rotationGraceMs)) throw new Error('watcher PKI: caRenewBeforeMs must exceed rotationGraceMs (the previous CA must outlive the grace period)');
  if (!(s.caValidityMs > s.caRenewBeforeMs)) throw new Error('watcher PKI: caValidityMs must exceed caRenewBeforeMs');
  if (!(s.certValidityMs > s.certRenewBeforeMs)) throw new Error('watcher PKI: certValidityMs must exceed certRenewBeforeMs');
  return s;
}

function nowOf(settings: Pick<WatcherPkiSettings, 'now'>): Date {
  return settings.now?.() ?? new Date();
}

function encode(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function decode(data: Record<string, string> | undefined, key: string): string | undefined {
  const value = data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

// Parsed CA certificates by PEM text: they are needed on every renewalReason call (one per runtime
// and reconcile); a few entries suffice, since there are at most two CAs at a time. Runtime
// certificates are reduced to the facts the webhook sync asks about (certificateFacts below).
const parsedCache = new Map<string, X509Certificate>();
function parse(pem: string): X509Certificate {
  let cert = parsedCache.get(pem);
  if (!cert) {
    cert = new X509Certificate(pem);
    if (parsedCache.size >= 16) parsedCache.delete(parsedCache.keys().next().value as string);
    parsedCache.set(pem, cert);
  }
  return cert;
}

function notAfterOf(cert: X509Certificate): Date {
  return new Date(cert.validTo);
}

/**
 * What the webhook sync needs to know about a runtime certificate, found out once per certificate
 * (by SHA-256 of its PEM) instead of parsing it and importing its key on every sync of every Kyma.
 * Bounded: beyond FACTS_LIMIT the oldest entries go (a fleet of 10,000 runtimes fits).
 */
interface CertificateFacts {
  notAfter: Date;
  commonName: string | undefined;
  dnsNames: string[];
  /** CA certificate fingerprint -> whether that CA's key verifies this certificate's signature. */
  issuedBy: Map<string, boolean>;
  /** SHA-256 of a private key found to belong to this certificate. */
  matchingKey?: string;
}

const FACTS_LIMIT = 20_000;
const factsCache = new Map<string, CertificateFacts | string>();
let certificatesParsed = 0;

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64');
}

/** The facts of a certificate, or why it cannot be parsed. */
function certificateFacts(certPem: string): CertificateFacts | string {
  const key = digest(certPem);
  let facts = factsCache.get(key);
  if (facts === undefined) {
    certificatesParsed++;
    try {
      const cert = new X509Certificate(certPem);
      facts = { notAfter: notAfterOf(cert), commonName: commonNameOf(cert), dnsNames: dnsNamesOf(cert), issuedBy: new Map() };
    } catch (e) {
      facts = (e as Error).message;
    }
    if (factsCache.size >= FACTS_LIMIT) factsCache.delete(factsCache.keys().next().value as string);
    factsCache.set(key, facts);
  }
  return facts;
}

/** Whether the CA certificate's key signed the certificate (checked once per pair). */
function issuedBy(facts: CertificateFacts, certPem: string, caPem: string): boolean {
  const ca = parse(caPem);
  let verified = facts.issuedBy.get(ca.fingerprint256);
  if (verified === undefined) {
    verified = new X509Certificate(certPem).verify(ca.publicKey);
    facts.issuedBy.set(ca.fingerprint256, verified);
  }
  return verified;
}

/** Runtime certificates parsed so far and facts kept (for tests and diagnostics). */
export function certificateFactsStats(): { parsed: number; cached: number } {
  return { parsed: certificatesParsed, cached: factsCache.size };
}

/** A CA pair from the Secret's data, or a reason why it is unusable; undefined when both keys are absent. */
function readPair(data: Record<string, string> | undefined, certKey: string, keyKey: string): CertKeyPair | string | undefined {
  const certPem = decode(data, certKey);
  const keyPem = decode(data, keyKey);
  if (certPem === undefined && keyPem === undefined) return undefined;
  if (certPem === undefined || keyPem === undefined) return `${certPem === undefined ? certKey : keyKey} is missing`;
  try {
    const cert = parse(certPem);
    if (!cert.ca) return `${certKey} is not a CA certificate`;
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) return `${keyKey} does not belong to ${certKey}`;
  } catch (e) {
    return `${certKey}/${keyKey} cannot be parsed: ${(e as Error).message}`;
  }
  return { certPem, keyPem };
}

function parseCaSecret(secret: Secret): CaState | string {
  const signing = readPair(secret.data, CaSecretKeys.Cert, CaSecretKeys.Key);
  if (signing === undefined) return `${CaSecretKeys.Cert} and ${CaSecretKeys.Key} are missing`;
  if (typeof signing === 'string') return signing;
  const previous = readPair(secret.data, CaSecretKeys.PreviousCert, CaSecretKeys.PreviousKey);
  if (typeof previous === 'string') return previous;
  const addedText = secret.metadata.annotations?.[Annotations.CaAddedToBundleAt];
  let caAddedToBundleAt: Date | undefined;
  if (addedText !== undefined) {
    caAddedToBundleAt = new Date(addedText);
    if (Number.isNaN(caAddedToBundleAt.getTime())) return `annotation ${Annotations.CaAddedToBundleAt} is not a time: ${addedText}`;
  }
  // A rotation without its start time would never end; the previous CA counts as added long ago.
  if (previous && !caAddedToBundleAt) caAddedToBundleAt = new Date(0);
  return {
    signing,
    serving: previous ?? signing,
    trustedPem: bundle(signing, previous),
    caAddedToBundleAt,
    rotating: previous !== undefined,
    resourceVersion: secret.metadata.resourceVersion ?? '',
  };
}

function bundle(signing: CertKeyPair, previous: CertKeyPair | undefined): string {
  return [signing.certPem, ...(previous ? [previous.certPem] : [])].map((pem) => (pem.endsWith('\n') ? pem : `${pem}\n`)).join('');
}

function caSecretData(signing: CertKeyPair, previous: CertKeyPair | undefined): Record<string, string> {
  const data: Record<string, string> = {
    [CaSecretKeys.Cert]: encode(signing.certPem),
    [CaSecretKeys.Key]: encode(signing.keyPem),
    [CaSecretKeys.Bundle]: encode(bundle(signing, previous)),
  };
  if (previous) {
    data[CaSecretKeys.PreviousCert] = encode(previous.certPem);
    data[CaSecretKeys.PreviousKey] = encode(previous.keyPem);
  }
  return data;
}

/**
 * The watcher CA, kept in one Secret in the KCP. Every replica may call ensure() at any time: each
 * write carries the resourceVersion it was computed from, and a conflict (or a lost create race)
 * re-reads and decides again, so concurrent replicas end with one CA and at most one rotation.
 */
export class WatcherCertificateAuthority {
  readonly settings: WatcherPkiSettings;

  constructor(
    private readonly kcp: Client,
    settings?: Partial<WatcherPkiSettings>,
  ) {
    this.settings = resolveSettings(settings);
  }

  /**
   * Loads the CA Secret, creating it when missing; starts a rotation when the CA is within
   * caRenewBeforeMs of its expiry; ends a rotation (drops the previous CA, serving switches) once
   * rotationGraceMs passed since the new CA joined the bundle, or earlier when the previous CA expired.
   * Throws WatcherCaError when the Secret exists but is unusable (it is not replaced: a new CA would
   * invalidate every runtime certificate; delete the Secret to start afresh).
   */
  ensure(signal?: AbortSignal): Promise<CaState> {
    return this.converge('ensure', signal);
  }

  /**
   * Starts a CA rotation now (operator-triggered, and for tests). Creates the CA when there is none.
   * While a rotation is in progress it changes nothing (the previous CA must stay trusted until its
   * grace period ends) and returns the current state.
   */
  rotate(signal?: AbortSignal): Promise<CaState> {
    return this.converge('rotate', signal);
  }

  /** Parses a CA Secret someone else read (e.g. an informer), without writing; undefined when unusable. */
  static stateOf(secret: Secret): CaState | undefined {
    const state = parseCaSecret(secret);
    return typeof state === 'string' ? undefined : state;
  }

  private async converge(mode: 'ensure' | 'rotate', signal?: AbortSignal): Promise<CaState> {
    const key = { namespace: this.settings.namespace, name: this.settings.caSecretName };
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      let secret: Secret | undefined;
      try {
        secret = await this.kcp.get<Secret>(SECRET_KIND, key, { signal });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      try {
        if (!secret) return await this.create(signal);
        const state = parseCaSecret(secret);
        if (typeof state === 'string') throw new WatcherCaError(`watcher CA Secret ${key.namespace}/${key.name} is unusable: ${state}`);
        const next = await this.nextData(mode, state);
        if (!next) return state;
        const updated = await this.kcp.update<Secret>(
          {
            ...secret,
            metadata: { ...secret.metadata, annotations: { ...secret.metadata.annotations, ...next.annotations } },
            data: next.data,
          },
          { signal },
        );
        return parseCaSecret(updated) as CaState;
      } catch (e) {
        // Someone else wrote (or deleted) the Secret in between: decide again on what is there now.
        if ((isConflict(e) || isAlreadyExists(e) || isNotFound(e)) && attempt < MAX_ATTEMPTS) continue;
        throw e;
      }
    }
  }

  private async create(signal?: AbortSignal): Promise<CaState> {
    const ca = await this.newCa();
    const created = await this.kcp.create<Secret>(
      {
        apiVersion: SECRET_KIND.apiVersion,
        kind: SECRET_KIND.kind,
        metadata: { name: this.settings.caSecretName, namespace: this.settings.namespace, labels: this.settings.caSecretLabels ?? { [Labels.ManagedBy]: LabelValues.LifecycleManager } },
        type: TLS_SECRET_TYPE,
        data: caSecretData(ca, undefined),
      },
      { signal },
    );
    return parseCaSecret(created) as CaState;
  }

  /** The data the Secret should get next, or undefined when it stays as it is. */
  private async nextData(mode: 'ensure' | 'rotate', state: CaState): Promise<{ data: Record<string, string>; annotations: Record<string, string> } | undefined> {
    const now = nowOf(this.settings);
    if (state.rotating) {
      const graceOver = now.getTime() >= (state.caAddedToBundleAt?.getTime() ?? 0) + this.settings.rotationGraceMs;
      const previousExpired = notAfterOf(parse(state.serving.certPem)).getTime() <= now.getTime();
      if (mode === 'ensure' && (graceOver || previousExpired)) return { data: caSecretData(state.signing, undefined), annotations: {} };
      return undefined;
    }
    const renewAt = notAfterOf(parse(state.signing.certPem)).getTime() - this.settings.caRenewBeforeMs;
    if (mode === 'ensure' && now.getTime() < renewAt) return undefined;
    const fresh = await this.newCa();
    return { data: caSecretData(fresh, state.signing), annotations: { [Annotations.CaAddedToBundleAt]: now.toISOString() } };
  }

  private newCa(): Promise<CertKeyPair> {
    const now = nowOf(this.settings).getTime();
    return createCertificateAuthority({
      commonName: this.settings.caCommonName ?? WATCHER_CA_COMMON_NAME,
      notBefore: new Date(now - BACKDATE_MS),
      notAfter: new Date(now + this.settings.caValidityMs),
    });
  }
}

export interface IssuedCertificate {
  certPem: string;
  keyPem: string;
  /** The trusted bundle (CaState.trustedPem) at issuance. */
  caPem: string;
  notBefore: Date;
  notAfter: Date;
}

function window(now: Date | undefined, validityMs: number): { notBefore: Date; notAfter: Date } {
  const t = (now ?? new Date()).getTime();
  return { notBefore: new Date(t - BACKDATE_MS), notAfter: new Date(t + validityMs) };
}

/**
 * Client and serving certificate of a runtime's skr-webhook: CN = runtimeId, the DNS names given,
 * both extended key usages (serverAuth, clientAuth), signed by ca.signing, valid from 5 minutes
 * before `now` until `now + validityMs`.
 */
export async function issueRuntimeCertificate(
  ca: CaState,
  opts: { runtimeId: string; dnsNames: string[]; validityMs: number; now?: Date },
): Promise<IssuedCertificate> {
  if (opts.runtimeId === '') throw new Error('a runtime certificate needs a runtime id (its common name)');
  const validity = window(opts.now, opts.validityMs);
  const pair = await issueCertificate(ca.signing, {
    commonName: opts.runtimeId,
    ...validity,
    extendedKeyUsages: [ExtendedKeyUsages.ServerAuth, ExtendedKeyUsages.ClientAuth],
    dnsNames: opts.dnsNames,
  });
  return { ...pair, caPem: ca.trustedPem, ...validity };
}

/** Common name of the listener's serving certificate. */
export const LISTENER_COMMON_NAME = 'klm-watcher-listener';

/**
 * Serving certificate of the KCP listener (or, with another common name, of another server of the
 * control plane that keeps its CA with this code), signed by ca.serving (the previous CA during a rotation,
 * so that runtimes which still hold the old bundle accept it). caPem is the bundle to verify client
 * certificates with.
 */
export async function issueListenerCertificate(
  ca: CaState,
  opts: { dnsNames: string[]; ipAddresses: string[]; validityMs: number; now?: Date; commonName?: string },
): Promise<IssuedCertificate> {
  const validity = window(opts.now, opts.validityMs);
  const pair = await issueCertificate(ca.serving, {
    commonName: opts.commonName ?? LISTENER_COMMON_NAME,
    ...validity,
    extendedKeyUsages: [ExtendedKeyUsages.ServerAuth],
    dnsNames: opts.dnsNames,
    ipAddresses: opts.ipAddresses,
  });
  return { ...pair, caPem: ca.trustedPem, ...validity };
}

/** The common name of a certificate's subject, or undefined. */
function commonNameOf(cert: X509Certificate): string | undefined {
  for (const line of cert.subject.split('\n')) if (line.startsWith('CN=')) return line.slice(3);
  return undefined;
}

function dnsNamesOf(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '')
    .split(', ')
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4));
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

function fingerprints(pem: string): string[] {
  return splitPemCertificates(pem).map((block) => parse(block).fingerprint256);
}

interface Assessment {
  reason: string;
  /** Only the bundle is outdated: the key pair may stay, ca.crt is replaced. */
  bundleOnly: boolean;
}

function assess(
  stored: { certPem: string; caPem: string } | undefined,
  ca: CaState,
  want: { runtimeId: string; dnsNames: string[] },
  settings: Pick<WatcherPkiSettings, 'certRenewBeforeMs' | 'now'>,
): Assessment | undefined {
  const reissue = (reason: string): Assessment => ({ reason, bundleOnly: false });
  if (!stored) return reissue('no certificate yet');
  const facts = certificateFacts(stored.certPem);
  if (typeof facts === 'string') return reissue(`the certificate cannot be parsed: ${facts}`);
  if (!issuedBy(facts, stored.certPem, ca.signing.certPem)) {
    if (ca.rotating && issuedBy(facts, stored.certPem, ca.serving.certPem)) {
      return reissue(`issued by the previous CA; the CA rotates (new CA in the bundle since ${ca.caAddedToBundleAt?.toISOString() ?? 'unknown'})`);
    }
    return reissue('not issued by the current watcher CA');
  }
  const notAfter = facts.notAfter;
  const now = nowOf(settings);
  if (notAfter.getTime() - now.getTime() <= settings.certRenewBeforeMs) return reissue(`expires at ${notAfter.toISOString()}, within the renewal period`);
  const cn = facts.commonName;
  if (cn !== want.runtimeId) return reissue(`common name ${cn ?? '(none)'} differs from runtime id ${want.runtimeId}`);
  const dnsNames = facts.dnsNames;
  if (!sameSet(dnsNames, want.dnsNames)) return reissue(`DNS names [${dnsNames.join(', ')}] differ from [${want.dnsNames.join(', ')}]`);
  let bundleCurrent: boolean;
  try {
    const have = fingerprints(stored.caPem);
    bundleCurrent = have.length > 0 && sameSet(have, fingerprints(ca.trustedPem)) && have.length === new Set(have).size;
  } catch {
    bundleCurrent = false;
  }
  if (!bundleCurrent) return { reason: 'the CA bundle differs from the trusted CAs', bundleOnly: true };
  return undefined;
}

/**
 * Why a stored runtime certificate must be re-issued, or undefined: missing; unparsable; not signed
 * by ca.signing (e.g. issued by the previous CA while a rotation is in progress); expiring within
 * certRenewBeforeMs; CN or DNS names differ; its caPem is not the trusted bundle.
 */
export function renewalReason(
  stored: { certPem: string; caPem: string } | undefined,
  ca: CaState,
  want: { runtimeId: string; dnsNames: string[] },
  settings: Pick<WatcherPkiSettings, 'certRenewBeforeMs' | 'now'>,
): string | undefined {
  return assess(stored, ca, want, settings)?.reason;
}

/** Expiry of a stored certificate (for conditions and metrics), or undefined when it cannot be parsed. */
export function certificateNotAfter(certPem: string): Date | undefined {
  const facts = certificateFacts(certPem);
  return typeof facts === 'string' ? undefined : facts.notAfter;
}

/**
 * Whether a runtime certificate is overdue for renewal, as upstream decides it: its renewal time
 * (notAfter minus certRenewBeforeMs) plus the renew buffer has passed. An unparsable certificate is
 * overdue (upstream counts a renewal time it cannot read the same way).
 */
export function renewalOverdue(certPem: string | undefined, settings: Pick<WatcherPkiSettings, 'certRenewBeforeMs' | 'certRenewBufferMs' | 'now'>): boolean {
  const notAfter = certPem === undefined ? undefined : certificateNotAfter(certPem);
  if (!notAfter) return true;
  const renewalAt = notAfter.getTime() - settings.certRenewBeforeMs;
  return nowOf(settings).getTime() > renewalAt + (settings.certRenewBufferMs ?? DEFAULT_WATCHER_PKI_SETTINGS.certRenewBufferMs ?? 0);
}

/** Namespace and Service of the skr-webhook in every runtime. */
const WEBHOOK_SERVICE = `skr-webhook.${Namespaces.Remote}.svc`;

/** DNS names upstream gives a runtime certificate: the Kyma's `skr-domain` annotation (if any), then skr-webhook.kyma-system.svc and skr-webhook.kyma-system.svc.cluster.local. */
export function runtimeDnsNames(kyma: KymaObject): string[] {
  const domain = kyma.metadata.annotations?.[Annotations.SkrDomain];
  return [...(domain ? [domain] : []), WEBHOOK_SERVICE, `${WEBHOOK_SERVICE}.cluster.local`];
}

/** Name of a Kyma's certificate Secret in the KCP (upstream's Certificate and Secret name). */
export function runtimeCertificateSecretName(kymaName: string): string {
  return `${kymaName}-webhook-tls`;
}

function ownerReferenceOf(kyma: KymaObject, namespace: string): OwnerReference[] {
  // An owner reference only resolves within the owner's namespace; elsewhere the garbage collector
  // would take the owner as gone and delete the Secret.
  if (kyma.metadata.namespace !== namespace || !kyma.metadata.uid) return [];
  return [{ apiVersion: Kyma.apiVersion, kind: Kyma.kind, name: kyma.metadata.name ?? '', uid: kyma.metadata.uid, controller: true, blockOwnerDeletion: true }];
}

// The type of an existing Secret is left alone: the API server does not allow changing it.
function metadataCurrent(secret: Secret, labels: Record<string, string>, owners: OwnerReference[]): boolean {
  if (Object.entries(labels).some(([k, v]) => secret.metadata.labels?.[k] !== v)) return false;
  return owners.every((o) => secret.metadata.ownerReferences?.some((r) => r.uid === o.uid && r.kind === o.kind && r.controller === true));
}

/**
 * Whether a stored runtime certificate Secret is still the runtime's own working identity, expired
 * or not: it parses, its CN is the runtime id, its key belongs to it, and a CA the listener trusts
 * (the current one, or the previous one during a rotation) issued it. When its renewal cannot be
 * written, the runtime may keep this one; anything else is not pushed into the runtime.
 */
export function runtimeIdentityIntact(stored: Secret | undefined, ca: CaState, runtimeId: string): boolean {
  const certPem = decode(stored?.data, RuntimeCertificateKeys.Cert);
  if (certPem === undefined) return false;
  const facts = certificateFacts(certPem);
  if (typeof facts === 'string' || facts.commonName !== runtimeId) return false;
  if (!issuedBy(facts, certPem, ca.signing.certPem) && !issuedBy(facts, certPem, ca.serving.certPem)) return false;
  return keyMatches(certPem, decode(stored?.data, RuntimeCertificateKeys.Key));
}

/** Whether the key belongs to the certificate; a match is remembered with the certificate's facts. */
export function keyMatches(certPem: string, keyPem: string | undefined): boolean {
  if (keyPem === undefined) return false;
  const facts = certificateFacts(certPem);
  if (typeof facts === 'string') return false;
  const keyDigest = digest(keyPem);
  if (facts.matchingKey === keyDigest) return true;
  try {
    const matches = new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
    if (matches) facts.matchingKey = keyDigest;
    return matches;
  } catch {
    return false;
  }
}

/**
 * The runtime id of a Kyma, the CN of its certificate: its `kyma-project.io/runtime-id` label, else
 * its name (the broker names Kymas by runtime id).
 */
export function runtimeIdOf(kyma: KymaObject): string {
  return kyma.metadata.labels?.[Labels.RuntimeID] || (kyma.metadata.name ?? '');
}

/**
 * The Kyma's certificate Secret `<kymaName>-webhook-tls` in the KCP namespace: type kubernetes.io/tls,
 * keys ca.crt, tls.crt, tls.key; labels purpose=klm-watcher-cert-manager and kyma-name=<kyma>; owned
 * by the Kyma (when it lives in the same namespace), so it goes with it. Creates it, or re-issues
 * the key pair when renewalReason says so (or tls.key does not match); when only the bundle is
 * outdated (a rotation ended) it replaces ca.crt and keeps the key pair (issued false, reason set);
 * restores labels and owner when they were lost; otherwise returns it unchanged without writing.
 * `stored` may come from an informer cache: a conflict or an existing Secret re-reads it.
 */
export async function ensureRuntimeCertificate(
  kcp: Client,
  kyma: KymaObject,
  ca: CaState,
  settings: WatcherPkiSettings,
  stored: Secret | undefined,
  signal?: AbortSignal,
): Promise<{ secret: Secret; issued: boolean; reason?: string }> {
  const kymaName = kyma.metadata.name ?? '';
  const name = runtimeCertificateSecretName(kymaName);
  const want = { runtimeId: runtimeIdOf(kyma), dnsNames: runtimeDnsNames(kyma) };
  const labels = { [Labels.Purpose]: LabelValues.CertManager, [Labels.KymaName]: kymaName };
  const owners = ownerReferenceOf(kyma, settings.namespace);
  let current = stored;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    const certPem = current && decode(current.data, RuntimeCertificateKeys.Cert);
    const caPem = current && decode(current.data, RuntimeCertificateKeys.CA);
    let assessment = assess(certPem !== undefined ? { certPem, caPem: caPem ?? '' } : undefined, ca, want, settings);
    if (!assessment && certPem !== undefined && !keyMatches(certPem, decode(current?.data, RuntimeCertificateKeys.Key))) {
      assessment = { reason: `${RuntimeCertificateKeys.Key} is missing or does not belong to ${RuntimeCertificateKeys.Cert}`, bundleOnly: false };
    }
    const metaOk = current !== undefined && metadataCurrent(current, labels, owners);
    if (current && !assessment && metaOk) return { secret: current, issued: false };

    let data = current?.data ?? {};
    let issued = false;
    if (assessment && !assessment.bundleOnly) {
      const cert = await issueRuntimeCertificate(ca, { ...want, validityMs: settings.certValidityMs, now: nowOf(settings) });
      data = { [RuntimeCertificateKeys.CA]: encode(cert.caPem), [RuntimeCertificateKeys.Cert]: encode(cert.certPem), [RuntimeCertificateKeys.Key]: encode(cert.keyPem) };
      issued = true;
    } else if (assessment) {
      data = { ...data, [RuntimeCertificateKeys.CA]: encode(ca.trustedPem) };
    }
    const reason = assessment?.reason ?? (metaOk ? undefined : 'labels or owner reference were missing');
    try {
      if (!current) {
        const created = await kcp.create<Secret>(
          {
            apiVersion: SECRET_KIND.apiVersion,
            kind: SECRET_KIND.kind,
            metadata: { name, namespace: settings.namespace, labels, ownerReferences: owners.length > 0 ? owners : undefined },
            type: TLS_SECRET_TYPE,
            data,
          },
          { signal },
        );
        return { secret: created, issued, reason };
      }
      const otherOwners = (current.metadata.ownerReferences ?? []).filter((r) => !owners.some((o) => o.uid === r.uid));
      const ownerReferences = [...otherOwners, ...owners];
      const updated = await kcp.update<Secret>(
        {
          ...current,
          metadata: { ...current.metadata, labels: { ...current.metadata.labels, ...labels }, ownerReferences: ownerReferences.length > 0 ? ownerReferences : undefined },
          data,
        },
        { signal },
      );
      return { secret: updated, issued, reason };
    } catch (e) {
      if (!(isConflict(e) || isAlreadyExists(e) || isNotFound(e)) || attempt >= MAX_ATTEMPTS) throw e;
      try {
        current = await kcp.get<Secret>(SECRET_KIND, { namespace: settings.namespace, name }, { signal });
      } catch (getError) {
        if (!isNotFound(getError)) throw getError;
        current = undefined;
      }
    }
  }
}
