// A small level-triggered work loop for the simulators: keys are queued (deduplicated), worked on
// by a bounded number of workers, and a key's work may ask to be looked at again after a delay.
// A key is never worked on twice at once; a key queued while running is worked on once more after.
// Keys are taken in the order they were queued, or, with `oldestFirst`, in the order they first
// came and stayed busy (queued, running or waiting for a wake-up): a simulator whose objects each
// take several paced steps then finishes them one after another instead of moving all of them a
// step at a time and finishing them together.
import { MinHeap } from '../util/min-heap.js';

/** What a work function returns: a delay in ms after which the key is looked at again, or nothing. */
export type WorkResult = number | undefined | void;

export interface KeyedLoopOptions {
  /** Keys worked on at once. */
  concurrency?: number;
  /** Called with errors thrown by the work function; the key is retried after `retryAfterMs`. */
  onError?: (key: string, err: unknown) => void;
  retryAfterMs?: number;
  /**
   * Takes the key that has been busy longest first. A key stays busy from its first enqueue until
   * its work returns with nothing pending (no delay asked for, not queued again meanwhile).
   */
  oldestFirst?: boolean;
}

export class KeyedLoop {
  private readonly queued = new Set<string>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly idleWaiters: (() => void)[] = [];
  /** With `oldestFirst`: when each busy key first came (a counter), and the queued keys by it. */
  private readonly ages = new Map<string, number>();
  private readonly byAge = new MinHeap<{ age: number; key: string }>((e) => e.age);
  private nextAge = 0;
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
    this.queue(key);
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
    if (!this.queued.has(key) && !this.running.has(key)) this.ages.delete(key);
  }

  /** Stops taking work, clears timers and waits for running work to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.queued.clear();
    this.dirty.clear();
    this.byAge.clear();
    this.ages.clear();
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

  private queue(key: string): void {
    if (this.queued.has(key)) return;
    this.queued.add(key);
    if (!this.opts.oldestFirst) return;
    let age = this.ages.get(key);
    if (age === undefined) {
      age = this.nextAge++;
      this.ages.set(key, age);
    }
    this.byAge.push({ age, key });
  }

  private takeNext(): string | undefined {
    if (this.opts.oldestFirst) {
      // A queued key is never running (enqueue marks a running key dirty instead), so the top is free.
      const key = this.byAge.pop()?.key;
      if (key !== undefined) this.queued.delete(key);
      return key;
    }
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
      if (this.dirty.delete(key)) this.queue(key);
      else if (typeof again === 'number') this.enqueueAfter(key, again);
      else if (!this.timers.has(key)) this.ages.delete(key);
    }
    if (this.active === 0 && this.stopped) for (const w of this.idleWaiters.splice(0)) w();
    this.pump();
  }
}
