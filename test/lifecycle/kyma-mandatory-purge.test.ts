// Mandatory modules reach every Kyma (without showing in its status) and leave with their
// ModuleReleaseMeta, which its mandatory-module finalizer holds until they are gone; a Kyma stuck in deletion on a runtime finalizer is purged after the grace
// period; the Kyma and module state metrics follow the Kymas.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Finalizers, Kyma, Labels, LabelValues, Manifest, ModuleReleaseMeta, ModuleTemplate, Namespaces, type ManifestObject, type ModuleReleaseMetaObject } from '../../src/api/operator/index.js';
import { isNotFound } from '../../src/runtime/client/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { PURGE_CONTROLLER_NAME } from '../../src/lifecycle/purge/controller.js';
import { reconcileCount } from '../support/metrics.js';
import { NS, startKymaEnv, waitFor, type KymaEnv } from './kyma-env.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const EVENT = { apiVersion: 'events.k8s.io/v1', kind: 'Event' };
const PURGE_GRACE_MS = 3_000;
const HOLD = 'example.com/hold';

describe('lifecycle manager: mandatory modules, purge, metrics', () => {
  let env: KymaEnv;

  before(async () => {
    env = await startKymaEnv({ purgeGraceMs: PURGE_GRACE_MS });
    await env.publish('plain', ['1.0.0'], { channels: { regular: '1.0.0' } });
  });

  after(() => env.stop());

  const mandatoryManifests = async (kyma: string) => (await env.manifests(kyma)).filter((m) => m.metadata.labels?.[Labels.IsMandatoryModule] === LabelValues.Enable);

  it('a mandatory module is installed into every Kyma without showing in its status, and removed everywhere with its ModuleReleaseMeta', async () => {
    const a = await env.runtime('rt-mand-a', { modules: [{ name: 'plain' }] });
    const b = await env.runtime('rt-mand-b');
    await env.publish('security', ['1.0.0'], { mandatory: '1.0.0' });
    for (const rt of [a, b]) {
      const [m] = await waitFor(`the mandatory Manifest of ${rt.kymaName}`, async () => {
        const list = await mandatoryManifests(rt.kymaName);
        return list.length === 1 ? list : undefined;
      });
      assert.equal(m.metadata.labels?.[Labels.ModuleName], 'security');
      assert.equal(m.spec.version, '1.0.0');
      assert.equal(m.metadata.ownerReferences?.[0]?.name, rt.kymaName);
    }
    const kyma = await waitFor('Kyma a Ready', async () => {
      const k = await env.kyma(a.kymaName);
      return k.status?.state === 'Ready' ? k : undefined;
    });
    assert.deepEqual(kyma.status?.modules?.map((m) => m.name), ['plain']);
    await waitFor('the mandatory module in the runtime', () => b.remote.get(CONFIGMAP, { namespace: Namespaces.Remote, name: 'security-info' }));
    assert.equal((await a.remote.list(ModuleTemplate, { namespace: Namespaces.Remote })).items.some((t) => t.metadata.name === 'security-1.0.0'), false, 'mandatory modules are not in the catalog');
    const meta = () => env.kcp.get<ModuleReleaseMetaObject>(ModuleReleaseMeta, { namespace: NS, name: 'security' });
    await waitFor('the mandatory-module finalizer on the ModuleReleaseMeta', async () => (await meta()).metadata.finalizers?.includes(Finalizers.MandatoryModule));

    // A Manifest held by someone else's finalizer holds the ModuleReleaseMeta too.
    const [held] = await mandatoryManifests(a.kymaName);
    const manifestKey = { namespace: NS, name: held.metadata.name ?? '' };
    const setHold = async (on: boolean) => {
      const current = await env.kcp.get<ManifestObject>(Manifest, manifestKey);
      const rest = (current.metadata.finalizers ?? []).filter((f) => f !== HOLD);
      await env.kcp.patch(Manifest, manifestKey, 'merge', { metadata: { finalizers: on ? [...rest, HOLD] : rest, resourceVersion: current.metadata.resourceVersion } });
    };
    await setHold(true);
    await env.kcp.delete(ModuleReleaseMeta, { namespace: NS, name: 'security' });
    await waitFor(`mandatory Manifest of ${b.kymaName} gone`, async () => (await mandatoryManifests(b.kymaName)).length === 0);
    await waitFor('the held Manifest deleting', async () => !!(await env.kcp.get<ManifestObject>(Manifest, manifestKey)).metadata.deletionTimestamp);
    const waiting = await meta();
    assert.ok(waiting.metadata.deletionTimestamp, 'the ModuleReleaseMeta is being deleted');
    assert.deepEqual(waiting.metadata.finalizers, [Finalizers.MandatoryModule], 'and waits for the Manifest still there');
    await setHold(false);
    await waitFor(`mandatory Manifest of ${a.kymaName} gone`, async () => (await mandatoryManifests(a.kymaName)).length === 0);
    await waitFor('the ModuleReleaseMeta gone', () => meta().then(() => false, (e: unknown) => isNotFound(e)));
    assert.equal((await env.manifests(a.kymaName)).length, 1, 'the Kyma\'s own module stays');
  });

  it('a Kyma stuck in deletion on a runtime finalizer is purged after the grace period', async () => {
    const rt = await env.runtime('rt-purge', { modules: [{ name: 'plain' }] });
    await waitFor('Ready', async () => (await env.kyma(rt.kymaName)).status?.state === 'Ready');
    await waitFor('the module in the runtime', () => rt.remote.get(CONFIGMAP, { namespace: Namespaces.Remote, name: 'plain-info' }));
    await rt.remote.patch(CONFIGMAP, { namespace: Namespaces.Remote, name: 'plain-info' }, 'merge', { metadata: { finalizers: ['example.com/keep'] } });
    // No other Kyma is deleting: the purge controller asks to come back later only for this one.
    const waits = () => reconcileCount(env.lm.manager.registry, PURGE_CONTROLLER_NAME, 'requeue_after');
    const waitsBefore = waits();
    await env.kcp.delete(Kyma, { namespace: NS, name: rt.kymaName });
    // Positive control: the purge controller has looked at the deleting Kyma and chosen to wait.
    await waitFor('the purge controller waiting out the grace period', () => waits() > waitsBefore);
    const stuck = await rt.remote.get<KubeObject>(CONFIGMAP, { namespace: Namespaces.Remote, name: 'plain-info' });
    assert.deepEqual(stuck.metadata.finalizers, ['example.com/keep'], 'nothing is purged within the grace period');
    await waitFor('the Kyma gone', async () => env.kyma(rt.kymaName).then(() => false, (e: unknown) => isNotFound(e)), 30_000);
    await waitFor('the ConfigMap gone', () => rt.remote.get(CONFIGMAP, { namespace: Namespaces.Remote, name: 'plain-info' }).then(() => false, (e: unknown) => isNotFound(e)));
    const events = await waitFor('a Purged event', async () => {
      const list = (await env.kcp.list<KubeObject & { reason?: string; note?: string }>(EVENT, { namespace: NS })).items.filter((e) => e.reason === 'Purged');
      return list.length > 0 ? list : undefined;
    });
    assert.match(events[0].note ?? '', /ConfigMap\/kyma-system\/plain-info/);
    // The purge says how long the Kyma had been deleting by its own clock: only after the grace period.
    const after = /after (\d+) s of deletion/.exec(events[0].note ?? '');
    assert.ok(after, `the Purged event says when: ${events[0].note}`);
    assert.ok(Number(after[1]) * 1000 >= PURGE_GRACE_MS, `deletion finished only after the grace period (${after[1]} s)`);
  });

  it('the Kyma and module state metrics show the current states', async () => {
    const rt = await env.runtime('rt-metrics', { modules: [{ name: 'plain' }] });
    await waitFor('Ready', async () => (await env.kyma(rt.kymaName)).status?.state === 'Ready');
    const text = await waitFor('metrics', () => {
      const t = env.lm.manager.registry.render();
      return /lifecycle_mgr_module_state\{module_name="plain",kyma_name="rt-metrics",state="Ready"[^}]*\} 1/.test(t) ? t : undefined;
    });
    assert.match(text, /lifecycle_mgr_kyma_state\{kyma_name="rt-metrics",state="Ready"[^}]*\} 1/);
    assert.match(text, /lifecycle_mgr_kyma_state\{kyma_name="rt-metrics",state="Error"[^}]*\} 0/);
    assert.match(text, /lifecycle_mgr_requeue_reason_total\{requeue_reason="kyma_ready",requeue_type="intended"\} \d+/);
  });
});
