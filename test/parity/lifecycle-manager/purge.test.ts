// Upstream's purge scenarios (kyma-project/lifecycle-manager tests/e2e purge_controller_test.go,
// purge_metrics_test.go): a Kyma deleted while a finalizer holds its module CR in the runtime is
// purged after the grace period (the finalizer removed, then the module CR, the KCP Kyma and the
// runtime Kyma gone), and the purge metrics count it. The grace period is 2 s here (upstream's
// e2e setup shortens it too).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, ModuleReleaseMeta, Namespaces, States } from '../../../src/api/operator/index.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { NS, startKymaEnv, waitFor, type KymaEnv } from '../../lifecycle/kyma-env.js';
import { gone, MODULE, publishTemplate, SAMPLE, SAMPLE_KEY, sampleReady, templateOperatorObjects, V1 } from './template-operator.js';

const PURGE_GRACE_MS = 2_000;
const MODULE_CR_FINALIZER = 'cr-finalizer';

describe('parity: purge', () => {
  let env: KymaEnv;

  before(async () => {
    env = await startKymaEnv({ purgeGraceMs: PURGE_GRACE_MS });
    env.fetcher.extraObjects.set(MODULE, templateOperatorObjects);
    await publishTemplate(env, V1);
    await env.kcp.create({ apiVersion: ModuleReleaseMeta.apiVersion, kind: ModuleReleaseMeta.kind, metadata: { name: MODULE, namespace: NS }, spec: { moduleName: MODULE, channels: [{ channel: 'regular', version: V1 }] } });
  });

  after(() => env.stop());

  /** The module enabled in the runtime Kyma, its CR there given a finalizer, then the KCP Kyma deleted (background propagation). */
  async function deleteWithStuckModuleCR(id: string) {
    const rt = await env.runtime(id);
    await env.setRemoteModules(rt, [{ name: MODULE, channel: 'regular' }]);
    await sampleReady(rt.remote);
    await waitFor('the Kyma Ready', async () => (await env.kyma(rt.kymaName)).status?.state === States.Ready);
    await rt.remote.patch(SAMPLE, SAMPLE_KEY, 'merge', { metadata: { finalizers: [MODULE_CR_FINALIZER] } });
    await env.kcp.delete(Kyma, { namespace: NS, name: rt.kymaName }, { propagationPolicy: 'Background' });
    assert.ok((await env.kyma(rt.kymaName)).metadata.deletionTimestamp, 'the KCP Kyma has its deletion timestamp');
    return rt;
  }

  it('purge-controller: the module CR\'s finalizer is removed after the purge timeout, then the module CR, the KCP Kyma and the SKR Kyma are deleted', async () => {
    const rt = await deleteWithStuckModuleCR('kyma-sample-purge');
    // Held by the finalizer until the purge: the module's deletion is waiting on it.
    await waitFor('the module CR being deleted', async () => !!(await rt.remote.get<KubeObject>(SAMPLE, SAMPLE_KEY)).metadata.deletionTimestamp);
    await waitFor('the finalizer removed from the module CR', () => rt.remote.get<KubeObject>(SAMPLE, SAMPLE_KEY).then((cr) => !cr.metadata.finalizers?.includes(MODULE_CR_FINALIZER), () => true), 20_000);
    await waitFor('the module CR deleted', () => gone(() => rt.remote.get(SAMPLE, SAMPLE_KEY)));
    await waitFor('the KCP Kyma deleted', () => gone(() => env.kyma(rt.kymaName)), 20_000);
    await waitFor('the SKR Kyma deleted', () => gone(() => rt.remote.get(Kyma, { namespace: Namespaces.Remote, name: 'default' })));
  });

  it('purge-metrics: a purge is counted (lifecycle_mgr_purgectrl_requests_total) and timed (lifecycle_mgr_purgectrl_time > 0)', async () => {
    const metric = (name: string): number => Number(new RegExp(`^${name} ([0-9]*\\.?[0-9]+(?:e-?\\d+)?)$`, 'm').exec(env.lm.manager.registry.render())?.[1] ?? NaN);
    const before = metric('lifecycle_mgr_purgectrl_requests_total');
    assert.ok(Number.isFinite(before), 'the counter is exposed before any purge of this Kyma');
    const rt = await deleteWithStuckModuleCR('kyma-sample-purge-metrics');
    await waitFor('the KCP Kyma deleted by the purge', () => gone(() => env.kyma(rt.kymaName)), 20_000);
    assert.equal(metric('lifecycle_mgr_purgectrl_requests_total'), before + 1, 'one purge');
    assert.ok(metric('lifecycle_mgr_purgectrl_time') > 0, 'its duration recorded');
  });
});
