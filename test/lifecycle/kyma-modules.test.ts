// Kyma controller scenarios about modules: enabling one in the runtime Kyma creates its Manifest
// (labels, owner, source, default CR) and the Kyma becomes Ready; disabling removes it; channel
// switches (of a module, or of the runtime Kyma's channel, which the KCP Kyma follows) and
// ModuleReleaseMeta changes upgrade; downgrades are refused; versions can be pinned.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, Labels, LabelValues, Namespaces, type ManifestObject } from '../../src/api/operator/index.js';
import { manifestName } from '../../src/lifecycle/kyma/manifest-builder.js';
import type { KubeObject } from '../../src/kube/object.js';
import { RecordingLogger } from '../support/log.js';
import { moduleLink, NS, startKymaEnv, waitFor, type KymaEnv } from './kyma-env.js';

describe('Kyma controller: modules', () => {
  let env: KymaEnv;
  const log = new RecordingLogger();

  before(async () => {
    env = await startKymaEnv({ logger: log });
    await env.publish('keda', ['1.0.0', '1.1.0', '2.0.0'], { channels: { regular: '1.0.0', fast: '1.1.0' } });
    await env.publish('serverless', ['0.9.0', '1.0.0'], { channels: { regular: '1.0.0' }, data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'serverless-default' }, data: { a: 'b' } } });
  });

  after(async () => {
    await env.stop();
  });

  const manifestOf = async (kyma: string, module: string) => (await env.manifests(kyma)).find((m) => m.metadata.labels?.[Labels.ModuleName] === module);
  /** Waits for the Kyma's keda Manifest to move to 1.1.0 from channel fast, and checks its channel label and source. */
  const kedaFromFast = async (kyma: string): Promise<void> => {
    const m = await waitFor('keda 1.1.0 from fast', async () => {
      const x = await manifestOf(kyma, 'keda');
      return x?.spec.version === '1.1.0' ? x : undefined;
    });
    assert.equal(m.metadata.labels?.[Labels.Channel], 'fast');
    assert.deepEqual(m.spec.install.source, { url: moduleLink('keda', '1.1.0') });
  };

  it('a module enabled in the runtime Kyma gets a Manifest owned by the Kyma, and the Kyma becomes Ready', async () => {
    const rt = await env.runtime('rt-enable');
    await waitFor('the Kyma Ready without modules', async () => (await env.kyma(rt.kymaName)).status?.state === 'Ready');
    await env.setRemoteModules(rt, [{ name: 'keda' }]);
    const m = await waitFor('the keda Manifest', () => manifestOf(rt.kymaName, 'keda'));
    const kyma = await env.kyma(rt.kymaName);
    assert.equal(m.metadata.name, manifestName(rt.kymaName, 'keda', 'kyma-project.io/module/keda'));
    assert.equal(m.metadata.labels?.[Labels.KymaName], rt.kymaName);
    assert.equal(m.metadata.labels?.[Labels.Channel], 'regular');
    assert.equal(m.metadata.labels?.[Labels.ManagedBy], LabelValues.LifecycleManager);
    assert.deepEqual(m.metadata.ownerReferences?.map((o) => [o.kind, o.name, o.uid, o.controller]), [['Kyma', rt.kymaName, kyma.metadata.uid, true]]);
    assert.deepEqual(m.spec.install, { name: 'raw-manifest', source: { url: moduleLink('keda', '1.0.0') } });
    assert.equal(m.spec.version, '1.0.0');
    assert.equal(m.spec.remote, true);
    assert.deepEqual(kyma.spec.modules?.map((x) => x.name), ['keda'], 'the KCP Kyma follows the runtime Kyma');
    const ready = await waitFor('the Kyma Ready with keda', async () => {
      const k = await env.kyma(rt.kymaName);
      return k.status?.state === 'Ready' && k.status.modules?.[0]?.state === 'Ready' ? k : undefined;
    });
    const entry = ready.status?.modules?.[0];
    assert.equal(entry?.name, 'keda');
    assert.equal(entry?.version, '1.0.0');
    assert.equal(entry?.channel, 'regular');
    assert.equal(entry?.manifest?.metadata?.name, m.metadata.name);
    assert.equal(entry?.template?.metadata?.name, 'keda-1.0.0');
    assert.deepEqual(ready.status?.conditions?.map((c) => [c.type, c.status]).sort(), [['CRDsSync', 'True'], ['ModuleCatalog', 'True'], ['Modules', 'True']]);
    await waitFor('the module installed in the runtime', () => rt.remote.get({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: Namespaces.Remote, name: 'keda-info' }));
    await waitFor('the status mirrored into the runtime Kyma', async () => (await env.remoteKyma(rt)).status?.state === 'Ready');
  });

  it('disabling a module deletes its Manifest and drops it from the status', async () => {
    const rt = await env.runtime('rt-disable', { modules: [{ name: 'keda' }] });
    await waitFor('the keda Manifest', () => manifestOf(rt.kymaName, 'keda'));
    await env.setRemoteModules(rt, []);
    await waitFor('the Manifest gone', async () => (await manifestOf(rt.kymaName, 'keda')) === undefined);
    await waitFor('the Kyma Ready without modules', async () => {
      const k = await env.kyma(rt.kymaName);
      return k.status?.state === 'Ready' && (k.status.modules ?? []).length === 0;
    });
  });

  it('switching the module channel upgrades to the version of the new channel', async () => {
    const rt = await env.runtime('rt-channel', { modules: [{ name: 'keda' }] });
    await waitFor('keda 1.0.0', async () => (await manifestOf(rt.kymaName, 'keda'))?.spec.version === '1.0.0');
    await env.setRemoteModules(rt, [{ name: 'keda', channel: 'fast' }]);
    await kedaFromFast(rt.kymaName);
    await waitFor('status shows fast/1.1.0', async () => {
      const e = (await env.kyma(rt.kymaName)).status?.modules?.[0];
      return e?.channel === 'fast' && e.version === '1.1.0' && e.state === 'Ready';
    });
  });

  it("a runtime admin switching the runtime Kyma's channel upgrades its modules: the KCP Kyma follows and the module moves to the fast version", async () => {
    const rt = await env.runtime('rt-kyma-channel', { modules: [{ name: 'keda' }] });
    await waitFor('keda 1.0.0 from regular', async () => (await manifestOf(rt.kymaName, 'keda'))?.spec.version === '1.0.0');
    assert.equal((await env.remoteKyma(rt)).spec.channel, 'regular', "the runtime Kyma was created with the KCP Kyma's channel");
    await rt.remote.patch(Kyma, { namespace: Namespaces.Remote, name: 'default' }, 'merge', { spec: { channel: 'fast' } });
    const kyma = await waitFor('the KCP Kyma on channel fast', async () => {
      const k = await env.kyma(rt.kymaName);
      return k.spec.channel === 'fast' ? k : undefined;
    });
    assert.deepEqual(kyma.spec.modules?.map((x) => x.name), ['keda'], 'the modules are unchanged');
    await kedaFromFast(rt.kymaName);
    await waitFor('the Kyma Ready on fast with keda 1.1.0', async () => {
      const k = await env.kyma(rt.kymaName);
      const e = k.status?.modules?.[0];
      return k.status?.state === 'Ready' && k.status.activeChannel === 'fast' && e?.channel === 'fast' && e.version === '1.1.0' && e.state === 'Ready';
    });
    await waitFor('the module installed in the runtime at 1.1.0', async () => (await rt.remote.get<KubeObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: Namespaces.Remote, name: 'keda-info' })).data?.version === '1.1.0');
    const remote = await waitFor('the active channel mirrored into the runtime Kyma', async () => {
      const r = await env.remoteKyma(rt);
      return r.status?.activeChannel === 'fast' ? r : undefined;
    });
    assert.equal(remote.spec.channel, 'fast', 'the runtime Kyma keeps the channel its admin set');
  });

  it("the KCP Kyma's channel seeds the runtime Kyma at creation; an operator's later edit of the KCP Kyma's channel is overwritten by the runtime's", async () => {
    const rt = await env.runtime('rt-seed-channel', { channel: 'fast', modules: [{ name: 'keda' }] });
    const created = await waitFor('the runtime Kyma', () => env.remoteKyma(rt).catch(() => undefined));
    assert.equal(created.spec.channel, 'fast', "the runtime Kyma starts on the KCP Kyma's channel");
    await waitFor('the Kyma Ready with keda 1.1.0 from fast', async () => {
      const k = await env.kyma(rt.kymaName);
      return k.status?.state === 'Ready' && k.status.modules?.[0]?.version === '1.1.0';
    });
    const overwrites = () => log.matching('channel changed in the runtime Kyma', { kyma: rt.kymaName, from: 'regular', to: 'fast' }).length;
    assert.equal(overwrites(), 0);
    await env.kcp.patch(Kyma, { namespace: NS, name: rt.kymaName }, 'merge', { spec: { channel: 'regular' } });
    // The lifecycle manager puts the runtime's channel back (and says so) before it resolves any module.
    await waitFor('the KCP Kyma back on the runtime\'s channel fast', async () => overwrites() === 1 && (await env.kyma(rt.kymaName)).spec.channel === 'fast');
    assert.equal((await env.remoteKyma(rt)).spec.channel, 'fast', 'the runtime Kyma is untouched');
    const k = await waitFor('the Kyma Ready on fast', async () => {
      const x = await env.kyma(rt.kymaName);
      return x.status?.state === 'Ready' && x.status.activeChannel === 'fast' && (x.status.conditions ?? []).some((c) => (c.observedGeneration ?? 0) >= (x.metadata.generation ?? 0)) ? x : undefined;
    });
    assert.deepEqual(k.status?.modules?.map((e) => [e.name, e.channel, e.version, e.state]), [['keda', 'fast', '1.1.0', 'Ready']]);
    assert.equal((await manifestOf(rt.kymaName, 'keda'))?.spec.version, '1.1.0', 'the module stays on the fast version');
  });

  it('a ModuleReleaseMeta moving a channel upgrades every Kyma on it, and a later downgrade is refused with Warning', async () => {
    await env.publish('istio', ['1.0.0', '1.2.0'], { channels: { regular: '1.0.0' } });
    const a = await env.runtime('rt-move-a', { modules: [{ name: 'istio' }] });
    const b = await env.runtime('rt-move-b', { modules: [{ name: 'istio' }] });
    for (const rt of [a, b]) await waitFor('istio 1.0.0', async () => (await manifestOf(rt.kymaName, 'istio'))?.spec.version === '1.0.0');
    await env.setChannels('istio', { regular: '1.2.0' });
    for (const rt of [a, b]) await waitFor(`istio 1.2.0 in ${rt.kymaName}`, async () => (await manifestOf(rt.kymaName, 'istio'))?.spec.version === '1.2.0');
    await env.setChannels('istio', { regular: '1.0.0' });
    const warned = await waitFor('the module in Warning', async () => {
      const k = await env.kyma(a.kymaName);
      return k.status?.state === 'Warning' ? k : undefined;
    });
    const entry = warned.status?.modules?.[0];
    assert.equal(entry?.state, 'Warning');
    assert.equal(entry?.version, '1.2.0');
    assert.equal(entry?.message, 'module template update not allowed: ignore channel skew (from regular to regular), as a higher version (1.2.0) of the module was previously installed');
    assert.equal((await manifestOf(a.kymaName, 'istio'))?.spec.version, '1.2.0', 'the installed version is kept');
  });

  it('a pinned version installs that version whatever the channel says', async () => {
    const rt = await env.runtime('rt-pin', { modules: [{ name: 'keda', version: '2.0.0' }] });
    const m = await waitFor('keda 2.0.0', async () => {
      const x = await manifestOf(rt.kymaName, 'keda');
      return x?.spec.version === '2.0.0' ? x : undefined;
    });
    assert.equal(m.metadata.labels?.[Labels.Channel], undefined);
    assert.deepEqual(m.spec.install.source, { url: moduleLink('keda', '2.0.0') });
    await waitFor('Ready with the pinned version', async () => {
      const k = await env.kyma(rt.kymaName);
      return k.status?.state === 'Ready' && k.status.modules?.[0]?.version === '2.0.0';
    });
  });

  it('customResourcePolicy Ignore leaves the default custom resource out of the Manifest', async () => {
    const rt = await env.runtime('rt-policy', { modules: [{ name: 'serverless' }] });
    const withCr = await waitFor('serverless Manifest with its default CR', async () => {
      const x = await manifestOf(rt.kymaName, 'serverless');
      return x?.spec.resource ? x : undefined;
    });
    assert.deepEqual((withCr.spec.resource as { metadata?: unknown }).metadata, { name: 'serverless-default', namespace: Namespaces.Remote });
    await env.setRemoteModules(rt, [{ name: 'serverless', customResourcePolicy: 'Ignore' }]);
    const ignored = await waitFor('no default CR with Ignore', async () => {
      const x: ManifestObject | undefined = await manifestOf(rt.kymaName, 'serverless');
      return x && !x.spec.resource && x.spec.customResourcePolicy === 'Ignore' ? x : undefined;
    });
    assert.equal(ignored.spec.version, '1.0.0');
  });

  it('a module that does not exist makes the Kyma Error with a message naming it', async () => {
    const rt = await env.runtime('rt-unknown', { modules: [{ name: 'nothere' }] });
    const k = await waitFor('Error', async () => {
      const x = await env.kyma(rt.kymaName);
      return x.status?.state === 'Error' ? x : undefined;
    });
    assert.match(k.status?.modules?.[0]?.message ?? '', /nothere/);
    assert.equal((await env.manifests(rt.kymaName)).length, 0);
  });

  it('the skip-reconciliation label stops the controller from touching the Kyma', async () => {
    const skips = () => log.matching('skipping Kyma (skip-reconciliation label)', { kyma: 'skipped' }).length;
    assert.equal(skips(), 0);
    await env.kcp.create({
      apiVersion: Kyma.apiVersion,
      kind: Kyma.kind,
      metadata: { name: 'skipped', namespace: NS, labels: { [Labels.SkipReconciliation]: 'true', [Labels.KymaName]: 'skipped' } },
      spec: { channel: 'regular', modules: [{ name: 'keda' }] },
    });
    // Positive control: the controller reconciles this very Kyma and says it skips it; a change
    // (an annotation passes its predicates) brings it back, and it skips it again.
    await waitFor('the controller skipping the new Kyma', () => skips() >= 1);
    const seen = skips();
    await env.kcp.patch(Kyma, { namespace: NS, name: 'skipped' }, 'merge', { metadata: { annotations: { 'example.com/poke': '1' } } });
    await waitFor('the controller skipping the changed Kyma', () => skips() > seen);
    const k = await env.kyma('skipped');
    assert.equal(k.status?.state, undefined);
    assert.equal(k.metadata.finalizers, undefined);
    assert.equal(k.metadata.labels?.[Labels.ManagedBy], undefined, 'not even the managed-by label');
    assert.equal((await env.manifests('skipped')).length, 0);
  });
});
