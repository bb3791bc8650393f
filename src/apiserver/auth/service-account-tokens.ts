// ServiceAccount tokens, as kube-apiserver issues and checks bound tokens: JWTs (ES256) signed with
// a key kept in the data dir (`sa.key`, so tokens outlive a restart), with kube's claims (iss, sub,
// aud, exp, iat, nbf, `kubernetes.io` {namespace, serviceaccount {name, uid}, pod|secret}) and the
// logical cluster they belong to. A token authenticates while it has not expired (kube allows 60 s
// of clock skew), its audience includes the API server's, and its ServiceAccount (and bound
// object) still exists with the uid it names.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LogicalCluster, UserInfo } from '../cluster.js';
import { BUILTIN_TYPES } from '../resources.js';
import { canonicalJson, isPlainObject } from '../../kube/json.js';
import type { ObjectWithMeta } from '../../kube/object.js';

/** The issuer kubeadm configures (`--service-account-issuer`); also the API server's audience. */
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
export const API_AUDIENCES: readonly string[] = [SERVICE_ACCOUNT_ISSUER];
/** go-jose's default leeway, which kube-apiserver's token validation uses for exp, nbf and deletion. */
const LEEWAY_SECONDS = 60;
const KEY_FILE = 'sa.key';

const core = (kind: string) => BUILTIN_TYPES.find((t) => t.group === '' && t.kind === kind)!;
const SERVICE_ACCOUNT = core('ServiceAccount');
const BOUND_TYPES = { Pod: core('Pod'), Secret: core('Secret') } as const;
export type BoundKind = keyof typeof BOUND_TYPES;

interface Ref {
  name: string;
  uid: string;
}

/** The claims of a ServiceAccount token (`logicalCluster` is this server's addition). */
export interface ServiceAccountClaims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  'kubernetes.io': { namespace: string; serviceaccount: Ref; pod?: Ref; secret?: Ref };
  logicalCluster: string;
  nbf: number;
  sub: string;
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The user a ServiceAccount authenticates as (kube's ServiceAccountInfo.UserInfo plus system:authenticated). */
export function serviceAccountUser(namespace: string, name: string, uid: string, pod?: Ref): UserInfo {
  const user: UserInfo = { username: serviceAccountUsername(namespace, name), uid, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'] };
  if (pod) user.extra = { 'authentication.kubernetes.io/pod-name': [pod.name], 'authentication.kubernetes.io/pod-uid': [pod.uid] };
  return user;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

export class ServiceAccountTokens {
  private readonly publicKey: KeyObject;
  /** kube's key id: the SHA-256 of the public key's DER encoding, base64url. */
  private readonly keyId: string;

  private constructor(private readonly privateKey: KeyObject) {
    this.publicKey = createPublicKey(privateKey);
    this.keyId = b64url(createHash('sha256').update(this.publicKey.export({ type: 'spki', format: 'der' })).digest());
  }

  /** The signing key of `dataDir` (created at first use), or a key in memory without one. */
  static load(dataDir: string | undefined): ServiceAccountTokens {
    const file = dataDir ? join(dataDir, KEY_FILE) : undefined;
    if (file && existsSync(file)) return new ServiceAccountTokens(createPrivateKey(readFileSync(file, 'utf8')));
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    if (dataDir && file) {
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    }
    return new ServiceAccountTokens(privateKey);
  }

  /** Claims for a token of `sa` in logical cluster `cluster`, issued at `nowSeconds`. */
  static claims(cluster: string, sa: ObjectWithMeta, opts: { audiences: string[]; expirationSeconds: number; nowSeconds: number; bound?: { kind: BoundKind } & Ref }): ServiceAccountClaims {
    const namespace = sa.metadata.namespace ?? '';
    const name = sa.metadata.name ?? '';
    const k8s: ServiceAccountClaims['kubernetes.io'] = { namespace, serviceaccount: { name, uid: sa.metadata.uid ?? '' } };
    if (opts.bound?.kind === 'Pod') k8s.pod = { name: opts.bound.name, uid: opts.bound.uid };
    if (opts.bound?.kind === 'Secret') k8s.secret = { name: opts.bound.name, uid: opts.bound.uid };
    return {
      aud: opts.audiences,
      exp: opts.nowSeconds + opts.expirationSeconds,
      iat: opts.nowSeconds,
      iss: SERVICE_ACCOUNT_ISSUER,
      'kubernetes.io': k8s,
      logicalCluster: cluster,
      nbf: opts.nowSeconds,
      sub: serviceAccountUsername(namespace, name),
    };
  }

  sign(claims: ServiceAccountClaims): string {
    // Keys sorted, as go-jose writes the merged claims.
    const input = `${b64url(JSON.stringify({ alg: 'ES256', kid: this.keyId }))}.${b64url(canonicalJson(claims))}`;
    const signature = sign('sha256', Buffer.from(input), { key: this.privateKey, dsaEncoding: 'ieee-p1363' });
    return `${input}.${b64url(signature)}`;
  }

  /**
   * The logical cluster a ServiceAccount token says it belongs to, unverified: only for routing a
   * request without the `/clusters/<name>` prefix, which `authenticate` then checks in full.
   */
  clusterNamed(token: string): string | undefined {
    if (!looksLikeJwt(token)) return undefined;
    try {
      const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as unknown;
      return isPlainObject(claims) && typeof claims.logicalCluster === 'string' ? claims.logicalCluster : undefined;
    } catch {
      return undefined;
    }
  }

  /** The claims of a token this server signed for `cluster` with the API server's audience; undefined otherwise. */
  private verified(token: string, cluster: string): ServiceAccountClaims | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    let header: unknown;
    let claims: unknown;
    try {
      header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (!isPlainObject(header) || header.alg !== 'ES256' || !isPlainObject(claims) || claims.iss !== SERVICE_ACCOUNT_ISSUER) return undefined;
    const ok = verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), { key: this.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(parts[2], 'base64url'));
    if (!ok) return undefined;
    const c = claims as unknown as ServiceAccountClaims;
    if (c.logicalCluster !== cluster) return undefined;
    const aud = Array.isArray(c.aud) ? c.aud : [c.aud];
    if (!aud.some((a) => API_AUDIENCES.includes(a))) return undefined;
    if (!isPlainObject(c['kubernetes.io']) || !isPlainObject(c['kubernetes.io'].serviceaccount)) return undefined;
    return c;
  }

  /** The ServiceAccount user `token` authenticates as in logical cluster `cluster`, or undefined (401). */
  authenticate(token: string, cluster: LogicalCluster, nowMs = Date.now()): UserInfo | undefined {
    const claims = this.verified(token, cluster.name);
    if (!claims) return undefined;
    const now = nowMs / 1000;
    if (typeof claims.exp !== 'number' || now - LEEWAY_SECONDS > claims.exp) return undefined;
    if (typeof claims.nbf === 'number' && now + LEEWAY_SECONDS < claims.nbf) return undefined;
    const k8s = claims['kubernetes.io'];
    const namespace = k8s.namespace;
    // Whatever was deleted before now minus the leeway no longer vouches for the token.
    const alive = (o: ObjectWithMeta | undefined, uid: string) => {
      if (!o || o.metadata.uid !== uid) return false;
      const deleted = o.metadata.deletionTimestamp;
      return !deleted || Date.parse(deleted) >= nowMs - LEEWAY_SECONDS * 1000;
    };
    if (!alive(cluster.tryGet(SERVICE_ACCOUNT, namespace, k8s.serviceaccount.name), k8s.serviceaccount.uid)) return undefined;
    if (k8s.secret && !alive(cluster.tryGet(BOUND_TYPES.Secret, namespace, k8s.secret.name), k8s.secret.uid)) return undefined;
    if (k8s.pod && !alive(cluster.tryGet(BOUND_TYPES.Pod, namespace, k8s.pod.name), k8s.pod.uid)) return undefined;
    return serviceAccountUser(namespace, k8s.serviceaccount.name, k8s.serviceaccount.uid, k8s.pod);
  }
}

/** A bearer token that may be one of these JWTs (the per-cluster tokens are hex). */
export function looksLikeJwt(token: string): boolean {
  return token.startsWith('eyJ') && token.split('.').length === 3;
}
