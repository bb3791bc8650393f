// Rendering: the module's objects as fetched become the objects to apply, with the labels and
// annotations upstream's post-render transforms add and namespaces defaulted.
import { canonicalJson } from '../../kube/json.js';
import { createHash } from 'node:crypto';
import { Annotations, Labels, type ManifestObject } from '../../api/operator/index.js';
import { isNoKindMatch } from '../../runtime/client/discovery.js';
import { isNotFound } from '../../runtime/client/errors.js';
import type { Client } from '../../runtime/client/interface.js';
import { type KubeObject, splitApiVersion } from '../../kube/object.js';
import { COMPONENT_LABEL, DEFAULT_NAMESPACE, DISCLAIMER_ANNOTATION, DISCLAIMER_TEXT, MODULE_RESOURCE_MANAGED_BY, PART_OF_KYMA, PART_OF_LABEL } from './constants.js';
import { RenderError } from './errors.js';
import { addImagePullSecret, localizeImages } from './images.js';

export { RenderError };

/** Built-in cluster-scoped kinds, known without asking discovery. */
const CLUSTER_SCOPED_BUILTINS = new Set([
  '/Namespace',
  '/Node',
  '/PersistentVolume',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'scheduling.k8s.io/PriorityClass',
  'storage.k8s.io/StorageClass',
  'storage.k8s.io/CSIDriver',
  'networking.k8s.io/IngressClass',
  'node.k8s.io/RuntimeClass',
  'apiregistration.k8s.io/APIService',
]);
const NAMESPACED_BUILTINS = new Set([
  '/ConfigMap', '/Secret', '/Service', '/ServiceAccount', '/Pod', '/PersistentVolumeClaim', '/Endpoints',
  'apps/Deployment', 'apps/StatefulSet', 'apps/DaemonSet', 'apps/ReplicaSet', 'batch/Job', 'batch/CronJob',
  'rbac.authorization.k8s.io/Role', 'rbac.authorization.k8s.io/RoleBinding', 'policy/PodDisruptionBudget',
  'networking.k8s.io/NetworkPolicy', 'networking.k8s.io/Ingress', 'autoscaling/HorizontalPodAutoscaler',
  'coordination.k8s.io/Lease',
]);

/** Scope of custom kinds the manifest itself defines (`group/Kind` -> namespaced). */
function scopesFromCrds(objects: readonly KubeObject[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const o of objects) {
    if (o.kind !== 'CustomResourceDefinition') continue;
    const spec = o.spec as { group?: string; scope?: string; names?: { kind?: string } } | undefined;
    if (spec?.group && spec.names?.kind) out.set(`${spec.group}/${spec.names.kind}`, spec.scope !== 'Cluster');
  }
  return out;
}

async function isNamespaced(obj: KubeObject, crdScopes: Map<string, boolean>, client: Client, signal: AbortSignal): Promise<boolean> {
  const gk = `${splitApiVersion(obj.apiVersion).group}/${obj.kind}`;
  if (CLUSTER_SCOPED_BUILTINS.has(gk)) return false;
  if (NAMESPACED_BUILTINS.has(gk)) return true;
  const fromCrd = crdScopes.get(gk);
  if (fromCrd !== undefined) return fromCrd;
  if (signal.aborted) throw signal.reason;
  try {
    return (await client.resourceFor(obj)).namespaced;
  } catch (e) {
    // An unknown kind is the manifest's fault; an unreachable cluster is not.
    if (isNoKindMatch(e) || isNotFound(e)) throw new RenderError(`no matches for kind ${obj.kind} in version ${obj.apiVersion}`);
    throw e;
  }
}

export interface RenderOptions {
  /** The runtime image-pull Secret: added to the imagePullSecrets and env of Deployments and StatefulSets. */
  imagePullSecret?: string;
}

/** The objects to apply for a Manifest: copies of `fetched` with managed-by labels, owned-by annotation and namespaces. */
export async function renderObjects(fetched: readonly KubeObject[], manifest: ManifestObject, client: Client, signal: AbortSignal, opts: RenderOptions = {}): Promise<KubeObject[]> {
  const crdScopes = scopesFromCrds(fetched);
  const ownedBy = `${manifest.metadata.namespace ?? ''}/${manifest.metadata.name ?? ''}`;
  const out: KubeObject[] = [];
  const seen = new Set<string>();
  for (const src of fetched) {
    if (!src.apiVersion || !src.kind || !src.metadata?.name) throw new RenderError(`an object of the manifest has no apiVersion, kind or metadata.name (${src.kind ?? '?'} ${src.metadata?.name ?? '?'})`);
    const obj = structuredClone(src);
    const namespaced = await isNamespaced(obj, crdScopes, client, signal);
    if (namespaced) obj.metadata.namespace = obj.metadata.namespace || DEFAULT_NAMESPACE;
    else delete obj.metadata.namespace;
    obj.metadata.labels = { ...obj.metadata.labels, [Labels.ManagedBy]: MODULE_RESOURCE_MANAGED_BY, [COMPONENT_LABEL]: manifest.metadata.name ?? '', [PART_OF_LABEL]: PART_OF_KYMA };
    obj.metadata.annotations = { ...obj.metadata.annotations, [Annotations.OwnedBy]: ownedBy, [DISCLAIMER_ANNOTATION]: DISCLAIMER_TEXT };
    // Server-side apply rejects these; a manifest exported from a cluster may carry them.
    for (const k of ['resourceVersion', 'uid', 'creationTimestamp', 'managedFields', 'generation'] as const) delete obj.metadata[k];
    delete obj.status;
    const key = `${obj.apiVersion}/${obj.kind}/${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
    if (seen.has(key)) throw new RenderError(`the manifest lists ${obj.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name} twice`);
    seen.add(key);
    out.push(obj);
  }
  localizeImages(out, manifest.spec.localizedImages);
  if (opts.imagePullSecret) addImagePullSecret(out, opts.imagePullSecret);
  return out;
}

/** A stable fingerprint of what is to be applied: equal hashes need no new apply. */
export function hashObjects(objects: readonly KubeObject[]): string {
  const h = createHash('sha256');
  for (const o of objects) h.update(canonicalJson(o)).update('\n');
  return h.digest('hex');
}
