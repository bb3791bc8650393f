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
    return this.byResource.get(resource)?.get(keyOf(namespace, name));
  }

  /** Objects of a resource, sorted by namespace/name (the order etcd returns them). */
  list(resource: string, namespace?: string): StoredObject[] {
    const m = this.byResource.get(resource);
    if (!m) return [];
    const out: StoredObject[] = [];
    for (const o of m.values()) if (namespace === undefined || o.namespace === namespace) out.push(o);
    out.sort((a, b) => (keyOf(a.namespace, a.name) < keyOf(b.namespace, b.name) ? -1 : 1));
    return out;
  }

  countIn(resource: string, namespace: string): number {
    const m = this.byResource.get(resource);
    if (!m) return 0;
    let n = 0;
    for (const o of m.values()) if (o.namespace === namespace) n++;
    return n;
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
    const key = keyOf(obj.namespace, obj.name);
    const previous = m.get(key);
    const stored: StoredObject = { ...obj, rv };
    m.set(key, stored);
    this.rv = rv;
    this.emit({ type: previous ? 'MODIFIED' : 'ADDED', rv, resource, namespace: obj.namespace, name: obj.name, object: stored, previous });
    return stored;
  }

  /** Removes an object; `finalJson` is the object as the DELETED event shows it (with the new resourceVersion). */
  remove(resource: string, namespace: string, name: string, finalJson: string, rv: number): StoredObject | undefined {
    const m = this.byResource.get(resource);
    const key = keyOf(namespace, name);
    const previous = m?.get(key);
    if (!m || !previous) return undefined;
    m.delete(key);
    this.rv = rv;
    const object: StoredObject = { ...previous, json: finalJson, rv };
    this.emit({ type: 'DELETED', rv, resource, namespace, name, object, previous });
    return previous;
  }

  /** Restores an object from persistence without emitting events. */
  load(resource: string, obj: StoredObject): void {
    let m = this.byResource.get(resource);
    if (!m) this.byResource.set(resource, (m = new Map()));
    m.set(keyOf(obj.namespace, obj.name), obj);
    if (obj.rv > this.rv) this.rv = obj.rv;
    this.oldestRv = this.rv;
  }

  unload(resource: string, namespace: string, name: string): void {
    this.byResource.get(resource)?.delete(keyOf(namespace, name));
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

export function keyOf(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}
