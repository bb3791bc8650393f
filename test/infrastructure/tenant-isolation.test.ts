// Tenant isolation on the embedded landscape, with two runtimes provisioned by the infrastructure
// manager: a runtime's credentials (its kubeconfig, as `kcp kubeconfig` hands it out from the
// kubeconfig Secret, and its ServiceAccount tokens) open that runtime only, never the KCP, the
// garden or another runtime; a runtime administrator (Runtime spec.security.administrators) is
// cluster-admin in their runtime as upstream makes them, and nothing in the KCP or another runtime;
// and a handed-out kubeconfig stops working once it was rotated and its validity ran out.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import yaml from 'js-yaml';
import type { KubeObject } from '../../src/kube/object.js';
import { clientFromKubeconfig, isUnauthorized } from '../../src/runtime/client/index.js';
import { NAMESPACE, type Harness, startHarness, testRuntime, waitFor, waitForRuntime } from './runtime-harness.js';
import { rawRequest } from '../support/https-raw.js';

const GRANTED_SECONDS = 6;
type Secret = KubeObject & { data?: Record<string, string> };
type Kubeconfig = { clusters: { cluster: { server: string; 'certificate-authority-data': string } }[]; users: { user: { token: string } }[] };

describe('tenant isolation', () => {
  let h: Harness;
  before(async () => {
    // Gardener grants kubeconfigs of 6 s, so a rotation and an expiry happen within the test.
    h = await startHarness({ simulator: { maxAdminKubeconfigSeconds: GRANTED_SECONDS } });
    for (const [id, admin] of [['tenant-a', 'alice@a.example'], ['tenant-b', 'bob@b.example']]) {
      await h.land.kcp.create(testRuntime(id, (rt) => (rt.spec.security.administrators = [admin])));
    }
    for (const id of ['tenant-a', 'tenant-b']) await waitForRuntime(h, id, 'Ready', undefined, 60_000);
  });
  after(() => h.stop());

  const kubeconfigOf = async (id: string): Promise<string> => {
    const s = await h.land.kcp.get<Secret>({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NAMESPACE, name: `kubeconfig-${id}` });
    return Buffer.from(s.data?.config ?? '', 'base64').toString('utf8');
  };
  const parts = (kubeconfig: string) => {
    const k = yaml.load(kubeconfig) as Kubeconfig;
    return { server: k.clusters[0].cluster.server, caPem: Buffer.from(k.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8'), token: k.users[0].user.token };
  };
  /** The HTTP status of listing namespaces at `url` with `token`. */
  const statusAt = async (url: string, token: string, caPem: string, headers: Record<string, string> = {}) => (await rawRequest({ url, token, caPem }, 'GET', '/api/v1/namespaces', { headers })).status;
  const urlOf = (cluster: string) => h.land.server.clusterAccess(cluster).url;

  it('a runtime\'s kubeconfig and its ServiceAccount tokens open that runtime only', async () => {
    const a = parts(await kubeconfigOf('tenant-a'));
    const b = parts(await kubeconfigOf('tenant-b'));
    assert.equal(await statusAt(a.server, a.token, a.caPem), 200, 'the kubeconfig works in its runtime');
    const others = { kcp: `${h.land.server.url}/clusters/default`, garden: urlOf('garden'), 'runtime B': b.server };
    for (const [what, url] of Object.entries(others)) assert.equal(await statusAt(url, a.token, a.caPem), 401, `runtime A's token at the ${what}`);
    // At the server's root (the KCP's own URL) a token names its own cluster: runtime A, never the KCP.
    const kcpNamespace = (token: string) => rawRequest({ url: h.land.server.url, token, caPem: a.caPem }, 'GET', `/api/v1/namespaces/${NAMESPACE}`);
    assert.equal((await kcpNamespace(h.land.server.adminToken)).status, 200, 'the KCP has its namespace');
    assert.equal((await kcpNamespace(a.token)).status, 404, 'runtime A\'s token at the KCP\'s URL sees runtime A');

    // A ServiceAccount of runtime A, even one bound to cluster-admin there, is nobody elsewhere.
    const runtimeA = clientFromKubeconfig(await kubeconfigOf('tenant-a'));
    try {
      await runtimeA.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: 'default' } } as KubeObject, { fieldManager: 'test' });
      await runtimeA.apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'robot-admin' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: 'default' }] } as KubeObject, { fieldManager: 'test' });
    } finally {
      runtimeA.close();
    }
    const tr = await rawRequest({ url: a.server, token: a.token, caPem: a.caPem }, 'POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', { body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }) });
    assert.equal(tr.status, 201);
    const robot = (JSON.parse(tr.body.toString()) as { status: { token: string } }).status.token;
    assert.equal(await statusAt(a.server, robot, a.caPem), 200, 'the ServiceAccount is cluster-admin in its runtime');
    for (const [what, url] of Object.entries(others)) assert.equal(await statusAt(url, robot, a.caPem), 401, `runtime A's ServiceAccount at the ${what}`);
  });

  it('a runtime administrator is cluster-admin in their runtime and nothing in the KCP or another runtime', async () => {
    const admin = (cluster: string) => h.land.server.clusterAccess(cluster);
    const runtimeCluster = (id: string) => h.land.shootClusterName(testRuntime(id).spec.shoot.name);
    await waitFor('the administrators\' bindings in runtime A', async () => {
      const a = admin(runtimeCluster('tenant-a'));
      return (await statusAt(a.url, a.token, h.land.server.caPem, { 'Impersonate-User': 'alice@a.example' })) === 200;
    });
    // As upstream: a ClusterRoleBinding to cluster-admin per administrator, so alice may do anything in A.
    // (Each runtime's admin token impersonates the user, as `kubectl --as` would.)
    const asUser = (cluster: string, user: string) => async (method: string, path: string, body?: unknown) => {
      const a = admin(cluster);
      const r = await rawRequest({ url: a.url, token: a.token, caPem: h.land.server.caPem }, method, path, { headers: { 'Impersonate-User': user }, body: body === undefined ? undefined : JSON.stringify(body) });
      return r.status;
    };
    const aliceInA = asUser(runtimeCluster('tenant-a'), 'alice@a.example');
    assert.equal(await aliceInA('GET', '/api/v1/namespaces/kube-system/secrets'), 200);
    assert.equal(await aliceInA('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'alice-made' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }), 201);
    assert.equal(await asUser(runtimeCluster('tenant-b'), 'alice@a.example')('GET', '/api/v1/namespaces/kube-system/secrets'), 403, 'alice is nobody in runtime B');
    assert.equal(await asUser(runtimeCluster('tenant-a'), 'bob@b.example')('GET', '/api/v1/namespaces'), 403, 'bob is nobody in runtime A');
    const aliceInKcp = asUser('default', 'alice@a.example');
    assert.equal(await aliceInKcp('GET', `/apis/infrastructuremanager.kyma-project.io/v1/namespaces/${NAMESPACE}/runtimes`), 403, 'alice is nobody in the KCP');
    assert.equal(await aliceInKcp('GET', `/api/v1/namespaces/${NAMESPACE}/secrets/kubeconfig-tenant-a`), 403, 'not even her own runtime\'s kubeconfig Secret');
  });

  it('a handed-out kubeconfig stops working once rotated and past its validity', async () => {
    const handedOut = await kubeconfigOf('tenant-b');
    const old = parts(handedOut);
    assert.equal(await statusAt(old.server, old.token, old.caPem), 200);
    await waitFor('a rotation of runtime B\'s kubeconfig', async () => (await kubeconfigOf('tenant-b')) !== handedOut, 30_000);
    const current = parts(await kubeconfigOf('tenant-b'));
    assert.equal(await statusAt(current.server, current.token, current.caPem), 200, 'the rotated kubeconfig works');
    // The old one lives out its validity (the grace a consumer still holding it gets), then it is refused.
    await waitFor('the old kubeconfig refused', async () => (await statusAt(old.server, old.token, old.caPem)) === 401, (GRANTED_SECONDS + 5) * 1000);
    const client = clientFromKubeconfig(handedOut, { retries: 0 });
    try {
      await assert.rejects(client.list({ apiVersion: 'v1', kind: 'Namespace' }), (e: unknown) => isUnauthorized(e));
    } finally {
      client.close();
    }
  });
});
