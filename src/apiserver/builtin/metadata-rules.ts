// What the strategies of the built-in kinds do with metadata on update (kube-apiserver's
// pkg/registry/<group>/<kind>/strategy.go), as data per kind:
// - An update through `/status` keeps the request's metadata except what the kind's status strategy
//   takes from the stored object (its PrepareForUpdate; its GetResetFields say the same to field
//   management), and keeps the stored spec. Every kind below resets its spec; Deployment also its
//   labels, Pod its ownerReferences and deletionTimestamp.
// - An update of the main resource bumps metadata.generation when the spec changes (cluster.ts) and,
//   for some kinds, when metadata changes too (Deployment: annotations, which its ReplicaSets copy).

/** Metadata fields (ObjectMeta JSON names) a kind's status strategy takes from the stored object. */
const STATUS_RESETS = new Map<string, readonly string[] | 'all'>([
  ['/Namespace', []],
  ['/Service', []],
  ['/Pod', ['deletionTimestamp', 'ownerReferences']],
  ['/PersistentVolumeClaim', []],
  ['/Node', []],
  ['apps/Deployment', ['labels']],
  ['apps/StatefulSet', []],
  ['apps/DaemonSet', []],
  ['apps/ReplicaSet', []],
  ['batch/Job', []],
  ['batch/CronJob', []],
  ['networking.k8s.io/Ingress', []],
  ['policy/PodDisruptionBudget', []],
  ['autoscaling/HorizontalPodAutoscaler', []],
  // ResetObjectMetaForStatus, and GetResetFields names all of metadata. (Upstream's call passes the
  // new object twice, a no-op reported as kubernetes/kubernetes#137681; this server resets as meant.)
  ['apiextensions.k8s.io/CustomResourceDefinition', 'all'],
]);

/** Metadata fields whose change on a main-resource update bumps metadata.generation, besides the spec. */
const GENERATION_METADATA = new Map<string, readonly string[]>([['apps/Deployment', ['annotations']]]);

/**
 * The metadata fields an update through `/status` of the kind takes from the stored object; the rest
 * of the request's metadata is kept. `undefined`: none of it is kept (kinds not listed).
 */
export function statusMetadataResets(group: string, kind: string): readonly string[] | undefined {
  const r = STATUS_RESETS.get(`${group}/${kind}`);
  return r === 'all' ? undefined : r;
}

/** Metadata fields besides the spec whose change bumps the kind's metadata.generation. */
export function generationMetadata(group: string, kind: string): readonly string[] {
  return GENERATION_METADATA.get(`${group}/${kind}`) ?? [];
}
