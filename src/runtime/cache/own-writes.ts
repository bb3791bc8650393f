// Reading a controller's own writes back from an informer cache. After a controller writes an
// object, its informer holds the older copy until the watch delivers the write; a pass in between
// would decide on what the controller itself already changed (a status without the condition it
// just set, a Shoot whose new generation looks reconciled). OwnWrites remembers the resourceVersion
// each write returned until the informer has delivered it; CachedReader reads an object from the
// cache unless a write of this process is still on its way, and from the API server then.
//
// The API server hands out resourceVersions in order, and a watch delivers every one of an object
// in order, so the written version arriving means the cache is at least that new. A relist after an
// expired watch can skip it, and so can a newer change delivered before the write's answer was
// read: a write not delivered within `maxLagMs` while the informer delivered other things (its
// watch runs) is given up, and the cache is trusted again. While the informer delivers nothing (its
// watch is down) reads stay with the API server. Callers that must not act on a stale copy of what
// others write also write with a resourceVersion precondition. A write that removed an object's
// last finalizer deleted it, and kube-apiserver answers it with the object's last version (which
// the cache may hold already): its disappearance is waited for instead, as after a read that found
// the object gone.
import type { ObjectKey } from '../../kube/keys.js';
import { namespacedName, objectKey } from '../../kube/keys.js';
import type { KindRef, KubeObject } from '../../kube/object.js';
import { ApiError } from '../client/errors.js';
import { findObject } from '../client/find.js';
import type { ApplyOptions, Client, DeleteOptions, ListOptions, ListResult, PatchType, ResourceInfo, WatchEvent, WatchOptions, WriteOptions } from '../client/interface.js';
import type { Informer } from './informer.js';

/** How long a write is waited for before the cache is trusted again (default). */
export const DEFAULT_MAX_LAG_MS = 30_000;

type Awaiting =
  /** This resourceVersion of the object. */
  | { kind: 'version'; rv: string }
  /** The object's deletion: gone, or a deletion timestamp. */
  | { kind: 'deletion' }
  /** The object gone from the cache. */
  | { kind: 'gone' }
  /** Anything delivered after a write whose outcome is unknown (it failed in flight). */
  | { kind: 'any' };

interface Pending {
  awaited: Awaiting;
  at: number;
  /** The informer's deliveries when the write was noted. */
  deliveries: number;
}

/** The writes of one kind this process made that its informer has not delivered yet. */
export class OwnWrites<T extends KubeObject = KubeObject> {
  private readonly pending = new Map<string, Pending>();
  /** Keys whose next read goes to the API server whatever the cache holds (distrust). */
  private readonly readFresh = new Set<string>();
  private deliveries = 0;

  constructor(
    readonly informer: Informer<T>,
    private readonly maxLagMs = DEFAULT_MAX_LAG_MS,
  ) {
    informer.addHandlers({
      onAdd: (o) => this.observed(o, false),
      onUpdate: (_o, n) => this.observed(n, false),
      onDelete: (o) => this.observed(o, true),
    });
  }

  /** A write of `key` answered with `rv`. */
  wrote(key: string, rv: string | undefined): void {
    // The watch may deliver a write before its answer is read: nothing to wait for then.
    if (rv === undefined) this.unsure(key);
    else if (this.informer.store.get(key)?.metadata.resourceVersion === rv) this.pending.delete(key);
    else this.await(key, { kind: 'version', rv });
  }

  /** A delete of `key` was sent (whatever its answer): waited for until the informer sees the object go or marked for deletion. */
  deleted(key: string): void {
    const cached = this.informer.store.get(key);
    if (cached === undefined || cached.metadata.deletionTimestamp !== undefined) this.pending.delete(key);
    else this.await(key, { kind: 'deletion' });
  }

  /** A write of `key` removed it (its last finalizer): waited for until the informer sees it go. */
  removed(key: string): void {
    if (this.informer.store.get(key) === undefined) this.pending.delete(key);
    else this.await(key, { kind: 'gone' });
  }

  /** A write of `key` failed in flight (it may or may not have been made): waited for until the informer delivers anything of it. */
  unsure(key: string): void {
    this.await(key, { kind: 'any' });
  }

  /** The next read of `key` goes to the API server (e.g. after a conflict: someone else changed it). */
  distrust(key: string): void {
    this.readFresh.add(key);
  }

  /**
   * True while a write of `key` has not reached the informer, or once after distrust (which this
   * call then consumes): the caller reads from the API server.
   */
  mustRead(key: string): boolean {
    if (this.readFresh.delete(key)) return true;
    return this.lagging(key);
  }

  /** True while a write of `key` has not reached the informer (see the file comment for when it is given up). */
  lagging(key: string): boolean {
    const p = this.pending.get(key);
    if (!p) return false;
    if (Date.now() - p.at <= this.maxLagMs || this.deliveries === p.deliveries) return true;
    this.pending.delete(key);
    return false;
  }

  /** Writes waited for (for tests and diagnostics). */
  get size(): number {
    return this.pending.size;
  }

  private await(key: string, awaited: Awaiting): void {
    this.pending.set(key, { awaited, at: Date.now(), deliveries: this.deliveries });
  }

  private observed(o: T, gone: boolean): void {
    this.deliveries++;
    const key = namespacedName(o);
    const p = this.pending.get(key);
    if (!p) return;
    const a = p.awaited;
    const answered =
      a.kind === 'any' ||
      (a.kind === 'deletion' && (gone || o.metadata.deletionTimestamp !== undefined)) ||
      (a.kind === 'gone' && gone) ||
      (a.kind === 'version' && (gone || o.metadata.resourceVersion === a.rv));
    if (answered) this.pending.delete(key);
  }
}

/** Reads of one kind from an informer's cache, or from the API server while the cache lags behind this process's write. */
export class CachedReader<T extends KubeObject> {
  constructor(
    private readonly client: Client,
    private readonly kind: KindRef,
    readonly writes: OwnWrites<T>,
  ) {}

  /**
   * A copy of the object the caller may change, or undefined when it does not exist. With
   * `confirmAbsent`, an object the cache does not have is asked of the API server before it counts
   * as absent (e.g. the object a reconcile was asked for).
   *
   * Reads do not go back in time: what the API server answered is waited for like a write of this
   * process (a newer version, or the object's deletion), so a later read does not take an older
   * copy from a cache that has not caught up with an earlier read.
   */
  async get(key: ObjectKey, opts: { signal?: AbortSignal; confirmAbsent?: boolean } = {}): Promise<T | undefined> {
    const k = namespacedName(key);
    const informer = this.writes.informer;
    if (informer.hasSynced && !this.writes.mustRead(k)) {
      const cached = informer.store.get(k);
      if (cached !== undefined) return structuredClone(cached);
      if (!opts.confirmAbsent) return undefined;
    }
    const read = await findObject<T>(this.client, this.kind, key, { signal: opts.signal });
    // Gone: a cached copy, even one marked for deletion, is older than that.
    if (read === undefined) this.writes.removed(k);
    else if (read.metadata.resourceVersion !== undefined) this.writes.wrote(k, read.metadata.resourceVersion);
    return read;
  }
}

/** What NotingClient tells an OwnWrites. */
type Noted = Pick<OwnWrites, 'wrote' | 'deleted' | 'removed' | 'unsure'>;

/**
 * A client whose writes of the given kinds are noted in their OwnWrites (by the resourceVersion
 * the server answered), so that the readers of those kinds wait for them. Reads and other kinds
 * pass through.
 */
export class NotingClient implements Client {
  constructor(
    private readonly client: Client,
    private readonly kinds: ReadonlyArray<{ kind: KindRef; writes: Noted }>,
  ) {}

  get cluster(): string {
    return this.client.cluster;
  }

  private writesOf(kind: KindRef): Noted | undefined {
    return this.kinds.find((k) => k.kind.kind === kind.kind && k.kind.apiVersion === kind.apiVersion)?.writes;
  }

  private note<R extends KubeObject>(kind: KindRef, written: R): R {
    const writes = this.writesOf(kind);
    if (!writes) return written;
    const key = namespacedName(written);
    // A write that removed the last finalizer of an object marked for deletion deleted it. The
    // API server answers with the object as it was, resourceVersion included (the DELETED event
    // that follows carries a new one), so that version may already be in the cache: the object's
    // disappearance is what is waited for.
    if (written.metadata.deletionTimestamp !== undefined && (written.metadata.finalizers ?? []).length === 0) writes.removed(key);
    else writes.wrote(key, written.metadata.resourceVersion);
    return written;
  }

  /** Runs a write; one that failed without a definite answer from the server (it may have been made) is waited for as unsure. */
  private async writing<R extends KubeObject>(kind: KindRef, key: ObjectKey, write: () => Promise<R>): Promise<R> {
    try {
      return this.note(kind, await write());
    } catch (e) {
      if (!(e instanceof ApiError && e.code >= 400 && e.code < 500)) this.writesOf(kind)?.unsure(namespacedName(key));
      throw e;
    }
  }

  get<T extends KubeObject = KubeObject>(kind: KindRef, key: ObjectKey, opts?: { signal?: AbortSignal }): Promise<T> {
    return this.client.get<T>(kind, key, opts);
  }

  list<T extends KubeObject = KubeObject>(kind: KindRef, opts?: ListOptions): Promise<ListResult<T>> {
    return this.client.list<T>(kind, opts);
  }

  create<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.writing(kindOf(obj), objectKey(obj), () => this.client.create(obj, opts));
  }

  update<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.writing(kindOf(obj), objectKey(obj), () => this.client.update(obj, opts));
  }

  updateStatus<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.writing(kindOf(obj), objectKey(obj), () => this.client.updateStatus(obj, opts));
  }

  patch<T extends KubeObject = KubeObject>(kind: KindRef, key: ObjectKey, type: PatchType, patch: unknown, opts?: WriteOptions & { subresource?: 'status' | 'scale' }): Promise<T> {
    return this.writing(kind, key, () => this.client.patch<T>(kind, key, type, patch, opts));
  }

  apply<T extends KubeObject>(obj: T, opts: ApplyOptions): Promise<T> {
    return this.writing(kindOf(obj), objectKey(obj), () => this.client.apply(obj, opts));
  }

  async delete(kind: KindRef, key: ObjectKey, opts?: DeleteOptions): Promise<void> {
    try {
      await this.client.delete(kind, key, opts);
    } catch (e) {
      // Refused (a precondition, forbidden): nothing changed. Not found: gone, as a delete leaves it.
      if (e instanceof ApiError && e.code >= 400 && e.code < 500 && e.code !== 404) throw e;
      this.writesOf(kind)?.deleted(namespacedName(key));
      throw e;
    }
    // The object now has a deletion timestamp or is gone.
    this.writesOf(kind)?.deleted(namespacedName(key));
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

