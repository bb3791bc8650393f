// Removing a module: blocked while users' custom resources of the module exist (same namespace,
// another namespace, cluster-scoped), then default CR, resources and finalizers go; an unmanaged
// module's resources stay.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Manifest, States } from '../../src/api/operator/index.js';
import type { HttpClient } from '../../src/runtime/client/index.js';
import type { KindRef } from '../../src/kube/object.js';
import { counterValue } from '../support/metrics.js';
import { CLUSTER_SAMPLE, CONFIGMAP, CRD, DEFAULT_CR, DEPLOYMENT, type Env, exists, markDeploymentReady, MODULE_NS, NS, SAMPLE, sampleModule, startEnv, waitFor } from './manifest-env.js';

const LINK = 'https://modules.example.test/sample/1.0.0/raw-manifest.yaml';
const CLUSTER_ROLE: KindRef = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' };

describe('manifest deletion', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    env.fetcher.set(LINK, sampleModule());
  });
  after(async () => {
    await env.stop();
  });

  async function installed(name: string): Promise<HttpClient> {
    const rt = await env.runtime(name);
    await env.createManifest(`${name}-sample`, name, LINK, { resource: DEFAULT_CR });
    await waitFor('the manager Deployment', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    await env.waitState(`${name}-sample`, States.Ready);
    return rt;
  }

  async function blockedThenReleased(name: string, userCR: { kind: KindRef; namespace?: string; name: string }, expectInMessage: string): Promise<void> {
    const rt = await installed(name);
    if (userCR.namespace && userCR.namespace !== MODULE_NS) await rt.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: userCR.namespace } });
    await rt.create({ ...userCR.kind, metadata: { name: userCR.name, ...(userCR.namespace ? { namespace: userCR.namespace } : {}) }, spec: {} });

    await env.kcp.delete(Manifest, { namespace: NS, name: `${name}-sample` });
    const deleting = await waitFor('the Manifest blocked in Deleting', async () => {
      const m = await env.manifest(`${name}-sample`);
      return m?.status?.state === States.Deleting && m.status.lastOperation?.operation.includes('waiting for module crs deletion') ? m : undefined;
    });
    assert.ok(deleting.status?.lastOperation?.operation.includes(expectInMessage), `message names the CR: ${deleting.status?.lastOperation?.operation}`);
    assert.ok(!deleting.status?.lastOperation?.operation.includes('sample-system/default'), 'the default CR does not block');
    await env.moreReconciles(`${name}-sample`, 2); // several reconciles while blocked
    assert.ok(await exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS), 'the module keeps running while blocked');
    assert.ok(await exists(rt, SAMPLE, 'default', MODULE_NS), 'the default CR stays while blocked');
    assert.ok(await env.manifest(`${name}-sample`));

    await rt.delete(userCR.kind, { namespace: userCR.namespace, name: userCR.name });
    await waitFor('the Manifest gone', async () => (await env.manifest(`${name}-sample`)) === undefined);
    assert.equal(await exists(rt, SAMPLE, 'default', MODULE_NS), false, 'default CR deleted');
    assert.equal(await exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS), false, 'manager deleted');
    assert.equal(await exists(rt, CONFIGMAP, 'sample-config', MODULE_NS), false);
    assert.equal(await exists(rt, CLUSTER_ROLE, 'sample-manager'), false);
    assert.equal(await exists(rt, CRD, 'samples.sample.kyma-project.io'), false, 'CRDs deleted');
  }

  it('module deletion is blocked by a user CR in the same namespace', async () => {
    await blockedThenReleased('del-1', { kind: SAMPLE, namespace: MODULE_NS, name: 'mine' }, 'Sample.sample.kyma-project.io sample-system/mine');
  });

  it('module deletion is blocked by a user CR in another namespace', async () => {
    await blockedThenReleased('del-2', { kind: SAMPLE, namespace: 'team-a', name: 'theirs' }, 'team-a/theirs');
  });

  it('module deletion is blocked by a cluster-scoped user CR', async () => {
    await blockedThenReleased('del-3', { kind: CLUSTER_SAMPLE, name: 'global' }, 'ClusterSample.sample.kyma-project.io global');
  });

  it('an unmanaged module leaves its resources running without the managed-by label', async () => {
    const rt = await installed('unmanaged-1');
    await env.kcp.patch(Manifest, { namespace: NS, name: 'unmanaged-1-sample' }, 'merge', { metadata: { annotations: { 'operator.kyma-project.io/is-unmanaged': 'true' } } });
    await waitFor('the Manifest gone', async () => (await env.manifest('unmanaged-1-sample')) === undefined);
    const d = await rt.get(DEPLOYMENT, { namespace: MODULE_NS, name: 'sample-manager' });
    assert.equal(d.metadata.labels?.['operator.kyma-project.io/managed-by'], undefined);
    const cr = await rt.get(SAMPLE, { namespace: MODULE_NS, name: 'default' });
    assert.equal(cr.metadata.labels?.['operator.kyma-project.io/managed-by'], undefined);
    assert.ok(await exists(rt, CRD, 'samples.sample.kyma-project.io'));
    assert.ok(await exists(rt, CONFIGMAP, 'sample-config', MODULE_NS));
  });
});

describe('manifest deletion held by the default CR, with the runtime watcher', () => {
  let env: Env;
  before(async () => {
    env = await startEnv({ driftCheckMs: 3_600_000 });
    env.fetcher.set(LINK, sampleModule());
  });
  after(async () => {
    await env.stop();
  });

  it('the held module is not read back from the runtime on every pass, and goes once its operator lets the CR go', async () => {
    const name = 'held-1';
    const rt = await env.runtime(name);
    // The runtime's webhook works (as the Kyma controller reports it): events, not polls, say what changed.
    await env.webhookHealthy(name);
    await env.createManifest(`${name}-sample`, name, LINK, { resource: DEFAULT_CR });
    await waitFor('the manager Deployment', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    await env.waitState(`${name}-sample`, States.Ready);
    // The module's operator holds its CR while it cleans up.
    await waitFor('the default CR', () => exists(rt, SAMPLE, 'default', MODULE_NS));
    await rt.patch(SAMPLE, { namespace: MODULE_NS, name: 'default' }, 'merge', { metadata: { finalizers: ['example.test/operator'] } });

    await env.kcp.delete(Manifest, { namespace: NS, name: `${name}-sample` });
    await waitFor('the Manifest Deleting, waiting for the module CR', async () => {
      const m = await env.manifest(`${name}-sample`);
      return m?.status?.state === States.Deleting && m.status.lastOperation?.operation.includes('waiting for the deletion of the module CR') ? m : undefined;
    });
    const notReady = () => counterValue(env.manager.registry, 'lifecycle_mgr_drift_checks_total', { reason: 'not_ready' });
    const before = notReady();
    await env.moreReconciles(`${name}-sample`, 3);
    assert.equal(notReady(), before, 'no drift check because the Manifest is Deleting');
    assert.ok(await exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS), 'the module keeps running while held');

    await rt.patch(SAMPLE, { namespace: MODULE_NS, name: 'default' }, 'merge', { metadata: { finalizers: null } });
    await waitFor('the Manifest gone', async () => (await env.manifest(`${name}-sample`)) === undefined);
    assert.equal(await exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS), false, 'manager deleted');
  });
});
