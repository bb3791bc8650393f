// Installing a module through its Manifest: resources and default CR in the runtime, the
// inventory in status.synced, readiness from the manager Deployment and the module CR, the
// customResourcePolicy, and a steady state that costs few requests.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { States } from '../../src/api/operator/index.js';
import { KubeletSimulator } from '../../src/landscape/kubelet.js';
import type { KubeObject } from '../../src/kube/object.js';
import { CONFIGMAP, CRD, DEFAULT_CR, DEPLOYMENT, type Env, exists, markDeploymentReady, MODULE_NS, SAMPLE, SERVICE, sampleModule, startEnv, waitFor } from './manifest-env.js';

const LINK = 'https://modules.example.test/sample/1.0.0/raw-manifest.yaml';

describe('manifest installation', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    env.fetcher.set(LINK, sampleModule());
  });
  after(async () => {
    await env.stop();
  });

  it('installs the module resources and the default CR, records the inventory, and is Ready once the manager and the module CR are', async () => {
    const rt = await env.runtime('install-1');
    await env.createManifest('install-1-sample', 'install-1', LINK, { resource: DEFAULT_CR });

    await waitFor('the manager Deployment in the runtime', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    const deployment = await rt.get(DEPLOYMENT, { namespace: MODULE_NS, name: 'sample-manager' });
    assert.equal(deployment.metadata.labels?.['operator.kyma-project.io/managed-by'], 'kyma');
    assert.equal(deployment.metadata.labels?.['app.kubernetes.io/part-of'], 'Kyma');
    assert.equal(deployment.metadata.annotations?.['deprecated-operator.kyma-project.io/owned-by'], 'kcp-system/install-1-sample');
    const managers = (deployment.metadata.managedFields as { manager?: string }[]).map((f) => f.manager);
    assert.ok(managers.includes('declarative.kyma-project.io/applier'), `applied by the applier field manager, got ${managers.join(', ')}`);
    assert.ok(await exists(rt, CRD, 'samples.sample.kyma-project.io'));
    assert.ok(await exists(rt, CONFIGMAP, 'sample-config', MODULE_NS));
    assert.ok(await exists(rt, SERVICE, 'sample-metrics', MODULE_NS));
    const cr = await waitFor('the default CR', async () => ((await exists(rt, SAMPLE, 'default', MODULE_NS)) ? rt.get(SAMPLE, { namespace: MODULE_NS, name: 'default' }) : undefined));
    assert.equal(cr.metadata.labels?.['operator.kyma-project.io/managed-by'], 'kyma');

    // The Deployment is not available yet: the module is still being installed.
    const processing = await env.waitState('install-1-sample', States.Processing);
    const notReady = processing.status?.conditions?.find((c) => c.type === 'Installation');
    assert.deepEqual([notReady?.status, notReady?.reason, notReady?.message], ['False', 'Ready', 'installation is not ready']);
    assert.ok(processing.metadata.finalizers?.includes('declarative.kyma-project.io/finalizer'));
    assert.ok(processing.metadata.finalizers?.includes('resource.kyma-project.io/finalizer'));
    const synced = processing.status?.synced ?? [];
    assert.equal(synced.length, sampleModule().length);
    assert.ok(synced.some((r) => r.kind === 'Deployment' && r.group === 'apps' && r.version === 'v1' && r.namespace === MODULE_NS && r.name === 'sample-manager'));
    assert.ok(synced.some((r) => r.kind === 'CustomResourceDefinition' && r.namespace === '' && r.name === 'clustersamples.sample.kyma-project.io'));
    assert.ok(!synced.some((r) => r.kind === 'Sample'), 'the default CR is not part of the inventory');

    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    const ready = await env.waitState('install-1-sample', States.Ready);
    const crState = ((await rt.get<KubeObject & { status?: { state?: string } }>(SAMPLE, { namespace: MODULE_NS, name: 'default' })).status ?? {}).state;
    assert.equal(crState, 'Ready', 'the simulated module operator reported Ready');
    const installation = ready.status?.conditions?.find((c) => c.type === 'Installation');
    assert.deepEqual([installation?.status, installation?.message], ['True', 'installation is ready and resources can be used']);
    assert.equal(ready.status?.conditions?.find((c) => c.type === 'Resources')?.status, 'True');
    const moduleCR = ready.status?.conditions?.find((c) => c.type === 'ModuleCR');
    assert.deepEqual([moduleCR?.status, moduleCR?.reason, moduleCR?.message], ['True', 'ModuleCRCreated', 'module CR was created']);
  });

  it('mirrors the module CR state into the Manifest (Error, then Ready again)', async () => {
    env.operators.setBehaviour('sample.kyma-project.io/Sample', { state: 'Error', delayMs: 20 });
    const rt = await env.runtime('install-2');
    await env.createManifest('install-2-sample', 'install-2', LINK, { resource: DEFAULT_CR });
    await waitFor('the manager Deployment', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    await env.waitState('install-2-sample', States.Error);
    env.operators.setBehaviour('sample.kyma-project.io/Sample', { state: 'Ready', delayMs: 20 });
    await env.waitState('install-2-sample', States.Ready);
  });

  it('a module without a default CR is Ready when its manager is (and runs the localized image)', async () => {
    const rt = await env.runtime('install-3');
    const mirror = 'mirror.example.test/kyma/sample-manager:1.0.0';
    await env.createManifest('install-3-sample', 'install-3', LINK, { localizedImages: [mirror] });
    await waitFor('the manager Deployment', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    const d = await rt.get<KubeObject & { spec: { template: { spec: { containers: { image: string }[] } } } }>(DEPLOYMENT, { namespace: MODULE_NS, name: 'sample-manager' });
    assert.equal(d.spec.template.spec.containers[0].image, mirror);
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    const ready = await env.waitState('install-3-sample', States.Ready);
    assert.ok(!ready.metadata.finalizers?.includes('resource.kyma-project.io/finalizer'));
    assert.equal((await rt.list(SAMPLE)).items.length, 0);
  });

  it('customResourcePolicy Ignore never creates the default CR', async () => {
    const rt = await env.runtime('install-4');
    await env.createManifest('install-4-sample', 'install-4', LINK, { resource: DEFAULT_CR, customResourcePolicy: 'Ignore' });
    await waitFor('the manager Deployment', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    await env.waitState('install-4-sample', States.Ready);
    await env.moreReconciles('install-4-sample', 2); // a few more reconciles
    assert.equal(await exists(rt, SAMPLE, 'default', MODULE_NS), false);
  });

  it('with the simulated kubelet and module operator, a module becomes Ready on its own', async () => {
    const kubelet = new KubeletSimulator(env.server, { readyDelayMs: 50, clusters: (name) => name === 'skr-install-6', scanIntervalMs: 50 });
    kubelet.start();
    try {
      await env.runtime('install-6');
      await env.createManifest('install-6-sample', 'install-6', LINK, { resource: DEFAULT_CR });
      await env.waitState('install-6-sample', States.Ready);
    } finally {
      await kubelet.stop();
    }
  });

  it('costs few requests to the runtime in steady state', async () => {
    const rt = await env.runtime('install-5');
    await env.createManifest('install-5-sample', 'install-5', LINK, { resource: DEFAULT_CR });
    await waitFor('the manager Deployment', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    await env.waitState('install-5-sample', States.Ready);
    const fetchesBefore = env.fetcher.calls;
    const counter = env.requests.get('install-5');
    assert.ok(counter);
    await env.moreReconciles('install-5-sample', 1);
    counter.reset();
    // A window counted in the controller's own reconciles, not in wall-clock time: 4 complete after
    // the reset, plus at most the one in flight at the reset and the one started last, so at most
    // 6 reconciles, each one read per object (10) plus the default CR.
    await env.moreReconciles('install-5-sample', 4);
    const n = counter.count();
    const perReconcile = sampleModule().length + 1;
    assert.ok(n <= perReconcile * 6, `requests in a window of at most 6 reconciles of steady state: ${n}`);
    assert.ok(n > 0, 'the drift check keeps looking');
    assert.equal(env.fetcher.calls, fetchesBefore, 'the manifest is not fetched again');
    const m = await env.manifest('install-5-sample');
    assert.equal(m?.status?.state, States.Ready);
  });
});
