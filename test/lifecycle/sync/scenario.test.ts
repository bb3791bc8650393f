// Module resource synchronization end to end on the in-memory landscape, with the runtime watcher:
// ModuleConfig (the module's custom resource from the runtime into the KCP) and SyncResource (a
// module manager's objects from the KCP into the runtime). Every periodic pass is an hour here, so
// whatever converges within seconds was carried by a watch or a watcher event.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Kyma,
  Labels,
  Manifest,
  ModuleConfig,
  ModuleReleaseMeta,
  ModuleTemplate,
  Namespaces,
  SyncResource,
  Watcher,
  type KymaObject,
  type ManifestObject,
  type ModuleConfigObject,
  type SyncResourceObject,
  type SyncedItem,
  type WatcherObject,
} from '../../../src/api/operator/index.js';
import { type ControlPlane, startControlPlane } from '../../../src/controlplane/index.js';
import { eventDrivenConfig, HOUR } from '../../support/event-driven-config.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { type Landscape, startInMemoryLandscape } from '../../../src/landscape/in-memory.js';
import { attachRuntimeCluster } from '../../../src/landscape/runtime-cluster.js';
import type { ArtifactFetcher, FetchedManifest } from '../../../src/lifecycle/artifacts/types.js';
import { MODULE_CONFIG_EVENTS, moduleConfigWatcherName, SYNCED_BY_LABEL } from '../../../src/lifecycle/sync/index.js';
import { clientFromKubeconfig, type HttpClient } from '../../../src/runtime/client/index.js';
import { isNotFound } from '../../../src/runtime/client/errors.js';
import { silentLogger } from '../../../src/runtime/log.js';
import { waitFor } from '../../support/wait.js';
import { contentDigest } from '../../support/artifacts.js';

const NS = Namespaces.ControlPlane;
const RNS = Namespaces.Remote;

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };
const CFG = { apiVersion: 'cfg.sync.test/v1', kind: 'Cfg' };

/** Module `cfg`: its CRD (kind Cfg) and a Deployment. */
class CfgFetcher implements ArtifactFetcher {
  fetchManifest(): Promise<FetchedManifest> {
    const objects = [
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'cfgs.cfg.sync.test' },
        spec: {
          group: 'cfg.sync.test',
          names: { kind: 'Cfg', listKind: 'CfgList', plural: 'cfgs', singular: 'cfg' },
          scope: 'Namespaced',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              subresources: { status: {} },
              schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
            },
          ],
        },
      },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'cfg-manager', namespace: RNS },
        spec: { replicas: 1, selector: { matchLabels: { app: 'cfg' } }, template: { metadata: { labels: { app: 'cfg' } }, spec: { containers: [{ name: 'm', image: 'cfg:1' }] } } },
      },
    ] as KubeObject[];
    return Promise.resolve({ objects, digest: contentDigest(objects) });
  }
}

function counter(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

function configMapItem(name: string, cmName: string, data: Record<string, string>, strategy: SyncedItem['strategy'] = 'CreateAndSync'): SyncedItem {
  return { name, strategy, resource: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: cmName, namespace: RNS }, data } };
}

describe('module resource synchronization', () => {
  let land: Landscape;
  let cp: ControlPlane;
  const remotes: HttpClient[] = [];
  const metric = (name: string, labels: string): number => counter(cp.manager.registry.render(), name, labels);

  /** A runtime with the module `cfg` enabled and its Manifest installed. */
  async function runtimeWithModule(id: string): Promise<HttpClient> {
    const rt = await attachRuntimeCluster(land.server, land.kcp, id);
    const remote = clientFromKubeconfig(land.server.clusterAccess(rt.cluster).kubeconfig, { retries: 0, requestTimeoutMs: 3_000 });
    remotes.push(remote);
    await land.kcp.create({
      apiVersion: Kyma.apiVersion,
      kind: Kyma.kind,
      metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id, [Labels.RuntimeID]: id } },
      spec: { channel: 'regular', modules: [{ name: 'cfg' }] },
    });
    await waitFor(`the cfg module's Deployment in ${id}`, () => remote.get(DEPLOYMENT, { namespace: RNS, name: 'cfg-manager' }).catch(() => undefined), 20_000);
    return remote;
  }

  const configOf = (kyma: string) => land.kcp.get<ModuleConfigObject>(ModuleConfig, { namespace: NS, name: `${kyma}-cfg` });
  const syncOf = (name: string) => land.kcp.get<SyncResourceObject>(SyncResource, { namespace: NS, name });

  async function createSync(name: string, kyma: string, items: SyncedItem[], module = 'cfg'): Promise<SyncResourceObject> {
    return land.kcp.create<SyncResourceObject>({
      apiVersion: SyncResource.apiVersion,
      kind: SyncResource.kind,
      metadata: { name, namespace: NS, labels: { [Labels.KymaName]: kyma } },
      spec: { kyma, module, items },
    });
  }

  /** Waits until the controller handled the SyncResource's current generation and returns it. */
  async function handled(name: string, what = `SyncResource ${name} handled`): Promise<SyncResourceObject> {
    return waitFor(what, async () => {
      const sr = await syncOf(name);
      const gen = sr.metadata.generation;
      const items = sr.status?.items ?? [];
      return sr.status?.conditions?.find((c) => c.type === 'Synced')?.observedGeneration === gen && items.length > 0 && sr;
    }, 15_000);
  }

  before(async () => {
    land = await startInMemoryLandscape({ extraKubeletClusters: (n) => n.startsWith('skr-'), kubelet: { readyDelayMs: 50, scanIntervalMs: 100 } });
    await land.kcp.create({
      apiVersion: ModuleTemplate.apiVersion,
      kind: ModuleTemplate.kind,
      metadata: { name: 'cfg-1.0.0', namespace: NS, labels: { [Labels.ModuleName]: 'cfg' } },
      spec: {
        moduleName: 'cfg',
        version: '1.0.0',
        data: { apiVersion: CFG.apiVersion, kind: CFG.kind, metadata: { name: 'default' }, spec: { level: 'info' } },
        resources: [{ name: 'rawManifest', link: 'https://modules.test/cfg/1.0.0.yaml' }],
        enableModuleConfig: true,
        syncResourceKinds: [
          { group: '', kind: 'ConfigMap', scope: 'Namespaced' },
          { group: 'apps', kind: 'Deployment', scope: 'Namespaced' },
        ],
      },
    });
    await land.kcp.create({ apiVersion: ModuleReleaseMeta.apiVersion, kind: ModuleReleaseMeta.kind, metadata: { name: 'cfg', namespace: NS }, spec: { moduleName: 'cfg', channels: [{ channel: 'regular', version: '1.0.0' }] } });
    cp = await startControlPlane({
      // Only watcher events and watches can move anything within the test.
      config: eventDrivenConfig({ moduleSync: { moduleConfigResyncMs: HOUR, syncResourceResyncMs: HOUR, feedbackMs: 300 } }),
      kcp: land.kcp,
      fetcher: new CfgFetcher(),
      logger: silentLogger,
    });
    await cp.ready();
  });
  after(async () => {
    await cp?.stop();
    for (const r of remotes) r.close();
    await land?.stop();
  });

  it('copies the module CR into a ModuleConfig, and a runtime admin\'s edit reaches it through a watcher event', async () => {
    const remote = await runtimeWithModule('rt-config');
    const first = await waitFor('the ModuleConfig with the default CR', async () => {
      const c = await configOf('rt-config');
      return c.status?.state === 'Ready' && c;
    });
    assert.equal(first.metadata.labels?.[Labels.KymaName], 'rt-config');
    assert.equal(first.metadata.labels?.[Labels.ModuleName], 'cfg');
    assert.equal(first.metadata.ownerReferences?.[0]?.kind, 'Manifest');
    const copied = first.spec.resource as KubeObject & { spec: { level: string } };
    assert.deepEqual([copied.kind, copied.metadata.name, copied.metadata.namespace, copied.spec.level], ['Cfg', 'default', RNS, 'info']);
    assert.equal(copied.metadata.managedFields, undefined, 'no managedFields in the copy');

    const watcher = await land.kcp.get<WatcherObject>(Watcher, { namespace: NS, name: moduleConfigWatcherName('cfg') });
    assert.deepEqual(watcher.spec.resourceToWatch, { group: 'cfg.sync.test', version: '*', resource: 'cfgs' });
    const events = metric('watcher_events_received_total', `manager="${MODULE_CONFIG_EVENTS}"`);
    // What `kubectl patch cfg default -n kyma-system --type merge -p ...` does in the runtime.
    await waitFor('the runtime webhook knowing the module Watcher', async () => {
      const vwc = await remote.get<KubeObject & { webhooks: { name: string }[] }>({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' }, { name: 'skr-webhook' });
      return vwc.webhooks.some((w) => w.name.includes(moduleConfigWatcherName('cfg')));
    });
    const reconciles = () => ['success', 'error', 'requeue', 'requeue_after'].reduce((n, r) => n + metric('controller_runtime_reconcile_total', `controller="module-config",result="${r}"`), 0);
    const reconcilesBefore = reconciles();
    await remote.patch(CFG, { namespace: RNS, name: 'default' }, 'merge', { spec: { level: 'debug', replicas: 3 } });
    const edited = await waitFor('the edit in the ModuleConfig', async () => {
      const c = await configOf('rt-config');
      const spec = (c.spec.resource as { spec?: { level?: string; replicas?: number } }).spec;
      return spec?.level === 'debug' && spec.replicas === 3 && c;
    }, 10_000);
    assert.ok(metric('watcher_events_received_total', `manager="${MODULE_CONFIG_EVENTS}"`) > events, 'the edit arrived as a watcher event');
    // The controller's own update of the ModuleConfig, coming back through its watch, wakes nothing.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(reconciles() - reconcilesBefore, 1, 'one reconcile for the edit: the event\'s');
    assert.equal(edited.status?.resourceGeneration, (await remote.get(CFG, { namespace: RNS, name: 'default' })).metadata.generation);

    // A label-only change of the ModuleConfig by someone else is not fought over; a spec edit is undone.
    await land.kcp.patch(ModuleConfig, { namespace: NS, name: 'rt-config-cfg' }, 'merge', { spec: { resource: { apiVersion: CFG.apiVersion, kind: 'Cfg', metadata: { name: 'forged' } } } });
    await waitFor('the forged copy replaced by the runtime\'s', async () => ((await configOf('rt-config')).spec.resource as KubeObject).metadata.name === 'default', 10_000);
  });

  it('applies SyncResource items into the runtime and follows their changes', async () => {
    const remote = await runtimeWithModule('rt-apply');
    await remote.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'obsolete', namespace: RNS }, data: { a: 'b' } });
    await createSync('rt-apply-cfg', 'rt-apply', [
      configMapItem('settings', 'cfg-settings', { level: 'info' }),
      configMapItem('seed', 'cfg-seed', { first: 'yes' }, 'CreateAndIgnore'),
      { name: 'cleanup', strategy: 'Delete', resource: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'obsolete', namespace: RNS } } },
    ]);
    const sr = await handled('rt-apply-cfg');
    assert.equal(sr.status?.state, 'Ready', JSON.stringify(sr.status));
    assert.deepEqual(sr.status?.items?.map((i) => [i.name, i.state]), [['settings', 'Ready'], ['seed', 'Ready'], ['cleanup', 'Ready']]);
    assert.ok(sr.metadata.finalizers?.includes('operator.kyma-project.io/sync-resource'));
    const settings = await remote.get<KubeObject & { data: Record<string, string> }>(CM, { namespace: RNS, name: 'cfg-settings' });
    assert.deepEqual(settings.data, { level: 'info' });
    assert.equal(settings.metadata.labels?.[SYNCED_BY_LABEL], 'cfg');
    assert.ok(settings.metadata.managedFields?.some((f) => f.manager === 'lifecycle-manager-sync'), 'applied with the lifecycle manager\'s field manager');
    await assert.rejects(remote.get(CM, { namespace: RNS, name: 'obsolete' }), (e: unknown) => isNotFound(e), 'the Delete item removed its object');

    // The runtime admin edits the CreateAndIgnore object; then the module manager changes both items.
    await remote.patch(CM, { namespace: RNS, name: 'cfg-seed' }, 'merge', { data: { first: 'edited-in-runtime' } });
    await land.kcp.patch(SyncResource, { namespace: NS, name: 'rt-apply-cfg' }, 'json', [
      { op: 'replace', path: '/spec/items/0/resource/data', value: { level: 'debug', extra: '1' } },
      { op: 'replace', path: '/spec/items/1/resource/data', value: { first: 'from-kcp' } },
    ]);
    await handled('rt-apply-cfg', 'the changed SyncResource handled');
    assert.deepEqual((await remote.get<KubeObject & { data: Record<string, string> }>(CM, { namespace: RNS, name: 'cfg-settings' })).data, { level: 'debug', extra: '1' });
    assert.deepEqual((await remote.get<KubeObject & { data: Record<string, string> }>(CM, { namespace: RNS, name: 'cfg-seed' })).data, { first: 'edited-in-runtime' }, 'CreateAndIgnore leaves the object to the runtime');

    // Items removed from the spec: the CreateAndSync object goes, the CreateAndIgnore one stays.
    await land.kcp.patch(SyncResource, { namespace: NS, name: 'rt-apply-cfg' }, 'json', [{ op: 'remove', path: '/spec/items/1' }, { op: 'remove', path: '/spec/items/0' }]);
    const after = await handled('rt-apply-cfg', 'the shortened SyncResource handled');
    assert.deepEqual(after.status?.items?.map((i) => i.name), ['cleanup']);
    await assert.rejects(remote.get(CM, { namespace: RNS, name: 'cfg-settings' }), (e: unknown) => isNotFound(e), 'the removed CreateAndSync item\'s object is deleted');
    await remote.get(CM, { namespace: RNS, name: 'cfg-seed' });
  });

  it('reads feedback values of applied objects back into the status', async () => {
    await runtimeWithModule('rt-feedback');
    await createSync('rt-feedback-cfg', 'rt-feedback', [
      {
        name: 'worker',
        strategy: 'CreateAndSync',
        resource: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'cfg-worker', namespace: RNS },
          spec: { replicas: 2, selector: { matchLabels: { app: 'w' } }, template: { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'w', image: 'w:1' }] } } },
        },
        feedback: [
          { name: 'available', jsonPath: '.status.availableReplicas' },
          { name: 'image', jsonPath: '.spec.template.spec.containers[0].image' },
          { name: 'missing', jsonPath: '.status.nothing' },
        ],
      },
    ]);
    const sr = await waitFor('availableReplicas 2 in the feedback', async () => {
      const s = await syncOf('rt-feedback-cfg');
      return s.status?.items?.[0]?.feedback?.find((f) => f.name === 'available')?.value === 2 && s;
    }, 15_000);
    const feedback = sr.status?.items?.[0]?.feedback ?? [];
    assert.deepEqual(feedback.find((f) => f.name === 'image'), { name: 'image', value: 'w:1' });
    assert.deepEqual(feedback.find((f) => f.name === 'missing'), { name: 'missing' });
  });

  it('refuses kinds the module\'s template does not allow, names the item and kind, and applies the rest', async () => {
    const remote = await runtimeWithModule('rt-refuse');
    await createSync('rt-refuse-cfg', 'rt-refuse', [
      {
        name: 'escalate',
        strategy: 'CreateAndSync',
        resource: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'everyone-admin' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [{ kind: 'Group', name: 'system:authenticated', apiGroup: 'rbac.authorization.k8s.io' }],
        },
      },
      { name: 'no-namespace', strategy: 'CreateAndSync', resource: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } },
      configMapItem('fine', 'cfg-fine', { ok: 'yes' }),
    ]);
    const sr = await handled('rt-refuse-cfg');
    assert.equal(sr.status?.state, 'Error');
    const byName = new Map(sr.status?.items?.map((i) => [i.name, i]));
    assert.equal(byName.get('escalate')?.state, 'Error');
    assert.match(byName.get('escalate')?.message ?? '', /item "escalate": kind ClusterRoleBinding\.rbac\.authorization\.k8s\.io may not be synced by module cfg/);
    assert.match(byName.get('no-namespace')?.message ?? '', /namespace is required/);
    assert.equal(byName.get('fine')?.state, 'Ready');
    await assert.rejects(remote.get({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' }, { name: 'everyone-admin' }), (e: unknown) => isNotFound(e));
    await remote.get(CM, { namespace: RNS, name: 'cfg-fine' });
  });

  it('refuses duplicate item names at admission and a SyncResource for another Kyma', async () => {
    await assert.rejects(
      createSync('dup', 'rt-apply', [configMapItem('same', 'a', {}), configMapItem('same', 'b', {})]),
      (e: Error) => /Duplicate value/.test(e.message),
    );
    // The label must name the Kyma of spec.kyma: a module manager cannot aim one at another runtime by label.
    await land.kcp.create({
      apiVersion: SyncResource.apiVersion,
      kind: SyncResource.kind,
      metadata: { name: 'mislabelled', namespace: NS, labels: { [Labels.KymaName]: 'rt-other' } },
      spec: { kyma: 'rt-apply', module: 'cfg', items: [configMapItem('x', 'cfg-mislabelled', {})] },
    });
    const sr = await waitFor('the mislabelled SyncResource in Error', async () => {
      const s = await syncOf('mislabelled');
      return s.status?.state === 'Error' && s;
    });
    assert.match(sr.status?.lastOperation?.operation ?? '', /kyma-name/);
    await createSync('no-kyma', 'rt-nowhere', [configMapItem('x', 'y', {})]);
    await waitFor('a SyncResource for a missing Kyma in Error', async () => /Kyma rt-nowhere does not exist/.test((await syncOf('no-kyma')).status?.lastOperation?.operation ?? ''));
  });

  it('reports an unreachable runtime on every item and recovers', async () => {
    const remote = await runtimeWithModule('rt-down');
    await createSync('rt-down-cfg', 'rt-down', [configMapItem('a', 'cfg-a', { v: '1' })]);
    await handled('rt-down-cfg');
    land.server.setFaults('skr-rt-down', { unreachable: true });
    try {
      await land.kcp.patch(SyncResource, { namespace: NS, name: 'rt-down-cfg' }, 'json', [{ op: 'replace', path: '/spec/items/0/resource/data', value: { v: '2' } }]);
      const down = await waitFor('the item reporting the unreachable runtime', async () => {
        const s = await syncOf('rt-down-cfg');
        return s.status?.state === 'Error' && s.status.items?.[0]?.state === 'Error' && s;
      }, 20_000);
      assert.match(down.status?.items?.[0]?.message ?? '', /unreachable/);
    } finally {
      land.server.setFaults('skr-rt-down', undefined);
    }
    await waitFor('the item applied after the runtime is back', async () => (await syncOf('rt-down-cfg')).status?.state === 'Ready', 20_000);
    assert.deepEqual((await remote.get<KubeObject & { data: Record<string, string> }>(CM, { namespace: RNS, name: 'cfg-a' })).data, { v: '2' });
  });

  it('removes the ModuleConfig and the synced objects with the module, and the objects with a deleted SyncResource', async () => {
    const remote = await runtimeWithModule('rt-remove');
    await waitFor('the ModuleConfig', () => configOf('rt-remove'));
    await remote.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg-preexisting', namespace: RNS }, data: { mine: 'yes' } });
    await createSync('rt-remove-cfg', 'rt-remove', [
      configMapItem('synced', 'cfg-synced', { a: '1' }),
      configMapItem('created', 'cfg-created', { b: '1' }, 'CreateAndIgnore'),
      configMapItem('preexisting', 'cfg-preexisting', { c: '1' }, 'CreateAndIgnore'),
    ]);
    const sr = await handled('rt-remove-cfg');
    assert.deepEqual(sr.status?.items?.map((i) => [i.name, i.created === true]), [['synced', false], ['created', true], ['preexisting', false]]);

    // The module disabled in the runtime's Kyma: its Manifest goes, and with it the ModuleConfig and everything synced.
    await remote.patch(Kyma, { namespace: RNS, name: 'default' }, 'merge', { spec: { modules: [] } });
    await waitFor('the Manifest gone', async () => (await land.kcp.list<ManifestObject>(Manifest, { namespace: NS, labelSelector: `${Labels.KymaName}=rt-remove` })).items.length === 0, 20_000);
    await waitFor('the ModuleConfig gone', () => configOf('rt-remove').then(() => false, (e: unknown) => isNotFound(e)), 15_000);
    const off = await waitFor('the SyncResource in Warning', async () => {
      const s = await syncOf('rt-remove-cfg');
      return s.status?.state === 'Warning' && s;
    }, 15_000);
    assert.match(off.status?.lastOperation?.operation ?? '', /module cfg is not enabled in Kyma rt-remove/);
    for (const name of ['cfg-synced', 'cfg-created']) await assert.rejects(remote.get(CM, { namespace: RNS, name }), (e: unknown) => isNotFound(e), `${name} removed with the module`);
    assert.deepEqual((await remote.get<KubeObject & { data: Record<string, string> }>(CM, { namespace: RNS, name: 'cfg-preexisting' })).data, { mine: 'yes' }, 'an object the lifecycle manager did not create stays');

    // Enabled again: the items come back; then the SyncResource is deleted and takes them along.
    await remote.patch(Kyma, { namespace: RNS, name: 'default' }, 'merge', { spec: { modules: [{ name: 'cfg' }] } });
    await waitFor('the synced object back', () => remote.get(CM, { namespace: RNS, name: 'cfg-synced' }).catch(() => undefined), 20_000);
    await land.kcp.delete(SyncResource, { namespace: NS, name: 'rt-remove-cfg' });
    await waitFor('the SyncResource gone', () => syncOf('rt-remove-cfg').then(() => false, (e: unknown) => isNotFound(e)), 15_000);
    for (const name of ['cfg-synced', 'cfg-created']) await assert.rejects(remote.get(CM, { namespace: RNS, name }), (e: unknown) => isNotFound(e), `${name} removed with the SyncResource`);
    await remote.get(CM, { namespace: RNS, name: 'cfg-preexisting' });
    assert.ok((await land.kcp.get<KymaObject>(Kyma, { namespace: NS, name: 'rt-remove' })).metadata.name);
  });

  // Last: it changes the shared template.
  it('removes the ModuleConfigs and the module Watcher when the template opts out', async () => {
    await waitFor('the ModuleConfig of rt-config', () => configOf('rt-config'));
    await land.kcp.patch(ModuleTemplate, { namespace: NS, name: 'cfg-1.0.0' }, 'merge', { spec: { enableModuleConfig: false } });
    await waitFor('no ModuleConfig left', async () => (await land.kcp.list(ModuleConfig, { namespace: NS })).items.length === 0, 15_000);
    await waitFor('the module Watcher gone', () => land.kcp.get(Watcher, { namespace: NS, name: moduleConfigWatcherName('cfg') }).then(() => false, (e: unknown) => isNotFound(e)), 15_000);
  });
});
