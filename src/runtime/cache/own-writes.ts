// Reading a controller's own writes back from an informer cache. After a controller writes an
// object, its informer holds the older copy until the watch delivers the write; a pass in between
// would decide on what the controller itself already changed (a status without the condition it
// just set, a Shoot whose new generation looks reconciled). OwnWrites remembers the resourceVersion
// each write returned until the informer has delivered it; CachedReader reads an object from the
// cache unless a write of this process is still on its way, and from the API server then.
//
// The API server hands out resourceVersions in order, and a watch delivers every one of an object
// in order, so the written version arriving means the cache is at least that new. A relist after an
// expired watch can skip it: entries also end after `maxLagMs`, and callers that must not act on a
// stale copy write with a resourceVersion precondition as well.
import type { ObjectKey } from '../../kube/keys.js';
import { namespacedName } from '../../kube/keys.js';
import type { KindRef, KubeObject } from '../../kube/object.js';
import { findObject } from '../client/find.js';
import type { ApplyOptions, Client, DeleteOptions, ListOptions, ListResult, PatchType, ResourceInfo, WatchEvent, WatchOptions, WriteOptions } from '../client/interface.js';
import type { Informer } from './informer.js';

/** How long a write is waited for before the cache is trusted again (default). */
export const DEFAULT_MAX_LAG_MS = 30_000;

interface Pending {
  /** The written resourceVersion; undefined for a delete (or a distrusted copy), which any later event answers. */
  rv: string | undefined;
  at: number;
}

/** The writes of one kind this process made that its informer has not delivered yet. */
export class OwnWrites<T extends KubeObject = KubeObject> {
  private readonly pending = new Map<string, Pending>();

  constructor(
    readonly informer: Informer<T>,
    private readonly maxLagMs = DEFAULT_MAX_LAG_MS,
  ) {
    informer.addHandlers({
      onAdd: (o) => this.observed(namespacedName(o), o.metadata.resourceVersion),
      onUpdate: (_o, n) => this.observed(namespacedName(n), n.metadata.resourceVersion),
      onDelete: (o) => this.observed(namespacedName(o), undefined),
    });
  }

  /** A write of `key` answered with `rv` (undefined for a delete, whose answer may carry no object). */
  wrote(key: string, rv: string | undefined): void {
    // The watch may deliver a write before its answer is read: nothing to wait for then.
    const cached = this.informer.store.get(key);
    const delivered = rv !== undefined ? cached?.metadata.resourceVersion === rv : cached === undefined || cached.metadata.deletionTimestamp !== undefined;
    if (delivered) this.pending.delete(key);
    else this.pending.set(key, { rv, at: Date.now() });
  }

  /** Reads of `key` go to the API server until the informer delivers anything more of it (e.g. after a conflict). */
  distrust(key: string): void {
    this.pending.set(key, { rv: undefined, at: Date.now() });
  }

  /** True while a write of `key` has not reached the informer (and is not older than maxLagMs). */
  lagging(key: string): boolean {
    const p = this.pending.get(key);
    if (!p) return false;
    if (Date.now() - p.at <= this.maxLagMs) return true;
    this.pending.delete(key);
    return false;
  }

  /** Writes waited for (for tests and diagnostics). */
  get size(): number {
    return this.pending.size;
  }

  private observed(key: string, rv: string | undefined): void {
    const p = this.pending.get(key);
    if (p && (p.rv === undefined || rv === undefined || p.rv === rv)) this.pending.delete(key);
  }
}

/** Reads of one kind from an informer's cache, or from the API server while the cache lags behind this process's write. */
export class CachedReader<T extends KubeObject> {
  constructor(
    private readonly client: Client,
    private readonly kind: KindRef,
    readonly writes: OwnWrites<T>,
  ) {}

  /** A copy of the object the caller may change, or undefined when it does not exist. */
  async get(key: ObjectKey, opts: { signal?: AbortSignal } = {}): Promise<T | undefined> {
    const k = namespacedName(key);
    const informer = this.writes.informer;
    if (informer.hasSynced && !this.writes.lagging(k)) {
      const cached = informer.store.get(k);
      return cached === undefined ? undefined : structuredClone(cached);
    }
    return findObject<T>(this.client, this.kind, key, opts);
  }
}

/**
 * A client whose writes of the given kinds are noted in their OwnWrites (by the resourceVersion
 * the server answered), so that the readers of those kinds wait for them. Reads and other kinds
 * pass through.
 */
export class NotingClient implements Client {
  constructor(
    private readonly client: Client,
    private readonly kinds: ReadonlyArray<{ kind: KindRef; writes: Pick<OwnWrites, 'wrote'> }>,
  ) {}

  get cluster(): string {
    return this.client.cluster;
  }

  private writesOf(kind: KindRef): Pick<OwnWrites, 'wrote'> | undefined {
    return this.kinds.find((k) => k.kind.kind === kind.kind && k.kind.apiVersion === kind.apiVersion)?.writes;
  }

  private note<R extends KubeObject>(kind: KindRef, written: R): R {
    this.writesOf(kind)?.wrote(namespacedName(written), written.metadata.resourceVersion);
    return written;
  }

  get<T extends KubeObject = KubeObject>(kind: KindRef, key: ObjectKey, opts?: { signal?: AbortSignal }): Promise<T> {
    return this.client.get<T>(kind, key, opts);
  }

  list<T extends KubeObject = KubeObject>(kind: KindRef, opts?: ListOptions): Promise<ListResult<T>> {
    return this.client.list<T>(kind, opts);
  }

  async create<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.note(kindOf(obj), await this.client.create(obj, opts));
  }

  async update<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.note(kindOf(obj), await this.client.update(obj, opts));
  }

  async updateStatus<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.note(kindOf(obj), await this.client.updateStatus(obj, opts));
  }

  async patch<T extends KubeObject = KubeObject>(kind: KindRef, key: ObjectKey, type: PatchType, patch: unknown, opts?: WriteOptions & { subresource?: 'status' | 'scale' }): Promise<T> {
    return this.note(kind, await this.client.patch<T>(kind, key, type, patch, opts));
  }

  async apply<T extends KubeObject>(obj: T, opts: ApplyOptions): Promise<T> {
    return this.note(kindOf(obj), await this.client.apply(obj, opts));
  }

  async delete(kind: KindRef, key: ObjectKey, opts?: DeleteOptions): Promise<void> {
    try {
      await this.client.delete(kind, key, opts);
    } finally {
      // Whatever the answer, the object may have changed (a deletion timestamp) or be gone.
      this.writesOf(kind)?.wrote(namespacedName(key), undefined);
    }
  }

  watch<T extends KubeObject = KubeObject>(kind: KindRef, opts?: WatchOptions): AsyncIterable<WatchEvent<T>> {
    return this.client.watch<T>(kind, opts);
  }

  resourceFor(kind: KindRef): Promise<ResourceInfo> {
    return this.client.resourceFor(kind);
  }

  close(): void {
    this.client.close();
  }
}

function kindOf(obj: KubeObject): KindRef {
  return { apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '' };
}
