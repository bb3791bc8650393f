// A rate-limited, de-duplicating work queue of string keys (client-go's workqueue, in TypeScript):
// - a key is queued at most once; a key added while a worker processes it is processed once more
//   after that worker is done (never by two workers at once);
// - three lanes: `add` (changes), `addLater` (behind them: e.g. a new object's first look, so that
//   work already under way is finished first) and `addLow` (behind both: periodic looks that events
//   make up for); a key in a lower lane moves up when added to a higher one, and one that has waited
//   `maxLowWaitMs` is served in turn with the changes;
// - `addAfter(key, ms)` delays an add (a key waiting twice keeps the earlier time); with `low`, the
//   add is `addLow` when due;
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
   * A key of a lower lane (addLater, addLow) that has waited this long is served in turn with the
   * other keys (every other key handed out), so that a steady stream of changes cannot hold it back
   * for good (default 5 min).
   */
  maxLowWaitMs?: number;
}

/** See WorkQueueOptions.maxLowWaitMs. */
export const DEFAULT_MAX_LOW_WAIT_MS = 5 * 60_000;

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
  /** FIFO of ready keys; `head` avoids O(n) shifts. */
  private queue: string[] = [];
  private head = 0;
  /**
   * Keys added with addLow, handed out only when `queue` is empty (bulk re-enqueues such as a gained
   * shard's keys must not delay changes that arrive meanwhile). `low` may hold stale entries of keys
   * promoted by add(); `inLow` is the truth.
   */
  private low: string[] = [];
  private lowHead = 0;
  private readonly inLow = new Set<string>();
  /** Keys added with addLater: handed out when `queue` is empty, before `low` (stale entries as in `low`; `inLater` is the truth). */
  private later: string[] = [];
  private laterHead = 0;
  private readonly inLater = new Set<string>();
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
  /** The last key handed out was a lower lane's key served for having waited too long (they alternate with the others). */
  private servedAged = false;

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
    return this.queue.length - this.head + this.inLater.size + this.inLow.size;
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
    if (this.inLow.delete(key) || this.inLater.delete(key)) {
      // Waiting in a lower lane: it moves up (its stale entry there is skipped).
      this.push(key);
      return;
    }
    if (this.dirty.has(key)) return;
    this.metrics?.added();
    this.dirty.set(key, performance.now());
    if (this.processing.has(key)) return; // re-queued by done()
    this.push(key);
  }

  /**
   * Adds a key behind the keys added with add(), ahead of those added with addLow(): handed out when
   * no change is ready (or, once it has waited maxLowWaitMs, in turn with them). A key already
   * waiting keeps its place, but for one waiting in the low lane, which moves up here.
   */
  addLater(key: string): void {
    if (this.shuttingDown) return;
    if (this.inLow.delete(key)) {
      this.inLater.add(key);
      this.later.push(key);
      return;
    }
    this.addToLowerLane(key, 'later');
  }

  /**
   * Adds a key behind every key added otherwise: it is handed out only when no other key is ready,
   * or, once it has waited maxLowWaitMs, in turn with them (a key already waiting keeps its place;
   * add() of a key waiting here moves it up).
   */
  addLow(key: string): void {
    if (this.shuttingDown) return;
    this.addToLowerLane(key, 'low');
  }

  private addToLowerLane(key: string, lane: 'later' | 'low'): void {
    if (this.dirty.has(key)) return;
    this.metrics?.added();
    this.dirty.set(key, performance.now());
    if (this.processing.has(key)) return; // re-queued by done(), at normal priority
    (lane === 'later' ? this.inLater : this.inLow).add(key);
    (lane === 'later' ? this.later : this.low).push(key);
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
    if (this.dirty.has(key) && !this.shuttingDown) this.push(key);
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
      this.low = [];
      this.lowHead = 0;
      this.inLow.clear();
      this.later = [];
      this.laterHead = 0;
      this.inLater.clear();
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
    const later = this.liveHead('later');
    const low = this.liveHead('low');
    const normal = this.head < this.queue.length;
    let lane: 'normal' | 'later' | 'low';
    if (normal) lane = 'normal';
    else if (later !== undefined) lane = 'later';
    else if (low !== undefined) lane = 'low';
    else return undefined;
    // A lower lane's key that waited too long goes in turn with the keys of the lanes above it
    // (every other key handed out); of two such, the one waiting longer.
    const laterAged = lane === 'normal' && later !== undefined && this.waitedTooLong(later);
    const lowAged = lane !== 'low' && low !== undefined && this.waitedTooLong(low);
    if (this.servedAged || !(laterAged || lowAged)) this.servedAged = false;
    else {
      this.servedAged = true;
      lane = laterAged && (!lowAged || this.addedAt(later) <= this.addedAt(low)) ? 'later' : 'low';
    }
    let key: string;
    if (lane === 'normal') {
      key = this.queue[this.head++];
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
    } else key = this.takeHead(lane);
    this.metrics?.depth(this.length);
    this.startProcessing(key);
    return key;
  }

  /** The first key of a lower lane still waiting there (the stale entries before it are dropped). */
  private liveHead(lane: 'later' | 'low'): string | undefined {
    const keys = lane === 'later' ? this.later : this.low;
    const live = lane === 'later' ? this.inLater : this.inLow;
    let head = lane === 'later' ? this.laterHead : this.lowHead;
    while (head < keys.length && !live.has(keys[head])) head++;
    let found: string | undefined;
    if (head < keys.length) found = keys[head];
    else if (keys.length > 0) {
      this.setLane(lane, [], 0);
      return undefined;
    }
    this.setLane(lane, keys, head);
    return found;
  }

  /** Takes the live head of a lower lane (liveHead found it). */
  private takeHead(lane: 'later' | 'low'): string {
    const keys = lane === 'later' ? this.later : this.low;
    const head = lane === 'later' ? this.laterHead : this.lowHead;
    const key = keys[head];
    (lane === 'later' ? this.inLater : this.inLow).delete(key);
    if (head + 1 > 1024 && (head + 1) * 2 > keys.length) this.setLane(lane, keys.slice(head + 1), 0);
    else this.setLane(lane, keys, head + 1);
    return key;
  }

  private setLane(lane: 'later' | 'low', keys: string[], head: number): void {
    if (lane === 'later') {
      this.later = keys;
      this.laterHead = head;
    } else {
      this.low = keys;
      this.lowHead = head;
    }
  }

  private waitedTooLong(key: string | undefined): boolean {
    return key !== undefined && performance.now() - this.addedAt(key) >= this.maxLowWaitMs;
  }

  /** When a waiting key was added (Infinity for none). */
  private addedAt(key: string | undefined): number {
    return (key === undefined ? undefined : this.dirty.get(key)) ?? Infinity;
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
