// The kubeconfig Secret of a GardenerCluster: its desired shape, and finding it.
import { createHash } from 'node:crypto';
import {
  AnnotationKubeconfigExpiration,
  AnnotationKubeconfigSha256,
  AnnotationKubeconfigShoot,
  AnnotationLastKubeconfigSync,
  type GardenerClusterObject,
  LabelClusterCRName,
  LabelKymaManagedBy,
  ManagedByInfrastructureManager,
} from '../../api/infrastructuremanager/index.js';
import type { KubeObject } from '../../kube/object.js';
import { loadKubeconfig } from '../../runtime/client/kubeconfig.js';

export const SECRET_KIND = { apiVersion: 'v1', kind: 'Secret' } as const;

export interface SecretObject extends KubeObject {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** Labels of the Secret: the GardenerCluster's own labels plus managed-by and cluster-name (as upstream). */
export function secretLabels(cluster: GardenerClusterObject): Record<string, string> {
  return {
    ...(cluster.metadata.labels ?? {}),
    [LabelKymaManagedBy]: ManagedByInfrastructureManager,
    [LabelClusterCRName]: cluster.metadata.name ?? '',
  };
}

/** Selects the Secrets written for a GardenerCluster of this name. */
export function secretSelector(clusterName: string): string {
  return `${LabelKymaManagedBy}=${ManagedByInfrastructureManager},${LabelClusterCRName}=${clusterName}`;
}

/** The kubeconfig from a Secret's data, or undefined. */
export function kubeconfigIn(secret: SecretObject | undefined, key: string): string | undefined {
  const encoded = secret?.data?.[key];
  return encoded ? Buffer.from(encoded, 'base64').toString('utf8') : undefined;
}

/** What a sync writes: the kubeconfig, when it was fetched, and when its credential expires (if known). */
export interface SyncedKubeconfig {
  kubeconfig: string;
  lastSync: string;
  expiresAt?: string;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function syncAnnotations(sync: SyncedKubeconfig, cluster: GardenerClusterObject): Record<string, string> {
  return {
    [AnnotationLastKubeconfigSync]: sync.lastSync,
    ...(sync.expiresAt ? { [AnnotationKubeconfigExpiration]: sync.expiresAt } : {}),
    [AnnotationKubeconfigShoot]: cluster.spec.shoot.name,
    [AnnotationKubeconfigSha256]: sha256(sync.kubeconfig),
  };
}

/**
 * Why the Secret does not hold a usable kubeconfig of the GardenerCluster's Shoot, or undefined when
 * it does: the key is missing; the kubeconfig differs from the one written (its SHA-256 annotation);
 * it was issued for another Shoot (its shoot annotation); the labels the readers select it by are
 * gone. A Secret written before these annotations existed is only parsed (a current context with a
 * server); it gets them with its next rotation.
 */
export function kubeconfigProblem(secret: SecretObject, cluster: GardenerClusterObject): string | undefined {
  const key = cluster.spec.kubeconfig.secret.key;
  const text = kubeconfigIn(secret, key);
  if (text === undefined) return `key ${key} is missing`;
  const annotations = secret.metadata.annotations ?? {};
  const issuedFor = annotations[AnnotationKubeconfigShoot];
  if (issuedFor !== undefined && issuedFor !== cluster.spec.shoot.name) return `it was issued for shoot ${issuedFor}, not ${cluster.spec.shoot.name}`;
  const digest = annotations[AnnotationKubeconfigSha256];
  if (digest !== undefined) {
    if (digest !== sha256(text)) return 'it is not the kubeconfig written (SHA-256 differs)';
  } else {
    try {
      loadKubeconfig(text);
    } catch (e) {
      return `it cannot be read: ${(e as Error).message}`;
    }
  }
  const missing = Object.entries(secretLabels(cluster)).filter(([k, v]) => secret.metadata.labels?.[k] !== v).map(([k]) => k);
  if (missing.length > 0) return `labels ${missing.join(', ')} are missing or changed`;
  return undefined;
}

/** A new Secret for `cluster` holding the synced kubeconfig. */
export function newKubeconfigSecret(cluster: GardenerClusterObject, sync: SyncedKubeconfig): SecretObject {
  const ref = cluster.spec.kubeconfig.secret;
  const sameNamespace = ref.namespace === cluster.metadata.namespace && cluster.metadata.uid !== undefined;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: ref.name,
      namespace: ref.namespace,
      labels: secretLabels(cluster),
      annotations: syncAnnotations(sync, cluster),
      // Upstream relies on the controller alone to delete the Secret; the owner reference lets the
      // API server's garbage collector delete it too when the controller is down at that moment.
      ...(sameNamespace
        ? { ownerReferences: [{ apiVersion: cluster.apiVersion, kind: cluster.kind, name: cluster.metadata.name ?? '', uid: cluster.metadata.uid ?? '', controller: true, blockOwnerDeletion: false }] }
        : {}),
    },
    type: 'Opaque',
    data: { [ref.key]: Buffer.from(sync.kubeconfig).toString('base64') },
  };
}

/** `existing` with the new kubeconfig, sync annotations and labels (other content kept). */
export function rotatedSecret(existing: SecretObject, cluster: GardenerClusterObject, sync: SyncedKubeconfig): SecretObject {
  const key = cluster.spec.kubeconfig.secret.key;
  const annotations = { ...(existing.metadata.annotations ?? {}) };
  delete annotations[AnnotationKubeconfigExpiration];
  return {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels: { ...(existing.metadata.labels ?? {}), ...secretLabels(cluster) },
      annotations: { ...annotations, ...syncAnnotations(sync, cluster) },
    },
    data: { ...(existing.data ?? {}), [key]: Buffer.from(sync.kubeconfig).toString('base64') },
  };
}
