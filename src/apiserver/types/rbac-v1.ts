// k8s.io/api rbac/v1 (fields as of Kubernetes 1.34; unchanged since 1.8).
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.rbac;

definePackage(pkg, {
  PolicyRule: `
    verbs 1 []string
    apiGroups 2 []string omitempty
    resources 3 []string omitempty
    resourceNames 4 []string omitempty
    nonResourceURLs 5 []string omitempty`,
  Subject: `
    kind 1 string
    apiGroup 2 string omitempty
    name 3 string
    namespace 4 string omitempty`,
  RoleRef: `
    apiGroup 1 string
    kind 2 string
    name 3 string`,
  // rules has no omitempty: an empty Role serializes "rules": null.
  Role: `
    metadata 1 meta.ObjectMeta omitempty
    rules 2 []PolicyRule`,
  RoleBinding: `
    metadata 1 meta.ObjectMeta omitempty
    subjects 2 []Subject omitempty
    roleRef 3 RoleRef`,
  RoleBindingList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []RoleBinding`,
  RoleList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Role`,
  ClusterRole: `
    metadata 1 meta.ObjectMeta omitempty
    rules 2 []PolicyRule
    aggregationRule 3 *AggregationRule omitempty`,
  AggregationRule: `
    clusterRoleSelectors 1 []meta.LabelSelector omitempty`,
  ClusterRoleBinding: `
    metadata 1 meta.ObjectMeta omitempty
    subjects 2 []Subject omitempty
    roleRef 3 RoleRef`,
  ClusterRoleBindingList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []ClusterRoleBinding`,
  ClusterRoleList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []ClusterRole`,
});

for (const kind of ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']) {
  defineKind('rbac.authorization.k8s.io', 'v1', kind, `${pkg}.${kind}`);
}
