// An informer keeps a Store of one kind (optionally one namespace and a label/field selector) in
// step with the API server: list (paged), then watch from the list's resourceVersion with
// bookmarks, tracking the last resourceVersion seen. A watch that ends or fails is resumed from
// that resourceVersion; a 410 Gone (history expired) triggers a relist whose difference to the
// store is emitted as add/update/delete (unchanged objects emit nothing). Errors back off
// exponentially (capped, with jitter) and the informer retries until its signal aborts.
import { Store, type StoreOptions } from './store.js';
import type { Client, WatchEvent } from '../client/interface.js';
import { ApiError, errorFromResponse, isGone, type StatusBody } from '../client/errors.js';
import { silentLogger, type Logger } from '../log.js';
import { namespacedName } from '../../kube/keys.js';
import type { KindRef, KubeObject } from '../../kube/object.js';
import { abortable, pause } from '../../util/sleep.js';

export interface InformerHandlers<T extends KubeObject = KubeObject> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
}

export interface InformerOptions<T extends KubeObject = KubeObject> extends StoreOptions<T> {
  kind: KindRef;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size of lists (default 500). */
  pageSize?: number;
  /** Reconnect backoff (default 200 ms doubling up to 30 s, with jitter). */
  backoff?: BackoffOptions;
  /** Server-side watch timeout; default a random 5..10 minutes, as client-go does to spread reconnects. */
  watchTimeoutSeconds?: number;
  logger?: Logger;
}

export interface InformerStats {
  /** Completed lists (the first one plus every relist). */
  lists: number;
  /** Watches opened. */
  watches: number;
  /** Times the server answered 410 Gone. */
  gone: number;
  /** Failed lists or watches (not counting Gone). */
  errors: number;
}

/** Capped exponential backoff with jitter (each delay is 50..100 % of the nominal one). */
export class Backoff {
  private attempt = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;
  constructor(opts: BackoffOptions = {}) {
    this.initialMs = opts.initialMs ?? 200;
    this.maxMs = opts.maxMs ?? 30_000;
  }
  next(): number {
    const nominal = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return nominal * (0.5 + Math.random() * 0.5);
  }
  reset(): void {
    this.attempt = 0;
  }
}

class GoneError extends Error {}

export class Informer<T extends KubeObject = KubeObject> {
  readonly store: Store<T>;
  readonly kind: KindRef;
  readonly stats: InformerStats = { lists: 0, watches: 0, gone: 0, errors: 0 };
  /** Resolves when the first list has been stored and its events delivered. */
  readonly synced: Promise<void>;
  private resolveSynced!: () => void;
  private isSynced = false;
  private lastRv = '';
  private readonly handlers = new Set<InformerHandlers<T>>();
  private readonly log: Logger;
  private running: Promise<void> | undefined;

  constructor(
    private readonly client: Client,
    private readonly opts: InformerOptions<T>,
  ) {
    this.kind = opts.kind;
    this.store = new Store<T>({ transform: opts.transform });
    this.synced = new Promise((resolve) => (this.resolveSynced = resolve));
    this.log = (opts.logger ?? silentLogger).child('informer', {
      kind: opts.kind.kind,
      apiVersion: opts.kind.apiVersion,
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
      ...(opts.labelSelector ? { labelSelector: opts.labelSelector } : {}),
    });
  }

  get hasSynced(): boolean {
    return this.isSynced;
  }

  get lastResourceVersion(): string {
    return this.lastRv;
  }

  /**
   * Registers handlers; returns the function that removes them. Handlers added after the first
   * list get the objects already stored as `onAdd`, so a late controller misses nothing.
   */
  addHandlers(h: InformerHandlers<T>): () => void {
    this.handlers.add(h);
    if (this.isSynced && h.onAdd) for (const o of this.store.values()) this.call(() => h.onAdd?.(o));
    return () => this.handlers.delete(h);
  }

  /** Resolves true once synced, false if the signal aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.isSynced) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      // `synced` only ever resolves.
      this.synced.then(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(true);
        },
        () => resolve(false),
      );
    });
  }

  /** Runs until the signal aborts; calling it again while running returns the same promise. */
  run(signal: AbortSignal): Promise<void> {
    this.running ??= this.loop(signal).finally(() => (this.running = undefined));
    return this.running;
  }

  private async loop(signal: AbortSignal): Promise<void> {
    const backoff = new Backoff(this.opts.backoff);
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.listAndSync(signal);
          needList = false;
          backoff.reset();
        }
        const delivered = await this.watch(signal);
        if (delivered) backoff.reset();
        else if (!signal.aborted) await pause(backoff.next(), signal); // a watch that ends at once must not spin
      } catch (e) {
        if (signal.aborted) break;
        if (e instanceof GoneError || isGone(e)) {
          this.stats.gone++;
          this.log.debug('resourceVersion expired, relisting', { resourceVersion: this.lastRv });
          if (needList) await pause(backoff.next(), signal); // a list itself answered 410 (expired continue token)
          needList = true;
          continue;
        }
        this.stats.errors++;
        const delay = backoff.next();
        this.log.warn(needList ? 'list failed' : 'watch failed', { error: e, retryInMs: Math.round(delay) });
        await pause(delay, signal);
      }
    }
  }

  private async listAndSync(signal: AbortSignal): Promise<void> {
    const result = await this.client.list<T>(this.kind, {
      namespace: this.opts.namespace,
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
      limit: this.opts.pageSize ?? 500,
      signal,
    });
    if (signal.aborted) return;
    this.stats.lists++;
    this.replace(result.items);
    this.lastRv = result.resourceVersion;
    this.log.debug('listed', { count: result.items.length, resourceVersion: this.lastRv });
    if (!this.isSynced) {
      this.isSynced = true;
      this.resolveSynced();
    }
  }

  /** Makes the store equal to `items`, emitting only the differences. */
  private replace(items: T[]): void {
    const seen = new Set<string>();
    for (const item of items) {
      const key = namespacedName(item);
      seen.add(key);
      const existing = this.store.get(key);
      if (existing && existing.metadata.resourceVersion === item.metadata.resourceVersion) continue;
      this.apply(item);
    }
    const vanished: string[] = [];
    for (const key of this.store.keys()) if (!seen.has(key)) vanished.push(key);
    for (const key of vanished) {
      const old = this.store.remove(key);
      if (old) this.emitDelete(old);
    }
  }

  /** Watches from the last resourceVersion until the stream ends; returns whether anything arrived. */
  private async watch(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    const watchAbort = new AbortController();
    const onAbort = () => watchAbort.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let delivered = false;
    let iterator: AsyncIterator<WatchEvent<T>> | undefined;
    this.stats.watches++;
    try {
      const events = this.client.watch<T>(this.kind, {
        namespace: this.opts.namespace,
        labelSelector: this.opts.labelSelector,
        fieldSelector: this.opts.fieldSelector,
        resourceVersion: this.lastRv,
        allowWatchBookmarks: true,
        timeoutSeconds: this.opts.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300),
        signal: watchAbort.signal,
      });
      // Every read is abortable, so that stopping never waits for the next event even if a stream
      // does not notice its signal (e.g. one aborted while still opening). Not a race against one
      // promise of the abort: that would keep every event of the watch reachable until it ends.
      iterator = events[Symbol.asyncIterator]();
      for (;;) {
        let r: IteratorResult<WatchEvent<T>>;
        try {
          r = await abortable(iterator.next(), watchAbort.signal);
        } catch (e) {
          if (watchAbort.signal.aborted) break;
          throw e;
        }
        if (r.done) break;
        this.handleEvent(r.value);
        delivered = true;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      watchAbort.abort();
      // Not awaited: a generator suspended in a read only finishes once that read settles.
      iterator?.return?.()?.catch(() => undefined);
    }
    return delivered;
  }

  private handleEvent(ev: WatchEvent<T>): void {
    if (ev.type === 'ERROR') {
      const status = ev.object as unknown as StatusBody;
      if (status.code === 410 || status.reason === 'Expired' || status.reason === 'Gone') throw new GoneError(status.message ?? 'Gone');
      throw errorFromResponse(status.code ?? 500, status);
    }
    const rv = ev.object?.metadata?.resourceVersion;
    switch (ev.type) {
      case 'ADDED':
      case 'MODIFIED':
        this.apply(ev.object);
        break;
      case 'DELETED': {
        const old = this.store.remove(namespacedName(ev.object));
        if (old) this.emitDelete(this.store.transformed(ev.object));
        break;
      }
      case 'BOOKMARK':
        break;
      default:
        throw new ApiError('Unknown', `unexpected watch event type ${String(ev.type)}`, 500);
    }
    if (rv) this.lastRv = rv;
  }

  private apply(obj: T): void {
    const { old, stored } = this.store.upsert(obj);
    for (const h of this.handlers) {
      if (old) {
        if (h.onUpdate) this.call(() => h.onUpdate?.(old, stored));
      } else if (h.onAdd) this.call(() => h.onAdd?.(stored));
    }
  }

  private emitDelete(obj: T): void {
    for (const h of this.handlers) if (h.onDelete) this.call(() => h.onDelete?.(obj));
  }

  /** A failing handler must not stop the informer or the other handlers. */
  private call(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.log.error('event handler failed', { error: e });
    }
  }
}
