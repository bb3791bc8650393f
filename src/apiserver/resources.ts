// The resource types a logical cluster serves: built-in kinds (shared by every cluster) and
// the custom resources of each cluster's CustomResourceDefinitions.

export interface ResourceType {
  group: string;
  version: string;
  resource: string; // plural, lower case
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  /** Has a /status subresource: the main resource ignores status, /status the spec (builtin/metadata-rules.ts: and some metadata). */
  status: boolean;
  /** The server keeps metadata.generation (bumped when anything but metadata and status changes). */
  generation: boolean;
  /** Stored under another type's key (events.k8s.io Events are core Events seen through another API). */
  storedAs?: { group: string; resource: string };
  /** A built-in beta version stored as its group's stable version (batch/v1beta1 CronJobs as batch/v1). */
  storageVersion?: string;
  /** The `Warning` kube-apiserver adds to every request for a deprecated version. */
  deprecation?: string;
  /** Not stored: a POST is answered from the request and the caller (access reviews), nothing else is served. */
  createOnly?: boolean;
  /** Set for custom resources: the CRD's name and the raw version entry. */
  crd?: { name: string; version: Record<string, unknown>; storageVersion: string };
}

export const CRUD_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const CR_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

export function groupVersion(t: { group: string; version: string }): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

/** Key of a resource within a cluster's store: `apps/deployments`, `/configmaps`. */
export function resourceKey(t: { group: string; resource: string; storedAs?: { group: string; resource: string } }): string {
  if (t.storedAs) return `${t.storedAs.group}/${t.storedAs.resource}`;
  return `${t.group}/${t.resource}`;
}

interface Spec {
  g: string;
  v: string;
  r: string;
  k: string;
  ns: boolean;
  short?: string[];
  cat?: string[];
  status?: boolean;
  gen?: boolean;
  verbs?: string[];
  storedAs?: { group: string; resource: string };
  /** A deprecated beta version: the stable version it is stored as, and the releases of its deprecation and removal. */
  beta?: { stored: string; deprecated: string; removed: string };
  createOnly?: boolean;
}

const specs: Spec[] = [
  { g: '', v: 'v1', r: 'namespaces', k: 'Namespace', ns: false, short: ['ns'], status: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
  { g: '', v: 'v1', r: 'configmaps', k: 'ConfigMap', ns: true, short: ['cm'] },
  { g: '', v: 'v1', r: 'secrets', k: 'Secret', ns: true },
  { g: '', v: 'v1', r: 'serviceaccounts', k: 'ServiceAccount', ns: true, short: ['sa'] },
  { g: '', v: 'v1', r: 'services', k: 'Service', ns: true, short: ['svc'], cat: ['all'], status: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
  { g: '', v: 'v1', r: 'endpoints', k: 'Endpoints', ns: true, short: ['ep'] },
  { g: '', v: 'v1', r: 'events', k: 'Event', ns: true, short: ['ev'] },
  { g: '', v: 'v1', r: 'pods', k: 'Pod', ns: true, short: ['po'], cat: ['all'], status: true },
  { g: '', v: 'v1', r: 'nodes', k: 'Node', ns: false, short: ['no'], status: true },
  { g: '', v: 'v1', r: 'persistentvolumeclaims', k: 'PersistentVolumeClaim', ns: true, short: ['pvc'], status: true },
  { g: 'apps', v: 'v1', r: 'deployments', k: 'Deployment', ns: true, short: ['deploy'], cat: ['all'], status: true, gen: true },
  { g: 'apps', v: 'v1', r: 'statefulsets', k: 'StatefulSet', ns: true, short: ['sts'], cat: ['all'], status: true, gen: true },
  { g: 'apps', v: 'v1', r: 'daemonsets', k: 'DaemonSet', ns: true, short: ['ds'], cat: ['all'], status: true, gen: true },
  { g: 'apps', v: 'v1', r: 'replicasets', k: 'ReplicaSet', ns: true, short: ['rs'], cat: ['all'], status: true, gen: true },
  { g: 'batch', v: 'v1', r: 'jobs', k: 'Job', ns: true, cat: ['all'], status: true, gen: true },
  { g: 'batch', v: 'v1', r: 'cronjobs', k: 'CronJob', ns: true, short: ['cj'], cat: ['all'], status: true, gen: true },
  { g: 'batch', v: 'v1beta1', r: 'cronjobs', k: 'CronJob', ns: true, short: ['cj'], cat: ['all'], status: true, gen: true, beta: { stored: 'v1', deprecated: '1.21', removed: '1.25' } },
  { g: 'coordination.k8s.io', v: 'v1', r: 'leases', k: 'Lease', ns: true },
  { g: 'events.k8s.io', v: 'v1', r: 'events', k: 'Event', ns: true, short: ['ev'], storedAs: { group: '', resource: 'events' } },
  { g: 'authentication.k8s.io', v: 'v1', r: 'selfsubjectreviews', k: 'SelfSubjectReview', ns: false, verbs: ['create'], createOnly: true },
  { g: 'authorization.k8s.io', v: 'v1', r: 'selfsubjectaccessreviews', k: 'SelfSubjectAccessReview', ns: false, verbs: ['create'], createOnly: true },
  { g: 'authorization.k8s.io', v: 'v1', r: 'selfsubjectrulesreviews', k: 'SelfSubjectRulesReview', ns: false, verbs: ['create'], createOnly: true },
  { g: 'networking.k8s.io', v: 'v1', r: 'networkpolicies', k: 'NetworkPolicy', ns: true, short: ['netpol'], gen: true },
  { g: 'networking.k8s.io', v: 'v1', r: 'ingresses', k: 'Ingress', ns: true, short: ['ing'], status: true, gen: true },
  { g: 'policy', v: 'v1', r: 'poddisruptionbudgets', k: 'PodDisruptionBudget', ns: true, short: ['pdb'], status: true, gen: true },
  { g: 'policy', v: 'v1beta1', r: 'poddisruptionbudgets', k: 'PodDisruptionBudget', ns: true, short: ['pdb'], status: true, gen: true, beta: { stored: 'v1', deprecated: '1.21', removed: '1.25' } },
  { g: 'scheduling.k8s.io', v: 'v1', r: 'priorityclasses', k: 'PriorityClass', ns: false, short: ['pc'] },
  { g: 'autoscaling', v: 'v2', r: 'horizontalpodautoscalers', k: 'HorizontalPodAutoscaler', ns: true, short: ['hpa'], cat: ['all'], status: true },
  { g: 'autoscaling', v: 'v1', r: 'horizontalpodautoscalers', k: 'HorizontalPodAutoscaler', ns: true, short: ['hpa'], cat: ['all'], status: true },
  { g: 'rbac.authorization.k8s.io', v: 'v1', r: 'roles', k: 'Role', ns: true },
  { g: 'rbac.authorization.k8s.io', v: 'v1', r: 'clusterroles', k: 'ClusterRole', ns: false },
  { g: 'rbac.authorization.k8s.io', v: 'v1', r: 'rolebindings', k: 'RoleBinding', ns: true },
  { g: 'rbac.authorization.k8s.io', v: 'v1', r: 'clusterrolebindings', k: 'ClusterRoleBinding', ns: false },
  { g: 'apiextensions.k8s.io', v: 'v1', r: 'customresourcedefinitions', k: 'CustomResourceDefinition', ns: false, short: ['crd', 'crds'], cat: ['api-extensions'], status: true, gen: true },
  { g: 'admissionregistration.k8s.io', v: 'v1', r: 'validatingwebhookconfigurations', k: 'ValidatingWebhookConfiguration', ns: false, cat: ['api-extensions'], gen: true },
  { g: 'admissionregistration.k8s.io', v: 'v1', r: 'mutatingwebhookconfigurations', k: 'MutatingWebhookConfiguration', ns: false, cat: ['api-extensions'], gen: true },
];

function singularOf(kind: string): string {
  return kind.toLowerCase();
}

export const BUILTIN_TYPES: readonly ResourceType[] = specs.map((s) => ({
  group: s.g,
  version: s.v,
  resource: s.r,
  kind: s.k,
  listKind: `${s.k}List`,
  singular: singularOf(s.k),
  namespaced: s.ns,
  shortNames: s.short ?? [],
  categories: s.cat ?? [],
  verbs: s.verbs ?? CRUD_VERBS,
  status: s.status ?? false,
  generation: s.gen ?? false,
  ...(s.storedAs ? { storedAs: s.storedAs } : {}),
  ...(s.beta
    ? {
        storageVersion: s.beta.stored,
        deprecation: `${groupVersion({ group: s.g, version: s.v })} ${s.k} is deprecated in v${s.beta.deprecated}+, unavailable in v${s.beta.removed}+; use ${groupVersion({ group: s.g, version: s.beta.stored })} ${s.k}`,
      }
    : {}),
  ...(s.createOnly ? { createOnly: true } : {}),
}));

/** The version a type's objects are stored in: a CRD's storage version, a built-in beta version's stable one, else its own. */
export function storageVersionOf(t: ResourceType): string {
  return t.crd?.storageVersion ?? t.storageVersion ?? t.version;
}

/** The preferred (first listed) version of each built-in group, in discovery order. */
export const BUILTIN_GROUP_ORDER: readonly string[] = [...new Set(BUILTIN_TYPES.map((t) => t.group))];

/** Types for the served versions of a CRD (apiextensions.k8s.io/v1 object as JSON). */
export function typesFromCrd(crd: Record<string, unknown>): ResourceType[] {
  const meta = crd.metadata as { name: string };
  const spec = crd.spec as Record<string, unknown>;
  const names = spec.names as Record<string, unknown>;
  const versions = (spec.versions as Record<string, unknown>[]) ?? [];
  const storage = versions.find((v) => v.storage === true);
  const kind = String(names.kind);
  return versions
    .filter((v) => v.served !== false)
    .map((v) => ({
      group: String(spec.group),
      version: String(v.name),
      resource: String(names.plural),
      kind,
      listKind: typeof names.listKind === 'string' ? names.listKind : `${kind}List`,
      singular: typeof names.singular === 'string' && names.singular ? names.singular : kind.toLowerCase(),
      namespaced: spec.scope !== 'Cluster',
      shortNames: (names.shortNames as string[] | undefined) ?? [],
      categories: (names.categories as string[] | undefined) ?? [],
      verbs: CR_VERBS,
      status: typeof v.subresources === 'object' && v.subresources !== null && 'status' in (v.subresources as object),
      generation: true,
      crd: { name: meta.name, version: v, storageVersion: storage ? String(storage.name) : String(v.name) },
    }));
}
