// One cluster-admin ClusterRoleBinding per administrator of the Runtime (upstream
// sFnApplyClusterRoleBindings): generated names `admin-xxxxx`, labels `app: kyma` and
// `reconciler.kyma-project.io/managed-by: infrastructure-manager`. Only bindings carrying those
// labels are ever deleted; bindings someone else created are left alone, even for an administrator.
import { isNotFound } from '../../runtime/client/errors.js';
import type { Client } from '../../runtime/client/interface.js';
import type { KubeObject } from '../../kube/object.js';
import { ADMIN_BINDING_PREFIX, adminBindingLabels, CLUSTER_ADMIN_ROLE, FIELD_MANAGER } from './constants.js';

export const CLUSTER_ROLE_BINDING_KIND = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' } as const;
const RBAC_GROUP = 'rbac.authorization.k8s.io';

interface Subject {
  kind: string;
  name: string;
  apiGroup?: string;
  namespace?: string;
}

export interface ClusterRoleBindingObject extends KubeObject {
  subjects?: Subject[];
  roleRef: { apiGroup: string; kind: string; name: string };
}

export interface AdministratorsOutcome {
  created: string[];
  deleted: string[];
  /** Administrators that already had a binding of the control plane. */
  kept: string[];
}

function managedByControlPlane(b: ClusterRoleBindingObject): boolean {
  const labels = b.metadata.labels ?? {};
  return Object.entries(adminBindingLabels).every(([k, v]) => labels[k] === v);
}

function isClusterAdmin(b: ClusterRoleBindingObject): boolean {
  return b.roleRef.kind === 'ClusterRole' && b.roleRef.name === CLUSTER_ADMIN_ROLE;
}

function userSubjects(b: ClusterRoleBindingObject): string[] {
  return (b.subjects ?? []).filter((s) => s.kind === 'User').map((s) => s.name);
}

export function adminBinding(user: string): ClusterRoleBindingObject {
  return {
    ...CLUSTER_ROLE_BINDING_KIND,
    metadata: { generateName: ADMIN_BINDING_PREFIX, labels: { ...adminBindingLabels } },
    subjects: [{ kind: 'User', name: user, apiGroup: RBAC_GROUP }],
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: CLUSTER_ADMIN_ROLE },
  };
}

/** Makes the control plane's admin bindings match `administrators`. */
export async function reconcileAdministrators(remote: Client, administrators: readonly string[], signal?: AbortSignal): Promise<AdministratorsOutcome> {
  const labelSelector = Object.entries(adminBindingLabels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const { items } = await remote.list<ClusterRoleBindingObject>(CLUSTER_ROLE_BINDING_KIND, { labelSelector, signal });
  const ours = items.filter((b) => managedByControlPlane(b) && isClusterAdmin(b));
  const wanted = new Set(administrators);

  const deleted: string[] = [];
  for (const b of ours) {
    if (userSubjects(b).some((u) => wanted.has(u))) continue;
    try {
      await remote.delete(CLUSTER_ROLE_BINDING_KIND, { name: b.metadata.name ?? '' }, { signal, preconditions: b.metadata.uid ? { uid: b.metadata.uid } : undefined });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    deleted.push(b.metadata.name ?? '');
  }

  const covered = new Set(ours.flatMap(userSubjects));
  const created: string[] = [];
  const kept: string[] = [];
  for (const user of wanted) {
    if (covered.has(user)) {
      kept.push(user);
      continue;
    }
    const b = await remote.create(adminBinding(user), { fieldManager: FIELD_MANAGER, signal });
    created.push(b.metadata.name ?? '');
  }
  return { created, deleted, kept };
}
