// A rate-limited, de-duplicating work queue of string keys (client-go's workqueue, in TypeScript):
// - a key is queued at most once; a key added while a worker processes it is processed once more
//   after that worker is done (never by two workers at once);
// - `addFirst(key)` puts a key ahead of the others (work already under way, such as the passes
//   that events of a module being installed bring, goes before new work); a key that has waited
//   `maxLowWaitMs` behind such keys is served in turn with them;
// - `addAfter(key, ms)` delays an add (a key waiting twice in one lane keeps the earlier time); with
//   `low` or `first`, the add is `addLow` or `addFirst` when due (`low`: a periodic look behind the
//   keys changes brought; a low key that has waited `maxLowWaitMs` is served in turn with the others);
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

/** The lanes, from the one handed out first. */
export type LaneName = 'first' | 'normal' | 'low';

interface Delayed {
  at: number;
  key: string;
  lane: LaneName;
}

/**
 * One FIFO lane of ready keys, each at most once. A key taken out of the lane (moved to another)
 * leaves a stale entry behind, skipped when it reaches the head: an entry is live while `live`
 * holds its sequence number, so a key added again later queues at the end, not at its old place.
 */
class Lane {
  private entries: { key: string; seq: number }[] = [];
  /** Index of the first entry not handed out; avoids O(n) shifts. */
  private head = 0;
  private readonly live = new Map<string, number>();
  private seq = 0;

  get size(): number {
    return this.live.size;
  }

  has(key: string): boolean {
    return this.live.has(key);
  }

  push(key: string): void {
    const seq = ++this.seq;
    this.live.set(key, seq);
    this.entries.push({ key, seq });
  }

  /** Takes the key out of the lane (its entry goes stale); whether it was in it. */
  delete(key: string): boolean {
    return this.live.delete(key);
  }

  /** The key at the head, without taking it (the stale entries before it are dropped). */
  peek(): string | undefined {
    while (this.head < this.entries.length && this.live.get(this.entries[this.head].key) !== this.entries[this.head].seq) this.head++;
    if (this.head < this.entries.length) return this.entries[this.head].key;
    if (this.entries.length > 0) this.clear();
    return undefined;
  }

  shift(): string | undefined {
    const key = this.peek();
    if (key === undefined) return undefined;
    this.live.delete(key);
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    return key;
  }

  clear(): void {
    this.entries = [];
    this.head = 0;
    this.live.clear();
  }
}

export type WorkFn = (key: string, signal: AbortSignal) => Promise<void>;

export class WorkQueue {
  readonly name: string;
  private readonly rateLimiter: RateLimiter;
  private readonly metrics: WorkQueueMetricsHooks | undefined;
  /**
   * Ready keys, each in one lane: `first` (addFirst) is handed out before `normal` (add), and `low`
   * (addLow) only when both are empty, so bulk re-enqueues such as a gained shard's keys do not delay
   * the changes that arrive meanwhile; a key that waited maxLowWaitMs behind the lanes ahead goes in
   * turn with them. A key added to a lane ahead of the one it waits in moves up.
   */
  private readonly lanes: Record<LaneName, Lane> = { first: new Lane(), normal: new Lane(), low: new Lane() };
  /** Keys added with addFirst while being processed: done() puts them into the first lane. */
  private readonly firstOnDone = new Set<string>();
  /** Keys waiting to be processed (queued, or re-added while processing), with the time they were added. */
  private readonly dirty = new Map<string, number>();
  /** Keys being processed, with the time processing started. */
  private readonly processing = new Map<string, number>();
  /**
   * Delayed keys and their due time, per lane they are added to when due (the heap may hold stale
   * entries; these maps are the truth; a key may wait in several).
   */
  private readonly waiting: Record<LaneName, Map<string, number>> = { first: new Map(), normal: new Map(), low: new Map() };
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
  /** The last key handed out was served for having waited too long behind a lane ahead (such keys alternate with the others). */
  private servedAged = false;
  /** The lane of the last key served for having waited too long (low and normal alternate). */
  private lastAged: LaneName | undefined;

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
    return this.lanes.first.size + this.lanes.normal.size + this.lanes.low.size;
  }

  /**
   * Ready keys per lane, with how long the one at each lane's head has waited (ms; 0 when empty),
   * counted from when it was added, also in a lane behind (a key moves up when added ahead).
   */
  laneStats(): Record<LaneName, { size: number; headWaitMs: number }> {
    const now = performance.now();
    const stats = (lane: Lane) => {
      const head = lane.peek();
      const addedAt = head === undefined ? undefined : this.dirty.get(head);
      return { size: lane.size, headWaitMs: addedAt === undefined ? 0 : now - addedAt };
    };
    return { first: stats(this.lanes.first), normal: stats(this.lanes.normal), low: stats(this.lanes.low) };
  }

  /** Keys delayed by addAfter / addRateLimited. */
  get delayed(): number {
    const keys = new Set([...this.waiting.first.keys(), ...this.waiting.normal.keys(), ...this.waiting.low.keys()]);
    return keys.size;
  }

  get inFlight(): number {
    return this.processing.size;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  add(key: string): void {
    if (this.shuttingDown) return;
    if (this.lanes.low.delete(key)) {
      // Waiting at low priority: it moves up.
      this.push('normal', key);
      return;
    }
    if (this.dirty.has(key)) return;
    this.metrics?.added();
    this.dirty.set(key, performance.now());
    if (this.processing.has(key)) return; // re-queued by done()
    this.push('normal', key);
  }

  /**
   * Adds a key ahead of every key added otherwise (a key already waiting in another lane moves up;
   * one being processed goes first once done).
   */
  addFirst(key: string): void {
    if (this.shuttingDown || this.lanes.first.has(key)) return;
    if (!this.dirty.has(key)) {
      this.metrics?.added();
      this.dirty.set(key, performance.now());
    }
    if (this.processing.has(key)) {
      this.firstOnDone.add(key);
      return;
    }
    this.lanes.low.delete(key);
    this.lanes.normal.delete(key);
    this.push('first', key);
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
    if (this.processing.has(key)) return; // re-queued by done(), at normal priority
    this.push('low', key);
  }

  /**
   * Adds the key after `ms`. `low`: then with addLow, behind the keys added otherwise (a periodic
   * look that events make up for, so that a backlog of them does not delay the changes). `first`:
   * then with addFirst (a second look at work under way). A key delayed twice at one priority keeps
   * the earlier time.
   */
  addAfter(key: string, ms: number, opts: { low?: boolean; first?: boolean } = {}): void {
    if (this.shuttingDown) return;
    const lane: LaneName = opts.first ? 'first' : opts.low ? 'low' : 'normal';
    if (!(ms > 0)) {
      this.addTo(lane, key);
      return;
    }
    const at = performance.now() + ms;
    const waiting = this.waiting[lane];
    const current = waiting.get(key);
    if (current !== undefined && current <= at) return;
    waiting.set(key, at);
    this.heap.push({ at, key, lane });
    this.schedule();
  }

  /**
   * Adds the key `ms` from now, in the first lane or the normal one, merged with what is there: a
   * key queued and not being processed is added now (its queued entry answers this add too; a
   * first add moves it up); one already waiting to be added keeps the earlier time, in the lane
   * ahead of the two. So changes that come within `ms` of each other make one pass.
   */
  addBatched(key: string, ms: number, opts: { first?: boolean } = {}): void {
    if (this.shuttingDown) return;
    const lane: LaneName = opts.first ? 'first' : 'normal';
    if (this.dirty.has(key) && !this.processing.has(key)) {
      this.addTo(lane, key);
      return;
    }
    const other = this.waiting[lane === 'first' ? 'normal' : 'first'].get(key);
    if (other !== undefined) {
      if (lane === 'normal') return; // waiting for the first lane already
      // Waiting for the normal lane: it goes to the first one at that time instead.
      this.waiting.normal.delete(key);
      const at = Math.min(other, performance.now() + ms, this.waiting.first.get(key) ?? Infinity);
      this.waiting.first.set(key, at);
      this.heap.push({ at, key, lane: 'first' });
      this.schedule();
      return;
    }
    this.addAfter(key, ms, opts);
  }

  private addTo(lane: LaneName, key: string): void {
    if (lane === 'first') this.addFirst(key);
    else if (lane === 'low') this.addLow(key);
    else this.add(key);
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
    if (this.dirty.has(key) && !this.shuttingDown) this.push(first ? 'first' : 'normal', key);
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
      for (const waiting of Object.values(this.waiting)) waiting.clear();
      for (const lane of Object.values(this.lanes)) lane.clear();
      this.firstOnDone.clear();
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

  private push(lane: LaneName, key: string): void {
    this.lanes[lane].push(key);
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
    const { first, normal, low } = this.lanes;
    const firstKey = first.peek();
    const normalKey = normal.peek();
    const lowKey = low.peek();
    // A key that waited too long behind the lanes ahead of it goes in turn with them: every other
    // key handed out is such a key (a low key behind either lane, a normal key behind keys added
    // first), the others go by lane. When both kinds have waited too long they take those turns in
    // alternation (the one that waited longer first), so the first lane still gets every other
    // key and neither of them waits for the other's backlog.
    let lane: LaneName | undefined;
    if (!this.servedAged) {
      const now = performance.now();
      const agedLow = lowKey !== undefined && (firstKey !== undefined || normalKey !== undefined) && this.addedBefore(lowKey, now - this.maxLowWaitMs);
      const agedNormal = normalKey !== undefined && firstKey !== undefined && this.addedBefore(normalKey, now - this.maxLowWaitMs);
      if (agedLow && agedNormal && lowKey !== undefined && normalKey !== undefined) {
        lane = this.lastAged === 'low' ? 'normal' : this.lastAged === 'normal' ? 'low' : (this.dirty.get(lowKey) ?? 0) <= (this.dirty.get(normalKey) ?? 0) ? 'low' : 'normal';
      } else if (agedLow) lane = 'low';
      else if (agedNormal) lane = 'normal';
      if (lane) this.lastAged = lane;
    }
    this.servedAged = lane !== undefined;
    lane ??= firstKey !== undefined ? 'first' : normalKey !== undefined ? 'normal' : 'low';
    const key = this.lanes[lane].shift();
    if (key === undefined) return undefined;
    this.startProcessing(key);
    this.metrics?.depth(this.length);
    return key;
  }

  /** Whether a queued key was added before `t` (performance.now()). */
  private addedBefore(key: string, t: number): boolean {
    const addedAt = this.dirty.get(key);
    return addedAt !== undefined && addedAt <= t;
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
      const waiting = this.waiting[next.lane];
      if (waiting.get(next.key) !== next.at) continue; // superseded by an earlier addAfter
      waiting.delete(next.key);
      this.addTo(next.lane, next.key);
    }
    this.schedule();
  }

  private resolveDrained(): void {
    for (const r of this.drained.splice(0)) r();
  }
}
