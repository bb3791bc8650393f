// Sends watcher events from a runtime to the KCP listener over mutual TLS, with the runtime's own
// key pair (CN = runtime-id) and the watcher CA bundle as the only trusted roots. Connections are
// kept alive: a busy runtime pays one handshake, not one per event; the TLS context is built once
// per credential set (src/util/tls-contexts.ts), not per connection, and a reconnect resumes the
// TLS session the agent kept.
import { Agent, request } from 'node:https';
import { sleep } from '../util/sleep.js';
import { secureContexts, type SecureContextLease } from '../util/tls-contexts.js';
import { splitPemCertificates } from '../util/x509.js';
import { encodeEvent, eventPath, type WatchEvent } from './event.js';

export interface RuntimeCredentials {
  certPem: string;
  keyPem: string;
  /** The CAs the KCP listener's certificate may be issued by (the Secret's ca.crt). */
  caPem: string;
}

export interface SenderOptions {
  /** The KCP address given to runtimes: `host:port`, `host` (port 443) or an https URL. */
  kcpAddress: string;
  credentials: RuntimeCredentials;
  /** Attempts per event (upstream: 3). */
  attempts?: number;
  /** First back-off; doubled per attempt. */
  backoffMs?: number;
  /** Per-request timeout. */
  timeoutMs?: number;
  /** Idle connections are closed after this. */
  idleMs?: number;
}

export class SendError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Base URL of the KCP listener from the address a runtime is given. */
export function kcpBaseUrl(address: string): URL {
  return new URL(/^https?:\/\//.test(address) ? address : `https://${address}`);
}

function contextCredentials(c: RuntimeCredentials): { ca: string[]; cert: string; key: string } {
  return { ca: splitPemCertificates(c.caPem), cert: c.certPem, key: c.keyPem };
}

export class KcpEventSender {
  private agent: Agent;
  private lease: SecureContextLease;
  private readonly base: URL;
  private credentials: RuntimeCredentials;

  constructor(private readonly opts: SenderOptions) {
    this.base = kcpBaseUrl(opts.kcpAddress);
    this.credentials = opts.credentials;
    this.lease = secureContexts.acquire(contextCredentials(opts.credentials));
    this.agent = this.newAgent();
  }

  get address(): string {
    return this.opts.kcpAddress;
  }

  /** New credentials (a renewed certificate or a rotated CA): new connections use them. */
  updateCredentials(c: RuntimeCredentials): void {
    if (c.certPem === this.credentials.certPem && c.keyPem === this.credentials.keyPem && c.caPem === this.credentials.caPem) return;
    // Unusable credentials throw here and the sender keeps the ones it has.
    const lease = secureContexts.acquire(contextCredentials(c));
    this.credentials = c;
    const old = { agent: this.agent, lease: this.lease };
    this.lease = lease;
    this.agent = this.newAgent();
    old.agent.destroy();
    old.lease.release();
  }

  /** Sends one event; retries network errors, 429 and 5xx with back-off. */
  async send(manager: string, event: WatchEvent, signal?: AbortSignal): Promise<void> {
    const attempts = this.opts.attempts ?? 3;
    let backoff = this.opts.backoffMs ?? 100;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.post(manager, encodeEvent(event), signal);
        return;
      } catch (e) {
        const status = e instanceof SendError ? e.status : undefined;
        const retryable = status === undefined || status === 429 || status >= 500;
        if (!retryable || attempt >= attempts || signal?.aborted) throw e;
        await sleep(backoff, signal);
        backoff *= 2;
      }
    }
  }

  close(): void {
    this.agent.destroy();
    this.lease.release();
  }

  private newAgent(): Agent {
    return new Agent({
      keepAlive: true,
      maxSockets: 4,
      timeout: this.opts.idleMs ?? 30_000,
      secureContext: this.lease.context,
    });
  }

  private post(manager: string, body: string, signal?: AbortSignal): Promise<void> {
    const url = new URL(eventPath(manager), this.base);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          agent: this.agent,
          signal,
          timeout: this.opts.timeoutMs ?? 5_000,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const code = res.statusCode ?? 0;
            if (code >= 200 && code < 300) resolve();
            else reject(new SendError(`POST ${url.toString()}: ${code} ${Buffer.concat(chunks).toString('utf8').slice(0, 200)}`, code));
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new SendError(`POST ${url.toString()}: timed out`)));
      req.on('error', (e) => reject(e instanceof SendError ? e : new SendError(`POST ${url.toString()}: ${e.message}`)));
      req.end(body);
    });
  }
}
