// RBAC in the embedded API server, as kube-apiserver with --authorization-mode=RBAC: the bootstrap
// policy, ClusterRole aggregation, a decision for every verb with kube's Forbidden messages, rule
// matching (resource names, subresources, non-resource URLs), escalation prevention for roles and
// bindings, and the rules review. Identities are impersonated by the admin (kubectl --as), whose
// own requests pass as system:masters.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningApiServer } from '../../src/apiserver/server.js';
import { startServerWithAdmin } from '../support/apiserver.js';
import { rawRequest } from '../support/https-raw.js';
import { waitFor } from '../support/wait.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
type Json = Record<string, unknown>;

interface Reply {
  status: number;
  body: Json;
}

describe('RBAC', () => {
  let server: RunningApiServer;
  let stop: () => Promise<void>;
  before(async () => {
    ({ server, stop } = await startServerWithAdmin());
    await server.idle();
  });
  after(() => stop());

  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string | string[]> = {}): Promise<Reply> => {
    const r = await rawRequest({ url: server.url, token: server.adminToken, caPem: server.caPem }, method, path, {
      headers: { ...(body === undefined ? {} : { 'Content-Type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = r.body.toString();
    return { status: r.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  /** Requests as `user` (impersonated), in the groups kube gives a named user unless others are asked. */
  const as =
    (user: string, groups: string[] = []) =>
    (method: string, path: string, body?: unknown) =>
      send(method, path, body, { 'Impersonate-User': user, ...(groups.length > 0 ? { 'Impersonate-Group': groups } : {}) });
  const ok = async (r: Promise<Reply>): Promise<Json> => {
    const reply = await r;
    assert.ok(reply.status < 300, `${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const byAdmin = (method: string, path: string, body?: unknown) => ok(send(method, path, body));
  const clusterRole = async (name: string) => (await byAdmin('GET', `${RBAC}/clusterroles/${name}`)) as Json & { rules?: Json[] };
  const bind = (namespace: string | undefined, name: string, role: { kind: string; name: string }, subjects: Json[]) =>
    byAdmin('POST', namespace ? `${RBAC}/namespaces/${namespace}/rolebindings` : `${RBAC}/clusterrolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: namespace ? 'RoleBinding' : 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...role },
      subjects,
    });
  const user = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });

  it('creates kube-apiserver\'s bootstrap policy, with admin, edit and view aggregated from their parts', async () => {
    const roles = ((await byAdmin('GET', `${RBAC}/clusterroles`)).items as { metadata: { name: string } }[]).map((r) => r.metadata.name);
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:aggregate-to-admin', 'system:aggregate-to-edit', 'system:aggregate-to-view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer']) {
      assert.ok(roles.includes(name), `ClusterRole ${name}`);
    }
    const masters = (await byAdmin('GET', `${RBAC}/clusterrolebindings/cluster-admin`)) as Json;
    assert.deepEqual(masters.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' }]);
    assert.deepEqual((masters.metadata as { labels: Json }).labels, { 'kubernetes.io/bootstrapping': 'rbac-defaults' });
    await waitFor('view is aggregated', async () => ((await clusterRole('view')).rules ?? []).length > 0, 5000);
    const view = (await clusterRole('view')).rules;
    assert.deepEqual(view, (await clusterRole('system:aggregate-to-view')).rules, 'view is exactly its one part');
    await waitFor('admin has everything of edit', async () => {
      const admin = (await clusterRole('admin')).rules ?? [];
      const edit = (await clusterRole('edit')).rules ?? [];
      return edit.length > view!.length && edit.every((r) => admin.some((a) => JSON.stringify(a) === JSON.stringify(r)));
    }, 5000);
  });

  it('aggregates a custom role into view, edit and admin, and takes it out again when its label goes', async () => {
    const rule = { apiGroups: ['operator.kyma-project.io'], resources: ['kymas'], verbs: ['get', 'list', 'watch'] };
    await byAdmin('POST', `${RBAC}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'kyma-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [rule] });
    const holds = async (role: string) => ((await clusterRole(role)).rules ?? []).some((r) => JSON.stringify(r) === JSON.stringify(rule));
    await waitFor('view, edit and admin hold the rule', async () => (await holds('view')) && (await holds('edit')) && (await holds('admin')), 5000);
    await byAdmin('PATCH', `${RBAC}/clusterroles/kyma-view`, { metadata: { labels: { 'rbac.authorization.k8s.io/aggregate-to-view': null } } });
    await waitFor('the rule left view, edit and admin', async () => !(await holds('view')) && !(await holds('edit')) && !(await holds('admin')), 5000);
    assert.ok(((await clusterRole('view')).rules ?? []).length > 0, 'the rest of view stays');
  });

  it('answers every denied verb with kube-apiserver\'s Forbidden message', async () => {
    await byAdmin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'verbs' } });
    await byAdmin('POST', '/api/v1/namespaces/verbs/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } });
    const eve = as('eve');
    const inNs = (verb: string, named: boolean) => `${named ? 'configmaps "cm"' : 'configmaps'} is forbidden: User "eve" cannot ${verb} resource "configmaps" in API group "" in the namespace "verbs"`;
    const cases: [string, Promise<Reply>][] = [
      [inNs('get', true), eve('GET', '/api/v1/namespaces/verbs/configmaps/cm')],
      [inNs('list', false), eve('GET', '/api/v1/namespaces/verbs/configmaps')],
      [inNs('watch', false), eve('GET', '/api/v1/namespaces/verbs/configmaps?watch=true')],
      [inNs('create', false), eve('POST', '/api/v1/namespaces/verbs/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new' } })],
      [inNs('update', true), eve('PUT', '/api/v1/namespaces/verbs/configmaps/cm', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } })],
      [inNs('patch', true), eve('PATCH', '/api/v1/namespaces/verbs/configmaps/cm', { data: { a: 'b' } })],
      [inNs('delete', true), eve('DELETE', '/api/v1/namespaces/verbs/configmaps/cm')],
      [inNs('deletecollection', false), eve('DELETE', '/api/v1/namespaces/verbs/configmaps')],
      ['namespaces is forbidden: User "eve" cannot list resource "namespaces" in API group "" at the cluster scope', eve('GET', '/api/v1/namespaces')],
      ['deployments.apps "d" is forbidden: User "eve" cannot update resource "deployments/scale" in API group "apps" in the namespace "verbs"', eve('PUT', '/apis/apps/v1/namespaces/verbs/deployments/d/scale', { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'd' }, spec: { replicas: 1 } })],
      ['widgets.example.com is forbidden: User "eve" cannot list resource "widgets" in API group "example.com" in the namespace "verbs"', eve('GET', '/apis/example.com/v1/namespaces/verbs/widgets')],
      // Impersonation is itself authorized (a ServiceAccount's own token: impersonation does not nest).
      ['users "bob" is forbidden: User "system:serviceaccount:verbs:eve" cannot impersonate resource "users" in API group "" at the cluster scope', asServiceAccountEve('GET', '/api/v1/namespaces', { 'Impersonate-User': 'bob' })],
    ];
    for (const [message, reply] of cases) {
      const r = await reply;
      assert.deepEqual([r.status, r.body.reason, r.body.message], [403, 'Forbidden', message]);
    }
    const path = await eve('GET', '/logs');
    assert.deepEqual([path.status, path.body.message], [403, 'forbidden: User "eve" cannot get path "/logs"']);
    // Discovery and the version are every authenticated user's (system:discovery).
    assert.equal((await eve('GET', '/api/v1')).status, 200);
    assert.equal((await eve('GET', '/version')).status, 200);
    // The admin went through the same checks all along (control: the requests above were not refused for being malformed).
    assert.equal((await send('GET', '/api/v1/namespaces/verbs/configmaps/cm')).status, 200);
  });

  /** A request with the token of a ServiceAccount `eve` in `verbs`, which has no bindings. */
  async function asServiceAccountEve(method: string, path: string, headers: Record<string, string>): Promise<Reply> {
    await byAdmin('POST', '/api/v1/namespaces/verbs/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'eve' } });
    const tr = await byAdmin('POST', '/api/v1/namespaces/verbs/serviceaccounts/eve/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    const r = await rawRequest({ url: server.url, token: (tr.status as { token: string }).token, caPem: server.caPem }, method, path, { headers });
    return { status: r.status, body: JSON.parse(r.body.toString()) as Json };
  }

  it('says which binding allowed a request, and which missing role left it without rules', async () => {
    await byAdmin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'reasons' } });
    await bind('reasons', 'ghost-binding', { kind: 'ClusterRole', name: 'ghost' }, [user('frank')]);
    const frank = as('frank');
    const denied = await frank('GET', '/api/v1/namespaces/reasons/secrets');
    assert.deepEqual([denied.status, denied.body.message], [403, 'secrets is forbidden: User "frank" cannot list resource "secrets" in API group "" in the namespace "reasons": RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found']);
    await bind('reasons', 'frank-view', { kind: 'ClusterRole', name: 'view' }, [user('frank')]);
    const review = await ok(frank('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { spec: { resourceAttributes: { namespace: 'reasons', verb: 'list', resource: 'configmaps' } } }));
    assert.deepEqual(review.status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "frank-view/reasons" of ClusterRole "view" to User "frank"' });
    const rules = await ok(frank('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: { namespace: 'reasons' } }));
    const status = rules.status as { resourceRules: { verbs: string[]; resources?: string[] }[]; nonResourceRules: { nonResourceURLs?: string[] }[]; incomplete: boolean; evaluationError?: string };
    assert.ok(status.resourceRules.some((r) => r.resources?.includes('configmaps') && r.verbs.includes('list')), 'view\'s rules in the namespace');
    assert.ok(status.resourceRules.some((r) => r.resources?.includes('selfsubjectaccessreviews')), 'system:basic-user\'s rules');
    assert.ok(status.nonResourceRules.some((r) => r.nonResourceURLs?.includes('/version')), 'system:discovery\'s rules');
    assert.equal(status.evaluationError, 'clusterrole.rbac.authorization.k8s.io "ghost" not found');
    const elsewhere = await ok(frank('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: { namespace: 'default' } }));
    assert.ok(!(elsewhere.status as typeof status).resourceRules.some((r) => r.resources?.includes('configmaps')), 'nothing of the RoleBinding in another namespace');
  });

  it('matches rules as kube does: resource names, */subresource, a namespace by its own name, non-resource URL prefixes', async () => {
    await byAdmin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'match' } });
    for (const name of ['mine', 'theirs']) await byAdmin('POST', '/api/v1/namespaces/match/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    await byAdmin('POST', `${RBAC}/namespaces/match/roles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'narrow' },
      rules: [
        { apiGroups: [''], resources: ['configmaps'], resourceNames: ['mine'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['*'], resources: ['*/scale'], verbs: ['get'] },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] },
      ],
    });
    await bind('match', 'grace-narrow', { kind: 'Role', name: 'narrow' }, [user('grace')]);
    await byAdmin('POST', `${RBAC}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'healthz-reader' }, rules: [{ nonResourceURLs: ['/healthz/*'], verbs: ['get'] }] });
    await bind(undefined, 'grace-healthz', { kind: 'ClusterRole', name: 'healthz-reader' }, [user('grace')]);
    const grace = as('grace');
    const can = async (attributes: Json) => ((await ok(grace('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { spec: attributes }))).status as { allowed: boolean }).allowed;

    assert.equal((await grace('GET', '/api/v1/namespaces/match/configmaps/mine')).status, 200);
    assert.equal((await grace('GET', '/api/v1/namespaces/match/configmaps/theirs')).status, 403);
    assert.equal((await grace('GET', '/api/v1/namespaces/match/configmaps')).status, 403, 'a list of all is not one named object');
    const one = await grace('GET', '/api/v1/namespaces/match/configmaps?fieldSelector=metadata.name%3Dmine');
    assert.deepEqual([one.status, (one.body.items as unknown[]).length], [200, 1], 'a list by metadata.name names the object');
    assert.equal(await can({ resourceAttributes: { namespace: 'match', verb: 'get', group: 'apps', resource: 'deployments', subresource: 'scale', name: 'd' } }), true);
    assert.equal(await can({ resourceAttributes: { namespace: 'match', verb: 'get', group: 'apps', resource: 'deployments', name: 'd' } }), false);
    assert.equal((await grace('GET', '/api/v1/namespaces/match')).status, 200, 'a RoleBinding in a namespace covers the namespace itself');
    assert.equal((await grace('GET', '/api/v1/namespaces/default')).status, 403);
    assert.equal(await can({ nonResourceAttributes: { path: '/healthz/etcd', verb: 'get' } }), true);
    assert.equal(await can({ nonResourceAttributes: { path: '/healthzz', verb: 'get' } }), false);
  });

  it('does not serve a watch of a subresource (it would stream the whole object)', async () => {
    await byAdmin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'subwatch' } });
    await byAdmin('POST', '/api/v1/namespaces/subwatch/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
    assert.equal((await send('GET', '/apis/apps/v1/namespaces/subwatch/deployments/d/scale?watch=1')).status, 405);
    assert.equal((await send('GET', '/api/v1/namespaces/subwatch/pods/p/status?watch=true')).status, 405);
  });

  describe('escalation', () => {
    const role = (name: string, rules: Json[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules });
    const kymaRule = { apiGroups: ['operator.kyma-project.io'], resources: ['kymas'], verbs: ['get'] };
    const binding = (name: string, roleRef: Json, subject: Json) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef }, subjects: [subject] });
    let heidi: ReturnType<typeof as>;
    before(async () => {
      await byAdmin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
      // heidi administers the namespace (the admin ClusterRole there): she may write Roles and RoleBindings.
      await bind('team', 'heidi-admin', { kind: 'ClusterRole', name: 'admin' }, [user('heidi')]);
      heidi = as('heidi');
      await waitFor('admin is aggregated', async () => ((await clusterRole('admin')).rules ?? []).some((r) => JSON.stringify(r.resources ?? []).includes('rolebindings')), 5000);
    });

    it('lets a user grant what they hold', async () => {
      await ok(heidi('POST', `${RBAC}/namespaces/team/roles`, role('pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }])));
      await ok(heidi('POST', `${RBAC}/namespaces/team/rolebindings`, binding('ivan-edit', { kind: 'ClusterRole', name: 'edit' }, user('ivan'))));
      assert.equal((await as('ivan')('GET', '/api/v1/namespaces/team/configmaps')).status, 200, 'the binding works');
    });

    it('refuses a Role with rules the author does not hold, listing them as kube does', async () => {
      const r = await heidi('POST', `${RBAC}/namespaces/team/roles`, role('kyma-reader', [kymaRule, { apiGroups: [''], resources: ['pods'], verbs: ['get'] }, { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'get'] }]));
      assert.deepEqual(
        [r.status, r.body.reason, r.body.message],
        [403, 'Forbidden', 'roles.rbac.authorization.k8s.io "kyma-reader" is forbidden: user "heidi" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["list" "get"]}\n{APIGroups:["operator.kyma-project.io"], Resources:["kymas"], Verbs:["get"]}'],
      );
      assert.equal((await send('GET', `${RBAC}/namespaces/team/roles/kyma-reader`)).status, 404, 'nothing was stored');
    });

    it('refuses a binding to a role whose rules the author does not hold, and a binding to a missing role with 404', async () => {
      const r = await heidi('POST', `${RBAC}/namespaces/team/rolebindings`, binding('judy-admin', { kind: 'ClusterRole', name: 'cluster-admin' }, user('judy')));
      assert.equal(r.status, 403);
      assert.match(String(r.body.message), /^rolebindings\.rbac\.authorization\.k8s\.io "judy-admin" is forbidden: user "heidi" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n/);
      assert.match(String(r.body.message), /\{NonResourceURLs:\["\*"\], Verbs:\["\*"\]\}/);
      const missing = await heidi('POST', `${RBAC}/namespaces/team/rolebindings`, binding('judy-ghost', { kind: 'Role', name: 'ghost' }, user('judy')));
      assert.deepEqual([missing.status, missing.body.message], [404, 'roles.rbac.authorization.k8s.io "ghost" not found']);
    });

    it('allows it with the escalate and bind verbs, and refuses an aggregationRule to anyone short of cluster-admin', async () => {
      await byAdmin('POST', `${RBAC}/clusterroles`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'role-granter' },
        rules: [
          { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] },
          { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['cluster-admin'] },
          { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['create', 'patch'] },
        ],
      });
      await bind('team', 'heidi-granter', { kind: 'ClusterRole', name: 'role-granter' }, [user('heidi')]);
      await ok(heidi('POST', `${RBAC}/namespaces/team/roles`, role('kyma-reader', [kymaRule])));
      await ok(heidi('POST', `${RBAC}/namespaces/team/rolebindings`, binding('judy-admin', { kind: 'ClusterRole', name: 'cluster-admin' }, user('judy'))));
      assert.equal((await as('judy')('DELETE', '/api/v1/namespaces/team/configmaps')).status, 200, 'judy is cluster-admin in team');
      assert.equal((await as('judy')('GET', '/api/v1/namespaces/default/configmaps')).status, 403, 'and nowhere else');
      await bind(undefined, 'heidi-granter', { kind: 'ClusterRole', name: 'role-granter' }, [user('heidi')]);
      const aggregating = await heidi('POST', `${RBAC}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gather-all' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { any: 'thing' } }] } });
      assert.deepEqual([aggregating.status, aggregating.body.message], [403, 'clusterroles.rbac.authorization.k8s.io "gather-all" is forbidden: must have cluster-admin privileges to use the aggregationRule']);
      await byAdmin('POST', `${RBAC}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gather-all' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { any: 'thing' } }] } });
      // Changing an aggregating role in any way, or dropping its rule, needs the same rights.
      for (const patch of [{ metadata: { labels: { tweaked: 'yes' } } }, { aggregationRule: null }]) {
        const changed = await heidi('PATCH', `${RBAC}/clusterroles/gather-all`, patch);
        assert.deepEqual([changed.status, changed.body.message], [403, 'clusterroles.rbac.authorization.k8s.io "gather-all" is forbidden: must have cluster-admin privileges to use the aggregationRule'], JSON.stringify(patch));
      }
      // Control: her patch right works on a role without one.
      await byAdmin('POST', `${RBAC}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'plain' }, rules: [] });
      await ok(heidi('PATCH', `${RBAC}/clusterroles/plain`, { metadata: { labels: { tweaked: 'yes' } } }));
    });
  });
});
