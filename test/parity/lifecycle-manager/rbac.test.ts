// Upstream's rbac-privileges scenario (kyma-project/lifecycle-manager tests/e2e
// rbac_privileges_test.go): the lifecycle manager's ServiceAccount has exactly the ClusterRoleBindings
// and RoleBindings it should, with exactly the rules it should. Here `kcp install` is applied to an
// embedded API server and read back through the API, as upstream reads its deployed RBAC; the rules
// of the lifecycle manager's resources are compared with upstream's, and every difference must be
// one of those listed below (and documented in docs/upstream-parity.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { CONTROLLERS_NAME, install } from '../../../src/cli/install.js';
import { clientFromKubeconfig, type HttpClient } from '../../../src/runtime/client/index.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { startWithKinds, type ApiTestEnv } from '../../support/api.js';

const NS = 'kcp-system';

interface Rule {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}
type RbacObject = KubeObject & { rules?: Rule[]; roleRef?: { kind: string; name: string }; subjects?: { kind: string; name: string; namespace?: string }[] };

/** Upstream's expected rules in kcp-system: the manager role and the leader-election role (upstream's test, verbatim in content). */
const UPSTREAM: Rule[] = [
  { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'get', 'list', 'patch', 'watch'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'delete', 'get', 'list', 'update', 'watch'] },
  { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions/status'], verbs: ['update'] },
  { apiGroups: ['cert-manager.io'], resources: ['certificates'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
  { apiGroups: ['cert-manager.io'], resources: ['issuers'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['networking.istio.io'], resources: ['gateways'], verbs: ['get', 'list'] },
  { apiGroups: ['networking.istio.io'], resources: ['virtualservices'], verbs: ['create', 'delete', 'get', 'list', 'update'] },
  { apiGroups: ['operator.kyma-project.io'], resources: ['kymas'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
  { apiGroups: ['operator.kyma-project.io'], resources: ['kymas/finalizers'], verbs: ['update'] },
  { apiGroups: ['operator.kyma-project.io'], resources: ['kymas/status'], verbs: ['get', 'patch', 'update', 'watch'] },
  { apiGroups: ['operator.kyma-project.io'], resources: ['manifests'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
  { apiGroups: ['operator.kyma-project.io'], resources: ['manifests/finalizers'], verbs: ['update'] },
  { apiGroups: ['operator.kyma-project.io'], resources: ['manifests/status'], verbs: ['get', 'patch', 'update'] },
  { apiGroups: ['operator.kyma-project.io'], resources: ['modulereleasemetas'], verbs: ['get', 'list'] },
  { apiGroups: ['operator.kyma-project.io'], resources: ['moduletemplates'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
  { apiGroups: ['operator.kyma-project.io'], resources: ['moduletemplates/finalizers'], verbs: ['update'] },
  { apiGroups: ['operator.kyma-project.io'], resources: ['watchers'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
  { apiGroups: ['operator.kyma-project.io'], resources: ['watchers/finalizers'], verbs: ['update'] },
  { apiGroups: ['operator.kyma-project.io'], resources: ['watchers/status'], verbs: ['get', 'patch', 'update'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
];

/** `group/resource` -> the verbs granted here where they differ from upstream's (reasons in docs/upstream-parity.md). */
const DIFFERENCES: Record<string, string[]> = {
  // Leader election and sharding use Leases only; events are written as events.k8s.io/v1.
  '/configmaps': [],
  '/events': [],
  // One Secret rule for both managers: the infrastructure manager patches kubeconfig Secrets.
  '/secrets': ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  // No Services read, no CRD status written, no cert-manager (the watcher has its own CA, docs/watcher-pki.md).
  '/services': [],
  'apiextensions.k8s.io/customresourcedefinitions/status': [],
  'cert-manager.io/certificates': [],
  'cert-manager.io/issuers': [],
  // Kymas are created and deleted by the broker; `watch` on a status subresource grants nothing.
  'operator.kyma-project.io/kymas': ['get', 'list', 'patch', 'update', 'watch'],
  'operator.kyma-project.io/kymas/status': ['get', 'patch', 'update'],
  // ModuleReleaseMetas are watched (informer) and get the mandatory-module finalizer (patch).
  'operator.kyma-project.io/modulereleasemetas': ['get', 'list', 'patch', 'watch'],
  // The catalog is read-only: no mandatory-module label written onto ModuleTemplates.
  'operator.kyma-project.io/moduletemplates': ['get', 'list', 'watch'],
  'operator.kyma-project.io/moduletemplates/finalizers': [],
};

const sorted = (verbs: Iterable<string>) => [...new Set(verbs)].sort();

/** The verbs the rules grant on `group/resource` (no resourceNames restriction). */
function grantedVerbs(rules: Rule[], group: string, resource: string): string[] {
  return sorted(rules.filter((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && !r.resourceNames).flatMap((r) => r.verbs));
}

describe('parity: lifecycle manager RBAC', () => {
  let api: ApiTestEnv;
  let kcp: HttpClient;

  before(async () => {
    api = await startWithKinds([], []);
    kcp = clientFromKubeconfig(api.server.clusterAccess('default').kubeconfig, { retries: 1 });
    await install(kcp, { namespace: NS });
  });

  after(async () => {
    kcp.close();
    await api.stop();
  });

  const boundToControllers = (b: RbacObject) => (b.subjects ?? []).some((s) => s.kind === 'ServiceAccount' && s.name === CONTROLLERS_NAME && s.namespace === NS);

  it('rbac-privileges: the controllers\' ServiceAccount has one ClusterRoleBinding and one RoleBinding, and grants on the lifecycle manager\'s resources differ from upstream\'s only as documented', async () => {
    const crbs = (await kcp.list<RbacObject>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' })).items.filter(boundToControllers);
    assert.equal(crbs.length, 1, 'one ClusterRoleBinding (upstream: one, to klm-controller-manager-crds)');
    const clusterRole = await kcp.get<RbacObject>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' }, { name: crbs[0].roleRef?.name ?? '' });
    // Upstream's cluster-wide rules are reading CRDs and writing their status; here reading them (and keeping the one admission webhook configuration, by name).
    assert.deepEqual(grantedVerbs(clusterRole.rules ?? [], 'apiextensions.k8s.io', 'customresourcedefinitions'), ['get', 'list', 'watch']);
    assert.deepEqual(grantedVerbs(clusterRole.rules ?? [], 'apiextensions.k8s.io', 'customresourcedefinitions/status'), []);
    assert.deepEqual((clusterRole.rules ?? []).filter((r) => r.resourceNames).map((r) => [r.resources, r.resourceNames, r.verbs]), [[['validatingwebhookconfigurations'], [`kcp-runtime-admission-${NS}`], ['get', 'update']]]);

    const rbs = (await kcp.list<RbacObject>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' }, { namespace: NS })).items.filter(boundToControllers);
    assert.equal(rbs.length, 1, 'one RoleBinding in kcp-system (upstream: two, the manager role and the leader-election role)');
    assert.equal(rbs[0].roleRef?.kind, 'Role');
    const role = await kcp.get<RbacObject>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' }, { namespace: NS, name: rbs[0].roleRef?.name ?? '' });
    for (const namespace of ['istio-system', 'kyma-system']) {
      const other = await kcp.list<RbacObject>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' }, { namespace });
      assert.equal(other.items.filter(boundToControllers).length, 0, `no RoleBinding in ${namespace} (upstream: cert-manager in istio-system, the single-cluster runtime Role in kyma-system)`);
    }

    // Everything the ServiceAccount may do in kcp-system: its Role plus the ClusterRole bound cluster-wide.
    const rules = [...(role.rules ?? []), ...(clusterRole.rules ?? [])];
    const differences: Record<string, string[]> = {};
    for (const u of UPSTREAM) {
      const [group, resource] = [u.apiGroups[0], u.resources[0]];
      const here = grantedVerbs(rules, group, resource);
      if (!isDeepStrictEqual(here, sorted(u.verbs))) differences[`${group}/${resource}`] = here;
    }
    assert.deepEqual(differences, DIFFERENCES);
  });
});
