// The inventory of a Manifest (`status.synced`): which objects it applied, how to name them, in
// which order to apply and to delete them.
import { type KubeObject, splitApiVersion } from '../../kube/object.js';

/** One entry of `status.synced` (upstream shared.Resource). */
export interface ResourceRef {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
}

export function refOf(obj: KubeObject): ResourceRef {
  const { group, version } = splitApiVersion(obj.apiVersion);
  return { group, version, kind: obj.kind, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' };
}

/** Version-independent identity: a new module version may serve an object under another version. */
export function refKey(r: ResourceRef): string {
  return `${r.group}/${r.kind}/${r.namespace}/${r.name}`;
}

export function apiVersionOf(r: { group: string; version: string }): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

export function describeRef(r: ResourceRef): string {
  const kind = r.group ? `${r.kind}.${r.group}` : r.kind;
  return r.namespace ? `${kind} ${r.namespace}/${r.name}` : `${kind} ${r.name}`;
}

/** Entries of `previous` that `next` no longer lists. */
export function removedRefs(previous: readonly ResourceRef[], next: readonly ResourceRef[]): ResourceRef[] {
  const keep = new Set(next.map(refKey));
  return previous.filter((r) => !keep.has(refKey(r)));
}

/** `a` followed by the entries of `b` not in `a`. */
export function unionRefs(a: readonly ResourceRef[], b: readonly ResourceRef[]): ResourceRef[] {
  const seen = new Set(a.map(refKey));
  return [...a, ...b.filter((r) => !seen.has(refKey(r)))];
}

const RBAC_KINDS = new Set(['ServiceAccount', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

export const isCrd = (r: { kind: string; group?: string }): boolean => r.kind === 'CustomResourceDefinition';

/**
 * Apply phases: CRDs (then wait until they are established), Namespaces, service accounts and
 * RBAC, everything else, and last custom resources of the module's own CRDs.
 */
export type ApplyPhase = 0 | 1 | 2 | 3 | 4;

export function applyPhase(obj: KubeObject, moduleGroupKinds: ReadonlySet<string>): ApplyPhase {
  if (obj.kind === 'CustomResourceDefinition') return 0;
  if (obj.kind === 'Namespace' && obj.apiVersion === 'v1') return 1;
  if (RBAC_KINDS.has(obj.kind)) return 2;
  if (moduleGroupKinds.has(`${splitApiVersion(obj.apiVersion).group}/${obj.kind}`)) return 4;
  return 3;
}

/** Objects grouped by apply phase, each group in manifest order. */
export function applyPhases(objects: readonly KubeObject[]): KubeObject[][] {
  const groupKinds = new Set<string>();
  for (const o of objects) {
    if (o.kind !== 'CustomResourceDefinition') continue;
    const spec = o.spec as { group?: string; names?: { kind?: string } } | undefined;
    if (spec?.group && spec.names?.kind) groupKinds.add(`${spec.group}/${spec.names.kind}`);
  }
  const phases: KubeObject[][] = [[], [], [], [], []];
  for (const o of objects) phases[applyPhase(o, groupKinds)].push(o);
  return phases.filter((p) => p.length > 0);
}

/**
 * Kinds the module's operator needs to clean up after its custom resources (upstream
 * IsOperatorRelatedResources): deleted only after everything else is gone.
 */
const OPERATOR_RELATED = new Set(['CustomResourceDefinition', 'Namespace', 'ServiceAccount', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding', 'Service', 'Deployment']);

/** Deletion phases: first the objects the operator manages (custom resources, config), then the operator and its API. */
export function deletionPhases(refs: readonly ResourceRef[]): ResourceRef[][] {
  const managed: ResourceRef[] = [];
  const operator: ResourceRef[] = [];
  for (const r of refs) {
    (OPERATOR_RELATED.has(r.kind) ? operator : managed).push(r);
  }
  return [managed.reverse(), operator.reverse()].filter((p) => p.length > 0);
}
