// Fault injection for one logical cluster, off by default: added latency, an error rate
// (500/503/429 with Retry-After), dropped watch connections, forced 410 Gone on watch resume,
// the cluster being unreachable, and new CRDs established late. The reliability tests of the
// controllers use it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LogicalCluster } from './cluster.js';
import { gone, StatusError } from './errors.js';
import { sendStatus } from './handler.js';
import { sleep } from '../util/sleep.js';

export interface FaultConfig {
  /** Added to every request before it is served. */
  latencyMs?: number;
  /** Share of requests (0..1) answered with one of `errorCodes` instead of being served. */
  errorRate?: number;
  /** Codes to pick from for injected errors (500, 503, 429); default [500]. */
  errorCodes?: number[];
  /** Retry-After seconds sent with injected 429 and 503 answers; default 1. */
  retryAfterSeconds?: number;
  /** Open watches are cut after this many milliseconds (the client must reconnect). */
  dropWatchesAfterMs?: number;
  /** The history is forgotten, and the first resume after each watch cut here gets 410 Gone. */
  forceGoneOnResume?: boolean;
  /** Connections are closed without an answer, as if the host were down. */
  unreachable?: boolean;
  /**
   * CRDs created from now on become Established, and their custom resources served, only this long
   * after their creation (kube-apiserver's establishing controller takes a moment; the embedded
   * server is otherwise done at once).
   */
  crdEstablishDelayMs?: number;
}

const messages: Record<number, [StatusError['reason'], string]> = {
  429: ['TooManyRequests', 'Too many requests, please try again later.'],
  500: ['InternalError', 'Internal error occurred: injected fault'],
  503: ['ServiceUnavailable', 'The server is currently unable to handle the request'],
};

/** What the injector did to a cluster's requests since it was created (tests and benchmarks read it). */
export interface FaultCounts {
  /** Injected error answers by HTTP code. */
  errors: Record<string, number>;
  /** Requests held for `latencyMs`. */
  delayed: number;
  /** Watches cut by `dropWatchesAfterMs`. */
  watchesDropped: number;
  /** Watch resumes whose history was forgotten first (they get 410 Gone). */
  resumesForgotten: number;
  /** Connections closed without an answer (`unreachable`). */
  connectionsCut: number;
}

export class FaultInjector {
  private config: FaultConfig | undefined;
  private readonly watches = new Set<() => void>();
  private readonly counted: FaultCounts = { errors: {}, delayed: 0, watchesDropped: 0, resumesForgotten: 0, connectionsCut: 0 };

  counts(): FaultCounts {
    return { ...this.counted, errors: { ...this.counted.errors } };
  }

  configure(config: FaultConfig | undefined, cluster: LogicalCluster): void {
    this.config = config && Object.keys(config).length > 0 ? config : undefined;
    this.cluster = cluster;
    cluster.crdEstablishDelayMs = this.config?.crdEstablishDelayMs ?? 0;
    if (!this.config) this.goneOwed = 0;
    if (this.config?.forceGoneOnResume) cluster.store.compact();
    if (this.config?.unreachable) this.dropAll();
  }

  /** Watches cut here whose resume is still to be answered 410 Gone (with `forceGoneOnResume`). */
  private goneOwed = 0;

  private cluster: LogicalCluster | undefined;

  /** Applies the configured faults to a request; 'handled' means it was answered (or cut) here. */
  async before(req: IncomingMessage, res: ServerResponse): Promise<'handled' | 'continue'> {
    const c = this.config;
    if (!c) return 'continue';
    if (c.unreachable) {
      this.counted.connectionsCut++;
      req.socket.destroy();
      return 'handled';
    }
    if (c.latencyMs && c.latencyMs > 0) {
      this.counted.delayed++;
      await sleep(c.latencyMs);
    }
    const resumedFrom = /[?&]resourceVersion=(\d+)/.exec(req.url ?? '')?.[1];
    if (c.forceGoneOnResume && this.goneOwed > 0 && resumedFrom && resumedFrom !== '0' && /[?&]watch=(1|true)/.test(req.url ?? '')) {
      // The first resume after each cut watch is told its history is gone. Answered here rather
      // than by the watch layer (a resume from the newest resourceVersion is still valid after a
      // compaction) and as the watch layer sends it: a 200 stream whose one event is the Expired
      // Status (JSON, which the controllers speak). The relist's own watch then goes through.
      this.goneOwed--;
      this.counted.resumesForgotten++;
      this.cluster?.store.compact();
      const status = gone(`too old resource version: ${resumedFrom} (${this.cluster?.store.rv ?? resumedFrom})`).toStatus();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
      return 'handled';
    }
    if (c.errorRate && Math.random() < c.errorRate) {
      const codes = c.errorCodes && c.errorCodes.length > 0 ? c.errorCodes : [500];
      const code = codes[Math.floor(Math.random() * codes.length)];
      const [reason, message] = messages[code] ?? messages[500];
      this.counted.errors[code] = (this.counted.errors[code] ?? 0) + 1;
      const details = code === 429 || code === 503 ? { retryAfterSeconds: c.retryAfterSeconds ?? 1 } : undefined;
      sendStatus(res, new StatusError(code, reason, message, details));
      return 'handled';
    }
    return 'continue';
  }

  /** Registers an open watch; returns the function that forgets it. */
  trackWatch(close: () => void): () => void {
    this.watches.add(close);
    let timer: NodeJS.Timeout | undefined;
    const after = this.config?.dropWatchesAfterMs;
    if (after && after > 0) {
      timer = setTimeout(() => {
        this.counted.watchesDropped++;
        this.goneOwed++;
        close();
      }, after);
    }
    return () => {
      if (timer) clearTimeout(timer);
      this.watches.delete(close);
    };
  }

  dropAll(): void {
    for (const close of [...this.watches]) {
      this.goneOwed++;
      close();
    }
    this.watches.clear();
  }
}
