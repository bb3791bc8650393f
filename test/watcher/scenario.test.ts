// The runtime watcher end to end on the in-memory landscape: the lifecycle manager installs the
// webhook into each runtime, the runtime's API server calls it (served by the landscape with the
// runtime's own certificate), and it reports over mutual TLS to the listener. Ready Kymas and
// Manifests are requeued only every hour here, so whatever converges within seconds was woken by
// an event.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, Labels, Manifest, ModuleReleaseMeta, ModuleTemplate, Namespaces, type KymaObject, type ManifestObject } from '../../src/api/operator/index.js';
import { type ControlPlane, startControlPlane } from '../../src/controlplane/index.js';
import { eventDrivenConfig } from '../support/event-driven-config.js';
import type { KubeObject } from '../../src/kube/object.js';
import { type Landscape, startInMemoryLandscape } from '../../src/landscape/in-memory.js';
import { attachRuntimeCluster } from '../../src/landscape/runtime-cluster.js';
import type { ArtifactFetcher, FetchedManifest } from '../../src/lifecycle/artifacts/types.js';
import { clientFromKubeconfig, type HttpClient } from '../../src/runtime/client/index.js';
import { isNotFound } from '../../src/runtime/client/errors.js';
import { silentLogger } from '../../src/runtime/log.js';
import { LIFECYCLE_MANAGER_EVENTS, MODULE_RESOURCE_EVENTS, MODULE_STATUS_EVENTS } from '../../src/watcher/constants.js';
import type { RouteResult } from '../../src/lifecycle/watcher-events.js';
import type { DeliveredEvent } from '../../src/watcher/listener.js';
import { SKR_WEBHOOK_NAME, SKR_WEBHOOK_NETWORK_POLICIES, SKR_WEBHOOK_TLS_SECRET } from '../../src/watcher/skr-objects.js';
import { waitFor } from '../support/wait.js';
import { contentDigest } from '../support/artifacts.js';

const NS = Namespaces.ControlPlane;
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };
const VWC = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' };

/** Module `web`: one Deployment in kyma-system. */
class WebFetcher implements ArtifactFetcher {
  fetchManifest(): Promise<FetchedManifest> {
    const objects: KubeObject[] = [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: Namespaces.Remote },
        spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } } },
      } as KubeObject,
    ];
    return Promise.resolve({ objects, digest: contentDigest(objects) });
  }
}

function counter(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('runtime watcher: events instead of polling', () => {
  let land: Landscape;
  let cp: ControlPlane;
  const remotes: HttpClient[] = [];
  /** Events handed on by the listener: `<manager> <kind> <name> <router result>` per runtime. */
  const handed: { runtimeId: string; what: string }[] = [];
  const handedFrom = (runtimeId: string): string[] => handed.filter((h) => h.runtimeId === runtimeId).map((h) => h.what);

  const eventsOf = (manager: string): number => counter(cp.manager.registry.render(), 'watcher_events_received_total', `manager="${manager}"`);
  const eventPasses = (): number => counter(cp.manager.registry.render(), 'lifecycle_mgr_kyma_runtime_events_total', 'pass="event"');
  /** Full runtime checks of the Kymas so far, whatever the reason. */
  const fullChecks = (): number =>
    cp.manager.registry
      .render()
      .split('\n')
      .filter((l) => l.startsWith('lifecycle_mgr_full_runtime_checks_total{'))
      .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);

  async function runtime(id: string): Promise<HttpClient> {
    const rt = await attachRuntimeCluster(land.server, land.kcp, id);
    const remote = clientFromKubeconfig(land.server.clusterAccess(rt.cluster).kubeconfig, { retries: 1 });
    remotes.push(remote);
    await land.kcp.create({
      apiVersion: Kyma.apiVersion,
      kind: Kyma.kind,
      metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id, [Labels.RuntimeID]: id } },
      spec: { channel: 'regular', modules: [] },
    });
    await waitFor(`Kyma ${id} Ready with its webhook`, async () => {
      const k = await land.kcp.get<KymaObject>(Kyma, { namespace: NS, name: id });
      return k.status?.state === 'Ready' && k.status.conditions?.some((c) => c.type === 'SKRWebhook' && c.status === 'True');
    }, 20_000);
    return remote;
  }

  before(async () => {
    land = await startInMemoryLandscape({ extraKubeletClusters: (n) => n.startsWith('skr-'), kubelet: { readyDelayMs: 50, scanIntervalMs: 100 } });
    await land.kcp.create({
      apiVersion: ModuleTemplate.apiVersion,
      kind: ModuleTemplate.kind,
      metadata: { name: 'web-1.0.0', namespace: NS, labels: { [Labels.ModuleName]: 'web' } },
      spec: { moduleName: 'web', version: '1.0.0', resources: [{ name: 'rawManifest', link: 'https://modules.test/web/1.0.0.yaml' }] },
    });
    await land.kcp.create({ apiVersion: ModuleReleaseMeta.apiVersion, kind: ModuleReleaseMeta.kind, metadata: { name: 'web', namespace: NS }, spec: { moduleName: 'web', channels: [{ channel: 'regular', version: '1.0.0' }] } });
    cp = await startControlPlane({
      // Only events can make a Ready Kyma or Manifest look again within the test.
      // The recheck delay (1 s by default) leaves room for a late write on a loaded machine.
      config: eventDrivenConfig({ watcherEventRecheckMs: 2_000 }),
      kcp: land.kcp,
      fetcher: new WebFetcher(),
      logger: silentLogger,
    });
    await cp.ready();
    // Every event the listener hands on, with what the router did with it (the same router, wrapped).
    const router = cp.lifecycle?.watcherEvents;
    const listener = cp.watcher?.listener;
    assert.ok(router && listener);
    const recorded = (route: (e: DeliveredEvent) => RouteResult) => (e: DeliveredEvent) => {
      const result = route(e);
      handed.push({ runtimeId: e.runtimeId, what: `${e.manager} ${e.event.watchedGvk.kind} ${e.event.watched.name} ${result}` });
      return result;
    };
    listener.handle(LIFECYCLE_MANAGER_EVENTS, recorded((e) => router.kymaChanged(e)));
    listener.handle(MODULE_RESOURCE_EVENTS, recorded((e) => router.moduleResourceChanged(e)));
    listener.handle(MODULE_STATUS_EVENTS, recorded((e) => router.moduleStatusChanged(e)));
  });
  after(async () => {
    await cp?.stop();
    for (const r of remotes) r.close();
    await land?.stop();
  });

  it('installs the webhook, and a module enabled in the runtime Kyma becomes Ready through its event', async () => {
    const remote = await runtime('rt-enable');
    const vwc = await remote.get<KubeObject & { webhooks: { name: string; clientConfig: { service: { path: string } } }[] }>(VWC, { name: SKR_WEBHOOK_NAME });
    assert.deepEqual(
      vwc.webhooks.map((w) => [w.name, w.clientConfig.service.path]).sort(),
      [
        [`${NS}.klm-module-resources.operator.kyma-project.io`, '/validate/lifecycle-manager-resources'],
        [`${NS}.klm-module-status.operator.kyma-project.io`, '/validate/lifecycle-manager-module-status'],
        [`${NS}.klm-watcher.operator.kyma-project.io`, '/validate/lifecycle-manager'],
      ],
    );
    const before = { events: eventsOf('lifecycle-manager'), passes: eventPasses(), fullChecks: fullChecks(), handed: handedFrom('rt-enable').length };
    // What `kubectl edit kyma default -n kyma-system` does in the runtime.
    await remote.patch(Kyma, { namespace: Namespaces.Remote, name: 'default' }, 'merge', { spec: { modules: [{ name: 'web' }] } });
    await waitFor('the module Ready in the KCP Kyma', async () => {
      const k = await land.kcp.get<KymaObject>(Kyma, { namespace: NS, name: 'rt-enable' });
      return k.status?.state === 'Ready' && k.status.modules?.some((m) => m.name === 'web' && m.state === 'Ready');
    }, 20_000);
    assert.ok(eventsOf('lifecycle-manager') > before.events, 'the listener received the runtime Kyma event');
    await remote.get(DEPLOYMENT, { namespace: Namespaces.Remote, name: 'web' });
    // The event was answered by reading the runtime Kyma alone: no full runtime check in the window.
    assert.ok(eventPasses() > before.passes, 'an event pass answered the event');
    assert.equal(fullChecks(), before.fullChecks, 'no full runtime check');
    // The KCP status is written first, then mirrored into the runtime Kyma by the same pass.
    await waitFor('the status mirrored into the runtime Kyma', async () => {
      const mirrored = await remote.get<KymaObject>(Kyma, { namespace: Namespaces.Remote, name: 'default' });
      return mirrored.status?.modules?.some((m) => m.name === 'web' && m.state === 'Ready');
    }, 5_000);
    // The install's own writes (the module's objects created, the runtime Kyma's status mirrored) sent
    // no event; the kubelets' status writes of the module Deployment in the same window did.
    const window = handedFrom('rt-enable').slice(before.handed);
    assert.ok(window.includes(`${MODULE_STATUS_EVENTS} Deployment web enqueued`), `the Deployment's status writes reported: ${window.join('; ')}`);
    assert.deepEqual(window.filter((w) => w.startsWith(`${MODULE_RESOURCE_EVENTS} `) || w.endsWith(' ignored')), [], 'no event for the lifecycle manager\'s own writes');
  });

  it('a channel switched in the runtime Kyma takes effect through an event pass', async () => {
    const remote = await runtime('rt-channel');
    const before = { passes: eventPasses(), fullChecks: fullChecks() };
    await remote.patch(Kyma, { namespace: Namespaces.Remote, name: 'default' }, 'merge', { spec: { channel: 'fast' } });
    await waitFor('the active channel fast mirrored into the runtime Kyma', async () => (await remote.get<KymaObject>(Kyma, { namespace: Namespaces.Remote, name: 'default' })).status?.activeChannel === 'fast', 20_000);
    const kyma = await land.kcp.get<KymaObject>(Kyma, { namespace: NS, name: 'rt-channel' });
    assert.equal(kyma.spec.channel, 'fast', 'the KCP Kyma follows the runtime channel');
    assert.equal(kyma.status?.state, 'Ready');
    assert.ok(eventPasses() > before.passes, 'an event pass answered the event');
    assert.equal(fullChecks(), before.fullChecks, 'no full runtime check');
  });

  it('reports a module Deployment\'s status writes, and repairs it deleted or edited in the runtime within seconds', async () => {
    const remote = await runtime('rt-drift');
    await remote.patch(Kyma, { namespace: Namespaces.Remote, name: 'default' }, 'merge', { spec: { modules: [{ name: 'web' }] } });
    await waitFor('the module Deployment installed', () => remote.get(DEPLOYMENT, { namespace: Namespaces.Remote, name: 'web' }).catch(() => undefined), 20_000);
    await waitFor('the Manifest Ready', async () => {
      const ms = (await land.kcp.list<ManifestObject>(Manifest, { namespace: NS, labelSelector: `${Labels.KymaName}=rt-drift` })).items;
      return ms.length === 1 && ms[0].status?.state === 'Ready';
    }, 20_000);
    // A status write of the module Deployment (the kubelets reporting it unavailable) is reported by
    // klm-module-status (a subresource write: klm-module-resources does not see it) and wakes the Manifest.
    const deploymentEvent = `${MODULE_STATUS_EVENTS} Deployment web enqueued`;
    const statusBefore = handedFrom('rt-drift').filter((w) => w === deploymentEvent).length;
    await remote.patch(DEPLOYMENT, { namespace: Namespaces.Remote, name: 'web' }, 'merge', { status: { availableReplicas: 0, readyReplicas: 0 } }, { subresource: 'status' });
    await waitFor("the module Deployment's status write reported", () => handedFrom('rt-drift').filter((w) => w === deploymentEvent).length > statusBefore, 10_000);
    const before = eventsOf('lifecycle-manager-resources');
    await remote.delete(DEPLOYMENT, { namespace: Namespaces.Remote, name: 'web' });
    await waitFor('the Deployment back', () => remote.get(DEPLOYMENT, { namespace: Namespaces.Remote, name: 'web' }).catch(() => undefined), 15_000);
    assert.ok(eventsOf('lifecycle-manager-resources') > before, 'the deletion reached the listener as an event');
    // Edited by hand (as `kubectl set image` does): the module's image comes back.
    const imageOf = async () => (await remote.get<KubeObject & { spec: { template: { spec: { containers: { image: string }[] } } } }>(DEPLOYMENT, { namespace: Namespaces.Remote, name: 'web' })).spec.template.spec.containers[0].image;
    const beforeEdit = eventsOf('lifecycle-manager-resources');
    await remote.patch(DEPLOYMENT, { namespace: Namespaces.Remote, name: 'web' }, 'strategic', { spec: { template: { spec: { containers: [{ name: 'web', image: 'web:hacked' }] } } } }, { fieldManager: 'kubectl-set' });
    await waitFor("the module's image back", async () => (await imageOf()) === 'web:1', 15_000);
    assert.ok(eventsOf('lifecycle-manager-resources') > beforeEdit, 'the edit reached the listener as an event');
  });

  it('an event that comes before the API server stored its write: the pass that found nothing changed looks once more (--watcher-event-recheck-delay)', async () => {
    // A webhook is called before the write is stored, so an event can be answered before its change
    // can be read. Here the event is handed to the router by hand, and the change it reports comes
    // after the pass that answered it, under a field manager the webhook ignores (no event of its own).
    const remote = await runtime('rt-early');
    const router = cp.lifecycle?.watcherEvents;
    assert.ok(router);
    await remote.patch(Kyma, { namespace: Namespaces.Remote, name: 'default' }, 'merge', { spec: { modules: [{ name: 'web' }] } });
    await waitFor('the Manifest Ready', async () => {
      const ms = (await land.kcp.list<ManifestObject>(Manifest, { namespace: NS, labelSelector: `${Labels.KymaName}=rt-early` })).items;
      return ms.length === 1 && ms[0].status?.state === 'Ready';
    }, 20_000);
    const total = (name: string): number => Number(cp.manager.registry.render().split('\n').find((l) => l.startsWith(`${name} `))?.split(' ').pop() ?? 0);
    const manifestAsked = (): number => total('lifecycle_mgr_manifest_event_rechecks_total');
    const kymaAsked = (): number => total('lifecycle_mgr_kyma_event_rechecks_total');
    const kymaRecheckPasses = (): number => counter(cp.manager.registry.render(), 'lifecycle_mgr_kyma_runtime_events_total', 'pass="recheck"');

    // A label of the module's Deployment changed: the pass answering the early event finds the
    // Deployment as applied. A label edit changes no spec, so no status write follows it either:
    // nothing but the recheck can notice it.
    const labelOf = async () => (await remote.get<KubeObject>(DEPLOYMENT, { namespace: Namespaces.Remote, name: 'web' })).metadata.labels?.[Labels.Component];
    const component = await labelOf();
    assert.ok(component, 'the Deployment carries the component label');
    const asked = manifestAsked();
    assert.equal(router.moduleResourceChanged({ runtimeId: 'rt-early', event: { watchedGvk: { group: 'apps', kind: 'Deployment' }, watched: { namespace: Namespaces.Remote, name: 'web' } } }), 'enqueued');
    await waitFor('the event pass found nothing and asked for a recheck', () => manifestAsked() > asked, 10_000);
    const handedBefore = handedFrom('rt-early').length;
    await remote.patch(DEPLOYMENT, { namespace: Namespaces.Remote, name: 'web' }, 'merge', { metadata: { labels: { [Labels.Component]: 'late' } } }, { fieldManager: 'declarative.kyma-project.io/applier' });
    await waitFor('the label put back through the recheck', async () => (await labelOf()) === component, 10_000);
    assert.deepEqual(handedFrom('rt-early').slice(handedBefore), [], 'no event reported the late edit');

    // A runtime Kyma spec change: the event pass reads the runtime Kyma as it was.
    const kymaAskedBefore = kymaAsked();
    const passes = kymaRecheckPasses();
    assert.equal(router.kymaChanged({ runtimeId: 'rt-early', event: { watchedGvk: { group: 'operator.kyma-project.io', kind: 'Kyma' }, watched: { namespace: Namespaces.Remote, name: 'default' } } }), 'enqueued');
    await waitFor('the event pass found nothing and asked for a recheck', () => kymaAsked() > kymaAskedBefore, 10_000);
    await remote.patch(Kyma, { namespace: Namespaces.Remote, name: 'default' }, 'merge', { spec: { channel: 'fast' } }, { fieldManager: 'lifecycle-manager-sync' });
    await waitFor('the KCP Kyma follows the late change through the recheck', async () => (await land.kcp.get<KymaObject>(Kyma, { namespace: NS, name: 'rt-early' })).spec.channel === 'fast', 10_000);
    assert.ok(kymaRecheckPasses() > passes, 'a recheck pass');
  });

  it('a runtime Kyma change that arrives while the Kyma is skipped is followed once the skip label goes', async () => {
    const remote = await runtime('rt-skip');
    const kymaKey = { namespace: NS, name: 'rt-skip' };
    const kymaReconciles = (): number =>
      cp.manager.registry
        .render()
        .split('\n')
        .filter((l) => l.startsWith('controller_runtime_reconcile_total{') && l.includes('controller="kyma"'))
        .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
    const labelled = kymaReconciles();
    await land.kcp.patch(Kyma, kymaKey, 'merge', { metadata: { labels: { [Labels.SkipReconciliation]: 'true' } } });
    await waitFor('the skip label reconciled', () => kymaReconciles() > labelled, 20_000);
    const before = { events: eventsOf('lifecycle-manager'), reconciles: kymaReconciles() };
    await remote.patch(Kyma, { namespace: Namespaces.Remote, name: 'default' }, 'merge', { spec: { modules: [{ name: 'web' }] } });
    // The event arrived and the Kyma was reconciled (and skipped) after it.
    await waitFor('the event received', () => eventsOf('lifecycle-manager') > before.events, 20_000);
    await waitFor('a Kyma reconcile after the event', () => kymaReconciles() > before.reconciles, 20_000);
    assert.deepEqual((await land.kcp.get<KymaObject>(Kyma, kymaKey)).spec.modules ?? [], [], 'a skipped Kyma does not follow its runtime');
    await land.kcp.patch(Kyma, kymaKey, 'merge', { metadata: { labels: { [Labels.SkipReconciliation]: null } } });
    await waitFor('the KCP Kyma follows the runtime and the module is Ready', async () => {
      const k = await land.kcp.get<KymaObject>(Kyma, kymaKey);
      return k.spec.modules?.some((m) => m.name === 'web') && k.status?.modules?.some((m) => m.name === 'web' && m.state === 'Ready');
    }, 20_000);
  });

  it('sends the Kyma controller no event for status or label writes of the runtime Kyma, and one for each spec change in the same window', async () => {
    const remote = await runtime('rt-quiet');
    const before = handedFrom('rt-quiet').length;
    const key = { namespace: Namespaces.Remote, name: 'default' };
    await remote.patch(Kyma, key, 'merge', { metadata: { labels: { team: 'a' } } });
    // A status write by someone else (the lifecycle manager's own mirror writes send no event).
    await remote.patch(Kyma, key, 'merge', { status: { state: 'Warning' } }, { subresource: 'status' });
    // The control: a spec change in the same window is reported. The lifecycle manager then mirrors
    // the KCP Kyma's status into the runtime Kyma (a status write there).
    await remote.patch(Kyma, key, 'merge', { spec: { modules: [{ name: 'ghost' }] } });
    await waitFor('the KCP Kyma following the spec change and its status mirrored into the runtime', async () => {
      const k = await land.kcp.get<KymaObject>(Kyma, { namespace: NS, name: 'rt-quiet' });
      const r = await remote.get<KymaObject>(Kyma, key);
      return k.spec.modules?.some((m) => m.name === 'ghost') && (r.status?.modules ?? []).some((m) => m.name === 'ghost');
    }, 10_000);
    // A second spec change closes the window: its event comes after any event the status writes caused.
    await remote.patch(Kyma, key, 'merge', { spec: { modules: [] } });
    const spec = `${LIFECYCLE_MANAGER_EVENTS} Kyma default enqueued`;
    await waitFor('the second spec change reported', () => handedFrom('rt-quiet').slice(before).filter((w) => w === spec).length >= 2, 10_000);
    const window = handedFrom('rt-quiet').slice(before);
    assert.deepEqual(window.filter((w) => w.startsWith(`${LIFECYCLE_MANAGER_EVENTS} `)), [spec, spec], 'only the spec changes reached the Kyma controller');
    // klm-module-status reports the runtime Kyma's status writes made by others (it carries managed-by:
    // kyma, as module resources do; the lifecycle manager's own mirror writes send nothing); the router
    // drops them: nothing is enqueued for them.
    // The webhook sends after it answered admission: wait for the status writes' events to land.
    const statusEvents = await waitFor('the status writes reported by klm-module-status', () => {
      const found = handedFrom('rt-quiet').slice(before).filter((w) => !w.startsWith(`${LIFECYCLE_MANAGER_EVENTS} `));
      return found.length > 0 && found;
    }, 10_000);
    assert.deepEqual([...new Set(statusEvents)], [`${MODULE_STATUS_EVENTS} Kyma default ignored`]);
  });

  it('names a webhook that does not run in the SKRWebhook condition, puts it back, and clears the condition once it runs', async () => {
    const remote = await runtime('rt-down');
    const deployment = { namespace: Namespaces.Remote, name: SKR_WEBHOOK_NAME };
    await remote.patch(DEPLOYMENT, deployment, 'merge', { spec: { replicas: 0 } });
    await waitFor('the webhook Deployment without an available replica', async () => ((await remote.get<KubeObject & { status?: { availableReplicas?: number } }>(DEPLOYMENT, deployment)).status?.availableReplicas ?? 0) === 0);
    // Nothing in the runtime tells the KCP about its webhook's Deployment: a KCP-side change wakes the Kyma.
    await land.kcp.patch(Kyma, { namespace: NS, name: 'rt-down' }, 'merge', { metadata: { labels: { probe: '1' } } });
    // The condition is False until the webhook runs again (the sync puts the replica back at once), so
    // the durable record is the Kyma's state-change Event, which carries the condition's message.
    const note = await waitFor('a state-change Event naming the webhook that does not run', async () => {
      const events = (await land.kcp.list<KubeObject & { regarding?: { name?: string }; reason?: string; note?: string }>({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: NS })).items;
      // From Ready: not the install's own wait for its first replica.
      return events.find((e) => e.regarding?.name === 'rt-down' && e.reason === 'StateChanged' && /^state Ready -> /.test(e.note ?? ''))?.note;
    }, 10_000);
    assert.match(note, /^state Ready -> Processing: skrwebhook is out of sync and needs to be resynchronized: the skr-webhook Deployment in the runtime has no available replica/);
    // The sync put the replica back (the Deployment is the lifecycle manager's), and the condition clears.
    await waitFor('the webhook running and the Kyma Ready again', async () => {
      const k = await land.kcp.get<KymaObject>(Kyma, { namespace: NS, name: 'rt-down' });
      return k.status?.state === 'Ready' && k.status.conditions?.some((c) => c.type === 'SKRWebhook' && c.status === 'True');
    }, 20_000);
  });

  it('removes the webhook from the runtime with the Kyma', async () => {
    const remote = await runtime('rt-gone');
    await land.kcp.delete(Kyma, { namespace: NS, name: 'rt-gone' });
    await waitFor('the Kyma gone', () => land.kcp.get(Kyma, { namespace: NS, name: 'rt-gone' }).then(() => false, (e: unknown) => isNotFound(e)), 20_000);
    for (const [ref, key] of [
      [VWC, { name: SKR_WEBHOOK_NAME }],
      [DEPLOYMENT, { namespace: Namespaces.Remote, name: SKR_WEBHOOK_NAME }],
      [{ apiVersion: 'v1', kind: 'Secret' }, { namespace: Namespaces.Remote, name: SKR_WEBHOOK_TLS_SECRET }],
      ...Object.values(SKR_WEBHOOK_NETWORK_POLICIES).map((name) => [{ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' }, { namespace: Namespaces.Remote, name }] as const),
    ] as const) {
      await assert.rejects(remote.get(ref, key), (e: unknown) => isNotFound(e), `${ref.kind} ${key.name} removed`);
    }
  });
});
