// Admission webhook calls made from a worker thread. A kube-apiserver spends real CPU on its
// webhook calls (TLS, HTTP, the connection pool); the embedded server serves thousands of
// clusters on one event loop, where that work competes with every request. Here the main thread
// encodes the AdmissionReview and parses the answer; the thread (webhook-client-worker.ts) owns a
// WebhookClient and does the rest: the same pool, the same TLS checks, the same error texts.
//
// The thread starts at the first call (most servers never call a webhook). Should it end unasked,
// the calls in flight fail as calls to a webhook that went away do, the reason goes to the log,
// and later calls are made on the main thread.
import { Worker } from 'node:worker_threads';
import type { StoreLog } from './persistence.js';
import { type WebhookCaller, WebhookClient, type WebhookClientStats, type WebhookPoolLimits, type WebhookTarget } from './webhook-client.js';

/** A WebhookTarget as it crosses to the thread (a URL object cannot). */
export type SentTarget = Omit<WebhookTarget, 'connect'> & { connect: string };

export type ToWebhookClientThread = { t: 'post'; id: number; target: SentTarget; json: string; timeoutMs: number } | { t: 'close' };

/** An answer, with the thread's connection counters as they stand after it. */
export type FromWebhookClientThread = ({ t: 'answer'; id: number; text: string } | { t: 'failed'; id: number; message: string }) & { connections: number; resumed: number };

interface InFlight {
  target: WebhookTarget;
  json: string;
  timeoutMs: number;
  resolve(text: string): void;
  reject(e: Error): void;
}

/** How long close() waits for the thread to end by itself before it is terminated. */
const CLOSE_GRACE_MS = 5_000;

export class ThreadedWebhookClient implements WebhookCaller {
  private worker: Worker | undefined;
  private ended: Promise<void> | undefined;
  /** Where calls go once the thread is gone (it ended unasked, or the client was closed). */
  private fallback: WebhookClient | undefined;
  private readonly inFlight = new Map<number, InFlight>();
  private nextId = 0;
  private calls = 0;
  private threadCounts = { connections: 0, resumed: 0 };
  private closed = false;
  /** The thread answered at least once (a thread that never did may not have started at all). */
  private answered = false;

  constructor(
    private readonly log: StoreLog,
    private readonly limits?: WebhookPoolLimits,
  ) {}

  get stats(): WebhookClientStats {
    const f = this.fallback?.stats;
    return { calls: this.calls + (f?.calls ?? 0), connections: this.threadCounts.connections + (f?.connections ?? 0), resumed: this.threadCounts.resumed + (f?.resumed ?? 0) };
  }

  /** Whether calls go to the thread now (for tests). */
  get threaded(): boolean {
    return this.worker !== undefined;
  }

  async post(target: WebhookTarget, body: unknown, timeoutMs: number): Promise<Record<string, unknown>> {
    if (this.fallback) return this.fallback.post(target, body, timeoutMs);
    const worker = this.worker ?? this.start();
    const id = ++this.nextId;
    const json = JSON.stringify(body);
    this.calls++;
    const text = await new Promise<string>((resolve, reject) => {
      // Awaited answers keep the process alive; an idle thread does not.
      if (this.inFlight.size === 0) worker.ref();
      this.inFlight.set(id, { target, json, timeoutMs, resolve, reject });
      const message: ToWebhookClientThread = { t: 'post', id, target: { ...target, connect: target.connect.href }, json, timeoutMs };
      worker.postMessage(message);
    });
    return JSON.parse(text) as Record<string, unknown>;
  }

  /** Ends the thread, closing its connections; later calls are made here and keep no connection open. */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.useFallback().destroy();
      const worker = this.worker;
      if (worker) {
        // Its exit is awaited: it keeps the process alive until then.
        worker.ref();
        worker.postMessage({ t: 'close' } satisfies ToWebhookClientThread);
        const grace = setTimeout(() => {
          worker.terminate().catch(() => undefined);
        }, CLOSE_GRACE_MS);
        this.ended?.then(() => clearTimeout(grace)).catch(() => undefined);
      }
    }
    await this.ended;
  }

  private start(): Worker {
    const worker = new Worker(new URL('./webhook-client-worker.js', import.meta.url), { workerData: { limits: this.limits } });
    worker.unref();
    worker.on('message', (m: FromWebhookClientThread) => this.onAnswer(m));
    worker.on('error', (e) => this.log('error', 'the webhook client thread failed', { error: e.message }));
    this.ended = new Promise((resolve) =>
      worker.once('exit', (code) => {
        this.worker = undefined;
        if (!this.closed) this.log('error', 'the webhook client thread ended; webhooks are called from the main thread from now on', { code });
        const fallback = this.useFallback();
        for (const [id, call] of this.inFlight) {
          this.inFlight.delete(id);
          // A thread that never answered may never have run: its calls are made here instead.
          if (!this.answered && !this.closed) fallback.postText(call.target, call.json, call.timeoutMs).then(call.resolve, call.reject);
          else call.reject(new Error(`Post "${call.target.display}": ${this.closed ? 'the API server is stopping' : 'the webhook client thread ended'}`));
        }
        resolve();
      }),
    );
    this.worker = worker;
    return worker;
  }

  private useFallback(): WebhookClient {
    this.fallback ??= new WebhookClient(this.limits);
    return this.fallback;
  }

  private onAnswer(m: FromWebhookClientThread): void {
    this.answered = true;
    this.threadCounts = { connections: m.connections, resumed: m.resumed };
    const call = this.inFlight.get(m.id);
    if (!call) return;
    this.inFlight.delete(m.id);
    // While closing, the exit stays awaited.
    if (this.inFlight.size === 0 && !this.closed) this.worker?.unref();
    if (m.t === 'answer') call.resolve(m.text);
    else call.reject(new Error(m.message));
  }
}
