// npm run bench:watcher — the runtime watcher under load: N runtimes (default 1,000) with the
// webhook installed by the Kyma controller, then writes at a steady rate into random runtimes'
// Kymas (`spec.modules` toggled), each timed from the moment it is sent in the runtime
//   -> the event routed to the Kyma's queue (WatcherEventRouter.onRouted)
//   -> the start of the KCP reconcile of that Kyma (Controller.onReconcileStart).
// Ready Kymas are requeued only every hour, so every reconcile in the write phase comes from an
// event (the watcher's, or the informer's after the KCP Kyma followed the runtime).
// Laid out as `kcp up` runs it: the embedded landscape (the API server with every runtime cluster,
// the kubelet simulation, the SkrWebhookHost serving every runtime's webhook with the runtime's own
// certificate) in a process of its own; the control plane (the lifecycle manager and the watcher
// listener on mutual TLS) and the benchmark's timing hooks in this one. Runtime clusters are
// attached without Gardener (`PUT /_kcp/clusters/skr-<id>`, a kubeconfig Secret and a Kyma).
//
//   node dist/bench/watcher.bench.js [--runtimes N] [--rate writes/s] [--duration s] [--converge-timeout s]
//   (or WATCHER_BENCH_RUNTIMES, WATCHER_BENCH_RATE, WATCHER_BENCH_DURATION, WATCHER_BENCH_CONVERGE_TIMEOUT)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Kyma, type KymaModule, type KymaObject, Labels, ModuleReleaseMeta, ModuleTemplate, Namespaces } from '../src/api/operator/index.js';
import { adminCall } from '../src/apiserver/admin-client.js';
import { type ControlPlaneConfig } from '../src/controlplane/index.js';
import { createKubeconfigSecret } from '../src/landscape/runtime-cluster.js';
import { KYMA_CONTROLLER_NAME } from '../src/lifecycle/kyma/controller.js';
import { clientFromKubeconfig, type HttpClient, loadKubeconfig } from '../src/runtime/client/index.js';
import { silentLogger } from '../src/runtime/log.js';
import { startUp } from '../src/up/index.js';
import { sleep } from '../src/util/sleep.js';
import { DEFAULT_SKR_WEBHOOK_IMAGE } from '../src/watcher/skr-objects.js';
import { memoryOf } from './fleet-common.js';
import { printSettings } from './settings.js';
import { CpuWindow, option, quantile, series, summary, sum } from './stats.js';

const COUNT = option('--runtimes', 'WATCHER_BENCH_RUNTIMES', 1000);
const RATE = option('--rate', 'WATCHER_BENCH_RATE', 50);
const DURATION_S = option('--duration', 'WATCHER_BENCH_DURATION', 30);
const CONVERGE_TIMEOUT_S = option('--converge-timeout', 'WATCHER_BENCH_CONVERGE_TIMEOUT', 900);
const NS = Namespaces.ControlPlane;
const HOUR = 3_600_000;
/** Toggled in `spec.modules`: a module of the catalog taken over by the user, so no Manifest and no install. */
const UNMANAGED: KymaModule[] = [{ name: 'nothing', managed: false }];

// Deviations from production settings, printed with the figures. The Ready requeue is 1 hour (the
// production fallback with the watcher is 5 min, --kyma-requeue-success-interval) so that the write
// phase sees event-driven reconciles only. The controllers' KCP client gets a high client-side rate
// limit, as in the other benchmarks.
const CONTROLLERS: Partial<ControlPlaneConfig> = {
  infrastructureManager: false,
  kymaIntervals: { readyMs: HOUR, busyMs: 5_000, warningMs: 30_000, errorMs: 2_000 },
  watcher: { listen: { host: '127.0.0.1', port: 0 }, trustGateway: false, image: DEFAULT_SKR_WEBHOOK_IMAGE, pki: {} },
};
const KCP_CLIENT = { qps: 2000, burst: 4000, retries: 1 };
const RUNTIME_PREFIX = 'skr-';

interface Pending {
  sent: number;
  received?: number;
  routed?: number;
}

async function main(): Promise<void> {
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, node ${process.version}; load average ${os.loadavg()[0].toFixed(2)}; ${COUNT} runtimes, ${RATE} writes/s for ${DURATION_S} s`);
  printSettings({
    controlPlane: CONTROLLERS,
    controllersKcpClient: KCP_CLIENT,
    endpoints: 'no /metrics or probes listeners',
    runtimes: 'attached without Gardener (no provisioning); skr-webhook served by the landscape process (SkrWebhookHost), kubelet simulation with its defaults',
    catalog: 'one ModuleTemplate (module "nothing"), only ever enabled with managed: false',
  });
  const work = mkdtempSync(join(os.tmpdir(), 'kcp-bench-watcher-'));
  const up = await startUp({
    dataDir: join(work, 'data'),
    port: 0,
    catalogDir: null,
    landscapeMode: 'process',
    kubeletClusterPrefixes: [RUNTIME_PREFIX],
    controlPlane: CONTROLLERS,
    kcpClient: KCP_CLIENT,
    logger: silentLogger,
  });
  const info = up.landscapeInfo;
  console.log(`landscape: pid ${info.pid} (API server, runtime clusters, webhook host, simulators); controllers: pid ${process.pid}; started in ${up.startupMs} ms`);
  const kcpKubeconfig = readFileSync(info.files.kcpKubeconfig, 'utf8');
  const kcp = clientFromKubeconfig(kcpKubeconfig, { qps: 0 });
  const admin = loadKubeconfig(kcpKubeconfig);
  const adminToken = ((await admin.auth?.authorization()) ?? '').replace(/^Bearer /, '');
  const createCluster = async (name: string) => (await adminCall(admin.server, adminToken, admin.tls.ca ?? '', 'PUT', `/_kcp/clusters/${name}`)) as { kubeconfig: string };
  await kcp.create({
    apiVersion: ModuleTemplate.apiVersion,
    kind: ModuleTemplate.kind,
    metadata: { name: 'nothing-1.0.0', namespace: NS, labels: { [Labels.ModuleName]: 'nothing' } },
    spec: { moduleName: 'nothing', version: '1.0.0', resources: [{ name: 'rawManifest', link: 'https://modules.invalid/nothing/1.0.0.yaml' }] },
  });
  await kcp.create({ apiVersion: ModuleReleaseMeta.apiVersion, kind: ModuleReleaseMeta.kind, metadata: { name: 'nothing', namespace: NS }, spec: { moduleName: 'nothing', channels: [{ channel: 'regular', version: '1.0.0' }] } });
  const cp = up.controlPlane;
  const router = cp.lifecycle?.watcherEvents;
  const kymaController = cp.manager.getControllers().find((c) => c.name === KYMA_CONTROLLER_NAME);
  if (!router || !kymaController) throw new Error('the control plane runs no watcher router or no Kyma controller');

  const peak = { controllers: 0, landscape: 0 };
  const sampler = setInterval(() => {
    peak.controllers = Math.max(peak.controllers, memoryOf(process.pid).peakMiB);
    peak.landscape = Math.max(peak.landscape, memoryOf(info.pid).peakMiB);
  }, 1000);
  const cpuConverge = new CpuWindow();
  const t0 = performance.now();
  const kubeconfigs = new Map<string, string>();
  const runtime = async (id: string): Promise<void> => {
    const { kubeconfig } = await createCluster(`${RUNTIME_PREFIX}${id}`);
    kubeconfigs.set(id, kubeconfig);
    await createKubeconfigSecret(kcp, id, kubeconfig, NS);
    await kcp.create({
      apiVersion: Kyma.apiVersion,
      kind: Kyma.kind,
      metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id, [Labels.RuntimeID]: id } },
      spec: { channel: 'regular', modules: [] },
    });
  };
  const ids = Array.from({ length: COUNT }, (_, i) => `rt-${String(i).padStart(5, '0')}`);
  for (let i = 0; i < COUNT; i += 25) await Promise.all(ids.slice(i, i + 25).map(runtime));
  console.log(`  ${COUNT} runtimes and Kymas created in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  // Progress from the controllers' own informer cache: no list requests competing with the run.
  const cached = cp.manager.cache<KymaObject>(Kyma, { namespace: NS });
  let ready = 0;
  let lastPrint = performance.now();
  const deadline = t0 + CONVERGE_TIMEOUT_S * 1000;
  while (ready < COUNT && performance.now() < deadline) {
    await sleep(1000);
    const kymas = cached.list({ namespace: NS });
    ready = kymas.filter((k) => k.status?.state === 'Ready' && k.status.conditions?.some((c) => c.type === 'SKRWebhook' && c.status === 'True')).length;
    if (performance.now() - lastPrint >= 5000) {
      const states = new Map<string, number>();
      for (const k of kymas) states.set(k.status?.state ?? '(none)', (states.get(k.status?.state ?? '(none)') ?? 0) + 1);
      console.log(`  ... ${ready}/${COUNT} Kymas Ready with SKRWebhook True after ${((performance.now() - t0) / 1000).toFixed(0)} s (states: ${[...states].map(([s, n]) => `${s} ${n}`).join(', ')}; RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB)`);
      lastPrint = performance.now();
    }
  }
  const convergeS = (performance.now() - t0) / 1000;
  if (ready < COUNT) console.log(`NOT converged: ${ready}/${COUNT} Kymas Ready with SKRWebhook True after ${convergeS.toFixed(0)} s (cap ${CONVERGE_TIMEOUT_S} s); writing anyway into the Ready ones`);
  else console.log(`${COUNT} Kymas Ready with SKRWebhook True in ${convergeS.toFixed(1)} s`);
  console.log(`  CPU while converging: ${cpuConverge.text()}`);

  // The write phase: only runtimes whose Kyma is Ready with the webhook.
  const kymas = cached.list({ namespace: NS });
  const writable = kymas.filter((k) => k.status?.state === 'Ready' && k.status.conditions?.some((c) => c.type === 'SKRWebhook' && c.status === 'True')).map((k) => k.metadata.name ?? '');
  const pending = new Map<string, Pending>();
  const toEvent: number[] = [];
  const toListener: number[] = [];
  const toReconcile: number[] = [];
  const writeLatency: number[] = [];
  let writeErrors = 0;
  let reconcileStarts = 0;
  // The listener hands the router its DeliveredEvent, which carries receivedAt (performance.now()).
  router.onRouted = (key, e) => {
    const p = pending.get(key);
    if (!p || p.routed !== undefined) return;
    p.routed = performance.now();
    const receivedAt = (e as { receivedAt?: number }).receivedAt;
    if (receivedAt !== undefined) p.received = receivedAt;
  };
  kymaController.onReconcileStart = (key) => {
    reconcileStarts++;
    const p = pending.get(key);
    if (!p || p.routed === undefined) return;
    const now = performance.now();
    toEvent.push(p.routed - p.sent);
    if (p.received !== undefined) toListener.push(p.received - p.sent);
    toReconcile.push(now - p.sent);
    pending.delete(key);
  };
  const clients = new Map<string, HttpClient>();
  const enabled = new Set<string>();
  const remoteOf = (id: string): HttpClient => {
    let c = clients.get(id);
    if (!c) {
      c = clientFromKubeconfig(kubeconfigs.get(id) ?? '', { retries: 0 });
      clients.set(id, c);
    }
    return c;
  };
  let skipped = 0;
  const write = async (): Promise<void> => {
    let id: string | undefined;
    for (let tries = 0; tries < 20 && !id; tries++) {
      const candidate = writable[Math.floor(Math.random() * writable.length)];
      if (!pending.has(`${NS}/${candidate}`)) id = candidate;
    }
    if (!id) {
      skipped++;
      return;
    }
    const key = `${NS}/${id}`;
    const modules = enabled.has(id) ? [] : UNMANAGED;
    const p: Pending = { sent: performance.now() };
    pending.set(key, p);
    try {
      await remoteOf(id).patch(Kyma, { namespace: Namespaces.Remote, name: 'default' }, 'merge', { spec: { modules } });
      writeLatency.push(performance.now() - p.sent);
      if (modules.length > 0) enabled.add(id);
      else enabled.delete(id);
    } catch (e) {
      writeErrors++;
      if (writeErrors <= 3) console.log(`  write into ${id} failed: ${(e as Error).message}`);
      pending.delete(key);
    }
  };

  const metricsBefore = cp.manager.registry.render();
  const startsBefore = reconcileStarts;
  const cpuWrite = new CpuWindow();
  const w0 = performance.now();
  const total = Math.round(RATE * DURATION_S);
  const writes: Promise<void>[] = [];
  let sent = 0;
  let lastLine = w0;
  while (sent < total) {
    // Steady rate: each write at its scheduled time, never in bursts to catch up more than one tick.
    const due = w0 + (sent * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    writes.push(write());
    sent++;
    if (performance.now() - lastLine >= 5000) {
      const s = [...toReconcile].sort((a, b) => a - b);
      console.log(`  ... ${sent}/${total} writes after ${((performance.now() - w0) / 1000).toFixed(0)} s; ${toReconcile.length} reconciles measured (p50 ${quantile(s, 0.5).toFixed(0)} ms, p99 ${quantile(s, 0.99).toFixed(0)} ms), ${pending.size} pending`);
      lastLine = performance.now();
    }
  }
  const sendSeconds = (performance.now() - w0) / 1000;
  await Promise.all(writes);
  const drainStart = performance.now();
  while (pending.size > 0 && performance.now() - drainStart < 30_000) await sleep(100);
  const cpuWriteText = cpuWrite.text();
  const windowSeconds = (performance.now() - w0) / 1000;
  const metricsAfter = cp.manager.registry.render();
  const received = sum(series(metricsAfter, 'watcher_events_received_total')) - sum(series(metricsBefore, 'watcher_events_received_total'));
  /** Window delta of every series of a metric, by labels (`{}` for one without labels). */
  const deltas = (name: string): string => {
    const before = series(metricsBefore, name);
    const out = [...series(metricsAfter, name)].map(([labels, v]) => `${labels || '{}'} ${v - (before.get(labels) ?? 0)}`).filter((l) => !l.endsWith(' 0'));
    return out.length > 0 ? out.join(', ') : 'none';
  };
  const rejectedAfter = series(metricsAfter, 'watcher_events_rejected_total');
  const rejectedBefore = series(metricsBefore, 'watcher_events_rejected_total');
  const rejected = [...rejectedAfter].map(([labels, v]) => [labels, v - (rejectedBefore.get(labels) ?? 0)] as const).filter(([, v]) => v > 0);

  // Did the KCP follow? Each written runtime's KCP Kyma should have the runtime's last modules.
  await sleep(2000);
  const after = new Map((await kcp.list<KymaObject>(Kyma, { namespace: NS })).items.map((k) => [k.metadata.name ?? '', k]));
  const touched = [...clients.keys()];
  const followed = touched.filter((id) => ((after.get(id)?.spec.modules ?? []).length > 0) === enabled.has(id)).length;
  const readyAfter = [...after.values()].filter((k) => k.status?.state === 'Ready').length;

  clearInterval(sampler);
  console.log(`write phase: ${sent} writes sent in ${sendSeconds.toFixed(1)} s (${(sent / sendSeconds).toFixed(1)}/s) into ${touched.length} runtimes; ${writeErrors} failed, ${skipped} skipped (every candidate still pending)`);
  console.log(summary('write -> event routed to the Kyma queue', toEvent));
  console.log(summary('write -> KCP reconcile start', toReconcile));
  console.log(summary('write -> event received by the listener', toListener));
  console.log(summary('write request (runtime API server incl. admission webhook)', writeLatency));
  console.log(`not measured (no reconcile within 30 s after the last write): ${pending.size}`);
  console.log(`listener: ${received} events received in ${windowSeconds.toFixed(1)} s (${(received / windowSeconds).toFixed(1)} events/s sustained); rejected: ${rejected.length === 0 ? 'none' : rejected.map(([l, v]) => `${l} ${v}`).join(', ')}`);
  console.log(`Kyma reconciles started in the write window: ${reconcileStarts - startsBefore} (${((reconcileStarts - startsBefore) / windowSeconds).toFixed(1)}/s): runtime Kyma events ${deltas('lifecycle_mgr_kyma_runtime_events_total')}; cached passes ${deltas('lifecycle_mgr_kyma_cached_passes_total')}; full runtime checks ${deltas('lifecycle_mgr_full_runtime_checks_total')}`);
  console.log(`events by manager: ${deltas('watcher_events_received_total')}`);
  console.log(`KCP followed the runtime: ${followed}/${touched.length} written Kymas; ${readyAfter}/${after.size} Kymas Ready`);
  console.log(`CPU in the write window: ${cpuWriteText}`);
  console.log(`peak RSS: controllers (and the benchmark) ${peak.controllers.toFixed(0)} MiB, landscape ${peak.landscape.toFixed(0)} MiB`);

  for (const c of clients.values()) c.close();
  kcp.close();
  await up.stop();
  rmSync(work, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
