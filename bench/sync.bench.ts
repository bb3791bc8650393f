// npm run bench:sync — module resource synchronization under load, one process: N runtimes (default
// 1,000), each with module `cfg` enabled (a CRD, a small Deployment, the default CR; its template opts
// in to ModuleConfig and may sync ConfigMaps) and one SyncResource carrying one CreateAndSync
// ConfigMap. Once every ModuleConfig holds the CR, every runtime's webhook knows the module's Watcher,
// every ConfigMap is in its runtime and every Kyma and Manifest is Ready, two phases at a steady rate
// (default 10 changes/s for 60 s each) into random runtimes:
//   1. module CR edit -> ModuleConfig: a merge patch of the CR's spec sent through the runtime's own
//      HTTP client (what `kubectl patch` of a runtime admin does), timed until the KCP watch on
//      ModuleConfigs (the controllers' shared informer) shows spec.resource with the new value;
//   2. SyncResource change -> runtime: a JSON patch of the item's data sent to the KCP (what a module
//      manager does), timed until the ConfigMap with the new data is committed in the runtime. The
//      runtime side is observed in-process, on the logical cluster's store (as the landscape's
//      module operators do), so observing costs no requests.
// Both periodic passes are an hour, so every change measured was carried by an event or a watch.
// Between convergence and the first phase: one forced full garbage collection (the installation's
// garbage) and 10 s at rest, whose CPU is printed.
// Built on the product: the in-memory landscape (its SkrWebhookHost serves every runtime's webhook),
// runtimes attached without Gardener, the landscape's module-operator simulation reporting the CR's
// state, and the control plane's composition root with the lifecycle manager and the watcher.
//
//   node --expose-gc dist/bench/sync.bench.js [--runtimes N] [--rate changes/s] [--duration s] [--converge-timeout s]
//   (or SYNC_BENCH_RUNTIMES, SYNC_BENCH_RATE, SYNC_BENCH_DURATION, SYNC_BENCH_CONVERGE_TIMEOUT)
import os from 'node:os';
import {
  Kyma,
  Labels,
  Manifest,
  ModuleConfig,
  ModuleReleaseMeta,
  ModuleTemplate,
  Namespaces,
  SyncResource,
  type KymaObject,
  type ManifestObject,
  type ModuleConfigObject,
  type SyncedItem,
} from '../src/api/operator/index.js';
import type { StoreEvent } from '../src/apiserver/store.js';
import { type ControlPlaneConfig, defaultControlPlaneConfig, startControlPlane } from '../src/controlplane/index.js';
import type { KubeObject } from '../src/kube/object.js';
import { startInMemoryLandscape } from '../src/landscape/in-memory.js';
import { startModuleOperators } from '../src/landscape/module-operators.js';
import { attachRuntimeCluster } from '../src/landscape/runtime-cluster.js';
import type { ArtifactFetcher, FetchedManifest } from '../src/lifecycle/artifacts/types.js';
import { DEFAULT_INTERVALS, DEFAULT_MANIFEST_INTERVALS } from '../src/lifecycle/index.js';
import { moduleConfigWatcherName } from '../src/lifecycle/sync/index.js';
import { clientFromKubeconfig, type HttpClient } from '../src/runtime/client/index.js';
import { silentLogger } from '../src/runtime/log.js';
import { sleep } from '../src/util/sleep.js';
import { DEFAULT_SKR_WEBHOOK_IMAGE } from '../src/watcher/skr-objects.js';
import { printSettings } from './settings.js';
import { CpuWindow, option, quantilesOf, reconcileDelta, reconcilesByController, series, statesOf, summary } from './stats.js';

const COUNT = option('--runtimes', 'SYNC_BENCH_RUNTIMES', 1000);
// 10 changes/s: at 20 module CR edits/s and 1,000 runtimes this one process (the KCP and the runtime
// side of every edit) needs more than one core and the latency only measures its backlog.
const RATE = option('--rate', 'SYNC_BENCH_RATE', 10);
const DURATION_S = option('--duration', 'SYNC_BENCH_DURATION', 60);
const CONVERGE_TIMEOUT_S = option('--converge-timeout', 'SYNC_BENCH_CONVERGE_TIMEOUT', 900);
const NS = Namespaces.ControlPlane;
const RNS = Namespaces.Remote;
const HOUR = 3_600_000;
/** Production's requeue of Ready Kymas and Manifests with the watcher (--watcher-fallback-interval). */
const WATCHER_FALLBACK_MS = 5 * 60_000;
const MODULE = 'cfg';
const CFG = { apiVersion: 'cfg.bench.test/v1', kind: 'Cfg' };
const CM_NAME = 'cfg-settings';
/** Store keys (group/resource) of what the observer looks at in each runtime. */
const CONFIGMAPS = '/configmaps';
const WEBHOOK_CONFIGS = 'admissionregistration.k8s.io/validatingwebhookconfigurations';
const MODULE_WATCHER = moduleConfigWatcherName(MODULE);
/** How long after the last change of a phase its unmeasured changes are waited for. */
const DRAIN_MS = 30_000;
/** A quiet window after convergence, before the first phase: what the landscape and controllers cost at rest. */
const REST_MS = 10_000;

// Deviations from production settings, printed with the figures. Both periodic passes of module
// sync are an hour (production with the watcher: ModuleConfig 5 min, SyncResource 5 min), so that
// nothing measured comes from them. Ready Kymas and Manifests keep production's 5 min with the
// watcher. The controllers' KCP client gets a high client-side rate limit, as in the other benchmarks.
const CONTROLLERS: Partial<ControlPlaneConfig> = {
  infrastructureManager: false,
  kymaIntervals: { ...DEFAULT_INTERVALS, readyMs: WATCHER_FALLBACK_MS },
  manifestIntervals: { ...DEFAULT_MANIFEST_INTERVALS, successMs: WATCHER_FALLBACK_MS },
  moduleSync: { moduleConfigResyncMs: HOUR, syncResourceResyncMs: HOUR, feedbackMs: 30_000 },
  watcher: { listen: { host: '127.0.0.1', port: 0 }, trustGateway: false, image: DEFAULT_SKR_WEBHOOK_IMAGE, pki: {} },
};
const KCP_CLIENT = { qps: 2000, burst: 4000, retries: 1 };

/** Module `cfg`: its CRD (kind Cfg) and a one-replica Deployment, served without a registry. */
class CfgModule implements ArtifactFetcher {
  fetchManifest(link: string): Promise<FetchedManifest> {
    const objects = [
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'cfgs.cfg.bench.test' },
        spec: {
          group: 'cfg.bench.test',
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
        spec: { replicas: 1, selector: { matchLabels: { app: 'cfg' } }, template: { metadata: { labels: { app: 'cfg' } }, spec: { containers: [{ name: 'manager', image: 'cfg-manager:1.0.0' }] } } },
      },
    ] as KubeObject[];
    return Promise.resolve({ objects, digest: `sha256:${Buffer.from(link).toString('hex').slice(0, 64).padEnd(64, '0')}` });
  }
}

function settingsItem(value: string): SyncedItem {
  return { name: 'settings', strategy: 'CreateAndSync', resource: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CM_NAME, namespace: RNS }, data: { v: value } } };
}

interface Pending {
  token: string;
  sent: number;
  /** The first watcher event of the runtime routed to a queue (phase 1). */
  routed?: number;
  /** The start of the controller's reconcile after the change. */
  reconciled?: number;
}

interface PhaseResult {
  latency: number[];
  toRouted: number[];
  toReconcile: number[];
  request: number[];
  sent: number;
  failed: number;
  skipped: number;
  unmeasured: number;
  seconds: number;
  touched: number;
}

/**
 * Sends `change` at a steady rate into random runtimes of `candidates` (never into one whose last
 * change is still pending), then waits up to DRAIN_MS for the pending ones.
 */
async function runPhase(
  name: string,
  candidates: string[],
  pending: Map<string, Pending>,
  change: (id: string, token: string) => Promise<void>,
  result: PhaseResult,
): Promise<void> {
  const total = Math.round(RATE * DURATION_S);
  const touched = new Set<string>();
  const inFlight: Promise<void>[] = [];
  const send = async (n: number): Promise<void> => {
    let id: string | undefined;
    for (let tries = 0; tries < 20 && !id; tries++) {
      const c = candidates[Math.floor(Math.random() * candidates.length)];
      if (!pending.has(c)) id = c;
    }
    if (!id) {
      result.skipped++;
      return;
    }
    const p: Pending = { token: `${name}-${n}`, sent: performance.now() };
    pending.set(id, p);
    touched.add(id);
    try {
      await change(id, p.token);
      result.request.push(performance.now() - p.sent);
    } catch (e) {
      result.failed++;
      if (result.failed <= 3) console.log(`  ${name}: change in ${id} failed: ${(e as Error).message}`);
      if (pending.get(id) === p) pending.delete(id);
    }
  };
  const w0 = performance.now();
  let lastLine = w0;
  while (result.sent < total) {
    // Steady rate: each change at its scheduled time, never a burst to catch up more than one tick.
    const due = w0 + (result.sent * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    inFlight.push(send(result.sent));
    result.sent++;
    if (performance.now() - lastLine >= 5000) {
      const q = quantilesOf(result.latency);
      console.log(`  ... ${result.sent}/${total} sent after ${((performance.now() - w0) / 1000).toFixed(0)} s; ${q.n} measured (p50 ${q.p50.toFixed(0)} ms, p99 ${q.p99.toFixed(0)} ms), ${pending.size} pending`);
      lastLine = performance.now();
    }
  }
  result.seconds = (performance.now() - w0) / 1000;
  await Promise.all(inFlight);
  const drainStart = performance.now();
  while (pending.size > 0 && performance.now() - drainStart < DRAIN_MS) await sleep(50);
  result.unmeasured = pending.size;
  result.touched = touched.size;
  pending.clear();
}

function newResult(): PhaseResult {
  return { latency: [], toRouted: [], toReconcile: [], request: [], sent: 0, failed: 0, skipped: 0, unmeasured: 0, seconds: 0, touched: 0 };
}

async function main(): Promise<void> {
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`${COUNT} runtimes; each phase ${RATE} changes/s for ${DURATION_S} s`);
  printSettings({
    moduleSync: { ...CONTROLLERS.moduleSync, production: 'moduleConfigResyncMs 300000 (5 min with the watcher), syncResourceResyncMs 300000' },
    controllersKcpClient: { ...KCP_CLIENT, production: 'qps 50, burst 100, 4 retries' },
    endpoints: 'no /metrics or probes listeners',
    garbageCollection: 'one full collection forced after convergence, before the phases (node --expose-gc)',
    runtimes: 'attached without Gardener (no provisioning); skr-webhook served by the landscape (SkrWebhookHost), kubelet simulation with its defaults, simulated module operator reports the Cfg CR Ready after 200 ms',
    catalog: 'one ModuleTemplate (module "cfg": CRD, one Deployment, default CR; enableModuleConfig, syncResourceKinds ConfigMap) served by an in-process fetcher instead of an OCI registry',
  });
  console.log(`production settings kept: Kyma Ready and Manifest success requeue ${WATCHER_FALLBACK_MS / 60_000} min (the watcher's fallback), busy/error/warning requeues at their defaults, watcher listener on mutual TLS`);
  const cpuAll = new CpuWindow();
  const land = await startInMemoryLandscape({ extraKubeletClusters: (n) => n.startsWith('skr-') });
  const operators = startModuleOperators({ server: land.server, isRuntime: (n) => n.startsWith('skr-'), delayMs: 200 });
  await land.kcp.create({
    apiVersion: ModuleTemplate.apiVersion,
    kind: ModuleTemplate.kind,
    metadata: { name: `${MODULE}-1.0.0`, namespace: NS, labels: { [Labels.ModuleName]: MODULE } },
    spec: {
      moduleName: MODULE,
      version: '1.0.0',
      data: { apiVersion: CFG.apiVersion, kind: CFG.kind, metadata: { name: 'default' }, spec: { level: 'info' } },
      resources: [{ name: 'rawManifest', link: 'https://modules.invalid/cfg/1.0.0.yaml' }],
      enableModuleConfig: true,
      syncResourceKinds: [{ group: '', kind: 'ConfigMap', scope: 'Namespaced' }],
    },
  });
  await land.kcp.create({ apiVersion: ModuleReleaseMeta.apiVersion, kind: ModuleReleaseMeta.kind, metadata: { name: MODULE, namespace: NS }, spec: { moduleName: MODULE, channels: [{ channel: 'regular', version: '1.0.0' }] } });
  const kcp = clientFromKubeconfig(land.kcpKubeconfig, KCP_CLIENT);
  // The module manager's own client: what writes SyncResources in phase 2.
  const moduleManager = clientFromKubeconfig(land.kcpKubeconfig, { qps: 0, retries: 0 });
  const cp = await startControlPlane({ config: { ...defaultControlPlaneConfig(), ...CONTROLLERS }, kcp, fetcher: new CfgModule(), logger: silentLogger });
  await cp.ready();
  const router = cp.lifecycle?.watcherEvents;
  const configController = cp.manager.getControllers().find((c) => c.name === 'module-config');
  const syncController = cp.manager.getControllers().find((c) => c.name === 'sync-resource');
  if (!router || !configController || !syncController) throw new Error('the control plane runs no watcher router, ModuleConfig or SyncResource controller');
  const manifests = cp.manager.cache<ManifestObject>(Manifest, { namespace: NS });
  const kymas = cp.manager.cache<KymaObject>(Kyma, { namespace: NS });
  const states = () => `Kymas: ${statesOf(kymas.list({ namespace: NS }))}; Manifests: ${statesOf(manifests.list({ namespace: NS }))}`;
  const reconciles = () => reconcilesByController(cp.manager.registry.render());

  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);

  // What is known, from watches only: ModuleConfigs holding the CR (KCP informer), runtimes whose
  // webhook configuration names the module's Watcher, and the ConfigMap's current value (runtime stores).
  const withConfig = new Set<string>();
  const webhookKnows = new Set<string>();
  const configMapValue = new Map<string, string>();
  const configPending = new Map<string, Pending>();
  const syncPending = new Map<string, Pending>();
  const phase1 = newResult();
  const phase2 = newResult();

  cp.manager.informer<ModuleConfigObject>(ModuleConfig, { namespace: NS }).addHandlers({
    onAdd: (c) => configSeen(c),
    onUpdate: (_old, c) => configSeen(c),
  });
  function configSeen(c: ModuleConfigObject): void {
    const name = c.metadata.name ?? '';
    if (!name.endsWith(`-${MODULE}`)) return;
    const id = name.slice(0, -MODULE.length - 1);
    const level = (c.spec.resource as { spec?: { level?: unknown } } | undefined)?.spec?.level;
    if (level === undefined) return;
    withConfig.add(id);
    const p = configPending.get(id);
    if (!p || level !== p.token) return;
    const now = performance.now();
    phase1.latency.push(now - p.sent);
    if (p.routed !== undefined) phase1.toRouted.push(p.routed - p.sent);
    if (p.reconciled !== undefined) phase1.toReconcile.push(p.reconciled - p.sent);
    configPending.delete(id);
  }
  function runtimeCommit(id: string, ev: StoreEvent): void {
    if (ev.type === 'DELETED') return;
    if (ev.resource === CONFIGMAPS) {
      if (ev.name !== CM_NAME || ev.namespace !== RNS) return;
      const v = (JSON.parse(ev.object.json) as { data?: { v?: string } }).data?.v ?? '';
      configMapValue.set(id, v);
      const p = syncPending.get(id);
      if (!p || v !== p.token) return;
      phase2.latency.push(performance.now() - p.sent);
      if (p.reconciled !== undefined) phase2.toReconcile.push(p.reconciled - p.sent);
      syncPending.delete(id);
    } else if (ev.resource === WEBHOOK_CONFIGS && ev.object.json.includes(MODULE_WATCHER)) webhookKnows.add(id);
  }
  const idOfKyma = (kymaKey: string) => kymaKey.slice(NS.length + 1);
  router.onRouted = (kymaKey) => {
    const p = configPending.get(idOfKyma(kymaKey));
    if (p && p.routed === undefined) p.routed = performance.now();
  };
  configController.onReconcileStart = (key) => {
    const id = manifests.get(key)?.metadata.labels?.[Labels.KymaName];
    const p = id === undefined ? undefined : configPending.get(id);
    if (p && p.routed !== undefined && p.reconciled === undefined) p.reconciled = performance.now();
  };
  syncController.onReconcileStart = (key) => {
    const p = syncPending.get(idOfKyma(key).slice(0, -MODULE.length - 1));
    if (p && p.reconciled === undefined) p.reconciled = performance.now();
  };

  const t0 = performance.now();
  const runtime = async (id: string): Promise<void> => {
    const rt = await attachRuntimeCluster(land.server, land.kcp, id);
    land.server.cluster(rt.cluster).store.onCommit((ev) => runtimeCommit(id, ev));
    operators.attach(rt.cluster);
    await land.kcp.create({
      apiVersion: Kyma.apiVersion,
      kind: Kyma.kind,
      metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id, [Labels.RuntimeID]: id } },
      spec: { channel: 'regular', modules: [{ name: MODULE }] },
    });
    await land.kcp.create({
      apiVersion: SyncResource.apiVersion,
      kind: SyncResource.kind,
      metadata: { name: `${id}-${MODULE}`, namespace: NS, labels: { [Labels.KymaName]: id } },
      spec: { kyma: id, module: MODULE, items: [settingsItem('initial')] },
    });
  };
  const ids = Array.from({ length: COUNT }, (_, i) => `rt-${String(i).padStart(5, '0')}`);
  for (let i = 0; i < COUNT; i += 25) await Promise.all(ids.slice(i, i + 25).map(runtime));
  console.log(`${COUNT} runtimes, Kymas and SyncResources created in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const synced = () => ids.filter((id) => configMapValue.get(id) === 'initial').length;
  const readyKymas = () => kymas.list({ namespace: NS }).filter((k) => k.status?.state === 'Ready').length;
  const readyManifests = () => manifests.list({ namespace: NS }).filter((m) => m.status?.state === 'Ready').length;
  // Steady state: every module installed and Ready, so the phases see no installation work.
  const converged = () => withConfig.size >= COUNT && webhookKnows.size >= COUNT && synced() >= COUNT && readyKymas() >= COUNT && readyManifests() >= COUNT;
  const deadline = t0 + CONVERGE_TIMEOUT_S * 1000;
  let lastPrint = performance.now();
  while (!converged() && performance.now() < deadline) {
    await sleep(250);
    if (performance.now() - lastPrint >= 5000) {
      console.log(
        `  ModuleConfigs: ${withConfig.size}/${COUNT}; module Watcher in runtime webhooks: ${webhookKnows.size}/${COUNT}; SyncResource ConfigMaps: ${synced()}/${COUNT}; Ready Kymas ${readyKymas()}/${COUNT}, Manifests ${readyManifests()}/${COUNT} (after ${((performance.now() - t0) / 1000).toFixed(0)} s, RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB)`,
      );
      lastPrint = performance.now();
    }
  }
  const convergeS = (performance.now() - t0) / 1000;
  const convergeLine = `ModuleConfigs ${withConfig.size}/${COUNT}, module Watcher in webhooks ${webhookKnows.size}/${COUNT}, ConfigMaps ${synced()}/${COUNT}, Ready Kymas ${readyKymas()}/${COUNT}, Ready Manifests ${readyManifests()}/${COUNT}`;
  if (!converged()) console.log(`NOT converged after ${convergeS.toFixed(0)} s (cap ${CONVERGE_TIMEOUT_S} s): ${convergeLine}; changing only the runtimes that are ready`);
  else console.log(`converged in ${convergeS.toFixed(1)} s: ${convergeLine}; ${cpuAll.text()}`);
  console.log(`  ${states()}`);

  // The installation of N runtimes leaves hundreds of MiB of garbage; its first full collection
  // paused the loop for about a second in the first phase. Collected here instead (with --expose-gc).
  const gc = (globalThis as { gc?: () => void }).gc;
  const g0 = performance.now();
  gc?.();
  console.log(gc ? `full garbage collection before the phases: ${(performance.now() - g0).toFixed(0)} ms` : 'no full garbage collection before the phases (run node with --expose-gc for one)');
  const rest = new CpuWindow();
  const reconcilesAtRest = reconciles();
  await sleep(REST_MS);
  console.log(`at rest for ${REST_MS / 1000} s: ${rest.text()}; reconciles: ${reconcileDelta(reconcilesAtRest, reconciles())}`);

  // Phase 1: module CR edits in the runtimes, through each runtime's own client.
  const remotes = new Map<string, HttpClient>();
  const remoteOf = (id: string): HttpClient => {
    let c = remotes.get(id);
    if (!c) {
      c = clientFromKubeconfig(land.server.clusterAccess(`skr-${id}`).kubeconfig, { retries: 0 });
      remotes.set(id, c);
    }
    return c;
  };
  const editable = ids.filter((id) => withConfig.has(id) && webhookKnows.has(id));
  console.log(`phase 1: module CR edit -> ModuleConfig, ${RATE}/s for ${DURATION_S} s into ${editable.length} runtimes (t=${(performance.now() / 1000).toFixed(1)} s)`);
  const events0 = series(cp.manager.registry.render(), 'watcher_events_received_total');
  const cpu1 = new CpuWindow();
  const reconciles1 = reconciles();
  await runPhase('edit', editable, configPending, (id, token) => remoteOf(id).patch(CFG, { namespace: RNS, name: 'default' }, 'merge', { spec: { level: token } }).then(() => undefined), phase1);
  const cpu1Text = cpu1.text();
  const reconciles1Text = reconcileDelta(reconciles1, reconciles());
  const events1 = series(cp.manager.registry.render(), 'watcher_events_received_total');
  const eventsByManager = [...events1].map(([labels, v]) => `${labels} ${v - (events0.get(labels) ?? 0)}`).join(', ');

  // Phase 2: SyncResource changes in the KCP, by the module manager's client.
  const changeable = ids.filter((id) => configMapValue.get(id) !== undefined);
  console.log(`phase 2: SyncResource change -> ConfigMap in the runtime, ${RATE}/s for ${DURATION_S} s into ${changeable.length} runtimes (t=${(performance.now() / 1000).toFixed(1)} s)`);
  const cpu2 = new CpuWindow();
  const reconciles2 = reconciles();
  await runPhase(
    'sync',
    changeable,
    syncPending,
    (id, token) =>
      moduleManager
        .patch(SyncResource, { namespace: NS, name: `${id}-${MODULE}` }, 'json', [{ op: 'replace', path: '/spec/items/0/resource/data', value: { v: token } }])
        .then(() => undefined),
    phase2,
  );
  const cpu2Text = cpu2.text();
  const reconciles2Text = reconcileDelta(reconciles2, reconciles());
  console.log(`phases done (t=${(performance.now() / 1000).toFixed(1)} s)`);
  clearInterval(sampler);

  const report = (title: string, r: PhaseResult, headline: string) => {
    console.log(`${title}: ${r.sent} changes sent in ${r.seconds.toFixed(1)} s (${(r.sent / r.seconds).toFixed(1)}/s) into ${r.touched} runtimes; ${r.failed} failed, ${r.skipped} skipped (every candidate pending), ${r.unmeasured} not seen within ${DRAIN_MS / 1000} s after the last`);
    console.log(`  ${summary(headline, r.latency)}`);
  };
  console.log('--- results');
  report('phase 1 (module CR edits)', phase1, 'edit -> ModuleConfig spec.resource seen by the KCP watch');
  console.log(`  ${summary('edit -> first watcher event of the runtime routed', phase1.toRouted)}`);
  console.log(`  ${summary('edit -> ModuleConfig reconcile start', phase1.toReconcile)}`);
  console.log(`  ${summary('edit request in the runtime (admission webhook included)', phase1.request)}`);
  console.log(`  watcher events received by manager: ${eventsByManager || 'none'}`);
  console.log(`  reconciles from the first change to the end of the drain: ${reconciles1Text}`);
  console.log(`  CPU: ${cpu1Text}`);
  report('phase 2 (SyncResource changes)', phase2, 'KCP write -> ConfigMap with the new data in the runtime');
  console.log(`  ${summary('KCP write -> SyncResource reconcile start', phase2.toReconcile)}`);
  console.log(`  ${summary('KCP write request', phase2.request)}`);
  console.log(`  reconciles from the first change to the end of the drain: ${reconciles2Text}`);
  console.log(`  CPU: ${cpu2Text}`);
  console.log(`at the end: ${states()}`);
  console.log(`whole run: ${cpuAll.text()}; peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`);

  const q1 = quantilesOf(phase1.latency);
  const q2 = quantilesOf(phase2.latency);
  const ms = (v: number) => (Number.isNaN(v) ? null : Math.round(v));
  console.log(
    JSON.stringify({
      runtimes: COUNT,
      rate: RATE,
      durationS: DURATION_S,
      moduleConfigP50Ms: ms(q1.p50),
      moduleConfigP90Ms: ms(q1.p90),
      moduleConfigP99Ms: ms(q1.p99),
      moduleConfigMaxMs: ms(q1.max),
      moduleConfigSamples: q1.n,
      syncP50Ms: ms(q2.p50),
      syncP90Ms: ms(q2.p90),
      syncP99Ms: ms(q2.p99),
      syncMaxMs: ms(q2.max),
      syncSamples: q2.n,
      samples: q1.n + q2.n,
    }),
  );

  for (const c of remotes.values()) c.close();
  operators.stop();
  await cp.stop();
  moduleManager.close();
  kcp.close();
  await land.stop();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
