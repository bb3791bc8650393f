// Upstream's mandatory-module scenarios (kyma-project/lifecycle-manager tests/e2e
// mandatory_module_test.go, mandatory_modules_metrics_test.go): a mandatory ModuleReleaseMeta installs
// its module into every runtime without a channel label and without copying the catalog entry there;
// the skip-reconciliation label on the mandatory Manifest stops its repair; a new mandatory version
// replaces the old one; deleting the ModuleReleaseMeta removes the module everywhere; the metrics
// `lifecycle_mgr_mandatory_module_state` and `lifecycle_mgr_mandatory_modules` follow.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Labels, LabelValues, Manifest, ModuleReleaseMeta, ModuleTemplate, Namespaces, States, type ManifestObject, type ModuleReleaseMetaObject } from '../../../src/api/operator/index.js';
import { countReconciles } from '../../support/metrics.js';
import { NS, startKymaEnv, waitFor, type KymaEnv } from '../../lifecycle/kyma-env.js';
import { CONFIGMAP, gone, managerOf, MODULE, publishTemplate, SAMPLE, SAMPLE_KEY, sampleReady, templateOperatorObjects, V1, V2 } from './template-operator.js';

async function startMandatoryEnv(): Promise<KymaEnv> {
  const env = await startKymaEnv();
  env.fetcher.extraObjects.set(MODULE, templateOperatorObjects);
  // A regular module too: its catalog copy in the runtime proves the catalog sync ran.
  await env.publish('plain', ['1.0.0'], { channels: { regular: '1.0.0' } });
  // As upstream's module setup: the mandatory ModuleTemplate and a mandatory ModuleReleaseMeta.
  await publishTemplate(env, V1);
  await env.kcp.create({ apiVersion: ModuleReleaseMeta.apiVersion, kind: ModuleReleaseMeta.kind, metadata: { name: MODULE, namespace: NS }, spec: { moduleName: MODULE, mandatory: { version: V1 } } });
  return env;
}

const mandatoryManifests = async (env: KymaEnv, kyma: string) => (await env.manifests(kyma)).filter((m) => m.metadata.labels?.[Labels.IsMandatoryModule] === LabelValues.Enable);

describe('parity: mandatory modules', () => {
  let env: KymaEnv;
  let reconciles: (controller: string, key: string) => number;

  before(async () => {
    env = await startMandatoryEnv();
    reconciles = countReconciles(env.lm.manager);
  });

  after(() => env.stop());

  it('mandatory-module: installed everywhere without channel label or catalog copy, skip label respected, a new mandatory version replaces the old one, removed with its ModuleReleaseMeta', async () => {
    const rt = await env.runtime('kyma-sample-mandatory');
    const kymaReady = async () => (await env.kyma(rt.kymaName)).status?.state === States.Ready;

    // Then the mandatory module is installed on the SKR cluster, its default CR Ready, the Kyma Ready.
    await waitFor('the module manager in the runtime', () => rt.remote.get(CONFIGMAP, managerOf(V1)));
    await sampleReady(rt.remote);
    const [manifest] = await waitFor('the mandatory Manifest Ready', async () => {
      const list = await mandatoryManifests(env, rt.kymaName);
      return list.length === 1 && list[0].status?.state === States.Ready ? list : undefined;
    });
    await waitFor('the Kyma Ready', kymaReady);
    // And the mandatory ModuleReleaseMeta is configured as set up.
    assert.equal((await env.kcp.get<ModuleReleaseMetaObject>(ModuleReleaseMeta, { namespace: NS, name: MODULE })).spec.mandatory?.version, V1);
    // And neither the mandatory ModuleTemplate nor its ModuleReleaseMeta is synchronised to the SKR cluster.
    await waitFor('the catalog in the runtime', async () => (await rt.remote.list(ModuleTemplate, { namespace: Namespaces.Remote })).items.some((t) => t.metadata.name === 'plain-1.0.0'));
    assert.deepEqual((await rt.remote.list(ModuleTemplate, { namespace: Namespaces.Remote })).items.map((t) => t.metadata.name), ['plain-1.0.0']);
    assert.deepEqual((await rt.remote.list(ModuleReleaseMeta, { namespace: Namespaces.Remote })).items.map((m) => m.metadata.name), ['plain']);
    // And the mandatory Manifest has the mandatory version and no channel label; the Kyma does not list it.
    assert.equal(manifest.spec.version, V1);
    assert.equal(manifest.metadata.labels?.[Labels.Channel], undefined);
    assert.deepEqual((await env.kyma(rt.kymaName)).status?.modules ?? [], []);

    // When the mandatory Manifest is labelled to skip reconciliation, and its default CR and manager are deleted:
    const manifestKey = { namespace: NS, name: manifest.metadata.name ?? '' };
    await env.kcp.patch(Manifest, manifestKey, 'merge', { metadata: { labels: { [Labels.SkipReconciliation]: 'true' } } });
    await rt.remote.delete(SAMPLE, SAMPLE_KEY);
    await rt.remote.delete(CONFIGMAP, managerOf(V1));
    await waitFor('the default CR gone', () => gone(() => rt.remote.get(SAMPLE, SAMPLE_KEY)));
    // then neither comes back while the Manifest controller passes over the Manifest, and the Kyma stays Ready.
    for (let i = 0; i < 2; i++) {
      const seen = reconciles('manifest', `${NS}/${manifestKey.name}`);
      await waitFor('a further pass over the skipped Manifest', () => reconciles('manifest', `${NS}/${manifestKey.name}`) >= seen + 2);
      assert.ok(await gone(() => rt.remote.get(SAMPLE, SAMPLE_KEY)), 'the default CR is not recreated');
      assert.ok(await gone(() => rt.remote.get(CONFIGMAP, managerOf(V1))), 'the manager is not recreated');
      assert.ok(await kymaReady(), 'the Kyma stays Ready');
    }

    // When the skip label is removed: the default CR and the manager are recreated, the Kyma Ready.
    await env.kcp.patch(Manifest, manifestKey, 'merge', { metadata: { labels: { [Labels.SkipReconciliation]: null } } });
    await sampleReady(rt.remote);
    await waitFor('the manager recreated', () => rt.remote.get(CONFIGMAP, managerOf(V1)));
    await waitFor('the Kyma Ready', kymaReady);

    // When a new version of the ModuleTemplate is applied and the ModuleReleaseMeta names it:
    await publishTemplate(env, V2);
    await env.kcp.patch(ModuleReleaseMeta, { namespace: NS, name: MODULE }, 'merge', { spec: { mandatory: { version: V2 } } });
    // then the module is updated in the runtime: the new manager there, the old one removed, the Kyma Ready.
    await waitFor('the new manager in the runtime', () => rt.remote.get(CONFIGMAP, managerOf(V2)));
    await waitFor('the old manager removed', () => gone(() => rt.remote.get(CONFIGMAP, managerOf(V1))));
    const upgraded = await waitFor('the mandatory Manifest at the new version', async () => {
      const list = await mandatoryManifests(env, rt.kymaName);
      return list.length === 1 && list[0].spec.version === V2 && list[0].status?.state === States.Ready ? list[0] : undefined;
    });
    assert.equal(upgraded.metadata.name, manifest.metadata.name, 'the same Manifest, upgraded');
    await waitFor('the Kyma Ready', kymaReady);

    // When the mandatory ModuleReleaseMeta is deleted: the module leaves the runtime, its Manifest goes, the Kyma stays Ready.
    await env.kcp.delete(ModuleReleaseMeta, { namespace: NS, name: MODULE });
    await waitFor('the manager removed from the runtime', () => gone(() => rt.remote.get(CONFIGMAP, managerOf(V2))));
    await waitFor('the default CR removed from the runtime', () => gone(() => rt.remote.get(SAMPLE, SAMPLE_KEY)));
    await waitFor('no mandatory Manifest', async () => (await mandatoryManifests(env, rt.kymaName)).length === 0);
    await waitFor('the Kyma Ready', kymaReady);
    await waitFor('the ModuleReleaseMeta gone', () => gone(() => env.kcp.get(ModuleReleaseMeta, { namespace: NS, name: MODULE })));
  });
});

describe('parity: mandatory module metrics', () => {
  let env: KymaEnv;

  before(async () => {
    env = await startMandatoryEnv();
  });

  after(() => env.stop());

  /** Upstream's reading of a metric: the number after the first series matching, 0 when there is none. */
  const metric = (pattern: string): number => Number(new RegExp(`${pattern} (\\d+)`).exec(env.lm.manager.registry.render())?.[1] ?? 0);
  const stateMetric = (kyma: string, state: string) => metric(`lifecycle_mgr_mandatory_module_state\\{kyma_name="${kyma}",module_name="${MODULE}",state="${state}"\\}`);
  const countMetric = () => metric('lifecycle_mgr_mandatory_modules');

  it('mandatory-module-metrics: the mandatory module state metric and the count of mandatory modules follow the install and the removal', async () => {
    const rt = await env.runtime('kyma-sample-metrics');
    await waitFor('the module manager in the runtime', () => rt.remote.get(CONFIGMAP, managerOf(V1)));
    await sampleReady(rt.remote);
    await waitFor('the Kyma Ready', async () => (await env.kyma(rt.kymaName)).status?.state === States.Ready);
    await waitFor('count of the mandatory module state metric in Ready is 1', () => stateMetric(rt.kymaName, States.Ready) === 1);
    assert.equal(stateMetric(rt.kymaName, States.Processing), 0);
    assert.equal(countMetric(), 1, 'count of mandatory modules is 1');

    // When the mandatory ModuleReleaseMeta is removed: the module leaves, the metrics go to 0.
    await env.kcp.delete(ModuleReleaseMeta, { namespace: NS, name: MODULE });
    await waitFor('the manager removed from the runtime', () => gone(() => rt.remote.get(CONFIGMAP, managerOf(V1))));
    await waitFor('the default CR removed from the runtime', () => gone(() => rt.remote.get(SAMPLE, SAMPLE_KEY)));
    await waitFor('the Kyma Ready', async () => (await env.kyma(rt.kymaName)).status?.state === States.Ready);
    await waitFor('count of the mandatory module state metric in Ready is 0', () => stateMetric(rt.kymaName, States.Ready) === 0);
    await waitFor('count of mandatory modules is 0', () => countMetric() === 0);
    assert.equal((await env.kcp.list<ManifestObject>(Manifest, { namespace: NS })).items.filter((m) => m.metadata.labels?.[Labels.IsMandatoryModule] === LabelValues.Enable).length, 0);
  });
});
