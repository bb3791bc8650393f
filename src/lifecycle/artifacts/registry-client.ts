// The OCI distribution API of one registry: manifests and blobs, pulled and pushed, with the
// registry's authentication challenges answered (auth.ts). Every status the API can answer with
// becomes an ArtifactError a caller can branch on.
import { AuthCache, basicAuthorization, fetchBearerToken, parseChallenge } from './auth.js';
import { sha256Digest, verifyDigest } from './digest.js';
import { exchange, header, type HttpAnswer } from './http.js';
import { MANIFEST_ACCEPT } from './media-types.js';
import { hostOf, isLoopbackHost } from './reference.js';
import { ArtifactError, type RegistryCredentials } from './types.js';

export interface RegistryClientOptions {
  /** `host[:port]`. */
  registry: string;
  credentials?: RegistryCredentials;
  /** Use http:// instead of https:// (loopback and insecure registries). */
  plainHttp: boolean;
  /** Extra CA certificates (PEM) trusted for https. */
  ca?: string[];
  timeoutMs: number;
  /** Shared across clients so that tokens outlive one fetch. */
  authCache: AuthCache;
}

interface CallOptions {
  method: string;
  /** Path below the registry (`/v2/...`) or an absolute URL (upload locations). */
  path: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
  maxBytes: number;
  /** Token scope, e.g. `repository:kyma-modules/keda:pull`. */
  scope: string;
  signal?: AbortSignal;
}

const MAX_REDIRECTS = 3;
const SMALL_ANSWER = 64 * 1024;

export interface PulledManifest {
  bytes: Buffer;
  mediaType: string;
  digest: string;
}

export class RegistryClient {
  private readonly base: URL;

  constructor(private readonly opts: RegistryClientOptions) {
    this.base = new URL(`${opts.plainHttp ? 'http' : 'https'}://${opts.registry}`);
  }

  /** GET a manifest by tag or digest; a digest reference is verified, a tag's digest is computed. */
  async getManifest(repository: string, reference: string, maxBytes: number, signal?: AbortSignal): Promise<PulledManifest> {
    const answer = await this.call({
      method: 'GET',
      path: `/v2/${repository}/manifests/${reference}`,
      headers: { accept: MANIFEST_ACCEPT },
      maxBytes,
      scope: pullScope(repository),
      signal,
    });
    this.expect(answer, [200], `manifest ${repository}:${reference}`);
    const digest = sha256Digest(answer.body);
    if (reference.startsWith('sha256:')) verifyDigest(answer.body, reference, `manifest ${repository}@${reference}`);
    else {
      // The registry's own digest header must agree with the bytes it sent.
      const claimed = header(answer.headers, 'docker-content-digest');
      if (claimed?.startsWith('sha256:') && claimed !== digest) verifyDigest(answer.body, claimed, `manifest ${repository}:${reference}`);
    }
    return { bytes: answer.body, mediaType: (header(answer.headers, 'content-type') ?? '').split(';')[0].trim(), digest };
  }

  /** GET a blob and verify its digest. */
  async getBlob(repository: string, digest: string, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
    const answer = await this.call({ method: 'GET', path: `/v2/${repository}/blobs/${digest}`, maxBytes, scope: pullScope(repository), signal });
    this.expect(answer, [200], `blob ${repository}@${digest}`);
    verifyDigest(answer.body, digest, `blob ${repository}@${digest}`);
    return answer.body;
  }

  async hasBlob(repository: string, digest: string, signal?: AbortSignal): Promise<boolean> {
    const answer = await this.call({ method: 'HEAD', path: `/v2/${repository}/blobs/${digest}`, maxBytes: SMALL_ANSWER, scope: pushScope(repository), signal });
    if (answer.status === 404) return false;
    this.expect(answer, [200], `blob ${repository}@${digest}`);
    return true;
  }

  /** Monolithic upload: POST an upload session, then PUT the bytes with `?digest=`. Skips blobs already there. */
  async pushBlob(repository: string, bytes: Uint8Array, signal?: AbortSignal): Promise<string> {
    const digest = sha256Digest(bytes);
    if (await this.hasBlob(repository, digest, signal)) return digest;
    const scope = pushScope(repository);
    const started = await this.call({ method: 'POST', path: `/v2/${repository}/blobs/uploads/`, headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(0), maxBytes: SMALL_ANSWER, scope, signal });
    this.expect(started, [202], `upload to ${repository}`);
    const location = header(started.headers, 'location');
    if (!location) throw new ArtifactError('Unreachable', `the registry ${this.opts.registry} started an upload without a Location`);
    const target = new URL(location, this.base);
    target.searchParams.set('digest', digest);
    const put = await this.call({ method: 'PUT', path: target.href, headers: { 'content-type': 'application/octet-stream' }, body: bytes, maxBytes: SMALL_ANSWER, scope, signal });
    this.expect(put, [201], `blob ${repository}@${digest}`);
    return digest;
  }

  /** PUT a manifest under a tag; returns its digest. */
  async putManifest(repository: string, tag: string, bytes: Uint8Array, mediaType: string, signal?: AbortSignal): Promise<string> {
    const digest = sha256Digest(bytes);
    const answer = await this.call({ method: 'PUT', path: `/v2/${repository}/manifests/${tag}`, headers: { 'content-type': mediaType }, body: bytes, maxBytes: SMALL_ANSWER, scope: pushScope(repository), signal });
    this.expect(answer, [201], `manifest ${repository}:${tag}`);
    const claimed = header(answer.headers, 'docker-content-digest');
    if (claimed && claimed !== digest) throw new ArtifactError('DigestMismatch', `the registry stored manifest ${repository}:${tag} as ${claimed}, expected ${digest}`);
    return digest;
  }

  private expect(answer: HttpAnswer, ok: number[], what: string): void {
    if (ok.includes(answer.status)) return;
    const detail = registryErrorDetail(answer.body);
    const where = `${what} at ${this.opts.registry}`;
    if (answer.status === 404) throw new ArtifactError('NotFound', `${where} not found${detail}`);
    if (answer.status === 401 || answer.status === 403) throw new ArtifactError('Unauthorized', `${where}: access denied (HTTP ${answer.status})${detail}`);
    if (answer.status === 413) throw new ArtifactError('TooLarge', `${where}: the registry refused the size (HTTP 413)${detail}`);
    throw new ArtifactError('Unreachable', `${where}: HTTP ${answer.status}${detail}`);
  }

  /** One request, answering at most one authentication challenge and following a few redirects. */
  private async call(c: CallOptions): Promise<HttpAnswer> {
    const authKey = `${this.opts.registry}|${this.opts.credentials?.username ?? ''}|${c.scope}`;
    let url = new URL(c.path, this.base);
    let authorization = this.opts.authCache.get(authKey);
    let challenged = false;
    for (let hop = 0; ; hop++) {
      const sameOrigin = url.origin === this.base.origin;
      const answer = await exchange({
        method: c.method,
        url,
        headers: { ...c.headers, ...(authorization && sameOrigin ? { authorization } : {}) },
        body: c.body,
        maxBytes: c.maxBytes,
        timeoutMs: this.opts.timeoutMs,
        ca: this.opts.ca,
        signal: c.signal,
      });
      if (answer.status === 401 && sameOrigin && !challenged) {
        challenged = true;
        const fresh = await this.answerChallenge(answer, c);
        if (!fresh) return answer;
        authorization = fresh.authorization;
        this.opts.authCache.set(authKey, fresh.authorization, fresh.ttlMs);
        continue;
      }
      const location = header(answer.headers, 'location');
      if ([301, 302, 303, 307, 308].includes(answer.status) && location && (c.method === 'GET' || c.method === 'HEAD')) {
        if (hop >= MAX_REDIRECTS) throw new ArtifactError('Unreachable', `${c.method} ${c.path}: too many redirects`);
        // Storage back ends redirect blob GETs; their URLs carry their own authorization.
        url = new URL(location, url);
        if (url.protocol !== 'https:' && !this.allowHttp(url)) throw new ArtifactError('Unreachable', `refusing redirect to ${url.origin}: only https is allowed`);
        continue;
      }
      return answer;
    }
  }

  private async answerChallenge(answer: HttpAnswer, c: CallOptions): Promise<{ authorization: string; ttlMs: number } | undefined> {
    const value = header(answer.headers, 'www-authenticate');
    const challenge = value ? parseChallenge(value) : undefined;
    if (!challenge) return undefined;
    if (challenge.scheme === 'basic') {
      if (!this.opts.credentials) throw new ArtifactError('Unauthorized', `the registry ${this.opts.registry} needs credentials and none were given`);
      return { authorization: basicAuthorization(this.opts.credentials), ttlMs: 10 * 60_000 };
    }
    if (challenge.scheme === 'bearer') {
      return fetchBearerToken({
        challenge,
        scope: c.scope,
        credentials: this.opts.credentials,
        allowHttp: (u) => this.allowHttp(u),
        ca: this.opts.ca,
        timeoutMs: this.opts.timeoutMs,
        signal: c.signal,
      });
    }
    return undefined;
  }

  private allowHttp(url: URL): boolean {
    return this.opts.plainHttp && (isLoopbackHost(url.hostname) || hostOf(this.opts.registry) === url.hostname.replace(/^\[|\]$/g, ''));
  }
}

export function pullScope(repository: string): string {
  return `repository:${repository}:pull`;
}

export function pushScope(repository: string): string {
  return `repository:${repository}:pull,push`;
}

/** ` (CODE: message)` from an OCI error body, or nothing. */
function registryErrorDetail(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { errors?: { code?: string; message?: string }[] };
    const first = parsed.errors?.[0];
    return first ? ` (${first.code ?? 'ERROR'}: ${first.message ?? ''})` : '';
  } catch {
    return '';
  }
}
