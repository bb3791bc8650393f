// How the embedded API server reaches admission webhooks: the target of a webhook's clientConfig
// (a URL, or a service resolved by the embedder's ServiceResolver) and a bounded pool of keep-alive
// HTTPS agents, so that repeated calls to one webhook reuse a TLS connection instead of handshaking
// on every write. Agents with the same CA bundle share one TLS context (src/util/tls-contexts.ts)
// instead of building one per connection.
import { createHash } from 'node:crypto';
import { Agent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { checkServerIdentity, type PeerCertificate, type TLSSocket } from 'node:tls';
import { secureContexts, type SecureContextLease } from '../util/tls-contexts.js';

/** Where a service of a logical cluster is served: the embedded server has no pods and no endpoints. */
export interface ResolvedService {
  /**
   * Base URL actually connected to, e.g. `https://127.0.0.1:40123`. A path in it is put before the
   * webhook's own path (`https://127.0.0.1:40123/runtimes/c1` + `/validate` -> `/runtimes/c1/validate`).
   */
  url: string;
  /** SNI sent in the TLS handshake (default: the service's DNS name, `<name>.<namespace>.svc`). */
  servername?: string;
}

/**
 * Says where `clientConfig.service` of a webhook in logical cluster `cluster` is served, or
 * `undefined` when there is no such service (the call then fails as for a missing service).
 */
export type ServiceResolver = (cluster: string, service: { namespace: string; name: string; port: number }) => ResolvedService | undefined;

export interface WebhookClientConfig {
  url?: string;
  caBundle?: string;
  service?: { namespace?: string; name?: string; path?: string; port?: number };
}

/** One call's destination. */
export interface WebhookTarget {
  /** The URL the webhook has for kube-apiserver: shown in messages (`https://<name>.<namespace>.svc:<port><path>?timeout=..` for a service). */
  display: string;
  /** The URL connected to. */
  connect: URL;
  /** The `host:port` dialled, for "connection refused" messages. */
  dialHost: string;
  /** Host header sent (the service's `host:port` for a service; Node's default for a URL). */
  hostHeader?: string;
  ca: string | undefined;
  servername: string | undefined;
  /** The name the server certificate must be valid for (the service's DNS name, or the URL's host). */
  verifyHost: string;
}

/** Decoded CA bundles per client configuration object (the admitter keeps those parsed per stored version). */
const decodedCas = new WeakMap<WebhookClientConfig, string>();

function caOf(cc: WebhookClientConfig): string {
  let ca = decodedCas.get(cc);
  if (ca === undefined) {
    ca = Buffer.from(cc.caBundle ?? '', 'base64').toString('utf8');
    decodedCas.set(cc, ca);
  }
  return ca;
}

/**
 * The destination of a webhook call, as kube-apiserver computes it. Throws an Error with
 * kube-apiserver's text (`Post "<url>": service "<name>" not found`) when a service is not resolved.
 */
export function webhookTarget(cluster: string, cc: WebhookClientConfig | undefined, timeoutSeconds: number, resolver: ServiceResolver | undefined): WebhookTarget {
  const ca = cc?.caBundle ? caOf(cc) : undefined;
  const svc = cc?.service;
  if (cc?.url === undefined && svc === undefined) throw new Error('webhook has neither a URL nor a service reference');
  if (svc === undefined) {
    const connect = new URL(cc!.url!);
    connect.searchParams.set('timeout', `${timeoutSeconds}s`);
    const verifyHost = connect.hostname.replace(/^\[(.*)\]$/, '$1');
    return { display: connect.toString(), connect, dialHost: connect.host, ca, servername: undefined, verifyHost };
  }
  const namespace = svc.namespace ?? '';
  const name = svc.name ?? '';
  const port = svc.port ?? 443;
  const path = svc.path || '/';
  const dnsName = `${name}.${namespace}.svc`;
  const display = `https://${dnsName}:${port}${path}?timeout=${timeoutSeconds}s`;
  const resolved = resolver?.(cluster, { namespace, name, port });
  if (!resolved) throw new Error(`Post "${display}": service "${name}" not found`);
  let base: URL;
  try {
    base = new URL(resolved.url);
  } catch {
    throw new Error(`Post "${display}": service "${name}" resolved to an invalid URL ${JSON.stringify(resolved.url)}`);
  }
  const connect = new URL(base.origin);
  connect.pathname = base.pathname.replace(/\/+$/, '') + path;
  connect.searchParams.set('timeout', `${timeoutSeconds}s`);
  return { display, connect, dialHost: connect.host, hostHeader: `${dnsName}:${port}`, ca, servername: resolved.servername ?? dnsName, verifyHost: dnsName };
}

/** Go's x509.HostnameError text, which kube-apiserver puts into its message. */
function hostnameErrorText(host: string, cert: PeerCertificate): string {
  const sans = (cert.subjectaltname ?? '').split(', ').filter(Boolean);
  if (isIP(host)) {
    const ips = sans.filter((s) => s.startsWith('IP Address:')).map((s) => s.slice('IP Address:'.length));
    if (ips.length === 0) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
    return `x509: certificate is valid for ${ips.join(', ')}, not ${host}`;
  }
  const dns = sans.filter((s) => s.startsWith('DNS:')).map((s) => s.slice('DNS:'.length));
  if (dns.length === 0) return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  return `x509: certificate is valid for ${dns.join(', ')}, not ${host}`;
}

/** Node's codes for a chain that does not lead to a trusted CA. */
const UNKNOWN_AUTHORITY = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY']);

export interface WebhookPoolLimits {
  /** Agents kept (distinct targets: connect origin, CA bundle, SNI, verified name); the least recently used goes first. */
  maxAgents: number;
  /** Connections per agent, open at once (further calls wait for one). */
  maxSocketsPerAgent: number;
  /** Idle connections kept per agent. */
  maxIdlePerAgent: number;
  /** An idle connection is closed after this long (or sooner if the server says so with Keep-Alive). */
  idleTimeoutMs: number;
  /**
   * An agent not called for this long goes, with its TLS session (default 5 min: a TLS server keeps
   * a session resumable for 300 s by default, so an older one saves no handshake).
   */
  agentIdleMs?: number;
}

/*
 * Sizing: connections with different SNI cannot be shared, so each distinct target has its own
 * agent, as each runtime's kube-apiserver has its own connections to its own webhook. A landscape
 * that serves every runtime's webhook from one process (SNI per runtime) has as many targets as
 * runtimes: the pool keeps an agent for each of up to 16,384 called in the last 5 minutes (an agent
 * without connections is about 2 KB, its TLS session ticket about as much more), so that a
 * runtime's next write reuses its connection, or resumes its TLS session once the idle timeout
 * closed it, instead of a full handshake on both ends. With 128 agents, 300 runtimes opened a
 * connection for 7% of their webhook calls, 60% of them full handshakes. Open connections stay
 * bounded by the idle timeout: only targets called within it keep theirs (at most 8 idle each).
 * Runtimes resolved to the same URL and SNI with the same CA bundle share one agent.
 */
export const DEFAULT_POOL_LIMITS: WebhookPoolLimits = { maxAgents: 16_384, maxSocketsPerAgent: 16, maxIdlePerAgent: 8, idleTimeoutMs: 30_000, agentIdleMs: 300_000 };

/** How often acquire() looks for agents idle longer than agentIdleMs. */
const SWEEP_EVERY_MS = 60_000;

interface PooledAgent {
  agent: Agent;
  context: SecureContextLease;
  inFlight: number;
  /** When its last call ended (or began, while one runs). */
  lastUsed: number;
  /** Evicted from the pool: destroyed once its last call ends. */
  retired: boolean;
}

/** What a WebhookClient did since it was made (for `GET /_kcp/stats`). */
export interface WebhookClientStats {
  calls: number;
  /** Calls that opened a connection (the rest reused a kept-alive one). */
  connections: number;
  /** Of those, connections whose TLS session was resumed (no full handshake). */
  resumed: number;
}

/** Keep-alive HTTPS agents per webhook target, bounded in number (LRU). */
export class WebhookClient {
  readonly stats: WebhookClientStats = { calls: 0, connections: 0, resumed: 0 };
  /** Map order is recency: the first entry is the least recently used. */
  private readonly agents = new Map<string, PooledAgent>();
  private readonly retired = new Set<PooledAgent>();
  private closed = false;
  private lastSweep = Date.now();

  constructor(private readonly limits: WebhookPoolLimits = DEFAULT_POOL_LIMITS) {}

  /** Agents in the pool (for tests and diagnostics). */
  agentCount(): number {
    return this.agents.size;
  }

  /** POSTs a JSON body and parses the JSON answer; errors read like Go's `Post "<url>": ...`. */
  async post(target: WebhookTarget, body: unknown, timeoutMs: number): Promise<Record<string, unknown>> {
    this.stats.calls++;
    const pooled = this.acquire(target);
    const deadline = Date.now() + timeoutMs;
    try {
      try {
        return await this.once(pooled.agent, target, body, timeoutMs);
      } catch (err) {
        // A kept-alive connection the server closed meanwhile: try once more on a fresh one, as Go's
        // transport does for a request it could not write.
        if (!(err instanceof StaleConnection) || Date.now() >= deadline) throw err instanceof StaleConnection ? err.error : err;
        return await this.once(pooled.agent, target, body, deadline - Date.now());
      }
    } finally {
      this.release(pooled);
    }
  }

  /** Closes every connection; later calls still work but keep no connection open. */
  destroy(): void {
    this.closed = true;
    for (const p of [...this.agents.values(), ...this.retired]) destroyAgent(p);
    this.agents.clear();
    this.retired.clear();
  }

  private acquire(t: WebhookTarget): PooledAgent {
    const key = [t.connect.origin, t.servername ?? '', t.verifyHost, t.ca ? createHash('sha256').update(t.ca).digest('hex') : ''].join('|');
    let p = this.agents.get(key);
    if (p) {
      this.agents.delete(key);
    } else {
      let context: SecureContextLease;
      try {
        context = secureContexts.acquire({ ca: t.ca });
      } catch (e) {
        throw new Error(`Post "${t.display}": ${(e as Error).message}`, { cause: e });
      }
      p = { agent: this.newAgent(t, context), context, inFlight: 0, lastUsed: 0, retired: false };
    }
    p.inFlight++;
    p.lastUsed = Date.now();
    if (this.closed) {
      p.retired = true;
      this.retired.add(p);
      return p;
    }
    this.agents.set(key, p);
    while (this.agents.size > this.limits.maxAgents) {
      const [oldestKey, oldest] = this.agents.entries().next().value as [string, PooledAgent];
      this.retire(oldestKey, oldest);
    }
    this.sweep();
    return p;
  }

  /** Drops the agents nobody called for agentIdleMs (least recently used first, so it stops at the first recent one). */
  private sweep(): void {
    const idleMs = this.limits.agentIdleMs;
    const now = Date.now();
    if (idleMs === undefined || now - this.lastSweep < Math.min(idleMs, SWEEP_EVERY_MS)) return;
    this.lastSweep = now;
    for (const [key, p] of this.agents) {
      if (now - p.lastUsed < idleMs) break;
      if (p.inFlight === 0) this.retire(key, p);
    }
  }

  private retire(key: string, p: PooledAgent): void {
    this.agents.delete(key);
    p.retired = true;
    if (p.inFlight === 0) destroyAgent(p);
    else this.retired.add(p);
  }

  private release(p: PooledAgent): void {
    p.inFlight--;
    p.lastUsed = Date.now();
    if (p.retired && p.inFlight === 0) {
      destroyAgent(p);
      this.retired.delete(p);
    }
  }

  private newAgent(t: WebhookTarget, context: SecureContextLease): Agent {
    const verifyHost = t.verifyHost;
    // TLS options live on the agent: its options take precedence over a request's, and the agent
    // is per target anyway. The certificate is checked against verifyHost whatever SNI is sent.
    return new Agent({
      keepAlive: !this.closed,
      maxSockets: this.limits.maxSocketsPerAgent,
      maxFreeSockets: this.limits.maxIdlePerAgent,
      timeout: this.limits.idleTimeoutMs,
      scheduling: 'lifo',
      secureContext: context.context,
      ...(t.servername !== undefined ? { servername: t.servername } : {}),
      checkServerIdentity: (_servername: string, cert: PeerCertificate) => (checkServerIdentity(verifyHost, cert) ? new Error(hostnameErrorText(verifyHost, cert)) : undefined),
    });
  }

  private once(agent: Agent, t: WebhookTarget, body: unknown, timeoutMs: number): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const payload = Buffer.from(JSON.stringify(body));
      const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': payload.length, accept: 'application/json' };
      if (t.hostHeader) headers.host = t.hostHeader;
      let answered = false;
      const req = httpsRequest(t.connect, { method: 'POST', agent, headers }, (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
          } catch (e) {
            reject(e instanceof Error ? e : new Error(String(e)));
          }
        });
        res.on('error', (e) => {
          clearTimeout(timer);
          reject(e);
        });
      });
      const timer = setTimeout(() => {
        const err = new Error(`Post "${t.display}": context deadline exceeded`);
        reject(err);
        req.destroy(err);
      }, timeoutMs);
      req.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        let err: Error;
        if (e.message.startsWith('Post "')) err = e;
        else if (e.code === 'ECONNREFUSED') err = new Error(`Post "${t.display}": dial tcp ${t.dialHost}: connect: connection refused`);
        else if (e.code !== undefined && UNKNOWN_AUTHORITY.has(e.code)) err = new Error(`Post "${t.display}": x509: certificate signed by unknown authority`);
        else err = new Error(`Post "${t.display}": ${e.message}`);
        const stale = req.reusedSocket && !answered && (e.code === 'ECONNRESET' || e.code === 'EPIPE');
        reject(stale ? new StaleConnection(err) : err);
      });
      req.once('socket', (socket: TLSSocket) => {
        if (req.reusedSocket) return;
        this.stats.connections++;
        socket.once('secureConnect', () => {
          if (socket.isSessionReused()) this.stats.resumed++;
        });
      });
      req.end(payload);
    });
  }
}

function destroyAgent(p: PooledAgent): void {
  p.agent.destroy();
  p.context.release();
}

/** A call that failed on a reused connection before any answer came. */
class StaleConnection extends Error {
  constructor(readonly error: Error) {
    super(error.message);
  }
}
