// Object storage of one logical cluster: objects kept as JSON text (compact, and a list or watch
// event is mostly string concatenation), one resourceVersion sequence, a bounded event history
// for watches that resume from a resourceVersion, and the fan-out to open watches.

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredObject {
  /** The object as served for its storage version, `kind` and `apiVersion` first. */
  json: string;
  rv: number;
  namespace: string;
  name: string;
  labels: Record<string, string> | undefined;
}

export interface StoreEvent {
  type: EventType;
  rv: number;
  resource: string; // resource key, see resourceKey()
  namespace: string;
  name: string;
  object: StoredObject;
  /** The object before the change (MODIFIED/DELETED), for label-selector transitions. */
  previous?: StoredObject;
}

/** Receives every committed change; persistence and watches hang off this. */
export type CommitListener = (ev: StoreEvent) => void;

export class ObjectStore {
  private readonly byResource = new Map<string, Map<string, StoredObject>>();
  /** Sorted snapshot per resource, dropped on every change to that resource. */
  private readonly sortedCache = new Map<string, StoredObject[]>();
  private readonly history: StoreEvent[] = [];
  private historyStart = 0; // index of the oldest kept event in `history` (ring trimmed lazily)
  private readonly listeners = new Set<CommitListener>();
  /** Oldest resourceVersion a watch may resume from; older ones answer 410 Gone. */
  private oldestRv: number;

  constructor(
    public rv = 0,
    private readonly historyLimit = 1000,
  ) {
    this.oldestRv = rv;
  }

  get(resource: string, namespace: string, name: string): StoredObject | undefined {
    return this.byResource.get(resource)?.get(storeKey(namespace, name));
  }

  /**
   * Objects of a resource, sorted by namespace/name (the order etcd returns them). The sorted
   * array is kept until the resource changes, so paging through a large list sorts once.
   */
  list(resource: string, namespace?: string): readonly StoredObject[] {
    const all = this.sorted(resource);
    if (namespace === undefined) return all;
    const start = lowerBound(all, `${namespace}/`);
    const out: StoredObject[] = [];
    for (let i = start; i < all.length && all[i].namespace === namespace; i++) out.push(all[i]);
    return out;
  }

  /** Objects of a resource from the first whose key is >= `fromKey`, in key order. */
  listFrom(resource: string, fromKey: string, namespace?: string): readonly StoredObject[] {
    const all = this.sorted(resource);
    let i = lowerBound(all, namespace !== undefined && fromKey < `${namespace}/` ? `${namespace}/` : fromKey);
    const out: StoredObject[] = [];
    for (; i < all.length; i++) {
      if (namespace !== undefined && all[i].namespace !== namespace) break;
      out.push(all[i]);
    }
    return out;
  }

  private sorted(resource: string): StoredObject[] {
    let cached = this.sortedCache.get(resource);
    if (cached) return cached;
    const m = this.byResource.get(resource);
    cached = m ? [...m.values()] : [];
    cached.sort((a, b) => (storeKey(a.namespace, a.name) < storeKey(b.namespace, b.name) ? -1 : 1));
    this.sortedCache.set(resource, cached);
    return cached;
  }

  countIn(resource: string, namespace: string): number {
    const m = this.byResource.get(resource);
    if (!m) return 0;
    let n = 0;
    for (const o of m.values()) if (o.namespace === namespace) n++;
    return n;
  }

  /** Objects of a resource. */
  count(resource: string): number {
    return this.byResource.get(resource)?.size ?? 0;
  }

  /** Objects of a resource in no particular order (a copy: the store may change while it is read). */
  all(resource: string): StoredObject[] {
    const m = this.byResource.get(resource);
    return m ? [...m.values()] : [];
  }

  resources(): string[] {
    return [...this.byResource.keys()].filter((r) => (this.byResource.get(r)?.size ?? 0) > 0);
  }

  size(): number {
    let n = 0;
    for (const m of this.byResource.values()) n += m.size;
    return n;
  }

  nextRv(): number {
    return this.rv + 1;
  }

  /** Stores (or replaces) an object under the next resourceVersion, which `json` must already carry. */
  put(resource: string, obj: Omit<StoredObject, 'rv'>, rv: number): StoredObject {
    let m = this.byResource.get(resource);
    if (!m) this.byResource.set(resource, (m = new Map()));
    const key = storeKey(obj.namespace, obj.name);
    const previous = m.get(key);
    const stored: StoredObject = { ...obj, rv };
    this.sortedCache.delete(resource);
    m.set(key, stored);
    this.rv = rv;
    this.emit({ type: previous ? 'MODIFIED' : 'ADDED', rv, resource, namespace: obj.namespace, name: obj.name, object: stored, previous });
    return stored;
  }

  /** Removes an object; `finalJson` is the object as the DELETED event shows it (with the new resourceVersion). */
  remove(resource: string, namespace: string, name: string, finalJson: string, rv: number): StoredObject | undefined {
    const m = this.byResource.get(resource);
    const key = storeKey(namespace, name);
    const previous = m?.get(key);
    if (!m || !previous) return undefined;
    m.delete(key);
    this.sortedCache.delete(resource);
    this.rv = rv;
    const object: StoredObject = { ...previous, json: finalJson, rv };
    this.emit({ type: 'DELETED', rv, resource, namespace, name, object, previous });
    return previous;
  }

  /** Restores an object from persistence without emitting events. */
  load(resource: string, obj: StoredObject): void {
    let m = this.byResource.get(resource);
    if (!m) this.byResource.set(resource, (m = new Map()));
    m.set(storeKey(obj.namespace, obj.name), obj);
    this.sortedCache.delete(resource);
    if (obj.rv > this.rv) this.rv = obj.rv;
    this.oldestRv = this.rv;
  }

  unload(resource: string, namespace: string, name: string): void {
    this.byResource.get(resource)?.delete(storeKey(namespace, name));
    this.sortedCache.delete(resource);
  }

  /** Moves the sequence forward without an event (persistence replay of deletions). */
  advanceTo(rv: number): void {
    if (rv > this.rv) this.rv = rv;
    this.oldestRv = this.rv;
  }

  onCommit(l: CommitListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /**
   * Events after `rv` for a resource, or undefined when `rv` is older than the kept history
   * (the caller answers 410 Gone).
   */
  eventsSince(rv: number, resource: string): StoreEvent[] | undefined {
    if (rv < this.oldestRv) return undefined;
    const out: StoreEvent[] = [];
    for (let i = this.historyStart; i < this.history.length; i++) {
      const ev = this.history[i];
      if (ev.rv > rv && ev.resource === resource) out.push(ev);
    }
    return out;
  }

  /** Forgets the event history (fault injection: forces 410 on the next watch resume). */
  compact(): void {
    this.history.length = 0;
    this.historyStart = 0;
    this.oldestRv = this.rv;
  }

  private emit(ev: StoreEvent): void {
    this.history.push(ev);
    if (this.history.length - this.historyStart > this.historyLimit) {
      this.oldestRv = this.history[this.historyStart].rv;
      this.historyStart++;
      if (this.historyStart > this.historyLimit) {
        this.history.splice(0, this.historyStart);
        this.historyStart = 0;
      }
    }
    for (const l of this.listeners) l(ev);
  }
}

/** Index of the first object whose namespace/name key is >= `key` (binary search). */
function lowerBound(sorted: StoredObject[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (storeKey(sorted[mid].namespace, sorted[mid].name) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** An object's key (and sort order) in the store of its resource: `namespace/name`, or `name` when the namespace is ''. */
export function storeKey(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}
