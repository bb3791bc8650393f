// Registry authentication: answering `WWW-Authenticate` challenges. `Basic` uses the credentials as
// they are; `Bearer realm=...,service=...,scope=...` trades them (or nothing, for anonymous pulls) for
// a token at the realm. Tokens are kept per registry and scope until shortly before they expire.
import { exchange } from './http.js';
import { ArtifactError, type RegistryCredentials } from './types.js';

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** Parses one `WWW-Authenticate` value, e.g. `Bearer realm="https://r/token",service="r",scope="repository:a:pull"`. */
export function parseChallenge(value: string): Challenge | undefined {
  const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(value);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  for (const p of m[2].matchAll(/([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) params[p[1].toLowerCase()] = p[2] ?? p[3];
  return { scheme: m[1].toLowerCase(), params };
}

export function basicAuthorization(c: RegistryCredentials): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
}

interface CachedAuth {
  authorization: string;
  expiresAt: number;
}

const MAX_CACHED_TOKENS = 256;
const DEFAULT_TOKEN_SECONDS = 60;

/** Authorization headers by `registry|identity|scope`, bounded, dropping the oldest first. */
export class AuthCache {
  private readonly entries = new Map<string, CachedAuth>();
  constructor(private readonly now: () => number = Date.now) {}

  get(key: string): string | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.authorization;
  }

  set(key: string, authorization: string, ttlMs: number): void {
    this.entries.delete(key);
    this.entries.set(key, { authorization, expiresAt: this.now() + ttlMs });
    while (this.entries.size > MAX_CACHED_TOKENS) this.entries.delete(this.entries.keys().next().value as string);
  }

  clear(): void {
    this.entries.clear();
  }
}

export interface TokenRequest {
  challenge: Challenge;
  /** Scope to ask for when the challenge names none. */
  scope: string;
  credentials?: RegistryCredentials;
  /** Whether the realm may be plain http (loopback or insecure registries). */
  allowHttp: (url: URL) => boolean;
  ca?: string[];
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Fetches a bearer token from the challenge's realm; returns the Authorization header and its lifetime. */
export async function fetchBearerToken(t: TokenRequest): Promise<{ authorization: string; ttlMs: number }> {
  const realm = t.challenge.params.realm;
  if (!realm) throw new ArtifactError('Unauthorized', 'the registry asked for a bearer token but named no realm');
  let url: URL;
  try {
    url = new URL(realm);
  } catch {
    throw new ArtifactError('Unauthorized', `the registry named an invalid token realm ${JSON.stringify(realm)}`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && t.allowHttp(url))) {
    throw new ArtifactError('Unauthorized', `refusing token realm ${realm}: only https is allowed for this registry`);
  }
  if (t.challenge.params.service) url.searchParams.set('service', t.challenge.params.service);
  // Ask for what the challenge names and for what the caller is about to do (e.g. a push after the
  // pull-scoped challenge of a HEAD), so one token serves the whole operation.
  const scopes = new Set([t.challenge.params.scope ?? t.scope, t.scope]);
  for (const scope of scopes) url.searchParams.append('scope', scope);
  const answer = await exchange({
    method: 'GET',
    url,
    headers: { accept: 'application/json', ...(t.credentials ? { authorization: basicAuthorization(t.credentials) } : {}) },
    maxBytes: 1 << 20,
    timeoutMs: t.timeoutMs,
    ca: t.ca,
    signal: t.signal,
  });
  if (answer.status === 401 || answer.status === 403) throw new ArtifactError('Unauthorized', `the token service at ${url.origin}${url.pathname} refused the credentials (HTTP ${answer.status})`);
  if (answer.status !== 200) throw new ArtifactError('Unreachable', `the token service at ${url.origin}${url.pathname} answered HTTP ${answer.status}`);
  let body: { token?: unknown; access_token?: unknown; expires_in?: unknown };
  try {
    body = JSON.parse(answer.body.toString('utf8')) as typeof body;
  } catch {
    throw new ArtifactError('Unauthorized', `the token service at ${url.origin}${url.pathname} answered no JSON`);
  }
  const token = typeof body.token === 'string' ? body.token : typeof body.access_token === 'string' ? body.access_token : undefined;
  if (!token) throw new ArtifactError('Unauthorized', `the token service at ${url.origin}${url.pathname} answered no token`);
  const seconds = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : DEFAULT_TOKEN_SECONDS;
  // Renew a little early so that a token never expires between use and answer.
  return { authorization: `Bearer ${token}`, ttlMs: Math.max(1, seconds - 5) * 1000 };
}
