// The KCP listener of the runtime watcher: `POST /v2/<manager>/event` from the webhook in every
// runtime. The runtime is authenticated by its client certificate; its Common Name (the runtime-id)
// alone decides whose objects are enqueued: the body only says which object changed.
//
//   mode 'mtls'    (default): HTTPS with a certificate of the watcher CA; client certificates of
//                  the watcher CA required. TLS material can be swapped live (CA rotation).
//   mode 'gateway': plain HTTP behind a gateway that terminated mutual TLS; the identity comes from
//                  `X-Forwarded-Client-Cert`. Only for a gateway the operator said to trust.
//
// Handlers never block: they put keys into de-duplicating work queues and return. A runtime that
// sends faster than its token bucket allows gets 429, and nobody else notices.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { X509Certificate } from 'node:crypto';
import type { Logger } from '../runtime/log.js';
import { closeServer, listen } from '../util/servers.js';
import { splitPemCertificates } from '../util/x509.js';
import type { Counter, Histogram, Registry } from '../runtime/metrics.js';
import { decodeEvent, managerOfPath, MAX_EVENT_BYTES, type WatchEvent } from './event.js';
import { certificatesOf, identityOfForwardedCert, identityOfTlsSocket, XFCC_HEADER, type Identity } from './identity.js';

export interface ListenerTls {
  /** The listener's serving certificate (chain) and key. */
  certPem: string;
  keyPem: string;
  /** The CAs whose client certificates are accepted (the watcher CA bundle). */
  clientCaPem: string;
}

export interface DeliveredEvent {
  manager: string;
  runtimeId: string;
  event: WatchEvent;
  /** performance.now() when the request arrived. */
  receivedAt: number;
}

/** What a manager's handler did with an event. */
/** `ignored`: accepted (200), nothing to wake. */
export type HandlerResult = 'enqueued' | 'ignored' | 'unknown-runtime';
export type EventHandler = (e: DeliveredEvent) => HandlerResult;

export interface RuntimeRate {
  /** Events per second a runtime may send on average. */
  perSecond: number;
  /** Events a runtime may send at once. */
  burst: number;
}

export const DEFAULT_RUNTIME_RATE: RuntimeRate = { perSecond: 20, burst: 50 };

export interface EventListenerOptions {
  host: string;
  port: number;
  mode: { kind: 'mtls'; tls: ListenerTls } | { kind: 'gateway'; clientCaPem?: string };
  registry?: Registry;
  log?: Logger;
  rate?: RuntimeRate;
  maxBodyBytes?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Metrics of the listener (names prefixed `watcher_`). */
class ListenerMetrics {
  readonly received: Counter;
  readonly rejected: Counter;
  readonly handling: Histogram;
  constructor(registry: Registry) {
    this.received = registry.counter({ name: 'watcher_events_received_total', help: 'Runtime watcher events accepted by the listener, by manager.', labelNames: ['manager'] });
    this.rejected = registry.counter({ name: 'watcher_events_rejected_total', help: 'Runtime watcher requests refused by the listener, by reason.', labelNames: ['reason'] });
    this.handling = registry.histogram({
      name: 'watcher_event_handling_seconds',
      help: 'Time from a runtime watcher request arriving to its answer.',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    });
  }
}

class Refusal extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export class EventListener {
  private server: Server | undefined;
  private readonly handlers = new Map<string, EventHandler>();
  private readonly buckets = new Map<string, Bucket>();
  private readonly metrics: ListenerMetrics | undefined;
  private readonly rate: RuntimeRate;
  private readonly maxBody: number;
  private trustedForGateway: X509Certificate[] | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly lastSeen = new Map<string, number>();
  /** When a refusal was last logged at warn, per reason and sender: a misbehaving runtime must not flood the log. */
  private readonly warned = new Set<string>();

  constructor(private readonly opts: EventListenerOptions) {
    this.metrics = opts.registry ? new ListenerMetrics(opts.registry) : undefined;
    this.rate = opts.rate ?? DEFAULT_RUNTIME_RATE;
    this.maxBody = opts.maxBodyBytes ?? MAX_EVENT_BYTES;
    if (opts.mode.kind === 'gateway' && opts.mode.clientCaPem) this.trustedForGateway = certificatesOf(opts.mode.clientCaPem);
  }

  /** Routes events of `manager` (the path component) to `handler`. */
  handle(manager: string, handler: EventHandler): void {
    this.handlers.set(manager, handler);
  }

  async start(): Promise<void> {
    const onRequest = (req: IncomingMessage, res: ServerResponse): void => this.serve(req, res);
    const mode = this.opts.mode;
    const server =
      mode.kind === 'mtls'
        ? createHttpsServer({ ...secureOptions(mode.tls), requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' }, onRequest)
        : createHttpServer(onRequest);
    server.keepAliveTimeout = 60_000;
    await listen(server, this.opts.port, this.opts.host);
    this.server = server;
    this.sweepTimer = setInterval(() => this.sweep(), 60_000);
    this.sweepTimer.unref();
  }

  /** host:port the listener is bound to. */
  get address(): { host: string; port: number } {
    const a = this.server?.address() as AddressInfo | null | undefined;
    if (!a) throw new Error('the listener is not started');
    return { host: a.address, port: a.port };
  }

  get url(): string {
    const { host, port } = this.address;
    const h = host.includes(':') ? `[${host}]` : host;
    return `${this.opts.mode.kind === 'mtls' ? 'https' : 'http'}://${h}:${port}`;
  }

  /** Swaps certificate and trusted CAs without dropping the listener (CA rotation, renewal). */
  updateTls(tls: ListenerTls): void {
    if (this.opts.mode.kind === 'mtls') {
      this.opts.mode.tls = tls;
      (this.server as import('node:https').Server | undefined)?.setSecureContext(secureOptions(tls));
    } else {
      this.trustedForGateway = certificatesOf(tls.clientCaPem);
    }
  }

  /** When the listener last accepted an event from the runtime (Date.now()), if ever since it started. */
  lastEventAt(runtimeId: string): number | undefined {
    return this.lastSeen.get(runtimeId);
  }

  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    const server = this.server;
    this.server = undefined;
    if (server) await closeServer(server);
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const answer = (code: number, body?: unknown): void => {
      const text = body === undefined ? '' : JSON.stringify(body);
      res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      this.metrics?.handling.observe(undefined, (performance.now() - started) / 1000);
    };
    let runtimeId: string | undefined;
    const refuse = (r: Refusal): void => {
      this.metrics?.rejected.inc({ reason: r.reason });
      this.logRefusal(r, runtimeId, req);
      // The body may still be arriving: answer, then drop the connection rather than read it.
      if (!req.complete) res.setHeader('connection', 'close');
      answer(r.code, { message: r.message, reason: r.reason });
    };
    try {
      const path = (req.url ?? '/').split('?')[0];
      const manager = managerOfPath(path);
      if (manager === undefined) throw new Refusal(404, 'not-found', `no such path ${path}; events go to /v2/<manager>/event`);
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST');
        throw new Refusal(405, 'method-not-allowed', `method ${req.method ?? ''} is not allowed; use POST`);
      }
      const identity = this.identify(req);
      if ('refused' in identity) throw new Refusal(identity.refused === 'empty-common-name' ? 400 : 401, identity.refused, identity.message);
      runtimeId = identity.runtimeId;
      const handler = this.handlers.get(manager);
      if (!handler) throw new Refusal(404, 'unknown-manager', `no component receives events for ${manager}`);
      const declared = Number(req.headers['content-length'] ?? 0);
      if (declared > this.maxBody) throw new Refusal(413, 'body-too-large', `the body is larger than ${this.maxBody} bytes`);
      if (!this.take(identity.runtimeId)) throw new Refusal(429, 'rate-limited', `runtime ${identity.runtimeId} sends more than ${this.rate.perSecond} events per second`);
      this.readBody(req, (err, body) => {
        try {
          if (err) throw err;
          let event: WatchEvent;
          try {
            event = decodeEvent(body ?? '');
          } catch (e) {
            throw new Refusal(400, 'bad-body', (e as Error).message);
          }
          const result = handler({ manager, runtimeId: identity.runtimeId, event, receivedAt: started });
          if (result === 'unknown-runtime') throw new Refusal(404, 'unknown-runtime', `no Kyma has runtime-id ${identity.runtimeId}`);
          this.lastSeen.set(identity.runtimeId, Date.now());
          this.metrics?.received.inc({ manager });
          answer(200, {});
        } catch (e) {
          if (e instanceof Refusal) refuse(e);
          else {
            this.opts.log?.error('watcher event failed', { manager, runtime: identity.runtimeId, error: e });
            this.metrics?.rejected.inc({ reason: 'internal-error' });
            answer(500, { message: 'internal error' });
          }
        }
      });
    } catch (e) {
      if (e instanceof Refusal) refuse(e);
      else {
        this.opts.log?.error('watcher event failed', { runtime: runtimeId, path: req.url, error: e });
        answer(500, { message: 'internal error' });
      }
    }
  }

  private identify(req: IncomingMessage): Identity {
    const forwarded = req.headers[XFCC_HEADER];
    if (this.opts.mode.kind === 'mtls') {
      // A client talking to us directly has no business sending a gateway's header.
      if (forwarded !== undefined) return { refused: 'forwarded-certificate-untrusted', message: `${XFCC_HEADER} is not accepted: the listener terminates TLS itself and trusts no gateway` };
      return identityOfTlsSocket(req.socket as TLSSocket);
    }
    const header = Array.isArray(forwarded) ? forwarded[forwarded.length - 1] : forwarded;
    if (!header) return { refused: 'no-client-certificate', message: `the gateway forwarded no client certificate (${XFCC_HEADER} missing)` };
    return identityOfForwardedCert(header, this.trustedForGateway);
  }

  private readBody(req: IncomingMessage, done: (err: Error | undefined, body?: string) => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let finished = false;
    const finish = (err: Error | undefined, body?: string): void => {
      if (finished) return;
      finished = true;
      done(err, body);
    };
    req.on('data', (c: Buffer) => {
      if (finished) return;
      size += c.length;
      if (size > this.maxBody) {
        finish(new Refusal(413, 'body-too-large', `the body is larger than ${this.maxBody} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => finish(undefined, Buffer.concat(chunks).toString('utf8')));
    req.on('error', (e) => finish(e));
  }

  /** Token bucket per runtime. */
  private take(runtimeId: string): boolean {
    const now = performance.now();
    const b = this.buckets.get(runtimeId) ?? { tokens: this.rate.burst, at: now };
    b.tokens = Math.min(this.rate.burst, b.tokens + ((now - b.at) / 1000) * this.rate.perSecond);
    b.at = now;
    this.buckets.set(runtimeId, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** Drops full buckets: they hold nothing a new one would not. */
  private sweep(): void {
    const now = performance.now();
    for (const [id, b] of this.buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.rate.perSecond >= this.rate.burst) this.buckets.delete(id);
    }
    this.warned.clear();
  }

  /** At warn once per reason and sender until the next sweep (a minute), else at debug; every refusal is counted. */
  private logRefusal(r: Refusal, runtimeId: string | undefined, req: IncomingMessage): void {
    const log = this.opts.log;
    if (!log) return;
    const sender = runtimeId ?? req.socket.remoteAddress ?? '';
    const key = `${r.reason}|${sender}`;
    // A flood from many senders within a minute: the first 1,000 are warned about, the rest counted.
    const level = this.warned.has(key) || this.warned.size >= 1_000 ? 'debug' : 'warn';
    if (!log.enabled(level)) return;
    if (level === 'warn') this.warned.add(key);
    log[level]('watcher event refused', { reason: r.reason, message: r.message, path: req.url, ...(runtimeId ? { runtime: runtimeId } : { remoteAddress: req.socket.remoteAddress }) });
  }
}

function secureOptions(tls: ListenerTls): { cert: string; key: string; ca: string[] } {
  // One entry per CA: a bundle whose certificates are not newline-separated would otherwise lose all but the first.
  return { cert: tls.certPem, key: tls.keyPem, ca: splitPemCertificates(tls.clientCaPem) };
}
