// The lifecycle manager driven by events, on the in-memory landscape: with the runtime watcher, a
// converged fleet's periodic passes send no request to the runtimes and write nothing to the KCP;
// changes arrive as watcher events and watches (a module resource deleted in a runtime, a Manifest
// turning Ready, a catalog entry changing) and reach only what they concern. Without the watcher
// every pass looks at the runtime, as before.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, LabelValues, Labels, Manifest, ModuleReleaseMeta, ModuleTemplate, Namespaces, type KymaObject, type ManifestObject } from '../../src/api/operator/index.js';
import { type ControlPlane, type ControlPlaneConfig, defaultControlPlaneConfig, startControlPlane } from '../../src/controlplane/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { type Landscape, startInMemoryLandscape } from '../../src/landscape/in-memory.js';
import { attachRuntimeCluster } from '../../src/landscape/runtime-cluster.js';
import type { ArtifactFetcher, FetchedManifest } from '../../src/lifecycle/artifacts/types.js';
import { clientFromKubeconfig, type HttpClient } from '../../src/runtime/client/index.js';
import { silentLogger } from '../../src/runtime/log.js';
import { sleep } from '../../src/util/sleep.js';
import { DEFAULT_SKR_WEBHOOK_IMAGE } from '../../src/watcher/skr-objects.js';
import { waitFor } from '../support/wait.js';
import { Registry } from '../../src/runtime/metrics.js';
import { MANIFEST_FIELD_MANAGER } from '../../src/lifecycle/manifest/constants.js';
import { contentDigest } from '../support/artifacts.js';

const NS = Namespaces.ControlPlane;
const RNS = Namespaces.Remote;
const HOUR = 3_600_000;
const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };
const SERVICE = { apiVersion: 'v1', kind: 'Service' };
/** Runtimes whose id ends so get no kubelet: no pod starts there, so neither their webhook nor their modules become available. */
const NO_KUBELET = '-nokubelet';

/** Each module: a ConfigMap naming its version, a Deployment (its manager) and a Service, in kyma-system. Module `slow` takes a second to download. */
class ModuleFetcher implements ArtifactFetcher {
  async fetchManifest(link: string): Promise<FetchedManifest> {
    const [, module, version] = /^https:\/\/modules\.test\/([a-z]+)\/([^/]+)\.yaml$/.exec(link) ?? [];
    if (module === 'slow') await sleep(1_000);
    // Module `stuck`: its manager's pods fit no node, so it never becomes available (installing for good).
    const nodeSelector = module === 'stuck' ? { 'example.test/no-such-node': 'true' } : undefined;
    const objects = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${module}-info`, namespace: RNS }, data: { version } },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: `${module}-manager`, namespace: RNS },
        spec: { replicas: 1, selector: { matchLabels: { app: module } }, template: { metadata: { labels: { app: module } }, spec: { nodeSelector, containers: [{ name: 'm', image: `${module}:${version}` }] } } },
      },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: `${module}-api`, namespace: RNS }, spec: { selector: { app: module }, ports: [{ port: 80 }] } },
    ] as KubeObject[];
    return { objects, digest: contentDigest(objects) };
  }
}

/** A landscape with the lifecycle manager (watcher on or off) and helpers to count what it does. */
class Env {
  land!: Landscape;
  cp!: ControlPlane;
  private readonly remotes: HttpClient[] = [];
  /** Requests the API server received, per logical cluster, and writes (not GET or HEAD) to the KCP. */
  private readonly requests = new Map<string, number>();
  private kcpWrites = 0;
  private stopObserving: (() => void) | undefined;
  /** What the runtimes' skr-webhooks count (requests by path manager and whether they gave an event). */
  readonly webhookRegistry = new Registry();
  /** Reconcile starts per controller and key. */
  private readonly starts = new Map<string, number>();

  /** `podStartMs`: how long the landscape's pods take to start (the kubelet's readyDelayMs). */
  async start(config: Partial<ControlPlaneConfig>, modules: Record<string, string>, podStartMs = 50): Promise<void> {
    this.land = await startInMemoryLandscape({ skrWebhookRegistry: this.webhookRegistry, extraKubeletClusters: (n) => n.startsWith('skr-') && !n.endsWith(NO_KUBELET), kubelet: { readyDelayMs: podStartMs, scanIntervalMs: 100 } });
    this.stopObserving = this.land.server.observeRequests(({ cluster, method }) => {
      this.requests.set(cluster, (this.requests.get(cluster) ?? 0) + 1);
      if (cluster === 'default' && method !== 'GET' && method !== 'HEAD') this.kcpWrites++;
    });
    for (const [module, version] of Object.entries(modules)) await this.publish(module, version);
    this.cp = await startControlPlane({
      config: { ...defaultControlPlaneConfig(), infrastructureManager: false, remoteRequestTimeoutMs: 3_000, moduleSync: { moduleConfigResyncMs: HOUR, syncResourceResyncMs: HOUR, feedbackMs: HOUR }, ...config },
      kcp: this.land.kcp,
      fetcher: new ModuleFetcher(),
      logger: silentLogger,
    });
    for (const c of this.cp.manager.getControllers()) c.onReconcileStart = (key) => this.starts.set(`${c.name} ${key}`, (this.starts.get(`${c.name} ${key}`) ?? 0) + 1);
    await this.cp.ready();
  }

  async stop(): Promise<void> {
    await this.cp?.stop();
    for (const r of this.remotes) r.close();
    this.stopObserving?.();
    await this.land?.stop();
  }

  /** Template `<module>-<version>` and the channel `regular` of the module pointing at it. */
  async publish(module: string, version: string): Promise<void> {
    await this.land.kcp.create({
      apiVersion: ModuleTemplate.apiVersion,
      kind: ModuleTemplate.kind,
      metadata: { name: `${module}-${version}`, namespace: NS, labels: { [Labels.ModuleName]: module } },
      spec: { moduleName: module, version, resources: [{ name: 'rawManifest', link: `https://modules.test/${module}/${version}.yaml` }] },
    });
    const channels = [{ channel: 'regular', version }];
    try {
      await this.land.kcp.patch(ModuleReleaseMeta, { namespace: NS, name: module }, 'merge', { spec: { channels } });
    } catch {
      await this.land.kcp.create({ apiVersion: ModuleReleaseMeta.apiVersion, kind: ModuleReleaseMeta.kind, metadata: { name: module, namespace: NS }, spec: { moduleName: module, channels } });
    }
  }

  /** A runtime cluster with its Kyma enabling `modules` (with `labels` too); returns a client of the runtime. */
  async runtime(id: string, modules: string[], labels: Record<string, string> = {}): Promise<HttpClient> {
    const rt = await attachRuntimeCluster(this.land.server, this.land.kcp, id);
    const remote = clientFromKubeconfig(this.land.server.clusterAccess(rt.cluster).kubeconfig, { retries: 0, requestTimeoutMs: 3_000 });
    this.remotes.push(remote);
    await this.land.kcp.create({
      apiVersion: Kyma.apiVersion,
      kind: Kyma.kind,
      metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id, [Labels.RuntimeID]: id, ...labels } },
      spec: { channel: 'regular', modules: modules.map((name) => ({ name })) },
    });
    return remote;
  }

  kyma(id: string): Promise<KymaObject> {
    return this.land.kcp.get<KymaObject>(Kyma, { namespace: NS, name: id });
  }

  /** Waits until the Kyma is Ready with every module Ready, and its Manifests themselves (the Kyma's status follows theirs a pass later). */
  async ready(id: string, timeoutMs = 20_000): Promise<KymaObject> {
    return waitFor(`Kyma ${id} Ready`, async () => {
      const k = await this.kyma(id);
      const kymaReady = k.status?.state === 'Ready' && (k.status.modules ?? []).every((m) => m.state === 'Ready');
      return kymaReady && (await this.manifests(id)).every((m) => m.status?.state === 'Ready') && k;
    }, timeoutMs);
  }

  /** Changes a Manifest's annotation (a spec event without a spec change): it brings the Manifest a pass. */
  async touch(manifest: string, value: string): Promise<void> {
    await this.land.kcp.patch(Manifest, { namespace: NS, name: manifest }, 'merge', { metadata: { annotations: { 'example.test/touch': value } } });
  }

  /** Waits until the controllers' Kyma cache has the Kyma's SKRWebhook condition True since `lastTransitionTime`. */
  async webhookSeenSince(id: string, lastTransitionTime: string): Promise<void> {
    const kymas = this.cp.manager.cache<KymaObject>(Kyma, { namespace: NS });
    await waitFor("the controllers' cache with the webhook working", () => kymas.get(`${NS}/${id}`)?.status?.conditions?.some((c) => c.type === 'SKRWebhook' && c.status === 'True' && c.lastTransitionTime === lastTransitionTime), 10_000);
  }

  manifests(id: string): Promise<ManifestObject[]> {
    return this.land.kcp.list<ManifestObject>(Manifest, { namespace: NS, labelSelector: `${Labels.KymaName}=${id}` }).then((l) => l.items);
  }

  /** Sum of a metric's series whose labels contain `labels` (e.g. `reason="interval"`); the runtimes' webhooks' metrics with `registry`. */
  metric(name: string, labels = '', registry: Registry = this.cp.manager.registry): number {
    let sum = 0;
    for (const line of registry.render().split('\n')) {
      if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
      if (labels && !line.includes(labels)) continue;
      sum += Number(line.split(' ').pop());
    }
    return sum;
  }

  reconciles(controller: string, key: string): number {
    return this.starts.get(`${controller} ${key}`) ?? 0;
  }

  /** Requests to the runtimes' logical clusters, and writes to the KCP. */
  traffic(runtimes: string[]): { runtime: number; kcpWrites: number } {
    return { runtime: runtimes.reduce((n, id) => n + (this.requests.get(`skr-${id}`) ?? 0), 0), kcpWrites: this.kcpWrites };
  }
}

/** Passes a fraction of a second apart, so that several run within a test. */
const SHORT_PASSES: Partial<ControlPlaneConfig> = {
  kymaIntervals: { readyMs: 250, busyMs: 100, warningMs: 250, errorMs: 200 },
  manifestIntervals: { successMs: 250, busyMs: 100, errorMs: 200, warningMs: 250 },
};

function watcherConfig(): ControlPlaneConfig['watcher'] {
  return { listen: { host: '127.0.0.1', port: 0 }, trustGateway: false, image: DEFAULT_SKR_WEBHOOK_IMAGE, pki: {} };
}

/**
 * Watches a window of `ms`: what the runtimes and the KCP were asked meanwhile, and how often each
 * of `keys` (controller and key) was reconciled.
 */
async function window(env: Env, runtimes: string[], keys: [string, string][], ms: number): Promise<{ runtime: number; kcpWrites: number; passes: number[] }> {
  const before = env.traffic(runtimes);
  const passesBefore = keys.map(([c, k]) => env.reconciles(c, k));
  await sleep(ms);
  const after = env.traffic(runtimes);
  return { runtime: after.runtime - before.runtime, kcpWrites: after.kcpWrites - before.kcpWrites, passes: keys.map(([c, k], i) => env.reconciles(c, k) - passesBefore[i]) };
}

describe('with the runtime watcher: periodic passes are cheap', () => {
  const env = new Env();
  const ids = ['evt-a', 'evt-b'];
  let remoteA: HttpClient;
  let remoteB: HttpClient;

  before(async () => {
    // Short fallback passes; the runtime and drift checks by time are hours apart.
    await env.start({ ...SHORT_PASSES, kymaRuntimeCheckMs: HOUR, manifestDriftCheckMs: HOUR, watcher: watcherConfig() }, { web: '1.0.0', stuck: '1.0.0' });
    remoteA = await env.runtime(ids[0], ['web']);
    remoteB = await env.runtime(ids[1], ['web']);
    for (const id of ids) await env.ready(id);
  });
  after(() => env.stop());

  it('a converged fleet\'s periodic passes send no request to the runtimes and write nothing to the KCP', async () => {
    const manifests = (await Promise.all(ids.map((id) => env.manifests(id)))).flat();
    assert.equal(manifests.length, 2);
    const keys: [string, string][] = [...ids.map((id): [string, string] => ['kyma', `${NS}/${id}`]), ...manifests.map((m): [string, string] => ['manifest', `${NS}/${m.metadata.name ?? ''}`])];
    const cachedBefore = env.metric('lifecycle_mgr_kyma_cached_passes_total');
    const cleanBefore = env.metric('lifecycle_mgr_manifest_clean_passes_total');
    // The first passes after convergence may still settle (a status mirrored once more, say): the
    // fleet is steady once one window shows every Kyma and Manifest passing at least twice with nothing sent.
    const steady = await waitFor('a window of periodic passes without requests', async () => {
      const w = await window(env, ids, keys, 1_200);
      return w.passes.every((n) => n >= 2) && w.runtime === 0 && w.kcpWrites === 0 && w;
    }, 15_000, 0);
    assert.ok(steady.passes.every((n) => n >= 2), `each Kyma and Manifest passed at least twice: ${steady.passes.join(', ')}`);
    assert.ok(env.metric('lifecycle_mgr_kyma_cached_passes_total') > cachedBefore, 'Kyma passes from the caches');
    assert.ok(env.metric('lifecycle_mgr_manifest_clean_passes_total') > cleanBefore, 'Manifest clean passes');
    // Nothing asked for a full check by time: each Kyma had only the first one (its events were answered by event passes).
    assert.equal(env.metric('lifecycle_mgr_full_runtime_checks_total', 'reason="interval"'), 0);
    assert.equal(env.metric('lifecycle_mgr_full_runtime_checks_total', 'reason="watcher_off"'), 0);
    assert.equal(env.metric('lifecycle_mgr_drift_checks_total', 'reason="watcher_off"'), 0);
  });

  it('a Ready module\'s manager scaled to zero in the runtime (`kubectl scale`, no spec event) is put back through its status events, reading that Deployment alone', async () => {
    await env.ready(ids[1]);
    // The module's objects read back once while the runtime's webhook works (a Manifest last read
    // back before it did reads everything once more at its next pass): an edit's event brings one.
    await remoteB.patch(CM, { namespace: RNS, name: 'web-info' }, 'merge', { data: { version: 'edited' } }, { fieldManager: 'kubectl-edit' });
    await waitFor('the ConfigMap repaired', async () => (await remoteB.get<KubeObject & { data?: Record<string, string> }>(CM, { namespace: RNS, name: 'web-info' })).data?.version === '1.0.0', 10_000);
    await env.ready(ids[1]);
    const readBacks = () => env.metric('lifecycle_mgr_drift_checks_total');
    const readiness = () => env.metric('lifecycle_mgr_manifest_readiness_passes_total');
    const statusEvents = () => env.metric('watcher_events_received_total', 'manager="lifecycle-manager-module-status"');
    const replicas = async () => (await remoteB.get<KubeObject & { spec: { replicas?: number } }>(DEPLOYMENT, { namespace: RNS, name: 'web-manager' })).spec.replicas;
    assert.equal(await replicas(), 1);
    const before = { readBacks: readBacks(), readiness: readiness(), events: statusEvents() };
    // What `kubectl scale deployment web-manager --replicas=0 -n kyma-system` does: a write of the
    // scale subresource, which no spec Watcher sees; the kubelets then write the Deployment's status.
    await remoteB.patch(DEPLOYMENT, { namespace: RNS, name: 'web-manager' }, 'merge', { spec: { replicas: 0 } }, { subresource: 'scale' });
    await waitFor('the manager Deployment scaled back to 1', async () => (await replicas()) === 1, 10_000);
    assert.ok(statusEvents() > before.events, 'status events of the Deployment arrived');
    assert.ok(readiness() > before.readiness, 'answered by readiness passes');
    assert.equal(readBacks(), before.readBacks, 'no pass read every object back');
    await env.ready(ids[1]);
  });

  it('a status write of a module Service (a kind without a generation) is answered by a readiness pass that leaves the Service alone', async () => {
    await env.ready(ids[1]);
    const readiness = () => env.metric('lifecycle_mgr_manifest_readiness_passes_total');
    const statusEvents = () => env.metric('watcher_events_received_total', 'manager="lifecycle-manager-module-status"');
    const manifest = (await env.manifests(ids[1]))[0]?.metadata.name;
    const before = { readiness: readiness(), events: statusEvents() };
    // What a cloud controller writes once the load balancer exists.
    const written = await remoteB.patch(SERVICE, { namespace: RNS, name: 'web-api' }, 'merge', { status: { loadBalancer: { ingress: [{ ip: '10.0.0.7' }] } } }, { subresource: 'status' });
    await waitFor('the status event answered by a readiness pass', () => statusEvents() > before.events && readiness() > before.readiness, 10_000);
    // The counter moves when the pass starts reading; a re-apply (and its Event) would follow within a second.
    await sleep(1_000);
    const now = await remoteB.get(SERVICE, { namespace: RNS, name: 'web-api' });
    assert.equal(now.metadata.resourceVersion, written.metadata.resourceVersion, 'the Service was not changed');
    // A re-apply of the Service (its resourceVersion moved with the status write) would be reported as restored drift.
    const events = (await env.land.kcp.list<KubeObject & { regarding?: { name?: string }; reason?: string; note?: string }>({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: NS })).items;
    const restored = events.filter((e) => e.regarding?.name === manifest && e.reason === 'DriftRestored').map((e) => e.note ?? '');
    assert.ok(restored.every((note) => !note.includes('web-api')), `no drift restored for the Service's status write: ${restored.join('; ')}`);
  });

  it('a module resource deleted in the runtime is repaired through its watcher event', async () => {
    const driftEvents = env.metric('lifecycle_mgr_drift_checks_total', 'reason="watcher_event"');
    const received = env.metric('watcher_events_received_total', 'manager="lifecycle-manager-resources"');
    // What `kubectl delete configmap web-info -n kyma-system` does in the runtime.
    await remoteA.delete(CM, { namespace: RNS, name: 'web-info' });
    const back = await waitFor('the ConfigMap back in the runtime', () => remoteA.get<KubeObject & { data?: Record<string, string> }>(CM, { namespace: RNS, name: 'web-info' }).catch(() => undefined), 10_000);
    assert.equal(back.data?.version, '1.0.0');
    assert.ok(env.metric('watcher_events_received_total', 'manager="lifecycle-manager-resources"') > received, 'the deletion arrived as a watcher event');
    assert.ok(env.metric('lifecycle_mgr_drift_checks_total', 'reason="watcher_event"') > driftEvents, 'the event asked for a drift check');

    await remoteA.delete(DEPLOYMENT, { namespace: RNS, name: 'web-manager' });
    await waitFor('the manager Deployment back in the runtime', () => remoteA.get(DEPLOYMENT, { namespace: RNS, name: 'web-manager' }).catch(() => undefined), 10_000);
    await env.ready(ids[0]);
    // The other runtime reported nothing: its Manifest was not checked.
    const other = (await env.manifests(ids[1]))[0];
    assert.equal(other?.status?.state, 'Ready');
  });

  it("the runtime's skr-webhook leaves the lifecycle manager's own writes out by a matchCondition: an edit in the runtime reaches the webhook, its repair does not", async () => {
    const config = await remoteA.get<KubeObject & { webhooks: { clientConfig: { service: { path: string } }; matchConditions?: { name: string; expression: string }[] }[] }>(
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' },
      { name: 'skr-webhook' },
    );
    const conditioned = config.webhooks.filter((w) => w.matchConditions?.some((c) => c.name === 'exclude-lifecycle-manager-writes' && c.expression.includes(JSON.stringify(MANIFEST_FIELD_MANAGER))));
    assert.deepEqual(conditioned.map((w) => w.clientConfig.service.path).sort(), ['/validate/lifecycle-manager', '/validate/lifecycle-manager-module-status', '/validate/lifecycle-manager-resources']);
    // What the webhooks answered on the module resources' path, by whether it gave an event
    // (the runtimes are converged and checked hourly: nothing else writes module resources now).
    const answered = (event: boolean) => env.metric('watcher_webhook_requests_total', `manager="lifecycle-manager-resources",event="${event}"`, env.webhookRegistry);
    const before = { events: answered(true), dropped: answered(false) };
    // What `kubectl edit configmap web-info -n kyma-system` does in the runtime.
    const edited = await remoteA.patch(CM, { namespace: RNS, name: 'web-info' }, 'merge', { data: { version: 'edited' } }, { fieldManager: 'kubectl-edit' });
    const repaired = await waitFor('the ConfigMap repaired', async () => {
      const now = await remoteA.get<KubeObject & { data?: Record<string, string> }>(CM, { namespace: RNS, name: 'web-info' });
      return now.data?.version === '1.0.0' && now;
    }, 10_000);
    assert.notEqual(repaired.metadata.resourceVersion, edited.metadata.resourceVersion, 'the lifecycle manager wrote it back');
    await waitFor('the edit answered with an event', () => answered(true) > before.events, 5_000);
    // The webhook's counts come from its thread: give a counted repair time to show.
    await sleep(500);
    assert.equal(answered(false), before.dropped, "the repair, the lifecycle manager's own write, never reached the webhook");
    await env.ready(ids[0]);
  });

  it('an installing Manifest whose runtime\'s webhook is not up reads its objects back at most once per success interval, its other busy passes only readiness', async () => {
    const id = `unwatched${NO_KUBELET}`;
    const remote = await env.runtime(id, ['web']);
    const installing = await waitFor('the Manifest installed and Processing', async () => (await env.manifests(id)).find((m) => m.status?.state === 'Processing'), 10_000);
    const key = `${NS}/${installing.metadata.name ?? ''}`;
    const readiness = () => env.metric('lifecycle_mgr_manifest_readiness_passes_total');
    const fullReads = () => env.metric('lifecycle_mgr_drift_checks_total', 'reason="not_ready"');
    const before = { readiness: readiness(), fullReads: fullReads(), passes: env.reconciles('manifest', key) };
    const windowMs = 3_000;
    await sleep(windowMs);
    const passes = env.reconciles('manifest', key) - before.passes;
    const reads = fullReads() - before.fullReads;
    const kyma = await env.kyma(id);
    assert.ok(!(kyma.status?.conditions ?? []).some((c) => c.type === 'SKRWebhook' && c.status === 'True'), `the runtime's webhook is not up: ${JSON.stringify(kyma.status?.conditions)}`);
    assert.equal((await env.manifests(id))[0]?.status?.state, 'Processing');
    assert.ok(passes >= 5, `busy passes in the window: ${passes}`);
    // Success interval 250 ms, busy passes every 100 ms: a read-back on about every third pass, and at least one.
    assert.ok(reads >= 1, `the objects were still read back: ${reads} in ${passes} passes`);
    assert.ok(reads <= Math.ceil(windowMs / 250) + 1, `read back at most once per success interval: ${reads} in ${passes} passes`);
    assert.ok(readiness() - before.readiness >= passes - reads - 1, `the other passes read only readiness: ${readiness() - before.readiness} of ${passes}`);
    // A module resource deleted meanwhile (no event can report it) is put back by the next read-back.
    await remote.delete(CM, { namespace: RNS, name: 'web-info' });
    await waitFor('the ConfigMap back in the runtime', () => remote.get(CM, { namespace: RNS, name: 'web-info' }).catch(() => undefined), 10_000);
    await env.land.kcp.delete(Kyma, { namespace: NS, name: id });
  });

  it('an installing Manifest whose objects were applied under a healthy webhook reads only its readiness, and a change in the runtime still brings a drift check', async () => {
    const remote = await env.runtime('busy-a', []);
    await env.ready('busy-a');
    // The runtime admin enables the module whose manager never becomes available.
    await remote.patch(Kyma, { namespace: RNS, name: 'default' }, 'merge', { spec: { modules: [{ name: 'stuck' }] } });
    const installing = await waitFor('the Manifest installed and Processing', async () => (await env.manifests('busy-a')).find((m) => m.status?.state === 'Processing'), 10_000);
    const key = `${NS}/${installing.metadata.name ?? ''}`;
    const readiness = () => env.metric('lifecycle_mgr_manifest_readiness_passes_total');
    const fullReads = () => env.metric('lifecycle_mgr_drift_checks_total', 'reason="not_ready"');
    // Busy passes every 100 ms; once the pods' status settled (its events answered), a window of them.
    const settled = readiness();
    await waitFor('busy passes reading only readiness', () => readiness() >= settled + 3, 10_000);
    const before = { readiness: readiness(), fullReads: fullReads(), passes: env.reconciles('manifest', key) };
    await sleep(1_000);
    const passes = env.reconciles('manifest', key) - before.passes;
    assert.ok(passes >= 3, `busy passes in the window: ${passes}`);
    assert.ok(readiness() - before.readiness >= passes - 1, `the busy passes read only readiness: ${readiness() - before.readiness} of ${passes}`);
    assert.equal(fullReads() - before.fullReads, 0, 'no busy pass read every object back');
    // A module resource deleted in the runtime while the module installs is reported and put back.
    const drift = env.metric('lifecycle_mgr_drift_checks_total', 'reason="watcher_event"');
    await remote.delete(CM, { namespace: RNS, name: 'stuck-info' });
    await waitFor('the ConfigMap back in the runtime', () => remote.get(CM, { namespace: RNS, name: 'stuck-info' }).catch(() => undefined), 10_000);
    assert.ok(env.metric('lifecycle_mgr_drift_checks_total', 'reason="watcher_event"') > drift, 'through a drift check the event asked for');
    await remote.patch(Kyma, { namespace: RNS, name: 'default' }, 'merge', { spec: { modules: [] } });
  });
});

describe('with the runtime watcher: a Ready Manifest whose webhook is not healthy', () => {
  const env = new Env();
  const SUCCESS_MS = 5_000;

  before(async () => {
    await env.start({ ...SHORT_PASSES, manifestIntervals: { ...SHORT_PASSES.manifestIntervals!, successMs: SUCCESS_MS }, kymaRuntimeCheckMs: HOUR, manifestDriftCheckMs: HOUR, watcher: watcherConfig() }, { web: '1.0.0' });
  });
  after(() => env.stop());

  it('reads its objects back once per success interval, not on every pass that comes in between', async () => {
    await env.runtime('unconfirmed', ['web']);
    await env.ready('unconfirmed');
    // Its Kyma stops confirming the webhook (left alone by its controller, as a person would with
    // the skip label): no event from that runtime can be relied on.
    await env.land.kcp.patch(Kyma, { namespace: NS, name: 'unconfirmed' }, 'merge', { metadata: { labels: { [Labels.SkipReconciliation]: 'true' } } });
    const kyma = await env.kyma('unconfirmed');
    const conditions = (kyma.status?.conditions ?? []).map((c) => (c.type === 'SKRWebhook' ? { ...c, status: 'False', reason: 'SKRWebhookIsNotReady' } : c));
    await env.land.kcp.patch(Kyma, { namespace: NS, name: 'unconfirmed' }, 'merge', { status: { conditions } }, { subresource: 'status' });
    const manifest = (await env.manifests('unconfirmed'))[0];
    assert.equal(manifest?.status?.state, 'Ready');
    const key = `${NS}/${manifest.metadata.name ?? ''}`;
    const unhealthyReads = () => env.metric('lifecycle_mgr_drift_checks_total', 'reason="webhook_unhealthy"');
    // The first pass after the change reads them back (they were last read while events flowed).
    await env.touch(manifest.metadata.name ?? '', '0');
    await waitFor('a read-back without a healthy webhook', () => unhealthyReads() > 0, 10_000);
    const before = { reads: unhealthyReads(), passes: env.reconciles('manifest', key) };
    // Passes brought by changes of the Manifest (as status events bring them), well within a success interval.
    for (let i = 1; i <= 6; i++) {
      await env.touch(manifest.metadata.name ?? '', String(i));
      await sleep(100);
    }
    await waitFor('the passes ran', () => env.reconciles('manifest', key) - before.passes >= 4, 5_000);
    const passes = env.reconciles('manifest', key) - before.passes;
    assert.ok(unhealthyReads() - before.reads <= 1, `read-backs in ${passes} passes: ${unhealthyReads() - before.reads}`);
    // Once a success interval has passed, the next pass reads them back again.
    await sleep(SUCCESS_MS);
    const reads = unhealthyReads();
    await env.touch(manifest.metadata.name ?? '', 'later');
    await waitFor('a read-back a success interval later', () => unhealthyReads() > reads, 10_000);
    // The webhook works again: the next pass reads them back once (what changed while it did not work
    // was not reported), and the pass after is clean.
    const recovered = () => env.metric('lifecycle_mgr_drift_checks_total', 'reason="events_missed"');
    const clean = () => env.metric('lifecycle_mgr_manifest_clean_passes_total');
    // Counted before the webhook works again: a fallback pass may come first and read back.
    const again = recovered();
    const working = new Date().toISOString();
    const healthy = (kyma.status?.conditions ?? []).map((c) => (c.type === 'SKRWebhook' ? { ...c, status: 'True', lastTransitionTime: working } : c));
    await env.land.kcp.patch(Kyma, { namespace: NS, name: 'unconfirmed' }, 'merge', { status: { conditions: healthy } }, { subresource: 'status' });
    await env.webhookSeenSince('unconfirmed', working);
    await env.touch(manifest.metadata.name ?? '', 'working');
    await waitFor('a read-back under the webhook that works again', () => recovered() > again, 10_000);
    const cleanBefore = clean();
    await env.touch(manifest.metadata.name ?? '', 'working-2');
    await waitFor('a clean pass after it', () => clean() > cleanBefore, 10_000);
    assert.equal(recovered(), again + 1, 'read back once');
  });
});

describe('with the runtime watcher: a Ready Manifest whose webhook stopped working and works again', () => {
  const env = new Env();
  const VWC = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' };

  before(async () => {
    // No fallback pass of a Manifest in the window: every Manifest pass below is one the test brings.
    await env.start({ ...SHORT_PASSES, manifestIntervals: { ...SHORT_PASSES.manifestIntervals!, successMs: HOUR }, kymaRuntimeCheckMs: HOUR, manifestDriftCheckMs: HOUR, watcher: watcherConfig() }, { web: '1.0.0' });
  });
  after(() => env.stop());

  it("reads its objects back at its next pass once the Kyma found the webhook's configuration deleted and put it back", async () => {
    const remote = await env.runtime('lapse', ['web']);
    await env.ready('lapse');
    const manifest = (await env.manifests('lapse'))[0];
    const name = manifest?.metadata.name ?? '';
    const touch = (v: string) => env.touch(name, v);
    const recovered = () => env.metric('lifecycle_mgr_drift_checks_total', 'reason="events_missed"');
    const clean = () => env.metric('lifecycle_mgr_manifest_clean_passes_total');
    const readBacks = () => env.metric('lifecycle_mgr_drift_checks_total');
    let n = 0;
    /** Brings a pass; whether it was clean (else it read the objects back). */
    const cleanPass = async () => {
      const before = { clean: clean(), reads: readBacks() };
      await touch(`t${n++}`);
      await waitFor('the pass', () => clean() > before.clean || readBacks() > before.reads, 10_000);
      return clean() > before.clean;
    };
    // Under the working webhook a pass reads nothing back (once its objects were read back under it).
    await waitFor('a clean pass under the working webhook', cleanPass, 10_000);
    const webhookCondition = async () => (await env.kyma('lapse')).status?.conditions?.find((c) => c.type === 'SKRWebhook');
    const since = (await webhookCondition())?.lastTransitionTime;
    assert.ok(since);
    // The webhook's configuration is deleted in the runtime: the runtime stops calling the webhook,
    // and a module object deleted meanwhile is reported by no event.
    await remote.delete(VWC, { name: 'skr-webhook' });
    await remote.delete(CM, { namespace: RNS, name: 'web-info' });
    await sleep(300);
    assert.equal(await remote.get(CM, { namespace: RNS, name: 'web-info' }).catch(() => undefined), undefined, 'not put back: no event came');
    // The Kyma's next full check (a label changed) finds the configuration gone and puts it back; the
    // condition leaves True for that check and comes back with a new transition time.
    const reads = recovered();
    await env.land.kcp.patch(Kyma, { namespace: NS, name: 'lapse' }, 'merge', { metadata: { labels: { 'example.test/look': 'again' } } });
    await waitFor('the webhook configuration back in the runtime', () => remote.get(VWC, { name: 'skr-webhook' }).catch(() => undefined), 10_000);
    const back = await waitFor('the webhook True again since a new time', async () => {
      const c = await webhookCondition();
      return c?.status === 'True' && c.lastTransitionTime !== since && c.lastTransitionTime;
    }, 10_000);
    await env.webhookSeenSince('lapse', back);
    assert.equal(recovered(), reads, 'no Manifest pass yet');
    // The next pass reads every object back and puts the deleted one back.
    await touch('recovered');
    await waitFor('the ConfigMap back in the runtime', () => remote.get(CM, { namespace: RNS, name: 'web-info' }).catch(() => undefined), 10_000);
    assert.equal(recovered(), reads + 1, 'through a read-back for the webhook that works again');
    // Read back under the webhook as it works now: the pass after is clean again.
    assert.ok(await cleanPass(), 'a clean pass after the read-back');
    assert.equal(recovered(), reads + 1, 'read back once');
  });
});

describe('with the runtime watcher: Kymas and Manifests are woken by events, not polled', () => {
  const env = new Env();

  before(async () => {
    await env.start(
      {
        // Busy and Ready passes an hour apart: whatever converges within seconds was carried by a watch or an event.
        kymaIntervals: { readyMs: HOUR, busyMs: HOUR, warningMs: HOUR, errorMs: 300 },
        manifestIntervals: { successMs: HOUR, busyMs: 150, errorMs: 300, warningMs: HOUR },
        watcher: watcherConfig(),
      },
      { slow: '1.0.0', cache: '1.0.0' },
    );
  });
  after(() => env.stop());

  it('a Kyma Processing while its Manifest installs becomes Ready when the Manifest does, without a busy requeue', async () => {
    await env.runtime('wake-a', ['slow']);
    // The module's download takes a second: meanwhile the Kyma is Processing, waiting only for it.
    await waitFor('wake-a Processing, waiting for its module', () => env.metric('lifecycle_mgr_requeue_reason_total', 'requeue_reason="kyma_waiting_for_modules"') > 0, 10_000);
    const kyma = await env.ready('wake-a');
    assert.deepEqual(kyma.status?.modules?.map((m) => [m.name, m.state]), [['slow', 'Ready']]);
  });

  it("the events of a Kyma's modules installing together reach each module's own Manifest, not all of the Kyma's", async () => {
    const keys = (found: string) => env.metric('lifecycle_mgr_watcher_event_manifest_keys_total', `found="${found}"`);
    const before = { owner: keys('owner'), all: keys('all') };
    await env.runtime('wake-c', ['cache', 'slow']);
    await env.ready('wake-c');
    assert.ok(keys('owner') > before.owner, 'their status events were routed');
    assert.equal(keys('all'), before.all, 'none went to every Manifest of the Kyma');
    // The router asks the Manifest reconciler of this process what it applied.
    const router = env.cp.lifecycle?.watcherEvents;
    assert.ok(router?.applied, 'wired');
    const [cache, slow] = ['cache', 'slow'].map((module) => (async () => (await env.manifests('wake-c')).find((m) => m.metadata.labels?.[Labels.ModuleName] === module))());
    const manifests = { cache: await cache, slow: await slow };
    assert.ok(manifests.cache && manifests.slow);
    assert.equal(router.applied(manifests.cache, `apps/Deployment/${RNS}/cache-manager`), true);
    assert.equal(router.applied(manifests.slow, `apps/Deployment/${RNS}/cache-manager`), false, "not the other module's");
  });

  it('a catalog change reconciles only the Kymas that use the module', async () => {
    await env.runtime('wake-b', ['cache']);
    await env.ready('wake-b');
    await env.ready('wake-a');
    const a = `${NS}/wake-a`;
    const b = `${NS}/wake-b`;
    const before = { a: env.reconciles('kyma', a), b: env.reconciles('kyma', b), catalog: env.metric('lifecycle_mgr_full_runtime_checks_total', 'reason="catalog_changed"') };
    await env.publish('cache', '1.1.0');
    await waitFor('the cache module upgraded in wake-b', async () => (await env.manifests('wake-b')).some((m) => m.spec.version === '1.1.0'), 10_000);
    const upgraded = await env.ready('wake-b');
    assert.equal(upgraded.status?.modules?.[0]?.version, '1.1.0');
    assert.ok(env.reconciles('kyma', b) > before.b, 'the Kyma using the module was reconciled');
    assert.ok(env.metric('lifecycle_mgr_full_runtime_checks_total', 'reason="catalog_changed"') > before.catalog, 'with a full runtime check (its runtime catalog follows)');
    assert.equal(env.reconciles('kyma', a), before.a, 'the Kyma not using the module was not');
    // The runtime catalog of wake-b has the new template.
    const remote = clientFromKubeconfig(env.land.server.clusterAccess('skr-wake-b').kubeconfig, { retries: 0 });
    try {
      await waitFor('the new template in the runtime catalog of wake-b', () => remote.get(ModuleTemplate, { namespace: RNS, name: 'cache-1.1.0' }).catch(() => undefined), 5_000);
    } finally {
      remote.close();
    }
  });
});

describe("with the runtime watcher: the webhook's own objects' events reach the Kyma", () => {
  const env = new Env();
  const webhookPasses = () => env.metric('lifecycle_mgr_kyma_webhook_passes_total', 'why="event"');
  const fullChecks = (reason: string) => env.metric('lifecycle_mgr_full_runtime_checks_total', `reason="${reason}"`);

  before(async () => {
    // Every periodic pass and full check by time an hour away: what happens within seconds was brought by an event.
    // Pods start in a second, as a real runtime's take seconds: the webhook Deployment becomes available after
    // its configuration is applied, so that its status change is reported. (One faster than that apply, a few
    // milliseconds after the Deployment's, is seen by no webhook; the Kyma then learns of it at its busy pass.)
    await env.start({ kymaIntervals: { readyMs: HOUR, busyMs: HOUR, warningMs: HOUR, errorMs: HOUR }, kymaRuntimeCheckMs: HOUR, manifestDriftCheckMs: HOUR, watcher: watcherConfig() }, {}, 1_000);
  });
  after(() => env.stop());

  it('its Deployment becoming available confirms the webhook by a webhook pass, not a second full check', async () => {
    // No modules, and labelled as the infrastructure manager labels a Kyma (the first pass's own
    // label write wakes no second one): nothing but the webhook's own Deployment can wake this Kyma
    // after its first pass.
    await env.runtime('hook-a', [], { [Labels.ManagedBy]: LabelValues.LifecycleManager });
    const kyma = await env.ready('hook-a');
    assert.equal(kyma.status?.conditions?.find((c) => c.type === 'SKRWebhook')?.status, 'True');
    assert.ok(webhookPasses() >= 1, `webhook passes: ${webhookPasses()}`);
    // The one full check: the first pass (without the finalizer yet, its reason is "changed").
    assert.deepEqual(['first', 'changed', 'unhealthy'].map(fullChecks), [0, 1, 0], 'no second full check confirmed it');
  });

  it('its Deployment edited in the runtime is put back at once (the status event that follows the edit), by a webhook pass', async () => {
    const remote = await env.runtime('hook-b', [], { [Labels.ManagedBy]: LabelValues.LifecycleManager });
    await env.ready('hook-b');
    const reasons = ['first', 'changed', 'unhealthy', 'interval'];
    const before = { webhook: webhookPasses(), full: reasons.map(fullChecks) };
    // Scaled up by someone in the runtime: the Deployment's status follows, and the webhook sends its event.
    await remote.patch(DEPLOYMENT, { namespace: RNS, name: 'skr-webhook' }, 'merge', { spec: { replicas: 3 } });
    await waitFor('the webhook Deployment put back to one replica', async () => (await remote.get<KubeObject & { spec: { replicas?: number } }>(DEPLOYMENT, { namespace: RNS, name: 'skr-webhook' })).spec.replicas === 1, 10_000);
    assert.ok(webhookPasses() > before.webhook, 'by a webhook pass');
    assert.deepEqual(reasons.map(fullChecks), before.full, 'without a full check');
    assert.equal((await env.kyma('hook-b')).status?.state, 'Ready');
  });
});

describe('without the runtime watcher: every pass looks at the runtime, as before', () => {
  const env = new Env();
  let remote: HttpClient;

  before(async () => {
    await env.start({ ...SHORT_PASSES, watcher: undefined }, { web: '1.0.0' });
    remote = await env.runtime('poll-a', ['web']);
    await env.ready('poll-a');
  });
  after(() => env.stop());

  it('Ready passes make a full runtime check and a drift check each, and repair a deleted resource', async () => {
    const [manifest] = await env.manifests('poll-a');
    const checks = env.metric('lifecycle_mgr_full_runtime_checks_total', 'reason="watcher_off"');
    const drift = env.metric('lifecycle_mgr_drift_checks_total', 'reason="watcher_off"');
    const w = await window(env, ['poll-a'], [['kyma', `${NS}/poll-a`], ['manifest', `${NS}/${manifest?.metadata.name ?? ''}`]], 1_200);
    assert.ok(w.passes.every((n) => n >= 2), `the Kyma and its Manifest passed at least twice: ${w.passes.join(', ')}`);
    assert.ok(env.metric('lifecycle_mgr_full_runtime_checks_total', 'reason="watcher_off"') - checks >= 2, 'full runtime checks on every pass');
    assert.ok(env.metric('lifecycle_mgr_drift_checks_total', 'reason="watcher_off"') - drift >= 2, 'drift checks on every pass');
    assert.ok(w.runtime > 0, 'the runtime was asked');
    assert.equal(env.metric('lifecycle_mgr_kyma_cached_passes_total'), 0);
    assert.equal(env.metric('lifecycle_mgr_manifest_clean_passes_total'), 0);
    await remote.delete(CM, { namespace: RNS, name: 'web-info' });
    await waitFor('the ConfigMap back at the next pass', () => remote.get(CM, { namespace: RNS, name: 'web-info' }).catch(() => undefined), 10_000);
  });
});
