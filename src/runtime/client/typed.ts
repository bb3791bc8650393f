// A client bound to one kind: `typed<Deployment>(client, { apiVersion: 'apps/v1', kind: 'Deployment' })`.
import type { KindRef, KubeObject } from '../../kube/object.js';
import type { ObjectKey } from '../../kube/keys.js';
import type { ApplyOptions, Client, DeleteOptions, ListOptions, ListResult, PatchType, ResourceInfo, WatchEvent, WatchOptions, WriteOptions } from './interface.js';

/** An object of the bound kind; apiVersion and kind may be left out. */
export type Unkinded<T extends KubeObject> = Omit<T, 'apiVersion' | 'kind'> & Partial<KindRef>;

export interface TypedClient<T extends KubeObject> {
  readonly kind: KindRef;
  get(key: ObjectKey, opts?: { signal?: AbortSignal }): Promise<T>;
  list(opts?: ListOptions): Promise<ListResult<T>>;
  create(obj: Unkinded<T>, opts?: WriteOptions): Promise<T>;
  update(obj: Unkinded<T>, opts?: WriteOptions): Promise<T>;
  updateStatus(obj: Unkinded<T>, opts?: WriteOptions): Promise<T>;
  patch(key: ObjectKey, type: PatchType, patch: unknown, opts?: WriteOptions & { subresource?: 'status' | 'scale' }): Promise<T>;
  apply(obj: Unkinded<T>, opts: ApplyOptions): Promise<T>;
  delete(key: ObjectKey, opts?: DeleteOptions): Promise<void>;
  watch(opts?: WatchOptions): AsyncIterable<WatchEvent<T>>;
  resource(): Promise<ResourceInfo>;
}

export function typed<T extends KubeObject>(client: Client, kind: KindRef): TypedClient<T> {
  const ref: KindRef = { apiVersion: kind.apiVersion, kind: kind.kind };
  const full = (obj: Unkinded<T>): T => ({ ...obj, ...ref }) as unknown as T;
  return {
    kind: ref,
    get: (key, opts) => client.get<T>(ref, key, opts),
    list: (opts) => client.list<T>(ref, opts),
    create: (obj, opts) => client.create(full(obj), opts),
    update: (obj, opts) => client.update(full(obj), opts),
    updateStatus: (obj, opts) => client.updateStatus(full(obj), opts),
    patch: (key, type, patch, opts) => client.patch<T>(ref, key, type, patch, opts),
    apply: (obj, opts) => client.apply(full(obj), opts),
    delete: (key, opts) => client.delete(ref, key, opts),
    watch: (opts) => client.watch<T>(ref, opts),
    resource: () => client.resourceFor(ref),
  };
}
