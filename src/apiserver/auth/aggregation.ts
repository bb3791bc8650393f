// ClusterRole aggregation, as kube-controller-manager's clusterrole-aggregation controller does it:
// a ClusterRole with an aggregationRule gets as its rules those of every other ClusterRole matching
// one of its selectors, in name order and each rule once. Any ClusterRole change re-evaluates every
// aggregating role, so nested aggregation (view -> edit -> admin) settles in a few passes.
import type { LogicalCluster } from '../cluster.js';
import { BUILTIN_TYPES } from '../resources.js';
import { type LabelSelector, labelSelectorFromObject, matchesLabels } from '../../kube/labels.js';
import { jsonEqual } from '../../kube/json.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { RBAC_GROUP } from './rbac.js';

export const CLUSTER_ROLE = BUILTIN_TYPES.find((t) => t.group === RBAC_GROUP && t.kind === 'ClusterRole')!;
const MANAGER = 'clusterrole-aggregation-controller';

type ClusterRoleObject = ObjectWithMeta & { rules?: unknown[]; aggregationRule?: { clusterRoleSelectors?: unknown[] } };

/** The role's selectors; one that is not an object selects nothing (as a nil selector does in kube). */
function selectorsOf(role: ClusterRoleObject): LabelSelector[] {
  return (role.aggregationRule?.clusterRoleSelectors ?? []).map((s) => labelSelectorFromObject(s)).filter((s): s is LabelSelector => s !== undefined);
}

/** Brings every aggregating ClusterRole of `cluster` up to date with the roles it selects. */
export async function aggregateClusterRoles(cluster: LogicalCluster): Promise<void> {
  const all = cluster.list(CLUSTER_ROLE, undefined).items.map((o) => JSON.parse(o.json) as ClusterRoleObject);
  const sorted = [...all].sort((a, b) => byName(a, b));
  for (const role of sorted) {
    if (!role.aggregationRule) continue;
    const selectors = selectorsOf(role);
    const rules: unknown[] = [];
    for (const other of sorted) {
      if (other.metadata.name === role.metadata.name) continue;
      if (!selectors.some((s) => matchesLabels(s, other.metadata.labels ?? {}))) continue;
      for (const r of other.rules ?? []) if (!rules.some((x) => jsonEqual(x, r))) rules.push(r);
    }
    if (jsonEqual(rules, role.rules ?? [])) continue;
    await cluster.updateInternal(CLUSTER_ROLE, { ...role, rules }, MANAGER);
  }
}

/** Go's sort by name: by UTF-16 code unit (byte order for the ASCII names roles have), not by locale. */
export function byName(a: ObjectWithMeta, b: ObjectWithMeta): number {
  const x = a.metadata.name ?? '';
  const y = b.metadata.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}
