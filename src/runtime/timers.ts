// Time for the runtime: an injectable clock, and timer helpers that never outlive their caller
// (every timer is cleared when the wait ends or the signal aborts, so nothing keeps the process
// alive after stop()). Used by leader election, sharding and the remote cluster cache.

/** Where "now" comes from (injectable for tests). Milliseconds since the epoch. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Runs `fn` with a signal that aborts when `parent` aborts or after `ms`. */
export async function withTimeout<T>(parent: AbortSignal, ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const abort = (): void => controller.abort(parent.reason);
  if (parent.aborted) abort();
  else parent.addEventListener('abort', abort, { once: true });
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${ms} ms`)), Math.max(1, ms));
  try {
    return await fn(controller.signal);
  } finally {
    clearTimeout(timer);
    parent.removeEventListener('abort', abort);
  }
}

/** A one-shot timer that can be re-armed; `fire` runs at most once per arming. */
export class Deadline {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly fire: () => void) {}

  /** (Re)arms the timer to fire in `ms`. */
  arm(ms: number): void {
    this.clear();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fire();
    }, Math.max(0, ms));
  }

  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** `ms` stretched by up to `factor` at random (client-go's wait.Jitter), so candidates do not move in step. */
export function jitter(ms: number, factor = 0.2): number {
  return ms * (1 + Math.random() * factor);
}
