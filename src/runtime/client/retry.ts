// Retries with exponential backoff (with jitter) for throttling, server trouble and no answer.
// Writes are retried only when the server certainly did not act on them.
import { ApiError } from './errors.js';
import { isConnectionRefused } from './transport.js';
import { sleep } from '../../util/sleep.js';

export interface RetryOptions {
  /** Attempts in all (1 = no retry). Default 5. */
  attempts?: number;
  /** First backoff; doubles each attempt. Default 200 ms. */
  baseDelayMs?: number;
  /** Backoff cap, also the cap for a server's Retry-After. Default 30 s. */
  maxDelayMs?: number;
  /**
   * Attempts in all while the server throttles (429): it answered and said when to come back, so a
   * client that gives up early on other failures may still wait its turn. Default `attempts`.
   */
  throttledAttempts?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export function retryPolicy(o: RetryOptions | number | undefined): RetryPolicy {
  const opts = typeof o === 'number' ? { attempts: o + 1 } : (o ?? {});
  const attempts = Math.max(1, opts.attempts ?? 5);
  return { attempts, baseDelayMs: opts.baseDelayMs ?? 200, maxDelayMs: opts.maxDelayMs ?? 30_000, throttledAttempts: Math.max(attempts, opts.throttledAttempts ?? attempts) };
}

/**
 * Whether a failed request may be sent again. `idempotent` requests (reads, server-side apply) may
 * on any throttling, server error or network failure; other writes only when the answer proves the
 * server did not act: 429 and 503 (rejected before processing) or a refused connection.
 */
export function shouldRetry(e: unknown, idempotent: boolean): boolean {
  if (!(e instanceof ApiError)) return false;
  switch (e.reason) {
    case 'TooManyRequests':
    case 'ServiceUnavailable':
      return true;
    case 'InternalError':
    case 'ServerTimeout':
      return idempotent;
    case 'Unreachable':
      return idempotent || isConnectionRefused(e);
    default:
      return false;
  }
}

/** The wait before attempt `attempt + 1`: the server's Retry-After if it sent one, else jittered backoff. */
export function backoffDelay(e: unknown, attempt: number, policy: RetryPolicy): number {
  if (e instanceof ApiError && e.retryAfterSeconds !== undefined && e.retryAfterSeconds > 0) {
    return Math.min(e.retryAfterSeconds * 1000, policy.maxDelayMs);
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Runs `attempt` until it succeeds, fails for good, the attempts run out, or the signal aborts. */
export async function withRetry<T>(
  attempt: () => Promise<T>,
  opts: { policy: RetryPolicy; idempotent: boolean; signal?: AbortSignal; onRetry?: (e: unknown, delayMs: number) => void },
): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      const throttled = e instanceof ApiError && e.reason === 'TooManyRequests';
      if (n + 1 >= (throttled ? opts.policy.throttledAttempts : opts.policy.attempts) || opts.signal?.aborted || !shouldRetry(e, opts.idempotent)) throw e;
      const delay = backoffDelay(e, n, opts.policy);
      opts.onRetry?.(e, delay);
      await sleep(delay, opts.signal);
    }
  }
}
