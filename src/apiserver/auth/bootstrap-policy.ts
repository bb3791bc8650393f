// The default ClusterRoles and ClusterRoleBindings every kube-apiserver creates at start (its
// bootstrap policy): the user-facing roles (cluster-admin, admin, edit, view and the
// aggregate-to-* parts they gather), what every authenticated user may do (discovery, self reviews)
// and system:masters bound to cluster-admin. Facts as of Kubernetes 1.32
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy); the roles of kube's own controllers, nodes and
// schedulers are left out, since no such components run against this server.
import type { LogicalCluster } from '../cluster.js';
import { BUILTIN_TYPES } from '../resources.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { byName } from './aggregation.js';
import { type PolicyRule, RBAC_GROUP, type Subject } from './rbac.js';

const BOOTSTRAP_META = {
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
};
const AGGREGATE_TO = (role: string) => `rbac.authorization.k8s.io/aggregate-to-${role}`;

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const rule = (apiGroups: string[], resources: string[], verbs: string[]): PolicyRule => ({ apiGroups, resources, verbs });
const urls = (nonResourceURLs: string[], verbs: string[]): PolicyRule => ({ nonResourceURLs, verbs });

interface RoleSpec {
  name: string;
  rules?: PolicyRule[];
  aggregateFrom?: string;
  aggregateTo?: string;
}

const ROLES: RoleSpec[] = [
  { name: 'cluster-admin', rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])] },
  { name: 'admin', aggregateFrom: 'admin' },
  { name: 'edit', aggregateFrom: 'edit', aggregateTo: 'admin' },
  { name: 'view', aggregateFrom: 'view', aggregateTo: 'edit' },
  {
    name: 'system:aggregate-to-admin',
    aggregateTo: 'admin',
    rules: [rule(['authorization.k8s.io'], ['localsubjectaccessreviews'], ['create']), rule([RBAC_GROUP], ['rolebindings', 'roles'], READ_WRITE)],
  },
  {
    name: 'system:aggregate-to-edit',
    aggregateTo: 'edit',
    rules: [
      rule([''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'], READ),
      rule([''], ['serviceaccounts'], ['impersonate']),
      rule([''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'], WRITE),
      rule([''], ['pods/eviction'], ['create']),
      rule([''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy'], WRITE),
      rule([''], ['serviceaccounts/token'], ['create']),
      rule(['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale'], WRITE),
      rule(['autoscaling'], ['horizontalpodautoscalers'], WRITE),
      rule(['batch'], ['cronjobs', 'jobs'], WRITE),
      rule(['extensions'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale'], WRITE),
      rule(['policy'], ['poddisruptionbudgets'], WRITE),
      rule(['networking.k8s.io'], ['ingresses', 'networkpolicies'], WRITE),
      rule(['coordination.k8s.io'], ['leases'], READ_WRITE),
    ],
  },
  {
    name: 'system:aggregate-to-view',
    aggregateTo: 'view',
    rules: [
      rule([''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status'], READ),
      rule([''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status'], READ),
      rule([''], ['namespaces'], READ),
      rule(['discovery.k8s.io'], ['endpointslices'], READ),
      rule(['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status'], READ),
      rule(['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'], READ),
      rule(['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], READ),
      rule(['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale'], READ),
      rule(['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status'], READ),
      rule(['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies'], READ),
    ],
  },
  { name: 'system:auth-delegator', rules: [rule(['authentication.k8s.io'], ['tokenreviews'], ['create']), rule(['authorization.k8s.io'], ['subjectaccessreviews'], ['create'])] },
  { name: 'system:basic-user', rules: [rule(['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], ['create']), rule(['authentication.k8s.io'], ['selfsubjectreviews'], ['create'])] },
  { name: 'system:discovery', rules: [urls(['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], ['get'])] },
  { name: 'system:monitoring', rules: [urls(['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'], ['get'])] },
  { name: 'system:public-info-viewer', rules: [urls(['/healthz', '/livez', '/readyz', '/version', '/version/'], ['get'])] },
];

const group = (name: string): Subject => ({ apiGroup: RBAC_GROUP, kind: 'Group', name });

const BINDINGS: { name: string; subjects: Subject[] }[] = [
  { name: 'cluster-admin', subjects: [group('system:masters')] },
  { name: 'system:basic-user', subjects: [group('system:authenticated')] },
  { name: 'system:discovery', subjects: [group('system:authenticated')] },
  { name: 'system:monitoring', subjects: [group('system:monitoring')] },
  { name: 'system:public-info-viewer', subjects: [group('system:authenticated'), group('system:unauthenticated')] },
];

function clusterRole(spec: RoleSpec): ObjectWithMeta {
  const labels: Record<string, string> = { ...BOOTSTRAP_META.labels };
  if (spec.aggregateTo) labels[AGGREGATE_TO(spec.aggregateTo)] = 'true';
  const o: ObjectWithMeta = { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name: spec.name, labels, annotations: { ...BOOTSTRAP_META.annotations } } };
  if (spec.aggregateFrom) o.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [AGGREGATE_TO(spec.aggregateFrom)]: 'true' } }] };
  if (spec.rules) o.rules = spec.rules;
  return o;
}

/**
 * The rules an aggregating role ends up with (what the aggregation controller would write), so a new
 * cluster starts settled instead of rewriting admin, edit and view in three rounds.
 */
function aggregatedRules(name: string, roles: ObjectWithMeta[]): PolicyRule[] {
  const role = roles.find((r) => r.metadata.name === name)!;
  const selector = AGGREGATE_TO(ROLES.find((r) => r.name === name)!.aggregateFrom ?? '');
  const out: PolicyRule[] = [];
  for (const other of [...roles].sort((a, b) => byName(a, b))) {
    if (other === role || other.metadata.labels?.[selector] !== 'true') continue;
    const rules = (other.aggregationRule ? aggregatedRules(other.metadata.name ?? '', roles) : (other.rules as PolicyRule[] | undefined)) ?? [];
    for (const r of rules) if (!out.some((x) => JSON.stringify(x) === JSON.stringify(r))) out.push(r);
  }
  return out;
}

let cached: ObjectWithMeta[] | undefined;

/** The bootstrap ClusterRoles (aggregated ones with their rules) and ClusterRoleBindings, as kube-apiserver creates them. */
export function bootstrapPolicy(): ObjectWithMeta[] {
  if (cached) return cached;
  const roles = ROLES.map(clusterRole);
  for (const r of roles) if (r.aggregationRule) r.rules = aggregatedRules(r.metadata.name ?? '', roles);
  cached = [
    ...roles,
    ...BINDINGS.map((b) => ({
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: b.name, labels: { ...BOOTSTRAP_META.labels }, annotations: { ...BOOTSTRAP_META.annotations } },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: b.name },
      subjects: b.subjects,
    })),
  ];
  return cached;
}

const TYPES = { ClusterRole: BUILTIN_TYPES.find((t) => t.group === RBAC_GROUP && t.kind === 'ClusterRole')!, ClusterRoleBinding: BUILTIN_TYPES.find((t) => t.group === RBAC_GROUP && t.kind === 'ClusterRoleBinding')! };

/**
 * Creates what is missing of the bootstrap policy (at a cluster's creation and after a restore).
 * Existing objects are left as they are: kube reconciles only those still annotated for autoupdate,
 * and only by adding what is missing; nothing here changes between versions yet.
 */
export async function ensureBootstrapPolicy(cluster: LogicalCluster): Promise<void> {
  for (const o of bootstrapPolicy()) {
    const t = TYPES[o.kind as keyof typeof TYPES];
    if (cluster.tryGet(t, '', o.metadata.name ?? '')) continue;
    await cluster.create(t, '', o, { internal: true, fieldManager: 'kube-apiserver' });
  }
}
