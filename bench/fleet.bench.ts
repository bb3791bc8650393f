// npm run bench:fleet — the whole landscape end to end, as `kcp up` runs it: the embedded landscape
// (API server, Gardener simulator, kubelet and module-operator simulations, the registry) in a process
// of its own, the control plane (both managers, the runtime watcher on mutual TLS) in this one, with
// kcp up's flags. N Runtimes are created as `kcp runtime create` builds them, each with a Kyma enabling
// 5 modules of 13 objects (bench/fleet-modules.ts) pulled from the registry. Phases:
//
//   1. converge: until every Kyma and every Manifest is Ready (a progress line every 10 s);
//   2. steady:   the fleet held with nothing changing, requests counted by the API server;
//   3. change:   a sixth module enabled in random runtimes' own Kymas (as a runtime admin's kubectl
//                does), timed until the runtime Kyma's status shows it Ready.
//
// It ends with one JSON line. Options: --runtimes N (1,000), --steady SECONDS (300), --changes K (100),
// --change-rate PER_SECOND (2), --converge-timeout SECONDS (3,600), --heap-snapshot PATH (a V8 heap
// snapshot of the controllers' process once converged, for scripts/heap-summary.mjs), --landscape-heap
// MiB (the landscape process's heap limit; default 1.3 MiB per runtime, at least 4,096); any other
// `--flag value` is a controller flag of `kcp up` (printed as a deviation from production). The
// controllers run in this process, under the heap limit node is given (`node --max-old-space-size=N`,
// as deploy/manifests sets it through NODE_OPTIONS). A run that does not converge (--converge-timeout,
// or Ctrl-C while converging) still prints what it counted so far, then stops the landscape and
// removes its data; a second Ctrl-C leaves at once.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { parseArgs } from '../src/cli/args.js';
import { clientLimitsFrom, controlPlaneConfigFrom, FlagReader, flagTableOf } from '../src/cli/controller-flags.js';
import { UP_FLAGS } from '../src/cli/up.js';
import { type Client, clientFromKubeconfig } from '../src/runtime/client/index.js';
import { sleep } from '../src/util/sleep.js';
import { startUp } from '../src/up/index.js';
import { secureContexts } from '../src/util/tls-contexts.js';
import { controllerFlags, enableInRuntime, EXTRA_MODULE, FleetWatch, machineLine, memoryOf, MODULES, NotConverged, NS, routeCountsReader, routeDeltaLines, statsReader, connectionStatsReader, connectionDeltaLine } from './fleet-common.js';
import { OBJECTS_PER_MODULE, writeFleetModules } from './fleet-modules.js';
import { printSettings } from './settings.js';
import { CpuShares, CpuWindow, labelledDelta, option, passesSince, quantilesOf, queueLanes, RECONCILE_METRICS, reconcileDelta, reconcilesByController, series, summary } from './stats.js';

/** The metric families of the progress lines' detail (a few series each). */
const PROGRESS_FAMILIES = ['controller_runtime_reconcile_time_seconds', 'lifecycle_mgr_watcher_event_manifest_keys_total', 'lifecycle_mgr_drift_checks_total', 'lifecycle_mgr_manifest_readiness_passes_total', 'lifecycle_mgr_manifest_clean_passes_total'];
const BENCH_OPTIONS = new Set(['--runtimes', '--steady', '--changes', '--change-rate', '--converge-timeout', '--heap-snapshot', '--landscape-heap']);

const runtimes = option('--runtimes', 'FLEET_BENCH_RUNTIMES', 1000);
const steadySeconds = option('--steady', 'FLEET_BENCH_STEADY', 300);
const changes = option('--changes', 'FLEET_BENCH_CHANGES', 100);
const changeRate = option('--change-rate', 'FLEET_BENCH_CHANGE_RATE', 2);
const convergeTimeoutSeconds = option('--converge-timeout', 'FLEET_BENCH_CONVERGE_TIMEOUT', 3600);
// The landscape stands in for the fleet's own clusters; its heap is not the controllers' and has no
// production value. It holds about 1 MiB per runtime.
const landscapeHeapMiB = option('--landscape-heap', 'FLEET_BENCH_LANDSCAPE_HEAP', Math.max(4096, Math.ceil(runtimes * 1.3)));
const heapSnapshotPath = process.argv.includes('--heap-snapshot') ? process.argv[process.argv.indexOf('--heap-snapshot') + 1] : undefined;

v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** The heap after a full collection: what the process holds, without the garbage RSS also counts. */
function liveHeapMiB(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/** Metric series by metric name (the metrics registry keeps one entry per series), largest first. */
function seriesByMetric(text: string): string {
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? '?';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 4);
  return `${total} series (${top.map(([n, c]) => `${n} ${c}`).join(', ')})`;
}

async function main(): Promise<void> {
  const { argv, deviations } = controllerFlags(BENCH_OPTIONS);
  const flags = new FlagReader(parseArgs(argv, flagTableOf(UP_FLAGS), { lastWins: true }), UP_FLAGS, 'bench:fleet');
  const config = controlPlaneConfigFrom(flags, NS);
  if (!config.watcher) throw new Error('bench:fleet runs with the runtime watcher (kcp up\'s default); do not pass --enable-kcp-watcher=false');
  const clientLimits = clientLimitsFrom(flags);
  console.log(machineLine());
  console.log(`fleet: ${runtimes} runtimes x ${MODULES.length} modules of ${OBJECTS_PER_MODULE} objects (and a default CR); steady window ${steadySeconds} s; ${changes} module enables at ${changeRate}/s`);
  printSettings({ ...Object.fromEntries(Object.entries(deviations).map(([k, v]) => [`--${k}`, v])) });
  console.log('production settings kept: kcp up\'s controller flags otherwise (watcher on, 5 min fallback passes), the embedded Gardener simulator\'s timing, module operators at their default delay');
  console.log(`heap limits: controllers (this process) ${(v8.getHeapStatistics().heap_size_limit / 2 ** 20).toFixed(0)} MiB; the landscape's process ${landscapeHeapMiB} MiB (--landscape-heap)`);

  const work = mkdtempSync(join(os.tmpdir(), 'kcp-bench-fleet-'));
  const running: { up?: Awaited<ReturnType<typeof startUp>> } = {};
  cleanupWork = async () => {
    await running.up?.stop();
    rmSync(work, { recursive: true, force: true });
  };
  const modulesDir = join(work, 'modules');
  writeFleetModules(modulesDir, [...MODULES, EXTRA_MODULE]);
  const up = await startUp({
    dataDir: join(work, 'data'),
    port: 0,
    catalogDir: modulesDir,
    landscapeMode: 'process',
    landscapeExecArgv: [`--max-old-space-size=${landscapeHeapMiB}`],
    logLevel: flags.level(),
    controlPlane: config,
    ...clientLimits,
  });
  running.up = up;
  const info = up.landscapeInfo;
  console.log(`landscape: pid ${info.pid} (API server and simulators), registry ${info.registry.kind} at ${info.registry.host}; controllers: pid ${process.pid}; started in ${up.startupMs} ms`);

  const kcpKubeconfig = readFileSync(info.files.kcpKubeconfig, 'utf8');
  const kcp = clientFromKubeconfig(kcpKubeconfig, { qps: 0 });
  const stats = statsReader(kcpKubeconfig);
  const routeCounts = routeCountsReader(kcpKubeconfig);
  const connections = connectionStatsReader(kcpKubeconfig);
  const fleet = new FleetWatch(kcp, runtimes);
  await fleet.start();
  const ownRequests = () => fleet.ownRequests();

  let peak = { controllers: 0, apiserver: 0 };
  const sampler = setInterval(() => {
    peak = { controllers: Math.max(peak.controllers, memoryOf(process.pid).peakMiB), apiserver: Math.max(peak.apiserver, memoryOf(info.pid).peakMiB) };
  }, 1000);

  // 1. Converge.
  const reconciles = () => reconcilesByController(up.controlPlane.manager.registry.render(RECONCILE_METRICS));
  const requests0 = (await stats()) - ownRequests();
  const routes0 = await routeCounts();
  const connections0 = await connections();
  const convergeReconciles0 = reconciles();
  // Only the families printed below: a whole rendering is tens of MiB at 5,000 runtimes, and kept in
  // this process it would count as the controllers' memory.
  const convergeFamilies = ['lifecycle_mgr_requeue_reason_total', 'lifecycle_mgr_drift_checks_total', 'lifecycle_mgr_manifest_readiness_passes_total', 'lifecycle_mgr_manifest_clean_passes_total', 'lifecycle_mgr_manifest_event_rechecks_total', 'lifecycle_mgr_kyma_event_rechecks_total', 'watcher_events_received_total', 'watcher_events_rejected_total'];
  const convergeMetrics0 = up.controlPlane.manager.registry.render(convergeFamilies);
  const progressMetrics0 = up.controlPlane.manager.registry.render(PROGRESS_FAMILIES);
  let lastProgress = progressMetrics0;
  const cpu = new CpuWindow(info.pid);
  const shares = new CpuShares(info.pid);
  const t0 = performance.now();
  await fleet.createFleet();
  phase = 'converging';
  let notConverged: NotConverged | undefined;
  try {
    await fleet.converge(
      t0,
      convergeTimeoutSeconds,
      () => {
        // The controllers' V8 heap beside their RSS: what is heap (live and garbage) and what is not.
        const m = process.memoryUsage();
        return `controllers ${memoryOf(process.pid).rssMiB.toFixed(0)} MiB (V8 heap ${(m.heapTotal / 2 ** 20).toFixed(0)} MiB, ${(m.heapUsed / 2 ** 20).toFixed(0)} used; external ${(m.external / 2 ** 20).toFixed(0)} MiB), API server ${memoryOf(info.pid).rssMiB.toFixed(0)} MiB; ${shares.text()}`;
      },
      interrupted.signal,
      () => {
        const now = up.controlPlane.manager.registry.render(PROGRESS_FAMILIES);
        const passes = passesSince(lastProgress, now, ['kyma', 'manifest']);
        lastProgress = now;
        const grown = (name: string, label?: string) => labelledDelta(progressMetrics0, now, name, label);
        const start = series(progressMetrics0, 'lifecycle_mgr_watcher_event_manifest_keys_total');
        const keys = [...series(now, 'lifecycle_mgr_watcher_event_manifest_keys_total')].map(([labels, v]) => `${labels.replace(/[{}"]/g, '').replace(/found=|lane=/g, '')} ${v - (start.get(labels) ?? 0)}`).join(', ');
        return `passes since the last line: ${passes}; queues (ready keys, head's wait): ${queueLanes(up.controlPlane.manager.getControllers(), ['kyma', 'manifest'])}; Manifest keys from events: ${keys || 'none'}; Manifest passes: read-backs ${grown('lifecycle_mgr_drift_checks_total')}, readiness only ${grown('lifecycle_mgr_manifest_readiness_passes_total')}, clean ${grown('lifecycle_mgr_manifest_clean_passes_total')}`;
      },
    );
    phase = 'after';
  } catch (e) {
    if (!(e instanceof NotConverged)) throw e;
    notConverged = e;
  }
  const convergeSeconds = (performance.now() - t0) / 1000;
  const convergeRequests = (await stats()) - ownRequests() - requests0;
  const requestsPerModule = convergeRequests / (runtimes * MODULES.length);
  const requestsText = `${convergeRequests} API requests (${requestsPerModule.toFixed(1)} per module, ${(convergeRequests / runtimes).toFixed(1)} per runtime, provisioning included); ${cpu.text()}`;
  if (notConverged) console.log(`${notConverged.message}; so far ${requestsText}`);
  else console.log(`converged: ${runtimes} x ${MODULES.length} modules Ready in ${convergeSeconds.toFixed(1)} s; ${requestsText}`);
  console.log(`  reconciles while converging: ${reconcileDelta(convergeReconciles0, reconciles())}`);
  console.log(`  requests while converging by cluster, verb and resource (this benchmark's own included):\n${routeDeltaLines(routes0, await routeCounts(), 80).join('\n')}`);
  console.log(`  ${connectionDeltaLine(connections0, await connections(), convergeRequests)}`);
  const convergeMetrics = up.controlPlane.manager.registry.render(convergeFamilies);
  const counted = (name: string, label?: string) => labelledDelta(convergeMetrics0, convergeMetrics, name, label);
  console.log(`  requeues while converging (Kyma and Manifest controllers), by reason: ${counted('lifecycle_mgr_requeue_reason_total', 'requeue_reason')}`);
  console.log(`  Manifest passes while converging: object read-backs by reason: ${counted('lifecycle_mgr_drift_checks_total', 'reason')}; readiness only ${counted('lifecycle_mgr_manifest_readiness_passes_total')}; clean ${counted('lifecycle_mgr_manifest_clean_passes_total')}; event rechecks asked: Manifests ${counted('lifecycle_mgr_manifest_event_rechecks_total')}, Kymas ${counted('lifecycle_mgr_kyma_event_rechecks_total')}`);
  console.log(`  watcher events while converging: received by manager ${counted('watcher_events_received_total', 'manager')}; rejected ${counted('watcher_events_rejected_total', 'reason')}`);
  if (notConverged) {
    console.log(`memory at the stop: RSS ${memoryOf(process.pid).rssMiB.toFixed(0)} MiB, heap after a full GC ${liveHeapMiB().toFixed(0)} MiB; peak RSS: controllers ${Math.max(peak.controllers, memoryOf(process.pid).peakMiB).toFixed(0)} MiB, API server and simulators ${Math.max(peak.apiserver, memoryOf(info.pid).peakMiB).toFixed(0)} MiB`);
    clearInterval(sampler);
    fleet.stop();
    kcp.close();
    await cleanup();
    process.exitCode = interrupted.signal.aborted ? 130 : 1;
    return;
  }
  console.log(`memory once converged: RSS ${memoryOf(process.pid).rssMiB.toFixed(0)} MiB, heap after a full GC ${liveHeapMiB().toFixed(0)} MiB`);
  if (heapSnapshotPath) {
    const t = performance.now();
    v8.writeHeapSnapshot(heapSnapshotPath);
    console.log(`heap snapshot of the controllers' process written to ${heapSnapshotPath} in ${((performance.now() - t) / 1000).toFixed(1)} s (summarize: node scripts/heap-summary.mjs ${heapSnapshotPath})`);
  }

  // 2. Steady state: a short settle, then the window.
  await sleep(30_000);
  const steadyCpu = new CpuWindow(info.pid);
  const steadyReconciles0 = reconciles();
  const steady0 = (await stats()) - ownRequests();
  const s0 = performance.now();
  while (performance.now() - s0 < steadySeconds * 1000) {
    await sleep(Math.min(30_000, steadySeconds * 1000 - (performance.now() - s0)));
    console.log(`  steady ${((performance.now() - s0) / 1000).toFixed(0)} s: ${((await stats()) - ownRequests() - steady0)} requests so far`);
  }
  const steadyWindow = (performance.now() - s0) / 1000;
  const steadyRequests = (await stats()) - ownRequests() - steady0;
  const steadyRequestsPerSecond = steadyRequests / steadyWindow;
  console.log(`steady state: ${steadyRequests} requests in ${steadyWindow.toFixed(0)} s = ${steadyRequestsPerSecond.toFixed(2)} requests/s for the fleet; reconciles: ${reconcileDelta(steadyReconciles0, reconciles())}; ${steadyCpu.text()}`);

  // 3. A module enabled in runtimes' own Kymas while the fleet is held.
  const latencies = await enableInRuntimes(kcp, fleet.kymaNames());
  console.log(summary('module enabled in the runtime Kyma -> Ready in its status', latencies));
  const q = quantilesOf(latencies);

  clearInterval(sampler);
  peak = { controllers: Math.max(peak.controllers, memoryOf(process.pid).peakMiB), apiserver: Math.max(peak.apiserver, memoryOf(info.pid).peakMiB) };
  const live = liveHeapMiB();
  const heap = process.memoryUsage();
  console.log(`peak RSS: controllers (and this benchmark's three slim informers) ${peak.controllers.toFixed(0)} MiB; API server and simulators ${peak.apiserver.toFixed(0)} MiB`);
  for (const c of up.controlPlane.manager.cacheSizes({ jsonBytes: true })) {
    if (c.objects > 0) console.log(`  cache ${c.kind} (${c.scope}): ${c.objects} objects, ${((c.jsonBytes ?? 0) / 2 ** 20).toFixed(1)} MiB as JSON`);
  }
  const depths = series(up.controlPlane.manager.registry.render(['workqueue_depth']), 'workqueue_depth');
  console.log(`  work queues: ${[...depths].map(([labels, v]) => `${/name="([^"]*)"/.exec(labels)?.[1] ?? labels} ${v}`).join(', ')}`);
  console.log(`  metrics: ${seriesByMetric(up.controlPlane.manager.registry.render())}`);
  console.log(`  TLS contexts: ${JSON.stringify(secureContexts.stats())}`);
  console.log(`controllers now: heap after a full GC ${live.toFixed(0)} MiB, external ${(heap.external / 2 ** 20).toFixed(0)} MiB, array buffers ${(heap.arrayBuffers / 2 ** 20).toFixed(0)} MiB; remote clients ${JSON.stringify(up.controlPlane.remoteClusters.stats())}`);
  fleet.stop();
  kcp.close();
  await cleanup();
  console.log(
    JSON.stringify({
      runtimes,
      modules: MODULES.length,
      convergeSeconds: Number(convergeSeconds.toFixed(1)),
      requestsPerModule: Number(requestsPerModule.toFixed(1)),
      steadyRequestsPerSecond: Number(steadyRequestsPerSecond.toFixed(2)),
      changeToReadyP50Ms: Math.round(q.p50),
      changeToReadyP99Ms: Math.round(q.p99),
      controllerPeakRssMiB: Math.round(peak.controllers),
      apiserverPeakRssMiB: Math.round(peak.apiserver),
    }),
  );
}

/** Enables EXTRA_MODULE in `changes` random runtimes at `changeRate`, each timed until the runtime Kyma's status shows it Ready. */
async function enableInRuntimes(kcp: Client, kymaNames: string[]): Promise<number[]> {
  const pool = [...kymaNames];
  const latencies: number[] = [];
  const inFlight: Promise<void>[] = [];
  let failed = 0;
  for (let i = 0; i < changes && pool.length > 0; i++) {
    const name = pool.splice(Math.floor(Math.random() * pool.length), 1)[0];
    inFlight.push(
      enableInRuntime(kcp, name).then(
        (ms) => void latencies.push(ms),
        (e: unknown) => {
          failed++;
          console.log(`  enabling ${EXTRA_MODULE} in ${name} failed: ${e instanceof Error ? e.message : String(e)}`);
        },
      ),
    );
    await sleep(1000 / changeRate);
  }
  await Promise.all(inFlight);
  if (failed > 0) console.log(`  ${failed} of ${changes} module enables failed`);
  return latencies;
}

// Ctrl-C while converging: the convergence stops and reports what it counted; at any other time the
// run ends. Either way the landscape stops and the run's data is removed; a second Ctrl-C leaves at once.
const interrupted = new AbortController();
let phase: 'starting' | 'converging' | 'after' = 'starting';
let cleanupWork: (() => Promise<void>) | undefined;
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (cleanupWork?.() ?? Promise.resolve()).catch((e: unknown) => console.error('cleanup failed:', e));
  return cleaning;
}
process.on('SIGINT', () => {
  if (interrupted.signal.aborted) process.exit(130);
  interrupted.abort();
  console.log('interrupted (Ctrl-C again to leave at once)');
  if (phase !== 'converging') cleanup().then(
      () => process.exit(130),
      () => process.exit(130),
    );
});

main().catch(async (e: unknown) => {
  if (!interrupted.signal.aborted) console.error(e);
  await cleanup();
  process.exit(interrupted.signal.aborted ? 130 : 1);
});
