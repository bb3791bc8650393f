// ClusterRole aggregation, as kube-controller-manager's clusterrole-aggregation controller does it:
// a ClusterRole with an aggregationRule gets as its rules those of every other ClusterRole matching
// one of its selectors, in name order and each rule once. Any ClusterRole change re-evaluates every
// aggregating role, so nested aggregation (view -> edit -> admin) settles in a few passes.
import type { LogicalCluster } from '../cluster.js';
import type { StoredObject } from '../store.js';
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

/**
 * Brings every aggregating ClusterRole of `cluster` up to date with the roles it selects. Roles are
 * selected by the labels the store keeps beside each object, so a pass parses only the aggregating
 * roles and the ones they select (a runtime's module roles usually neither).
 */
export async function aggregateClusterRoles(cluster: LogicalCluster): Promise<void> {
  const all = [...cluster.list(CLUSTER_ROLE, undefined).items].sort((a, b) => byKey(a.name, b.name));
  const parsed = new Map<string, ClusterRoleObject>();
  const parse = (o: StoredObject): ClusterRoleObject => {
    let role = parsed.get(o.name);
    if (!role) parsed.set(o.name, (role = JSON.parse(o.json) as ClusterRoleObject));
    return role;
  };
  for (const stored of all) {
    if (!stored.json.includes('"aggregationRule"')) continue;
    const role = parse(stored);
    if (!role.aggregationRule) continue;
    const selectors = selectorsOf(role);
    const rules: unknown[] = [];
    for (const other of all) {
      if (other.name === stored.name || !selectors.some((s) => matchesLabels(s, other.labels ?? {}))) continue;
      for (const r of parse(other).rules ?? []) if (!rules.some((x) => jsonEqual(x, r))) rules.push(r);
    }
    if (jsonEqual(rules, role.rules ?? [])) continue;
    await cluster.updateInternal(CLUSTER_ROLE, { ...role, rules }, MANAGER);
  }
}

/** Go's sort of names: by UTF-16 code unit (byte order for the ASCII names roles have), not by locale. */
function byKey(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

export function byName(a: ObjectWithMeta, b: ObjectWithMeta): number {
  return byKey(a.metadata.name ?? '', b.metadata.name ?? '');
}
