// The RBAC of `kcp install` is what the controllers need, enforced: `kcp run` runs with the token of
// the ServiceAccount kcp install creates, against the embedded API server's RBAC, while a Runtime is
// provisioned, a Kyma installs a module and both are deleted again. It converges, the server refused
// nothing, and every request made is one the Role (in the namespace) or the ClusterRole grants.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { controlPlaneKinds } from '../../src/api/index.js';
import { Runtime } from '../../src/api/infrastructuremanager/index.js';
import { Kyma, type KymaObject, Labels, Manifest, type ManifestObject, ModuleReleaseMeta, ModuleTemplate } from '../../src/api/operator/index.js';
import { CONTROLLERS_NAME, clusterRules, namespacedRules, type PolicyRule, rbacObjects } from '../../src/cli/install.js';
import type { ArtifactFetcher, FetchedManifest } from '../../src/lifecycle/artifacts/types.js';
import { clientFromKubeconfig, isForbidden, isNotFound } from '../../src/runtime/client/index.js';
import type { KindRef, KubeObject } from '../../src/kube/object.js';
import { testRuntime } from '../infrastructure/runtime-harness.js';
import { forbiddenAnswers, serviceAccountKubeconfig } from '../support/service-account.js';
import { waitFor } from '../support/wait.js';
import { startRunEnv } from './run-env.js';
import { recordingClient, type RecordedRequest } from '../support/recording-client.js';

const NS = 'kcp-system';


function allows(rules: PolicyRule[], group: string, resource: string, verb: string): boolean {
  return rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));
}

/** One module whose manifest is a ConfigMap, served from memory. */
const fetcher: ArtifactFetcher = {
  fetchManifest: (link): Promise<FetchedManifest> =>
    Promise.resolve({
      objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'rbac-module', namespace: 'kyma-system' }, data: { link } }],
      digest: `sha256:${'a'.repeat(64)}`,
    }),
};

test('kcp run as the installed ServiceAccount provisions, installs a module and deletes both with no request refused by the enforced RBAC', async () => {
  const requests: RecordedRequest[] = [];
  const env = await startRunEnv(['--leader-elect'], { wrapKcpClient: (c) => recordingClient(c, requests), fetcher }, {
    // What `kcp install` applies (the CRDs are the landscape's already), then the ServiceAccount's own credentials.
    kcpKubeconfig: async (l) => {
      for (const o of rbacObjects(NS)) await l.kcp.apply(o, { fieldManager: 'kcp-install', force: true });
      return serviceAccountKubeconfig(l.server, 'default', NS, CONTROLLERS_NAME);
    },
  });
  const { land } = env;
  try {
    const refusedBefore = await forbiddenAnswers(land.server);
    await land.kcp.create({ apiVersion: ModuleTemplate.apiVersion, kind: ModuleTemplate.kind, metadata: { name: 'rbac-module-1.0.0', namespace: NS, labels: { [Labels.ModuleName]: 'rbac-module' } }, spec: { moduleName: 'rbac-module', version: '1.0.0', resources: [{ name: 'rawManifest', link: 'https://modules.test/rbac-module/1.0.0.yaml' }] } });
    await land.kcp.create({ apiVersion: ModuleReleaseMeta.apiVersion, kind: ModuleReleaseMeta.kind, metadata: { name: 'rbac-module', namespace: NS }, spec: { moduleName: 'rbac-module', channels: [{ channel: 'regular', version: '1.0.0' }] } });
    const rt = testRuntime('rbac-rt');
    await land.kcp.create(rt);
    await waitFor('the Runtime is Ready', async () => (await land.kcp.get<KubeObject & { status?: { state?: string } }>(Runtime, { namespace: NS, name: 'rbac-rt' })).status?.state === 'Ready', 30_000);
    await land.kcp.create({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: 'rbac-rt', namespace: NS, labels: { [Labels.KymaName]: 'rbac-rt' } }, spec: { channel: 'regular', modules: [{ name: 'rbac-module' }] } });
    await waitFor('the Manifest of the module is Ready', async () => (await land.kcp.list<ManifestObject>(Manifest, { namespace: NS })).items.some((m) => m.status?.state === 'Ready'), 30_000);
    await waitFor('the Kyma is Ready', async () => (await land.kcp.get<KymaObject>(Kyma, { namespace: NS, name: 'rbac-rt' })).status?.state === 'Ready', 30_000);

    // As the broker deprovisions: the Kyma first (modules leave the runtime), then the Runtime.
    const gone = (kind: KindRef) => async () => land.kcp.get(kind, { namespace: NS, name: 'rbac-rt' }).then(() => false, (e: unknown) => isNotFound(e));
    await land.kcp.delete(Kyma, { namespace: NS, name: 'rbac-rt' });
    await waitFor('the Kyma is gone', gone(Kyma), 20_000);
    await land.kcp.delete(Runtime, { namespace: NS, name: 'rbac-rt' });
    await waitFor('the Runtime is gone', gone(Runtime), 20_000);
    await env.running.stop();
    assert.equal((await forbiddenAnswers(land.server)) - refusedBefore, 0, 'the API server refused none of the controllers\' requests');
    // The kubeconfig the controllers ran with is the restricted identity: it may not create a Runtime.
    const controllersClient = clientFromKubeconfig(readFileSync(env.kcpKubeconfigFile, 'utf8'));
    try {
      await assert.rejects(controllersClient.create(testRuntime('not-allowed')), (e: unknown) => isForbidden(e));
    } finally {
      controllersClient.close();
    }

    const nsRules = namespacedRules();
    const clRules = clusterRules();
    const denied = new Set<string>();
    const used = new Set<string>();
    for (const r of requests) {
      const info = await land.kcp.resourceFor(r.kind);
      const resource = r.subresource ? `${info.resource}/${r.subresource}` : info.resource;
      const what = `${r.verb} ${info.group || 'core'}/${resource}${info.namespaced ? ` in ${r.namespace ?? 'all namespaces'}` : ''}`;
      used.add(`${r.verb} ${info.group || 'core'}/${resource}`);
      const ok = info.namespaced && r.namespace === NS ? allows(nsRules, info.group, resource, r.verb) : !info.namespaced && allows(clRules, info.group, resource, r.verb);
      if (!ok) denied.add(what);
    }
    if (process.env.TEST_RBAC) process.stderr.write(`requests made:\n  ${[...used].sort().join('\n  ')}\n`);
    assert.deepEqual([...denied], [], 'requests the RBAC would deny');
    // The scenario did reach the writes the RBAC grants for (else the check above proves little).
    for (const expected of ['patch infrastructuremanager.kyma-project.io/runtimes/status', 'create infrastructuremanager.kyma-project.io/gardenerclusters', 'create core/secrets', 'patch operator.kyma-project.io/kymas/status', 'patch operator.kyma-project.io/manifests', 'delete operator.kyma-project.io/manifests', 'create events.k8s.io/events', 'update coordination.k8s.io/leases']) {
      assert.ok(used.has(expected) || used.has(expected.replace(/^patch /, 'update ')), `the scenario made "${expected}" (made: ${[...used].sort().join('; ')})`);
    }
  } finally {
    await env.stop();
  }
});

test('the RBAC names every control-plane kind, and grants nothing cluster-wide but reading CRDs and keeping (not creating) the Runtime admission webhook configuration', () => {
  const rules = namespacedRules();
  for (const k of controlPlaneKinds) {
    for (const verb of ['get', 'list', 'watch']) assert.ok(allows(rules, k.group, k.plural, verb), `${verb} ${k.plural}.${k.group}`);
  }
  assert.deepEqual(clusterRules(), [
    { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], resourceNames: ['kcp-runtime-admission-kcp-system'], verbs: ['get', 'update'] },
  ]);
  assert.ok(!rules.some((r) => r.verbs.includes('*') || r.resources.includes('*') || r.apiGroups.includes('*')), 'no wildcards');
  assert.ok(!allows(rules, 'infrastructuremanager.kyma-project.io', 'runtimes', 'create'), 'Runtimes are created by the broker, not by the controllers');
  assert.ok(!allows(rules, 'operator.kyma-project.io', 'moduletemplates', 'update'), 'the module catalog is read-only for the controllers');
});
