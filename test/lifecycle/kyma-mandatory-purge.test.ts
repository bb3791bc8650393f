// Mandatory modules reach every Kyma (without showing in its status) and leave with their
// ModuleReleaseMeta; a Kyma stuck in deletion on a runtime finalizer is purged after the grace
// period; the Kyma and module state metrics follow the Kymas.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, Labels, LabelValues, ModuleReleaseMeta, ModuleTemplate, Namespaces } from '../../src/api/operator/index.js';
import { isNotFound } from '../../src/runtime/client/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { PURGE_CONTROLLER_NAME } from '../../src/lifecycle/purge/controller.js';
import { reconcileCount } from '../support/metrics.js';
import { NS, startKymaEnv, waitFor, type KymaEnv } from './kyma-env.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const EVENT = { apiVersion: 'events.k8s.io/v1', kind: 'Event' };
const PURGE_GRACE_MS = 3_000;

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
    await env.kcp.delete(ModuleReleaseMeta, { namespace: NS, name: 'security' });
    for (const rt of [a, b]) await waitFor(`mandatory Manifest of ${rt.kymaName} gone`, async () => (await mandatoryManifests(rt.kymaName)).length === 0);
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
