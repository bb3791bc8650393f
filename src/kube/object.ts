// The shapes of Kubernetes objects, one family for the whole project: the embedded API server, the
// controller runtime, the API kinds of src/api and the controllers all use these.
import type { JsonObject } from './json.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: ManagedFieldsEntry[];
  [key: string]: unknown;
}

/**
 * An object of which only the metadata is certain: what the API server receives and handles (a
 * request body may leave apiVersion and kind out; the server knows them from the URL).
 */
export interface ObjectWithMeta {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

/** Any Kubernetes object, its kind named. Typed kinds narrow it (`spec`, `status`). */
export interface KubeObject extends ObjectWithMeta {
  apiVersion: string;
  kind: string;
}

/** What names a kind: `{ apiVersion: 'apps/v1', kind: 'Deployment' }` (API kinds of src/api fit this). */
export interface KindRef {
  apiVersion: string;
  kind: string;
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}
