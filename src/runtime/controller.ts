// Controllers, built declaratively as controller-runtime does:
//   newControllerManagedBy(manager).named('kyma').for(KymaKind, { predicates: [generationChanged] })
//     .owns(ManifestKind).watches(SecretKind, mapFn).watchesChannel(watcherEvents)
//     .withOptions({ maxConcurrentReconciles: 10 }).complete(reconciler)
// Events of the watched kinds become keys (`namespace/name` of the For kind) in a rate-limited,
// de-duplicating work queue; workers call the reconciler, and its result (or error) decides when
// the key is looked at again.
import type { Informer } from './cache/informer.js';
import type { Client } from './client/interface.js';
import type { Logger } from './log.js';
import { reconcileMetrics, workQueueMetrics, type ReconcileMetrics, type Registry } from './metrics.js';
import { admits, type ObjectEvent, type Predicate } from './predicates.js';
import { namespacedName, parseNamespacedName, type ObjectKey } from '../kube/keys.js';
import { splitApiVersion, type KindRef, type KubeObject } from '../kube/object.js';
import { WorkQueue, type RateLimiter } from './workqueue.js';

export interface ReconcileResult {
  /** Look again after the rate limiter's backoff. */
  requeue?: boolean;
  /** Look again after this long (wins over `requeue`). */
  requeueAfterMs?: number;
  /**
   * The look after `requeueAfterMs` is a fallback for changes that events report anyway (a periodic
   * pass, a poll of something watched): it waits behind the keys events added, so that with a
   * backlog (thousands of objects created at once) what changed goes first.
   */
  fallback?: boolean;
  /**
   * The look after `requeueAfterMs` goes ahead of other keys (a second look at work under way,
   * WorkQueue.addFirst); without `requeueAfterMs` (and `requeue`), a look at once, ahead of them.
   */
  first?: boolean;
  /**
   * The reconcile failed, and the reconciler recorded why (an Error state in the object's status)
   * and chose when to look again: counted as an error (`controller_runtime_reconcile_errors_total`,
   * result `error`) like a thrown one, requeued as asked. The reconciler logs it; the controller
   * only at debug, as it may repeat every requeue.
   */
  error?: string;
}

export type Request = ObjectKey;

export type ReconcileFn = (req: Request, signal: AbortSignal) => Promise<ReconcileResult | void>;

export type Reconciler = ReconcileFn | { reconcile: ReconcileFn };

/** Which informer a controller watches through (shared by the manager per kind + namespace + selector). */
export interface InformerScope {
  namespace?: string;
  labelSelector?: string;
}

export interface WatchOptions extends InformerScope {
  /** All must admit an event for it to enqueue. */
  predicates?: Predicate[];
  /**
   * The keys of a create or update whose object (with the one it replaced, for an update) this says
   * yes to go ahead of the informers' other keys (WorkQueue.addFirst): a change of work under way,
   * answered before new work. Deletes keep their place.
   */
  first?: (obj: KubeObject, old?: KubeObject) => boolean;
  /**
   * The keys of creates and updates are added this long after the event (WorkQueue.addBatched, in
   * the lane they would go to; a key queued already is added at once), so that changes that come
   * together make one pass: a Kyma's five
   * Manifests installing at once write their status within moments of each other. Deletes are not
   * delayed.
   */
  batchMs?: number;
}

/** Maps an object of a watched kind to the keys (of the For kind) to reconcile. */
export type MapFn<T extends KubeObject = KubeObject> = (obj: T) => (ObjectKey | string)[];

/** Node's EventEmitter fits: `emitter.emit('key', 'ns/name')`. */
export interface KeyEmitter {
  on(event: 'key', listener: (key: string | ObjectKey) => void): unknown;
  off(event: 'key', listener: (key: string | ObjectKey) => void): unknown;
}

export type KeySource = AsyncIterable<string | ObjectKey> | KeyEmitter;

export interface ControllerOptions {
  maxConcurrentReconciles?: number;
  rateLimiter?: RateLimiter;
}

/** What a controller needs from its manager (the Manager implements it). */
export interface ControllerHost {
  readonly client: Client;
  readonly registry: Registry;
  readonly logger: Logger;
  /** The shared informer for a kind and scope (created on first use). */
  informer<T extends KubeObject = KubeObject>(kind: KindRef, scope?: InformerScope): Informer<T>;
  addController(c: Controller): void;
  /** The coordination hook: false means "not mine now" (not leader, or another shard's key). */
  mayReconcile(controller: string, kind: KindRef, req: Request): boolean;
}

interface KindWatch {
  kind: KindRef;
  scope: InformerScope;
  predicates: Predicate[];
  toKeys: (obj: KubeObject) => (ObjectKey | string)[];
  first?: (obj: KubeObject, old?: KubeObject) => boolean;
  batchMs?: number;
}

interface ControllerSpec {
  name: string;
  forKind: KindRef;
  forScope: InformerScope;
  watches: KindWatch[];
  channels: ChannelWatch[];
  options: ControllerOptions;
  reconcile: ReconcileFn;
}

interface ChannelWatch {
  source: KeySource;
  /** Its keys go ahead of the informers' (WorkQueue.addFirst). */
  first: boolean;
}

function isKeyEmitter(s: KeySource): s is KeyEmitter {
  return typeof (s as KeyEmitter).on === 'function' && typeof (s as KeyEmitter).off === 'function';
}

function sameGroupKind(apiVersion: string, kind: string, ref: KindRef): boolean {
  return kind === ref.kind && splitApiVersion(apiVersion).group === splitApiVersion(ref.apiVersion).group;
}

/** A simple channel of keys for `watchesChannel`: `send` from anywhere (e.g. the runtime watcher's HTTP listener). */
export class KeyChannel implements AsyncIterable<string | ObjectKey> {
  private readonly buffer: (string | ObjectKey)[] = [];
  private waiter: ((r: IteratorResult<string | ObjectKey>) => void) | undefined;
  private closed = false;

  send(key: string | ObjectKey): void {
    if (this.closed) return;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w({ value: key, done: false });
    } else this.buffer.push(key);
  }

  close(): void {
    this.closed = true;
    this.waiter?.({ value: undefined, done: true });
    this.waiter = undefined;
  }

  [Symbol.asyncIterator](): AsyncIterator<string | ObjectKey> {
    return {
      next: () => {
        const v = this.buffer.shift();
        if (v !== undefined) return Promise.resolve({ value: v, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiter = resolve));
      },
      return: () => {
        // The consumer stops (controller shutdown); the channel itself stays usable for a restart.
        this.waiter?.({ value: undefined, done: true });
        this.waiter = undefined;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

export class Controller {
  readonly name: string;
  readonly forKind: KindRef;
  readonly queue: WorkQueue;
  readonly maxConcurrentReconciles: number;
  private readonly log: Logger;
  private readonly metrics: ReconcileMetrics;
  private readonly stops: (() => void)[] = [];
  private forInformer: Informer | undefined;
  private forNamespaced = true;
  private started = false;
  /**
   * Observation only (benchmarks, tests): called with the key when a worker starts reconciling it,
   * after the coordination check. Must not throw or block; leave undefined in production.
   */
  onReconcileStart?: (key: string) => void;

  constructor(
    private readonly host: ControllerHost,
    private readonly spec: ControllerSpec,
  ) {
    this.name = spec.name;
    this.forKind = spec.forKind;
    this.maxConcurrentReconciles = Math.max(1, spec.options.maxConcurrentReconciles ?? 1);
    this.log = host.logger.child('controller', { controller: spec.name });
    this.queue = new WorkQueue({ name: spec.name, rateLimiter: spec.options.rateLimiter, metrics: workQueueMetrics(host.registry, spec.name) });
    this.metrics = reconcileMetrics(host.registry, spec.name);
    this.metrics.maxConcurrent(this.maxConcurrentReconciles);
    // Create the informers now so that the manager starts and syncs them before the controller.
    this.forInformer = host.informer(spec.forKind, spec.forScope);
    for (const w of spec.watches) host.informer(w.kind, w.scope);
  }

  /** The informers this controller reads (the manager waits for them to sync). */
  informers(): Informer[] {
    return [this.host.informer(this.spec.forKind, this.spec.forScope), ...this.spec.watches.map((w) => this.host.informer(w.kind, w.scope))];
  }

  /** Queues a reconcile of one object of the For kind. */
  enqueue(key: ObjectKey | string): void {
    this.queue.add(typeof key === 'string' ? key : namespacedName(key));
  }

  /** Queues every object of the For kind in the cache (e.g. after this replica gained a shard or leadership). */
  enqueueAll(): void {
    if (!this.forInformer) return;
    // Behind whatever else arrives: a re-enqueue of everything (leadership or a shard gained) must
    // not hold back the changes and events that come in meanwhile.
    for (const key of this.forInformer.store.keys()) this.queue.addLow(key);
  }

  /**
   * Registers event handlers, starts the channel sources and runs workers until `signal` aborts,
   * then drains: intake stops, in-flight reconciles finish (they see `reconcileSignal` abort only
   * if the manager's drain deadline passes). Resolves when the last worker has stopped.
   */
  async start(signal: AbortSignal, reconcileSignal: AbortSignal = signal): Promise<void> {
    if (this.started) throw new Error(`controller ${this.name} already started`);
    this.started = true;
    try {
      this.forNamespaced = (await this.host.client.resourceFor(this.forKind)).namespaced;
    } catch (e) {
      this.log.warn('discovery of the For kind failed; assuming it is namespaced', { error: e });
    }
    if (signal.aborted) return;
    for (const w of this.spec.watches) this.stops.push(this.attach(w));
    for (const channel of this.spec.channels) this.stops.push(this.consume(channel, signal));
    // shutDown() only resolves (once in-flight work is done); the workers' run() is what start() awaits.
    const onAbort = (): void => {
      this.queue.shutDown().catch(() => undefined);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    this.log.debug('starting workers', { workers: this.maxConcurrentReconciles });
    try {
      await this.queue.run(this.maxConcurrentReconciles, (key) => this.process(key, reconcileSignal), reconcileSignal);
      await this.queue.shutDown();
    } finally {
      signal.removeEventListener('abort', onAbort);
      for (const stop of this.stops.splice(0)) stop();
      this.log.debug('stopped');
    }
  }

  private attach(w: KindWatch): () => void {
    const informer = this.host.informer(w.kind, w.scope);
    const pass = (ev: ObjectEvent) => w.predicates.every((p) => admits(p, ev));
    const enqueueFor = (first: boolean, batchMs: number | undefined, ...objs: KubeObject[]) => {
      const keys = new Set<string>();
      for (const o of objs) for (const k of w.toKeys(o)) keys.add(typeof k === 'string' ? k : namespacedName(k));
      for (const k of keys) {
        if (batchMs) this.queue.addBatched(k, batchMs, { first });
        else if (first) this.queue.addFirst(k);
        else this.queue.add(k);
      }
    };
    return informer.addHandlers({
      onAdd: (object) => {
        if (pass({ type: 'create', object })) enqueueFor(w.first?.(object) === true, w.batchMs, object);
      },
      onUpdate: (oldObject, object) => {
        if (!pass({ type: 'update', oldObject, object })) return;
        enqueueFor(w.first?.(object, oldObject) === true, w.batchMs, oldObject, object);
      },
      onDelete: (object) => {
        if (pass({ type: 'delete', object })) enqueueFor(false, undefined, object);
      },
    });
  }

  private consume({ source, first }: ChannelWatch, signal: AbortSignal): () => void {
    const enqueue = first ? (key: string | ObjectKey) => this.queue.addFirst(typeof key === 'string' ? key : namespacedName(key)) : (key: string | ObjectKey) => this.enqueue(key);
    if (isKeyEmitter(source)) {
      source.on('key', enqueue);
      return () => source.off('key', enqueue);
    }
    const iterator = source[Symbol.asyncIterator]();
    const stop = (): void => {
      // Ending a source that already failed or ended may reject: nothing to do about it then.
      iterator.return?.()?.catch(() => undefined);
    };
    (async () => {
      try {
        while (!signal.aborted) {
          const r = await iterator.next();
          if (r.done || signal.aborted) break;
          enqueue(r.value);
        }
      } catch (e) {
        this.log.error('event source failed', { error: e });
      }
    })().catch((e: unknown) => this.log.error('event source loop failed', { error: e }));
    return stop;
  }

  /** The keys of the For kind an owned object maps to: its controller owner of that kind. */
  ownerKeys(obj: KubeObject): ObjectKey[] {
    const out: ObjectKey[] = [];
    for (const ref of obj.metadata.ownerReferences ?? []) {
      if (!ref.controller || !sameGroupKind(ref.apiVersion, ref.kind, this.forKind)) continue;
      out.push(this.forNamespaced && obj.metadata.namespace ? { namespace: obj.metadata.namespace, name: ref.name } : { name: ref.name });
    }
    return out;
  }

  private async process(key: string, signal: AbortSignal): Promise<void> {
    const req = parseNamespacedName(key);
    if (!this.host.mayReconcile(this.name, this.forKind, req)) {
      this.queue.forget(key);
      return;
    }
    this.onReconcileStart?.(key);
    this.metrics.activeWorkers(1);
    const t0 = performance.now();
    try {
      const result = await this.spec.reconcile(req, signal);
      const seconds = (performance.now() - t0) / 1000;
      const failed = result?.error !== undefined;
      if (failed) this.log.debug('reconcile ended in an error state', { ...req, error: result?.error });
      if (result && result.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
        this.queue.forget(key);
        this.queue.addAfter(key, result.requeueAfterMs, { low: result.fallback === true, first: result.first === true });
        this.metrics.reconciled(failed ? 'error' : 'requeue_after', seconds);
      } else if (result?.requeue) {
        this.queue.addRateLimited(key);
        this.metrics.reconciled(failed ? 'error' : 'requeue', seconds);
      } else if (result?.first) {
        this.queue.forget(key);
        this.queue.addFirst(key);
        this.metrics.reconciled(failed ? 'error' : 'requeue', seconds);
      } else {
        this.queue.forget(key);
        this.metrics.reconciled(failed ? 'error' : 'success', seconds);
      }
    } catch (e) {
      this.metrics.reconciled('error', (performance.now() - t0) / 1000);
      this.log.error('reconcile failed', { ...req, error: e, retries: this.queue.numRequeues(key) });
      this.queue.addRateLimited(key);
    } finally {
      this.metrics.activeWorkers(-1);
    }
  }
}

export class ControllerBuilder {
  private name: string | undefined;
  private forKind: KindRef | undefined;
  private forOpts: WatchOptions = {};
  private readonly extra: { kind: KindRef; opts: WatchOptions; map: MapFn | 'owner' }[] = [];
  private readonly channels: ChannelWatch[] = [];
  private readonly filters: Predicate[] = [];
  private options: ControllerOptions = {};

  constructor(private readonly host: ControllerHost) {}

  named(name: string): this {
    this.name = name;
    return this;
  }

  /** The kind this controller reconciles; its events enqueue their own key. */
  for(kind: KindRef, opts: WatchOptions = {}): this {
    if (this.forKind) throw new Error('for() may be called once');
    this.forKind = kind;
    this.forOpts = opts;
    return this;
  }

  /** A kind this controller creates; events enqueue the object's controller owner (ownerReferences controller=true). */
  owns(kind: KindRef, opts: WatchOptions = {}): this {
    this.extra.push({ kind, opts, map: 'owner' });
    return this;
  }

  /** Any other kind; `map` says which keys of the For kind an event concerns. */
  watches<T extends KubeObject = KubeObject>(kind: KindRef, map: MapFn<T>, opts: WatchOptions = {}): this {
    this.extra.push({ kind, opts, map: map as MapFn });
    return this;
  }

  /**
   * Keys from outside the cluster (e.g. the runtime watcher's webhook events). `first`: they go
   * ahead of the keys the informers bring (events about work under way before new work).
   */
  watchesChannel(source: KeySource, opts: { first?: boolean } = {}): this {
    this.channels.push({ source, first: opts.first === true });
    return this;
  }

  /** Predicates applied to every watched kind (controller-runtime's WithEventFilter). */
  withEventFilter(p: Predicate): this {
    this.filters.push(p);
    return this;
  }

  withOptions(options: ControllerOptions): this {
    this.options = { ...this.options, ...options };
    return this;
  }

  complete(reconciler: Reconciler): Controller {
    const forKind = this.forKind;
    if (!forKind) throw new Error('a controller needs for(kind)');
    const reconcile: ReconcileFn = typeof reconciler === 'function' ? reconciler : (req, signal) => reconciler.reconcile(req, signal);
    const scope = (o: WatchOptions): InformerScope => ({ namespace: o.namespace, labelSelector: o.labelSelector });
    // `controller` is assigned before any watch fires (handlers attach in start()).
    const built: { controller?: Controller } = {};
    const watches: KindWatch[] = [
      { kind: forKind, scope: scope(this.forOpts), predicates: [...this.filters, ...(this.forOpts.predicates ?? [])], toKeys: (o) => [namespacedName(o)], first: this.forOpts.first, batchMs: this.forOpts.batchMs },
      ...this.extra.map(
        (e): KindWatch => ({
          kind: e.kind,
          scope: scope(e.opts),
          predicates: [...this.filters, ...(e.opts.predicates ?? [])],
          toKeys: e.map === 'owner' ? (o) => built.controller?.ownerKeys(o) ?? [] : e.map,
          first: e.opts.first,
          batchMs: e.opts.batchMs,
        }),
      ),
    ];
    const controller = new Controller(this.host, {
      name: this.name ?? forKind.kind.toLowerCase(),
      forKind,
      forScope: scope(this.forOpts),
      watches,
      channels: this.channels,
      options: this.options,
      reconcile,
    });
    built.controller = controller;
    this.host.addController(controller);
    return controller;
  }
}

export function newControllerManagedBy(host: ControllerHost): ControllerBuilder {
  return new ControllerBuilder(host);
}
