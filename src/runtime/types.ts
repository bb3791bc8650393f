// Shapes shared by the controller runtime. The runtime talks to any Kubernetes API server over
// HTTP and depends on nothing else of the project (not on the embedded API server).

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

/** Any Kubernetes object. Typed kinds narrow it (`spec`, `status`). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

/** What names a kind: `{ apiVersion: 'apps/v1', kind: 'Deployment' }` (API kinds of src/api fit this). */
export interface KindRef {
  apiVersion: string;
  kind: string;
}

export interface ObjectKey {
  namespace?: string;
  name: string;
}

/** `namespace/name`, or `name` for cluster-scoped objects: the work-queue key of controllers. */
export function keyOf(o: { metadata: { namespace?: string; name?: string } } | ObjectKey): string {
  const m = 'metadata' in o ? o.metadata : o;
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
}

export function parseKey(key: string): ObjectKey {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

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
