// The client contract every controller uses. `client/http-client.ts` implements it over HTTPS.
import type { KindRef, KubeObject } from '../../kube/object.js';
import type { ObjectKey } from '../../kube/keys.js';

/** A resource as discovery describes it. */
export interface ResourceInfo {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  subresources: string[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: WatchEventType;
  /** For ERROR events a Status object (e.g. 410 Expired). */
  object: T;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size; `list` follows `continue` tokens until done unless `continue`/`singlePage` is given. */
  limit?: number;
  continue?: string;
  singlePage?: boolean;
  resourceVersion?: string;
  signal?: AbortSignal;
}

export interface ListResult<T extends KubeObject> {
  items: T[];
  resourceVersion: string;
  continue?: string;
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  /** Ends the watch (the async iterator then finishes). */
  signal?: AbortSignal;
}

export interface WriteOptions {
  fieldManager?: string;
  dryRun?: boolean;
  signal?: AbortSignal;
}

export interface ApplyOptions extends WriteOptions {
  fieldManager: string;
  force?: boolean;
  subresource?: 'status';
}

export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  dryRun?: boolean;
  signal?: AbortSignal;
}

export type PatchType = 'merge' | 'json' | 'strategic';

export interface Client {
  /** A name for logs and metrics (the cluster this client talks to). */
  readonly cluster: string;
  get<T extends KubeObject = KubeObject>(kind: KindRef, key: ObjectKey, opts?: { signal?: AbortSignal }): Promise<T>;
  list<T extends KubeObject = KubeObject>(kind: KindRef, opts?: ListOptions): Promise<ListResult<T>>;
  create<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T>;
  /** PUT with the object's resourceVersion (optimistic concurrency). */
  update<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T>;
  updateStatus<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T>;
  patch<T extends KubeObject = KubeObject>(kind: KindRef, key: ObjectKey, type: PatchType, patch: unknown, opts?: WriteOptions & { subresource?: 'status' | 'scale' }): Promise<T>;
  /** Server-side apply of a (partial) object. */
  apply<T extends KubeObject>(obj: T, opts: ApplyOptions): Promise<T>;
  delete(kind: KindRef, key: ObjectKey, opts?: DeleteOptions): Promise<void>;
  /** Watch events until the server ends the stream, the signal aborts, or an error is thrown. */
  watch<T extends KubeObject = KubeObject>(kind: KindRef, opts?: WatchOptions): AsyncIterable<WatchEvent<T>>;
  /** Discovery: the resource serving a kind; refreshes discovery once when the kind is unknown. */
  resourceFor(kind: KindRef): Promise<ResourceInfo>;
  /** Releases connections. */
  close(): void;
}
