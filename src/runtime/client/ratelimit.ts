// Client-side rate limiting per cluster: a token bucket (qps refill, burst capacity), like client-go's.
import { sleep } from '../../util/sleep.js';

export interface RateLimiter {
  /** Resolves when the request may go; rejects with the signal's reason when it aborts first. */
  acquire(signal?: AbortSignal): Promise<void>;
}

/** No limit. */
export const unlimited: RateLimiter = { acquire: (signal) => (signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve()) };

export class TokenBucket implements RateLimiter {
  private tokens: number;
  private last = performance.now();

  constructor(
    readonly qps: number,
    readonly burst: number,
  ) {
    if (!(qps > 0)) throw new Error(`qps must be positive (got ${qps})`);
    this.burst = Math.max(1, burst);
    this.tokens = this.burst;
  }

  private refill(): void {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
  }

  /**
   * Takes a token now or reserves the next free one and waits for it. Reservations make waiters
   * go in arrival order; an aborted waiter gives its reservation back.
   */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.refill();
    this.tokens -= 1;
    if (this.tokens >= 0) return Promise.resolve();
    const waitMs = (-this.tokens / this.qps) * 1000;
    return sleep(waitMs, signal).catch((e: unknown) => {
      this.tokens += 1;
      throw e;
    });
  }
}

export function rateLimiter(opts: { qps?: number; burst?: number }): RateLimiter {
  const qps = opts.qps ?? 50;
  if (!Number.isFinite(qps) || qps <= 0) return unlimited;
  return new TokenBucket(qps, opts.burst ?? Math.max(1, Math.ceil(qps * 2)));
}
