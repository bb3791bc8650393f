// A small level-triggered work loop for the simulators: keys are queued (deduplicated), worked on
// by a bounded number of workers, and a key's work may ask to be looked at again after a delay.
// A key is never worked on twice at once; a key queued while running is worked on once more after.

/** What a work function returns: a delay in ms after which the key is looked at again, or nothing. */
export type WorkResult = number | undefined | void;

export interface KeyedLoopOptions {
  /** Keys worked on at once. */
  concurrency?: number;
  /** Called with errors thrown by the work function; the key is retried after `retryAfterMs`. */
  onError?: (key: string, err: unknown) => void;
  retryAfterMs?: number;
}

export class KeyedLoop {
  private readonly queued = new Set<string>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly idleWaiters: (() => void)[] = [];
  private active = 0;
  private stopped = false;
  private readonly concurrency: number;

  constructor(
    private readonly work: (key: string) => Promise<WorkResult>,
    private readonly opts: KeyedLoopOptions = {},
  ) {
    this.concurrency = Math.max(1, opts.concurrency ?? 4);
  }

  enqueue(key: string): void {
    if (this.stopped) return;
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    this.queued.add(key);
    this.pump();
  }

  /** Looks at the key after `ms`; an earlier pending wake-up of the same key wins. */
  enqueueAfter(key: string, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) return this.enqueue(key);
    const at = Date.now() + ms;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.enqueue(key);
    }, ms);
    this.timers.set(key, { at, timer });
  }

  /** Forgets pending wake-ups of a key (it is gone). */
  forget(key: string): void {
    const t = this.timers.get(key);
    if (t) clearTimeout(t.timer);
    this.timers.delete(key);
  }

  /** Stops taking work, clears timers and waits for running work to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.queued.clear();
    this.dirty.clear();
    if (this.active > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (!this.stopped && this.active < this.concurrency) {
      const key = this.takeNext();
      if (key === undefined) return;
      this.active++;
      this.running.add(key);
      // run() reports the work's errors through onError; this catches a failure of its bookkeeping.
      this.run(key).catch((err: unknown) => this.opts.onError?.(key, err));
    }
  }

  private takeNext(): string | undefined {
    for (const key of this.queued) {
      if (this.running.has(key)) continue;
      this.queued.delete(key);
      return key;
    }
    return undefined;
  }

  private async run(key: string): Promise<void> {
    let again: WorkResult;
    try {
      again = await this.work(key);
    } catch (err) {
      this.opts.onError?.(key, err);
      again = this.opts.retryAfterMs ?? 500;
    }
    this.running.delete(key);
    this.active--;
    if (!this.stopped) {
      if (this.dirty.delete(key)) this.queued.add(key);
      else if (typeof again === 'number') this.enqueueAfter(key, again);
    }
    if (this.active === 0 && this.stopped) for (const w of this.idleWaiters.splice(0)) w();
    this.pump();
  }
}
