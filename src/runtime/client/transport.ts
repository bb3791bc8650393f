// HTTP(S) to one cluster: a keep-alive agent with a socket bound for requests, a separate agent for
// long-running watches (so watches never starve requests of sockets), and network failures mapped to
// `ApiError('Unreachable')`.
//
// TLS: both agents use one SecureContext shared by every transport with the same CA, certificate
// and key (src/util/tls-contexts.ts), instead of one built per connection, and the request agent
// keeps the server's session ticket, so a reconnect after idle sockets were closed resumes the
// session instead of doing a full handshake.
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { secureContexts, type SecureContextCache, type SecureContextLease } from '../../util/tls-contexts.js';
import { ApiError } from './errors.js';
import type { ClusterConfig } from './config.js';

export interface TransportOptions {
  /** Concurrent request connections to this cluster (watches have their own, one each). Default 8. */
  maxSockets?: number;
  /** Idle keep-alive request connections kept for the next request. Default: maxSockets. */
  maxIdleSockets?: number;
  /**
   * A kept-alive request connection unused this long is closed, each on its own (the one a client
   * uses keeps going while the other of a burst closes). Default: kept until the server closes it.
   * Below the server's idle timeout, a request does not meet a connection the server is closing.
   */
  idleSocketTimeoutMs?: number;
  /** Per-request timeout (no answer within it: Unreachable). Default 30 s. */
  requestTimeoutMs?: number;
  /** Where the TLS context comes from (default: the process's shared cache). */
  secureContexts?: SecureContextCache;
}

/** Connections opened so far, and how many of them resumed a TLS session (no full handshake). */
export interface ConnectionStats {
  opened: number;
  resumed: number;
  /** Kept-alive connections closed after idleSocketTimeoutMs unused. */
  closedIdle: number;
}

export interface RequestInit {
  method: string;
  /** Path and query below the server URL, e.g. `/api/v1/namespaces?limit=10`. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A streamed answer: `lines` for a 200, otherwise the whole `body`. */
export interface StreamResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  lines: AsyncIterable<string>;
}

const TLS_ERROR_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function errorCode(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string') return e.code;
  return undefined;
}

/** True for an Unreachable error caused by TLS (untrusted or wrong certificate, handshake alert). */
export function isTlsError(e: unknown): boolean {
  if (!(e instanceof ApiError) || e.reason !== 'Unreachable') return false;
  const code = errorCode(e.cause);
  return code !== undefined && (TLS_ERROR_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_'));
}

/** True when the request certainly never reached the server (safe to retry even a write). */
export function isConnectionRefused(e: unknown): boolean {
  return e instanceof ApiError && e.reason === 'Unreachable' && errorCode(e.cause) === 'ECONNREFUSED';
}

/**
 * Errors on a kept-alive connection the server had already closed (the request raced the server's
 * idle timeout): the server never read the request, so sending it once more is safe, as Node's
 * documentation suggests for `request.reusedSocket`.
 */
const staleConnectionErrors = new WeakSet<ApiError>();

function isAbort(e: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (e instanceof Error && e.name === 'AbortError');
}

function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

export class Transport {
  private readonly base: URL;
  private readonly prefix: string;
  private readonly secure: boolean;
  private readonly requestAgent: http.Agent;
  /** Made on the first watch: most remote clients never open one, and an Agent is about 2 KiB. */
  private watchAgentIfAny: http.Agent | undefined;
  private readonly requestTimeoutMs: number;
  private readonly tlsContext: SecureContextLease | undefined;
  /** Why no TLS context could be built (a malformed certificate or key): every request fails with it. */
  private readonly tlsError: unknown;
  private closed = false;
  /** Request sockets seen so far (a kept-alive socket serves many requests). */
  private readonly seen = new WeakSet<Socket>();
  private requestSockets = 0;
  private readonly connections: ConnectionStats = { opened: 0, resumed: 0, closedIdle: 0 };
  /**
   * Told +1/-1 whenever a request connection opens or closes (the remote-client cache keeps its
   * socket budget with it, without counting every client's sockets).
   */
  onRequestSocketsChanged: ((delta: number) => void) | undefined;

  constructor(
    readonly config: ClusterConfig,
    opts: TransportOptions = {},
  ) {
    this.base = new URL(config.server);
    this.prefix = this.base.pathname.replace(/\/+$/, '');
    this.secure = this.base.protocol === 'https:';
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 30_000;
    if (this.secure) {
      try {
        this.tlsContext = (opts.secureContexts ?? secureContexts).acquire(config.tls);
      } catch (e) {
        this.tlsError = e;
      }
    }
    const maxSockets = opts.maxSockets ?? 8;
    // An agent's `timeout` is the idle timeout of its free sockets (each request sets its own while it runs).
    const idle = opts.idleSocketTimeoutMs !== undefined && opts.idleSocketTimeoutMs > 0 ? { timeout: opts.idleSocketTimeoutMs } : {};
    this.requestAgent = this.newAgent({ keepAlive: true, maxSockets, maxFreeSockets: Math.min(maxSockets, opts.maxIdleSockets ?? maxSockets), ...idle });
  }

  private newAgent(o: http.AgentOptions): http.Agent {
    if (!this.secure) return new http.Agent(o);
    const tls = this.config.tls;
    return new https.Agent({
      ...o,
      secureContext: this.tlsContext?.context,
      rejectUnauthorized: tls.insecureSkipTlsVerify !== true,
      servername: tls.serverName,
    });
  }

  /** Counts a request connection the first time a request gets it. */
  private track(socket: Socket): void {
    if (this.seen.has(socket)) return;
    this.seen.add(socket);
    this.requestSockets++;
    this.connections.opened++;
    this.onRequestSocketsChanged?.(1);
    if (this.secure) socket.once('secureConnect', () => (socket as TLSSocket).isSessionReused() && this.connections.resumed++);
    // The agent's idle timeout destroys a free socket before this listener runs; it leaves the free
    // list only once closed. (A request's own timeout destroys a socket that is not free.)
    socket.on('timeout', () => {
      if (socket.destroyed && Object.values(this.requestAgent.freeSockets).some((l) => l?.includes(socket))) this.connections.closedIdle++;
    });
    socket.once('close', () => {
      this.requestSockets--;
      this.onRequestSocketsChanged?.(-1);
    });
  }

  private open(init: RequestInit, agent: http.Agent, timeoutMs: number | undefined): Promise<http.IncomingMessage> {
    if (this.closed) return Promise.reject(new ApiError('Unreachable', `${this.config.name}: client closed`, 0));
    if (this.tlsError !== undefined) {
      const message = this.tlsError instanceof Error ? this.tlsError.message : String(this.tlsError);
      return Promise.reject(new ApiError('Unreachable', `${this.config.name}: unusable TLS credentials: ${message}`, 0, undefined, undefined, { cause: this.tlsError }));
    }
    if (init.signal?.aborted) return Promise.reject(abortReason(init.signal));
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'kcp-runtime-client', ...init.headers };
    if (init.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(init.body));
    const what = `${init.method} ${this.config.server}${init.path}`;
    return new Promise((resolve, reject) => {
      const req = (this.secure ? https : http).request({
        protocol: this.base.protocol,
        hostname: this.base.hostname.replace(/^\[|\]$/g, ''),
        port: this.base.port || (this.secure ? 443 : 80),
        path: this.prefix + init.path,
        method: init.method,
        headers,
        agent,
        signal: init.signal,
      });
      if (agent === this.requestAgent) req.on('socket', (s) => this.track(s));
      if (timeoutMs !== undefined && timeoutMs > 0) {
        req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
      }
      req.on('response', (res) => {
        // The timeout guards waiting for the answer; reading a watch stream may take forever.
        req.setTimeout(0);
        resolve(res);
      });
      req.on('error', (e) => {
        if (isAbort(e, init.signal)) {
          reject(abortReason(init.signal));
          return;
        }
        const error = new ApiError('Unreachable', `${what}: ${e.message}`, 0, undefined, undefined, { cause: e });
        if (req.reusedSocket && errorCode(e) === 'ECONNRESET') staleConnectionErrors.add(error);
        reject(error);
      });
      req.end(init.body);
    });
  }

  /** One request; the whole answer body as text. Network failures reject with Unreachable. */
  async request(init: RequestInit): Promise<HttpResponse> {
    let res: http.IncomingMessage;
    try {
      res = await this.open(init, this.requestAgent, init.timeoutMs ?? this.requestTimeoutMs);
    } catch (e) {
      if (!(e instanceof ApiError) || !staleConnectionErrors.has(e)) throw e;
      res = await this.open(init, this.requestAgent, init.timeoutMs ?? this.requestTimeoutMs);
    }
    const body = await readBody(res, init, this.config.server);
    return { status: res.statusCode ?? 0, headers: res.headers, body };
  }

  /**
   * A streaming GET (watch): newline-delimited lines until the server ends the stream, the
   * connection is cut, or the signal aborts. A non-200 answer is read whole into `body`.
   */
  async stream(init: RequestInit): Promise<StreamResponse> {
    const res = await this.open(init, (this.watchAgentIfAny ??= this.newAgent({ keepAlive: false })), init.timeoutMs ?? this.requestTimeoutMs);
    const status = res.statusCode ?? 0;
    if (status !== 200) {
      const body = await readBody(res, init, this.config.server);
      return { status, headers: res.headers, body, lines: emptyLines() };
    }
    return { status, headers: res.headers, body: '', lines: readLines(res) };
  }

  /** Closes keep-alive connections nobody uses right now (e.g. for a cluster that went quiet). */
  destroyIdleSockets(): void {
    for (const agent of [this.requestAgent, this.watchAgentIfAny]) {
      if (!agent) continue;
      for (const sockets of Object.values(agent.freeSockets)) for (const s of sockets ?? []) s.destroy();
    }
  }

  /** Open connections, for metrics and tests: requests in flight or idle, and watches. */
  socketCounts(): { active: number; idle: number; watches: number } {
    const count = (m: NodeJS.ReadOnlyDict<unknown[]>) => Object.values(m).reduce((n, l) => n + (l?.length ?? 0), 0);
    return { active: count(this.requestAgent.sockets), idle: count(this.requestAgent.freeSockets), watches: this.watchAgentIfAny ? count(this.watchAgentIfAny.sockets) : 0 };
  }

  /** Open request connections (in use or idle; not watches), kept up to date as they open and close. */
  get openRequestSockets(): number {
    return this.requestSockets;
  }

  /** Request connections opened so far and how many resumed a TLS session. */
  connectionStats(): ConnectionStats {
    return { ...this.connections };
  }

  /** Destroys every connection, including open watches. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.requestAgent.destroy();
    this.watchAgentIfAny?.destroy();
    this.tlsContext?.release();
  }
}

async function readBody(res: http.IncomingMessage, init: RequestInit, server: string): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of res) chunks.push(chunk as Buffer);
  } catch (e) {
    if (isAbort(e, init.signal)) throw abortReason(init.signal);
    throw new ApiError('Unreachable', `${init.method} ${server}${init.path}: answer cut off: ${(e as Error).message}`, 0, undefined, undefined, { cause: e });
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function* emptyLines(): AsyncGenerator<string> {}

async function* readLines(res: http.IncomingMessage): AsyncGenerator<string> {
  res.setEncoding('utf8');
  let pending = '';
  let endedCleanly = false;
  try {
    for await (const chunk of res) {
      pending += chunk as string;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        if (line) yield line;
      }
    }
    endedCleanly = true;
  } catch {
    // Aborted by the caller or the connection was cut: either way the stream is over.
  } finally {
    res.destroy();
  }
  // A half line from a cut connection is dropped; a clean end may omit the final newline.
  const rest = pending.trim();
  if (endedCleanly && rest) yield rest;
}
