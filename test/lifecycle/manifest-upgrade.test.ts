// Keeping a module in shape: an upgrade prunes what the new version no longer contains, and
// objects changed or deleted in the runtime are put back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Manifest, States } from '../../src/api/operator/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { CONFIGMAP, DEFAULT_CR, DEPLOYMENT, type Env, exists, markDeploymentReady, MODULE_NS, NS, SERVICE, sampleModule, startEnv, waitFor } from './manifest-env.js';

const V1 = 'https://modules.example.test/sample/1.0.0/raw-manifest.yaml';
const V2 = 'https://modules.example.test/sample/2.0.0/raw-manifest.yaml';

type ConfigMap = KubeObject & { data?: Record<string, string> };
type Deployment = KubeObject & { spec: { replicas?: number; template: { spec: { containers: { image: string }[] } } } };

describe('manifest upgrade and drift', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    env.fetcher.set(V1, sampleModule());
    env.fetcher.set(V2, sampleModule({ version: '2.0.0', withoutExtras: true }));
  });
  after(async () => {
    await env.stop();
  });

  it('an upgrade applies the new version and prunes the objects it no longer contains', async () => {
    const rt = await env.runtime('upgrade-1');
    await env.createManifest('upgrade-1-sample', 'upgrade-1', V1, { resource: DEFAULT_CR });
    await waitFor('the manager Deployment', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    await env.waitState('upgrade-1-sample', States.Ready);
    assert.ok(await exists(rt, SERVICE, 'sample-metrics', MODULE_NS));

    await env.kcp.patch(Manifest, { namespace: NS, name: 'upgrade-1-sample' }, 'merge', { spec: { version: '2.0.0', install: { name: 'raw-manifest', source: { url: V2 } } } });
    await waitFor('the ConfigMap and the Service pruned', async () => !(await exists(rt, CONFIGMAP, 'sample-config', MODULE_NS)) && !(await exists(rt, SERVICE, 'sample-metrics', MODULE_NS)));
    const d = await rt.get<Deployment>(DEPLOYMENT, { namespace: MODULE_NS, name: 'sample-manager' });
    assert.match(d.spec.template.spec.containers[0].image, /:2\.0\.0$/);
    const m = await waitFor('the inventory of the new version', async () => {
      const cur = await env.manifest('upgrade-1-sample');
      return cur?.status?.synced?.length === sampleModule({ withoutExtras: true }).length ? cur : undefined;
    });
    assert.ok(!m.status?.synced?.some((r) => r.kind === 'ConfigMap' || r.kind === 'Service'));
    assert.ok(await exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS), 'objects of both versions stay');
  });

  it('restores a modified object and a deleted object on the next reconcile', async () => {
    const rt = await env.runtime('drift-1');
    await env.createManifest('drift-1-sample', 'drift-1', V1);
    await waitFor('the manager Deployment', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    await env.waitState('drift-1-sample', States.Ready);

    // Someone edits the ConfigMap's data, scales the Deployment and deletes the Service.
    await rt.patch(CONFIGMAP, { namespace: MODULE_NS, name: 'sample-config' }, 'merge', { data: { version: 'tampered' } });
    await rt.patch(DEPLOYMENT, { namespace: MODULE_NS, name: 'sample-manager' }, 'merge', { spec: { replicas: 5 } });
    await rt.delete(SERVICE, { namespace: MODULE_NS, name: 'sample-metrics' });

    await waitFor('the ConfigMap restored', async () => (await rt.get<ConfigMap>(CONFIGMAP, { namespace: MODULE_NS, name: 'sample-config' })).data?.version === '1.0.0');
    await waitFor('the Deployment scaled back', async () => (await rt.get<Deployment>(DEPLOYMENT, { namespace: MODULE_NS, name: 'sample-manager' })).spec.replicas === 1);
    await waitFor('the Service recreated', () => exists(rt, SERVICE, 'sample-metrics', MODULE_NS));

    // A label of ours removed by hand comes back too.
    await rt.patch(CONFIGMAP, { namespace: MODULE_NS, name: 'sample-config' }, 'merge', { metadata: { labels: { 'operator.kyma-project.io/managed-by': null } } });
    await waitFor('the managed-by label restored', async () => (await rt.get(CONFIGMAP, { namespace: MODULE_NS, name: 'sample-config' })).metadata.labels?.['operator.kyma-project.io/managed-by'] === 'kyma');
  });

  it('does not re-apply unchanged objects in steady state', async () => {
    const rt = await env.runtime('drift-2');
    await env.createManifest('drift-2-sample', 'drift-2', V1);
    await waitFor('the manager Deployment', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    await env.waitState('drift-2-sample', States.Ready);
    const before = (await rt.get(CONFIGMAP, { namespace: MODULE_NS, name: 'sample-config' })).metadata.resourceVersion;
    const counter = env.requests.get('drift-2');
    assert.ok(counter);
    counter.reset();
    await env.moreReconciles('drift-2-sample', 2);
    assert.ok(counter.count('get') > 0, 'reconciles kept checking');
    assert.equal(counter.count('apply'), 0, 'nothing applied again');
    const after = (await rt.get(CONFIGMAP, { namespace: MODULE_NS, name: 'sample-config' })).metadata.resourceVersion;
    assert.equal(after, before, 'the ConfigMap was not written again');
  });
});
