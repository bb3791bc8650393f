// A rate-limited, de-duplicating work queue of string keys (client-go's workqueue, in TypeScript):
// - a key is queued at most once; a key added while a worker processes it is processed once more
//   after that worker is done (never by two workers at once);
// - `addFirst(key)` puts a key ahead of the others (work already under way, such as the passes
//   that events of a module being installed bring, goes before new work);
// - `addAfter(key, ms)` delays an add (a key waiting twice keeps the earlier time); with `low`, the
//   add is `addLow` when due (a periodic look behind the keys changes brought; a low key that has
//   waited `maxLowWaitMs` is served in turn with the others);
// - `addRateLimited(key)` delays by the larger of a per-key exponential backoff and a global
//   token bucket; `forget(key)` resets the key's backoff;
// - `run(workers, fn)` processes keys with bounded concurrency; `shutDown()` stops intake, lets
//   in-flight items finish, then resolves (queued and delayed items are dropped: work is
//   level-triggered and is found again at the next start).
import { MinHeap } from '../util/min-heap.js';
import type { WorkQueueMetricsHooks } from './metrics.js';

export interface RateLimiter {
  /** Delay before the key may be processed again. */
  when(key: string): number;
  forget(key: string): void;
  retries(key: string): number;
}

/** Per-key exponential backoff: base * 2^failures, capped (client-go: 5 ms .. 1000 s). */
export class ExponentialBackoffLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();
  constructor(
    private readonly baseMs = 5,
    private readonly maxMs = 1_000_000,
  ) {}

  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return Math.min(this.maxMs, this.baseMs * 2 ** n);
  }
  forget(key: string): void {
    this.failures.delete(key);
  }
  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** A global token bucket: `qps` tokens a second, at most `burst` saved; answers how long to wait for one. */
export class TokenBucketLimiter implements RateLimiter {
  private tokens: number;
  private last = performance.now();
  constructor(
    private readonly qps = 10,
    private readonly burst = 100,
  ) {
    this.tokens = burst;
  }

  when(): number {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1; // reserve, possibly going negative: later callers wait longer
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }
  forget(): void {}
  retries(): number {
    return 0;
  }
}

/** The largest delay of several limiters (client-go's DefaultControllerRateLimiter shape). */
export class MaxOfLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];
  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }
  when(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(key));
    return max;
  }
  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }
  retries(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.retries(key));
    return max;
  }
}

export function defaultRateLimiter(): RateLimiter {
  return new MaxOfLimiter(new ExponentialBackoffLimiter(5, 1_000_000), new TokenBucketLimiter(10, 100));
}

export interface WorkQueueOptions {
  name?: string;
  rateLimiter?: RateLimiter;
  metrics?: WorkQueueMetricsHooks;
  /**
   * A low-priority key that has waited this long is served in turn with the other keys (every other
   * key handed out), so that a steady stream of changes cannot hold fallbacks back for good (default 5 min).
   */
  maxLowWaitMs?: number;
}

/** See WorkQueueOptions.maxLowWaitMs. */
export const DEFAULT_MAX_LOW_WAIT_MS = 5 * 60_000;

interface LowEntry {
  key: string;
  seq: number;
}

interface Delayed {
  at: number;
  key: string;
  /** Added with addLow when due. */
  low?: boolean;
}

export type WorkFn = (key: string, signal: AbortSignal) => Promise<void>;

export class WorkQueue {
  readonly name: string;
  private readonly rateLimiter: RateLimiter;
  private readonly metrics: WorkQueueMetricsHooks | undefined;
  /**
   * FIFO of ready keys; `head` avoids O(n) shifts. It may hold stale entries (a key moved to
   * `first` or `low`, or already processed from there): an entry is live while its key is dirty
   * and in no other lane.
   */
  private queue: string[] = [];
  private head = 0;
  /** Keys added with addFirst, handed out before all others (`inFirst` holds the live ones). */
  private first: string[] = [];
  private firstHead = 0;
  private readonly inFirst = new Set<string>();
  /** Keys added with addFirst while being processed: done() puts them into `first`. */
  private readonly firstOnDone = new Set<string>();
  /** Dirty keys that are being processed (not ready until done()). */
  private dirtyWhileProcessing = 0;
  /**
   * Keys added with addLow, handed out only when `queue` is empty (bulk re-enqueues such as a gained
   * shard's keys must not delay changes that arrive meanwhile). `low` may hold stale entries of keys
   * promoted by add(); `inLow` is the truth: an entry is live when its sequence number is the one
   * `inLow` holds for its key (a key added here again after a promotion does not take its stale
   * place ahead of the keys added in between).
   */
  private low: LowEntry[] = [];
  private lowHead = 0;
  private readonly inLow = new Map<string, number>();
  private lowSeq = 0;
  /** Keys waiting to be processed (queued, or re-added while processing), with the time they were added. */
  private readonly dirty = new Map<string, number>();
  /** Keys being processed, with the time processing started. */
  private readonly processing = new Map<string, number>();
  /** Delayed keys and their due time (the heap may hold stale entries; this map is the truth). */
  private readonly waiting = new Map<string, number>();
  /** Delayed keys to be added at low priority, and their due time (apart from `waiting`: a key may be in both). */
  private readonly waitingLow = new Map<string, number>();
  /** Delayed keys by due time. */
  private readonly heap = new MinHeap<Delayed>((d) => d.at);
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private readonly getters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;
  private dispatchScheduled = false;
  private readonly drained: (() => void)[] = [];
  private stopMetrics: (() => void) | undefined;
  private readonly maxLowWaitMs: number;
  /** The last key handed out was a low key served for having waited too long (they alternate with the others). */
  private servedAgedLow = false;

  constructor(opts: WorkQueueOptions = {}) {
    this.name = opts.name ?? 'queue';
    this.maxLowWaitMs = opts.maxLowWaitMs ?? DEFAULT_MAX_LOW_WAIT_MS;
    this.rateLimiter = opts.rateLimiter ?? defaultRateLimiter();
    this.metrics = opts.metrics;
    this.stopMetrics = this.metrics?.observeInFlight(
      () => this.unfinishedWorkSeconds(),
      () => this.longestRunningSeconds(),
    );
  }

  /** Keys ready to be handed to a worker. */
  get length(): number {
    return this.dirty.size - this.dirtyWhileProcessing;
  }

  /** Keys delayed by addAfter / addRateLimited. */
  get delayed(): number {
    let n = this.waiting.size;
    for (const key of this.waitingLow.keys()) if (!this.waiting.has(key)) n++;
    return n;
  }

  get inFlight(): number {
    return this.processing.size;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  add(key: string): void {
    if (this.shuttingDown) return;
    if (this.inLow.delete(key)) {
      // Waiting at low priority: it moves up (its stale entry in `low` is skipped).
      this.push(key);
      return;
    }
    if (this.dirty.has(key)) return;
    this.metrics?.added();
    this.dirty.set(key, performance.now());
    if (this.processing.has(key)) {
      this.dirtyWhileProcessing++;
      return; // re-queued by done()
    }
    this.push(key);
  }

  /**
   * Adds a key ahead of every key added otherwise (a key already waiting in another lane moves up;
   * one being processed goes first once done).
   */
  addFirst(key: string): void {
    if (this.shuttingDown || this.inFirst.has(key)) return;
    if (!this.dirty.has(key)) {
      this.metrics?.added();
      this.dirty.set(key, performance.now());
      if (this.processing.has(key)) this.dirtyWhileProcessing++;
    }
    if (this.processing.has(key)) {
      this.firstOnDone.add(key);
      return;
    }
    // Its entry in `low` or `queue`, if any, is stale from now on.
    this.inLow.delete(key);
    this.pushFirst(key);
  }

  /**
   * Adds a key behind every key added otherwise: it is handed out only when no other key is ready,
   * or, once it has waited maxLowWaitMs, in turn with them (a key already waiting keeps its place;
   * add() of a key waiting here moves it up).
   */
  addLow(key: string): void {
    if (this.shuttingDown) return;
    if (this.dirty.has(key)) return;
    this.metrics?.added();
    this.dirty.set(key, performance.now());
    if (this.processing.has(key)) {
      this.dirtyWhileProcessing++;
      return; // re-queued by done(), at normal priority
    }
    const seq = ++this.lowSeq;
    this.inLow.set(key, seq);
    this.low.push({ key, seq });
    this.metrics?.depth(this.length);
    this.scheduleDispatch();
  }

  /**
   * Adds the key after `ms`. `low`: then with addLow, behind the keys added otherwise (a periodic
   * look that events make up for, so that a backlog of them does not delay the changes). A key
   * delayed twice at one priority keeps the earlier time.
   */
  addAfter(key: string, ms: number, opts: { low?: boolean } = {}): void {
    if (this.shuttingDown) return;
    if (!(ms > 0)) {
      if (opts.low) this.addLow(key);
      else this.add(key);
      return;
    }
    const at = performance.now() + ms;
    const waiting = opts.low ? this.waitingLow : this.waiting;
    const current = waiting.get(key);
    if (current !== undefined && current <= at) return;
    waiting.set(key, at);
    this.heap.push({ at, key, low: opts.low === true });
    this.schedule();
  }

  addRateLimited(key: string): void {
    if (this.shuttingDown) return;
    this.metrics?.retried();
    this.addAfter(key, this.rateLimiter.when(key));
  }

  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.rateLimiter.retries(key);
  }

  /** The next key (waiting until one is ready), or undefined once the queue shuts down. Pair with `done`. */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.take();
    if (key !== undefined) return Promise.resolve(key);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Marks a key processed; if it was added meanwhile it is queued again. */
  done(key: string): void {
    const started = this.processing.get(key);
    if (started === undefined) return;
    this.processing.delete(key);
    this.metrics?.finished((performance.now() - started) / 1000);
    const first = this.firstOnDone.delete(key);
    if (this.dirty.has(key) && !this.shuttingDown) {
      this.dirtyWhileProcessing--;
      if (first) this.pushFirst(key);
      else this.push(key);
    }
    if (this.shuttingDown && this.processing.size === 0) this.resolveDrained();
  }

  /**
   * Runs `workers` loops that take keys and call `fn` until shutDown; resolves when all have stopped.
   * `fn` must not throw (a throw is treated as done; the caller decides about retries).
   */
  async run(workers: number, fn: WorkFn, signal: AbortSignal): Promise<void> {
    const loops = Array.from({ length: Math.max(1, workers) }, async () => {
      for (;;) {
        const key = await this.get();
        if (key === undefined) return;
        try {
          await fn(key, signal);
        } catch {
          // the caller's fn handles its errors; never let one kill a worker
        } finally {
          this.done(key);
        }
      }
    });
    await Promise.all(loops);
  }

  /** Stops intake and delayed adds; resolves once in-flight items are done. Idempotent. */
  shutDown(): Promise<void> {
    if (!this.shuttingDown) {
      this.shuttingDown = true;
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.heap.clear();
      this.waiting.clear();
      this.waitingLow.clear();
      this.queue = [];
      this.head = 0;
      this.first = [];
      this.firstHead = 0;
      this.inFirst.clear();
      this.firstOnDone.clear();
      this.dirtyWhileProcessing = 0;
      this.low = [];
      this.lowHead = 0;
      this.inLow.clear();
      this.dirty.clear();
      this.metrics?.depth(0);
      for (const g of this.getters.splice(0)) g(undefined);
      this.stopMetrics?.();
    }
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  unfinishedWorkSeconds(): number {
    const now = performance.now();
    let total = 0;
    for (const t of this.processing.values()) total += now - t;
    return total / 1000;
  }

  longestRunningSeconds(): number {
    const now = performance.now();
    let longest = 0;
    for (const t of this.processing.values()) longest = Math.max(longest, now - t);
    return longest / 1000;
  }

  private push(key: string): void {
    this.queue.push(key);
    this.metrics?.depth(this.length);
    this.scheduleDispatch();
  }

  private pushFirst(key: string): void {
    this.first.push(key);
    this.inFirst.add(key);
    this.metrics?.depth(this.length);
    this.scheduleDispatch();
  }

  private scheduleDispatch(): void {
    // Hand keys to waiting workers in a microtask, so that adds of the same key in one
    // synchronous burst (e.g. old and new owner of an update) still collapse into one.
    if (this.getters.length > 0 && !this.dispatchScheduled) {
      this.dispatchScheduled = true;
      queueMicrotask(() => this.dispatch());
    }
  }

  private dispatch(): void {
    this.dispatchScheduled = false;
    while (this.getters.length > 0 && !this.shuttingDown) {
      const key = this.take();
      if (key === undefined) return;
      this.getters.shift()?.(key);
    }
  }

  private take(): string | undefined {
    const first = this.liveFirstHead();
    const low = this.liveLowHead();
    const normal = first !== undefined || this.liveNormalHead() !== undefined;
    // A low key that waited too long goes in turn with the others: every other key handed out.
    const aged = normal && low !== undefined && !this.servedAgedLow && this.waitedTooLong(low);
    this.servedAgedLow = aged;
    let key: string;
    if (first !== undefined && !aged) {
      key = first;
      this.inFirst.delete(key);
      this.firstHead++;
      if (this.firstHead > 1024 && this.firstHead * 2 > this.first.length) {
        this.first = this.first.slice(this.firstHead);
        this.firstHead = 0;
      }
    } else if (normal && !aged) {
      key = this.queue[this.head++];
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
    } else if (low !== undefined) {
      key = low;
      this.inLow.delete(key);
      this.lowHead++;
      if (this.lowHead > 1024 && this.lowHead * 2 > this.low.length) {
        this.low = this.low.slice(this.lowHead);
        this.lowHead = 0;
      }
    } else return undefined;
    this.startProcessing(key);
    this.metrics?.depth(this.length);
    return key;
  }

  /** The first key of the first lane still waiting there (the stale entries before it are dropped). */
  private liveFirstHead(): string | undefined {
    while (this.firstHead < this.first.length && !this.inFirst.has(this.first[this.firstHead])) this.firstHead++;
    if (this.firstHead < this.first.length) return this.first[this.firstHead];
    if (this.first.length > 0) {
      this.first = [];
      this.firstHead = 0;
    }
    return undefined;
  }

  /** The first live key of the normal FIFO (the stale entries before it are dropped). */
  private liveNormalHead(): string | undefined {
    while (this.head < this.queue.length) {
      const key = this.queue[this.head];
      if (this.dirty.has(key) && !this.processing.has(key) && !this.inFirst.has(key) && !this.inLow.has(key)) return key;
      this.head++;
    }
    return undefined;
  }

  /** The first key of the low lane still waiting there (the stale entries before it are dropped). */
  private liveLowHead(): string | undefined {
    while (this.lowHead < this.low.length && this.inLow.get(this.low[this.lowHead].key) !== this.low[this.lowHead].seq) this.lowHead++;
    if (this.lowHead < this.low.length) return this.low[this.lowHead].key;
    if (this.low.length > 0) {
      this.low = [];
      this.lowHead = 0;
    }
    return undefined;
  }

  private waitedTooLong(key: string): boolean {
    const addedAt = this.dirty.get(key);
    return addedAt !== undefined && performance.now() - addedAt >= this.maxLowWaitMs;
  }

  private startProcessing(key: string): void {
    const addedAt = this.dirty.get(key) ?? performance.now();
    this.dirty.delete(key);
    const now = performance.now();
    this.processing.set(key, now);
    this.metrics?.started((now - addedAt) / 1000);
  }

  private schedule(): void {
    const next = this.heap.peek();
    if (!next || next.at >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = next.at;
    this.timer = setTimeout(() => this.fireDue(), Math.max(0, next.at - performance.now()));
  }

  private fireDue(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    for (let next = this.heap.peek(); next && next.at <= now + 1; next = this.heap.peek()) {
      this.heap.pop();
      const waiting = next.low ? this.waitingLow : this.waiting;
      if (waiting.get(next.key) !== next.at) continue; // superseded by an earlier addAfter
      waiting.delete(next.key);
      if (next.low) this.addLow(next.key);
      else this.add(next.key);
    }
    this.schedule();
  }

  private resolveDrained(): void {
    for (const r of this.drained.splice(0)) r();
  }
}
