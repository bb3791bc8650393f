// The in-memory store behind an informer: objects by key (`namespace/name`), reads served from
// memory, and indexes (by namespace, by label `key=value`, and custom ones) kept up to date on
// every write. Objects are shared, not copied: callers must treat what they read as read-only.
// To keep memory per object low, the store drops `metadata.managedFields` by default (as
// controller-runtime's default transform does) and keeps one copy of strings that recur across
// objects (util/intern.ts).
import { parseLabelSelector, matchesLabels } from '../../kube/labels.js';
import { namespacedName } from '../../kube/keys.js';
import type { KubeObject } from '../../kube/object.js';
import { internStrings, sharedStrings } from '../../util/intern.js';

export type IndexFn<T extends KubeObject = KubeObject> = (obj: T) => string[];

export interface StoreListOptions {
  namespace?: string;
  labelSelector?: string;
}

export interface StoreOptions<T extends KubeObject> {
  /** Applied to every object before it is stored; default: cacheTransform. */
  transform?: (obj: T) => T;
}

export const NAMESPACE_INDEX = 'namespace';
export const LABEL_INDEX = 'label';

/** Strips managedFields, which are large and which controllers never read from a cache. */
export function dropManagedFields<T extends KubeObject>(obj: T): T {
  if (obj.metadata.managedFields === undefined) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata } as T;
}

/** The default transform: managedFields dropped, recurring strings shared (the object is changed in place). */
export function cacheTransform<T extends KubeObject>(obj: T): T {
  return internStrings(dropManagedFields(obj), sharedStrings);
}

/** index value -> keys of the objects with that value. */
type Index = Map<string, Set<string>>;

export class Store<T extends KubeObject = KubeObject> {
  private readonly objects = new Map<string, T>();
  private readonly indexFns = new Map<string, IndexFn<T>>();
  private readonly indexes = new Map<string, Index>();
  private readonly transform: (obj: T) => T;

  constructor(opts: StoreOptions<T> = {}) {
    this.transform = opts.transform ?? cacheTransform;
    this.addIndex(NAMESPACE_INDEX, (o) => [o.metadata.namespace ?? '']);
    this.addIndex(LABEL_INDEX, (o) => {
      const labels = o.metadata.labels;
      if (!labels) return [];
      const out: string[] = [];
      for (const k in labels) out.push(`${k}=${labels[k]}`);
      return out;
    });
  }

  get size(): number {
    return this.objects.size;
  }

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  keys(): IterableIterator<string> {
    return this.objects.keys();
  }

  values(): IterableIterator<T> {
    return this.objects.values();
  }

  /** Objects in a namespace and/or matching a label selector, served from the indexes where possible. */
  list(opts: StoreListOptions = {}): T[] {
    const reqs = parseLabelSelector(opts.labelSelector ?? '');
    let candidates: Iterable<string> | undefined;
    let smallest = Infinity;
    if (opts.namespace !== undefined) {
      const keys = this.indexes.get(NAMESPACE_INDEX)?.get(opts.namespace);
      if (!keys) return [];
      candidates = keys;
      smallest = keys.size;
    }
    for (const r of reqs) {
      const value = r.op === 'eq' ? r.value : r.op === 'in' && r.values.length === 1 ? r.values[0] : undefined;
      if (value === undefined) continue;
      const keys = this.indexes.get(LABEL_INDEX)?.get(`${r.key}=${value}`);
      if (!keys) return [];
      if (keys.size < smallest) {
        candidates = keys;
        smallest = keys.size;
      }
    }
    const out: T[] = [];
    if (candidates === undefined) {
      for (const o of this.objects.values()) if (matchesLabels(reqs, o.metadata.labels)) out.push(o);
      return out;
    }
    for (const key of candidates) {
      const o = this.objects.get(key);
      if (!o) continue;
      if (opts.namespace !== undefined && (o.metadata.namespace ?? '') !== opts.namespace) continue;
      if (matchesLabels(reqs, o.metadata.labels)) out.push(o);
    }
    return out;
  }

  /** Adds an index computed by `fn` over every stored (and future) object. */
  addIndex(name: string, fn: IndexFn<T>): void {
    if (this.indexFns.has(name)) throw new Error(`index ${name} already exists`);
    this.indexFns.set(name, fn);
    const index: Index = new Map();
    this.indexes.set(name, index);
    for (const [key, obj] of this.objects) this.indexObject(index, fn, key, obj);
  }

  byIndex(name: string, value: string): T[] {
    const index = this.indexes.get(name);
    if (!index) throw new Error(`no index ${name}`);
    const keys = index.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const k of keys) {
      const o = this.objects.get(k);
      if (o) out.push(o);
    }
    return out;
  }

  /** Keys under an index value (e.g. all keys of a namespace). */
  indexKeys(name: string, value: string): string[] {
    return [...(this.indexes.get(name)?.get(value) ?? [])];
  }

  // ---- writes, by the informer ----

  /** The object as the store would keep it (the transform applied). */
  transformed(obj: T): T {
    return this.transform(obj);
  }

  /** Stores an object; returns the previous version (undefined for a new key) and the stored one. */
  upsert(obj: T): { old: T | undefined; stored: T } {
    const stored = this.transform(obj);
    const key = namespacedName(stored);
    const old = this.objects.get(key);
    if (old) this.unindex(key, old);
    this.objects.set(key, stored);
    for (const [name, fn] of this.indexFns) this.indexObject(this.indexes.get(name) as Index, fn, key, stored);
    return { old, stored };
  }

  /** Removes a key; returns what was stored. */
  remove(key: string): T | undefined {
    const old = this.objects.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.objects.delete(key);
    return old;
  }

  private indexObject(index: Index, fn: IndexFn<T>, key: string, obj: T): void {
    for (const v of fn(obj)) {
      let keys = index.get(v);
      if (!keys) index.set(v, (keys = new Set()));
      keys.add(key);
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexFns) {
      const index = this.indexes.get(name) as Index;
      for (const v of fn(obj)) {
        const keys = index.get(v);
        if (!keys) continue;
        keys.delete(key);
        if (keys.size === 0) index.delete(v);
      }
    }
  }
}
