// Upstream's module control and module status scenarios (kyma-project/lifecycle-manager tests/e2e),
// step by step: unmanaging and re-managing a module, the Manifest skip-reconciliation label,
// labels in the runtime, module resources kept consistent, a module without a default CR, and a
// module's deletion status decoupled from its manager (Deployment or StatefulSet).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, Labels, LabelValues, Manifest, Namespaces, type KymaObject, type ManifestObject } from '../../../src/api/operator/index.js';
import { findObject } from '../../../src/runtime/client/index.js';
import type { Client } from '../../../src/runtime/client/interface.js';
import { splitApiVersion, type KindRef, type KubeObject } from '../../../src/kube/object.js';
import { skrWebhookObjects, SKR_WEBHOOK_TLS_SECRET } from '../../../src/watcher/skr-objects.js';
import { webhookConfigurationFor } from '../../../src/watcher/webhook-config.js';
import { counterValue } from '../../support/metrics.js';
import {
  consistently,
  defaultCR,
  DEPLOYMENT,
  managerExists,
  managerName,
  managerReady,
  MODULE_CR_NAME,
  moduleNamespace,
  NS,
  sampleKind,
  setManifestSkip,
  startParityEnv,
  STATEFULSET,
  waitFor,
  type ParityEnv,
} from './module-env.js';

type Synced = NonNullable<NonNullable<ManifestObject['status']>['synced']>[number];
const kindOf = (r: Synced): KindRef => ({ apiVersion: r.group ? `${r.group}/${r.version}` : r.version, kind: r.kind });
const objectOf = (remote: Client, r: Synced) => findObject(remote, kindOf(r), { namespace: r.namespace || undefined, name: r.name });

/** The value of `lifecycle_mgr_module_state` for a module, Kyma and state (undefined: no such series). */
function moduleStateMetric(env: ParityEnv, kyma: string, module: string, state: string): number | undefined {
  for (const line of env.lm.manager.registry.render().split('\n')) {
    if (!line.startsWith('lifecycle_mgr_module_state{')) continue;
    if (line.includes(`module_name="${module}"`) && line.includes(`kyma_name="${kyma}"`) && line.includes(`state="${state}"`)) return Number(line.split(' ').pop());
  }
  return undefined;
}

describe('upstream parity: module control and status', () => {
  let env: ParityEnv;

  before(async () => {
    env = await startParityEnv();
  });

  after(() => env.stop());

  const kymaReady = async (kyma: string) => (await env.kymaState(kyma)) === 'Ready';
  const manifestKey = (m: ManifestObject) => ({ controller: 'manifest', name: m.metadata.name ?? '' });

  async function enabled(id: string, module: string, opts: { data?: boolean } = {}): Promise<{ rt: Awaited<ReturnType<ParityEnv['runtime']>>; manifest: ManifestObject }> {
    await env.publish(module, ['1.0.0'], { channels: { regular: '1.0.0' }, ...(opts.data === false ? {} : { data: defaultCR(module) }) });
    const rt = await env.runtime(id);
    await env.setRemoteModules(rt, [{ name: module }]);
    await waitFor('the manager ready', () => managerReady(rt.remote, module, '1.0.0', env.shapes.get(module)?.manager === 'StatefulSet' ? STATEFULSET : DEPLOYMENT));
    await waitFor('the Kyma Ready', () => kymaReady(rt.kymaName));
    const manifest = await waitFor('the Manifest Ready', async () => {
      const m = await env.manifestOf(rt.kymaName, module);
      return m?.status?.state === 'Ready' ? m : undefined;
    });
    return { rt, manifest };
  }

  it('unmanage-module: an unmanaged module keeps running without the managed-by and watched-by labels, and can be managed again', async () => {
    const module = 'unmanage';
    const { rt, manifest } = await enabled('unmanage', module);
    const synced = manifest.status?.synced ?? [];
    assert.ok(synced.length >= 4);
    for (const r of synced) {
      const o = await objectOf(rt.remote, r);
      assert.equal(o?.metadata.labels?.[Labels.ManagedBy], LabelValues.Kyma, `${r.kind} ${r.name} managed-by`);
      assert.equal(o?.metadata.labels?.[Labels.WatchedBy], LabelValues.Kyma, `${r.kind} ${r.name} watched-by`);
    }
    assert.equal((await env.moduleCR(rt.remote, module))?.metadata.labels?.[Labels.ManagedBy], LabelValues.Kyma);

    const setManaged = async (managed: boolean) => env.setRemoteModules(rt, [{ name: module, managed }]);
    await setManaged(false);
    await waitFor('the Manifest removed', async () => (await env.manifests(rt.kymaName)).length === 0);
    await consistently(
      env,
      'the module CR and the manager stay in the runtime',
      async () => (await env.moduleCR(rt.remote, module)) !== undefined && (await managerExists(rt.remote, module, '1.0.0')),
      { controller: 'kyma', name: rt.kymaName },
    );
    for (const r of synced) {
      const o = await objectOf(rt.remote, r);
      assert.ok(o, `${r.kind} ${r.name} stays`);
      assert.equal(o.metadata.labels?.[Labels.ManagedBy], undefined, `${r.kind} ${r.name} without managed-by`);
      assert.equal(o.metadata.labels?.[Labels.WatchedBy], undefined, `${r.kind} ${r.name} without watched-by`);
    }
    assert.equal((await env.moduleCR(rt.remote, module))?.metadata.labels?.[Labels.ManagedBy], undefined);
    await waitFor('the Kyma Ready with the module Unmanaged', async () => (await kymaReady(rt.kymaName)) && (await env.moduleEntry(rt.kymaName, module))?.state === 'Unmanaged');
    assert.equal(moduleStateMetric(env, rt.kymaName, module, 'Unmanaged'), 1);
    assert.equal(moduleStateMetric(env, rt.kymaName, module, 'Ready'), 0);

    await setManaged(true);
    const again = await waitFor('the Manifest re-created and Ready', async () => {
      const m = await env.manifestOf(rt.kymaName, module);
      return m?.status?.state === 'Ready' ? m : undefined;
    });
    assert.equal(again.metadata.deletionTimestamp, undefined);
    await waitFor('the Kyma Ready', () => kymaReady(rt.kymaName));

    await setManaged(false);
    await waitFor('the Manifest removed again', async () => (await env.manifests(rt.kymaName)).length === 0);
    await waitFor('the Kyma Ready', () => kymaReady(rt.kymaName));

    await env.setRemoteModules(rt, []);
    await consistently(
      env,
      'disabling an unmanaged module leaves the module CR and the manager in the runtime',
      async () => (await env.moduleCR(rt.remote, module)) !== undefined && (await managerExists(rt.remote, module, '1.0.0')),
      { controller: 'kyma', name: rt.kymaName },
    );

    await env.setRemoteModules(rt, [{ name: module }]);
    const reenabled = await waitFor('the Manifest re-created and Ready', async () => {
      const m = await env.manifestOf(rt.kymaName, module);
      return m?.status?.state === 'Ready' ? m : undefined;
    });
    assert.equal(reenabled.metadata.deletionTimestamp, undefined);
    await waitFor('the Kyma Ready', () => kymaReady(rt.kymaName));
  });

  it('skip-manifest-reconciliation: a Manifest labelled to skip reconciliation repairs nothing until the label goes; one held by another finalizer waits without status writes', async () => {
    const module = 'skipmanifest';
    const { rt, manifest } = await enabled('skip-manifest', module);
    const cr = await waitFor('the module CR Ready', async () => {
      const o = await env.moduleCR(rt.remote, module);
      return (o?.status as { state?: string } | undefined)?.state === 'Ready' ? o : undefined;
    });
    assert.equal(cr.metadata.labels?.[Labels.ManagedBy], LabelValues.Kyma);

    await setManifestSkip(env, manifest, true);
    await rt.remote.delete(sampleKind(module), { namespace: Namespaces.Remote, name: MODULE_CR_NAME });
    await waitFor('the module CR gone', async () => (await env.moduleCR(rt.remote, module)) === undefined);
    await consistently(env, 'the module CR is not re-created', async () => (await env.moduleCR(rt.remote, module)) === undefined, manifestKey(manifest));
    await rt.remote.delete(DEPLOYMENT, { namespace: moduleNamespace(module), name: managerName(module, '1.0.0') });
    await consistently(env, 'the manager is not re-created', async () => !(await managerExists(rt.remote, module, '1.0.0')), manifestKey(manifest));

    await setManifestSkip(env, manifest, false);
    await waitFor('the module CR re-created', () => env.moduleCR(rt.remote, module));
    await waitFor('the manager re-created and ready', () => managerReady(rt.remote, module, '1.0.0'));
    await waitFor('the KCP Kyma Ready', () => kymaReady(rt.kymaName));
    await waitFor('the runtime Kyma Ready', async () => (await env.remoteKyma(rt)).status?.state === 'Ready');

    await env.kcp.patch(Manifest, { namespace: NS, name: manifest.metadata.name ?? '' }, 'merge', { metadata: { finalizers: [...((await env.manifestOf(rt.kymaName, module))?.metadata.finalizers ?? []), 'blocking-finalizer'] } });
    await env.kcp.delete(Manifest, { namespace: NS, name: manifest.metadata.name ?? '' });
    const held = await waitFor('the Manifest Deleting, waiting for the other finalizer', async () => {
      const m = await env.manifestOf(rt.kymaName, module);
      return m?.status?.state === 'Deleting' && m.status.lastOperation?.operation?.includes('waiting as other finalizers are present') ? m : undefined;
    });
    assert.ok(counterValue(env.lm.manager.registry, 'lifecycle_mgr_requeue_reason_total', { requeue_reason: 'manifest_waiting_for_other_finalizers', requeue_type: 'intended' }) > 0, 'counted under a snake_case reason');
    const status = held.status;
    for (let i = 1; i <= 3; i++) {
      // Changes the Manifest controller reacts to; each pass must leave the status as it is.
      const seen = env.reconciles('manifest', `${NS}/${held.metadata.name ?? ''}`);
      await env.kcp.patch(Manifest, { namespace: NS, name: held.metadata.name ?? '' }, 'merge', { metadata: { annotations: { 'example.test/poke': String(i) } } });
      await waitFor('a pass of the Manifest controller', () => env.reconciles('manifest', `${NS}/${held.metadata.name ?? ''}`) > seen);
    }
    assert.deepEqual((await env.manifestOf(rt.kymaName, module))?.status, status, 'no status write, lastUpdateTime unchanged');
    await env.kcp.patch(Manifest, { namespace: NS, name: held.metadata.name ?? '' }, 'merge', { metadata: { finalizers: null } });
  });

  it('labelling: the runtime Kyma, kyma-system and every module resource carry upstream\'s labels; the BTP account labels reach the runtime Kyma', async () => {
    const module = 'labelling';
    await env.publish(module, ['1.0.0'], { channels: { regular: '1.0.0' }, data: defaultCR(module) });
    const rt = await env.runtime('labelling', {}, { [Labels.GlobalAccountID]: 'dummy-global-account', [Labels.SubAccountID]: 'dummy-sub-account' });
    const remoteKyma = await waitFor('the runtime Kyma with the BTP labels', async () => {
      const k = await env.remoteKyma(rt);
      return k.metadata.labels?.[Labels.GlobalAccountID] === 'dummy-global-account' ? k : undefined;
    });
    assert.equal(remoteKyma.metadata.labels?.[Labels.SubAccountID], 'dummy-sub-account');
    assert.equal(remoteKyma.metadata.labels?.[Labels.WatchedBy], LabelValues.Kyma);
    assert.equal(remoteKyma.metadata.labels?.[Labels.ManagedBy], LabelValues.Kyma);
    const ns = await findObject(rt.remote, { apiVersion: 'v1', kind: 'Namespace' }, { name: Namespaces.Remote });
    assert.deepEqual(
      [ns?.metadata.labels?.[Labels.ManagedBy], ns?.metadata.labels?.['istio-injection'], ns?.metadata.labels?.['namespaces.warden.kyma-project.io/validate']],
      [LabelValues.Kyma, 'enabled', 'enabled'],
    );
    // The runtime watcher's objects (skr-webhook Deployment and Secret, the ValidatingWebhookConfiguration), as built for every runtime.
    const tls = { caPem: 'ca', certPem: 'cert', keyPem: 'key' };
    const webhook = [...skrWebhookObjects({ image: 'i', kcpAddress: 'kcp.test:443', tls }), webhookConfigurationFor([], 'ca') as unknown as KubeObject];
    for (const name of ['skr-webhook', SKR_WEBHOOK_TLS_SECRET]) assert.ok(webhook.some((o) => o.metadata.name === name), name);
    for (const o of webhook.filter((x) => ['Deployment', 'Secret', 'ValidatingWebhookConfiguration'].includes(x.kind))) assert.equal(o.metadata.labels?.[Labels.ManagedBy], LabelValues.Kyma, `${o.kind} ${o.metadata.name ?? ''}`);

    await env.setRemoteModules(rt, [{ name: module }]);
    await waitFor('the manager ready', () => managerReady(rt.remote, module, '1.0.0'));
    const manifest = await waitFor('the Manifest with its inventory', async () => {
      const m = await env.manifestOf(rt.kymaName, module);
      return (m?.status?.synced ?? []).length > 0 ? m : undefined;
    });
    for (const r of manifest.status?.synced ?? []) assert.equal((await objectOf(rt.remote, r))?.metadata.labels?.[Labels.ManagedBy], LabelValues.Kyma, `${r.kind} ${r.name}`);
  });

  it('module-consistency: module resources keep their resourceVersion, and a stopped manager is reset once the skip label goes', async () => {
    const module = 'consistency';
    const { rt, manifest } = await enabled('consistency', module);
    await waitFor('the module CR', () => env.moduleCR(rt.remote, module));
    const versions = new Map<string, string | undefined>();
    for (const r of manifest.status?.synced ?? []) versions.set(`${r.kind}/${r.name}`, (await objectOf(rt.remote, r))?.metadata.resourceVersion);
    await consistently(
      env,
      'every synced resource keeps its resourceVersion',
      async () => {
        for (const r of manifest.status?.synced ?? []) if ((await objectOf(rt.remote, r))?.metadata.resourceVersion !== versions.get(`${r.kind}/${r.name}`)) return false;
        return true;
      },
      manifestKey(manifest),
    );

    await setManifestSkip(env, manifest, true);
    await rt.remote.patch(DEPLOYMENT, { namespace: moduleNamespace(module), name: managerName(module, '1.0.0') }, 'merge', { spec: { replicas: 0 } });
    await waitFor('the manager stopped', async () => !(await managerReady(rt.remote, module, '1.0.0')));
    await setManifestSkip(env, manifest, false);
    await waitFor('the manager reset and ready', () => managerReady(rt.remote, module, '1.0.0'));
    const d = await findObject<KubeObject & { spec?: { replicas?: number } }>(rt.remote, DEPLOYMENT, { namespace: moduleNamespace(module), name: managerName(module, '1.0.0') });
    assert.equal(d?.spec?.replicas, 1);
  });

  it('module-without-default-cr: a module without a default CR is Ready without a module CR; a Kyma whose runtime is gone is Error until its kubeconfig Secret is deleted, then goes', async () => {
    const module = 'nodefaultcr';
    const { rt, manifest } = await enabled('no-default-cr', module, { data: false });
    assert.equal(manifest.spec.resource, undefined);
    await consistently(env, 'no module CR in the runtime', async () => (await env.moduleCR(rt.remote, module)) === undefined, manifestKey(manifest));
    assert.equal((await env.moduleEntry(rt.kymaName, module))?.state, 'Ready');
    assert.ok(await kymaReady(rt.kymaName));

    await env.kcp.patch(Manifest, { namespace: NS, name: manifest.metadata.name ?? '' }, 'merge', { metadata: { finalizers: [...(manifest.metadata.finalizers ?? []), 'kyma-project.io/blocking-finalizer'] } });
    await env.kcp.delete(Manifest, { namespace: NS, name: manifest.metadata.name ?? '' });
    await waitFor('the Manifest Deleting', async () => (await env.manifestOf(rt.kymaName, module))?.status?.state === 'Deleting');
    await env.kcp.delete(Kyma, { namespace: NS, name: rt.kymaName }, { propagationPolicy: 'Background' });
    await waitFor('the Kyma still there, with a deletion timestamp', async () => (await env.kyma(rt.kymaName)).metadata.deletionTimestamp !== undefined);

    // The SKR cluster removed: the Kyma is Error, and it stays with its kubeconfig Secret and the
    // Manifest while the Kyma controller passes again.
    await env.api.server.deleteCluster(rt.cluster);
    await waitFor('the Kyma Error', async () => (await env.kymaState(rt.kymaName)) === 'Error');
    const secret = { apiVersion: 'v1', kind: 'Secret' };
    await consistently(
      env,
      'the Kyma, its kubeconfig Secret and the Manifest stay',
      async () =>
        (await findObject(env.kcp, secret, { namespace: NS, name: rt.secretName })) !== undefined &&
        (await findObject<KymaObject>(env.kcp, Kyma, { namespace: NS, name: rt.kymaName })) !== undefined &&
        (await env.manifestOf(rt.kymaName, module)) !== undefined,
      { controller: 'kyma', name: rt.kymaName },
    );
    // The kubeconfig Secret deleted: the Manifest is released, then the Kyma goes.
    await env.kcp.delete(secret, { namespace: NS, name: rt.secretName });
    await waitFor('the Manifest deleted', async () => (await env.manifestOf(rt.kymaName, module)) === undefined, 30_000);
    await waitFor('the Kyma deleted', async () => (await findObject<KymaObject>(env.kcp, Kyma, { namespace: NS, name: rt.kymaName })) === undefined, 30_000);
  });

  for (const manager of ['Deployment', 'StatefulSet'] as const) {
    const target = `module-status-decoupling-with-${manager.toLowerCase()}`;
    const rest = manager === 'Deployment' ? '; a manager that cannot start is Error' : '';
    it(`${target}: a module CR held by its operator keeps the Kyma Processing and the Manifest Deleting${rest}`, async () => {
      // Short names: the Manifest's name (Kyma, module, hash) becomes a label value (63 characters at most).
      const module = manager === 'StatefulSet' ? 'dcsts' : 'dcdeploy';
      const kind = manager === 'StatefulSet' ? STATEFULSET : DEPLOYMENT;
      env.shapes.set(module, { manager });
      const { rt, manifest } = await enabled(`${module}-rt`, module);
      const cr = await waitFor('the module CR', () => env.moduleCR(rt.remote, module));
      assert.deepEqual([manifest.spec.resource?.kind, (manifest.spec.resource as KubeObject | undefined)?.metadata.name, (manifest.spec.resource as KubeObject | undefined)?.metadata.namespace], [cr.kind, cr.metadata.name, cr.metadata.namespace]);
      assert.equal((await env.moduleEntry(rt.kymaName, module))?.state, 'Ready');

      // The module's operator holds its CR with a finalizer (the test plays that) and reports Warning
      // while it is deleted (upstream's template-operator with --final-deletion-state=Warning).
      const crKey = { namespace: Namespaces.Remote, name: MODULE_CR_NAME };
      const { group } = splitApiVersion(sampleKind(module).apiVersion);
      env.operators.setBehaviour(`${group}/Sample`, { deletionState: 'Warning' });
      await rt.remote.patch(sampleKind(module), crKey, 'merge', { metadata: { finalizers: ['example.test/operator'] } });
      await env.setRemoteModules(rt, []);
      await waitFor('the module CR deleting, Warning', async () => {
        const cr = await env.moduleCR(rt.remote, module);
        return cr?.metadata.deletionTimestamp !== undefined && (cr.status as { state?: string } | undefined)?.state === 'Warning';
      });
      await waitFor('the Kyma Processing and the Manifest Deleting', async () => (await env.kymaState(rt.kymaName)) === 'Processing' && (await env.manifestOf(rt.kymaName, module))?.status?.state === 'Deleting');
      await consistently(
        env,
        'Kyma Processing, Manifest Deleting, module CR Warning',
        async () =>
          (await env.kymaState(rt.kymaName)) === 'Processing' &&
          (await env.manifestOf(rt.kymaName, module))?.status?.state === 'Deleting' &&
          ((await env.moduleCR(rt.remote, module))?.status as { state?: string } | undefined)?.state === 'Warning',
        manifestKey(manifest),
      );
      await rt.remote.patch(sampleKind(module), crKey, 'merge', { metadata: { finalizers: null } });
      await waitFor('the module CR gone', async () => (await env.moduleCR(rt.remote, module)) === undefined);
      await waitFor('the manager gone', async () => !(await managerExists(rt.remote, module, '1.0.0', kind)));
      await waitFor('the Manifest gone', async () => (await env.manifests(rt.kymaName)).length === 0);
      await waitFor('the Kyma Ready', () => kymaReady(rt.kymaName));

      // A manager that cannot start (upstream: an image that cannot be pulled). Only for the
      // Deployment: StatefulSets of the simulated kubelet always become ready (docs/upstream-parity.md).
      if (manager === 'StatefulSet') return;
      const broken = `${module}-bad`;
      env.shapes.set(broken, { manager, misconfigured: true });
      await env.publish(broken, ['1.0.0'], { channels: { regular: '1.0.0' }, data: defaultCR(broken) });
      await env.setRemoteModules(rt, [{ name: broken }]);
      await waitFor('the module CR', () => env.moduleCR(rt.remote, broken));
      // kube's deployment controller gives up after progressDeadlineSeconds; the simulation has no timer, so the test writes what it would.
      const name = managerName(broken, '1.0.0');
      await waitFor('the Deployment rolling out', () => findObject(rt.remote, DEPLOYMENT, { namespace: moduleNamespace(broken), name }).then((d) => (d?.status as { conditions?: unknown[] } | undefined)?.conditions?.length));
      await rt.remote.patch(
        DEPLOYMENT,
        { namespace: moduleNamespace(broken), name },
        'merge',
        {
          status: {
            conditions: [
              { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
              { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet has timed out progressing.' },
            ],
          },
        },
        { subresource: 'status' },
      );
      await waitFor('the module Error', async () => (await env.moduleEntry(rt.kymaName, broken))?.state === 'Error');
      await waitFor('the Kyma Error', async () => (await env.kymaState(rt.kymaName)) === 'Error');
      await env.setRemoteModules(rt, []);
      await waitFor('the module CR gone', async () => (await env.moduleCR(rt.remote, broken)) === undefined);
      await waitFor('the manager gone', async () => !(await managerExists(rt.remote, broken, '1.0.0')));
      await waitFor('the Manifest gone', async () => (await env.manifests(rt.kymaName)).length === 0);
      await waitFor('the Kyma Ready', () => kymaReady(rt.kymaName));
    });
  }
});
