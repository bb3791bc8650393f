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
// snapshot of the controllers' process once converged, for scripts/heap-summary.mjs); any other
// `--flag value` is a controller flag of `kcp up` (printed as a deviation from production).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import https from 'node:https';
import os from 'node:os';
import { join } from 'node:path';
import { Runtime, type RuntimeObject } from '../src/api/infrastructuremanager/index.js';
import { kubeconfigSecretName } from '../src/api/infrastructuremanager/v1/gardenercluster.js';
import { DEFAULT_REMOTE_KYMA_NAME, Kyma, type KymaObject, Manifest, Namespaces } from '../src/api/operator/index.js';
import { parseArgs } from '../src/cli/args.js';
import { clientLimitsFrom, controlPlaneConfigFrom, FlagReader, switchesOf } from '../src/cli/controller-flags.js';
import { buildRuntimeAndKyma, validateRuntimeRequest } from '../src/cli/runtime-spec.js';
import { UP_FLAGS } from '../src/cli/up.js';
import { Informer } from '../src/runtime/cache/informer.js';
import { type Client, clientFromKubeconfig, loadKubeconfig } from '../src/runtime/client/index.js';
import type { KubeObject } from '../src/kube/object.js';
import { sleep } from '../src/util/sleep.js';
import { processRss } from '../src/landscape/process.js';
import { startUp } from '../src/up/index.js';
import { secureContexts } from '../src/util/tls-contexts.js';
import { OBJECTS_PER_MODULE, writeFleetModules } from './fleet-modules.js';
import { printSettings } from './settings.js';
import { CpuWindow, option, quantilesOf, reconcileDelta, reconcilesByController, series, statesOf, summary } from './stats.js';

const NS = Namespaces.ControlPlane;
const MODULES = ['fleet-alpha', 'fleet-beta', 'fleet-gamma', 'fleet-delta', 'fleet-epsilon'];
/** Enabled in the change phase only. */
const EXTRA_MODULE = 'fleet-zeta';
const BENCH_OPTIONS = new Set(['--runtimes', '--steady', '--changes', '--change-rate', '--converge-timeout', '--heap-snapshot']);
/**
 * Controller flags the benchmark sets unless given: the KCP and garden client rate limits (kcp run's
 * default 50 QPS would make convergence a benchmark of the client-side limiter; a deployment at this
 * size sets them by flag).
 */
const DEFAULT_DEVIATIONS: Record<string, string> = {
  'k8s-client-qps': '1000',
  'k8s-client-burst': '2000',
  'gardener-ratelimiter-qps': '1000',
  'gardener-ratelimiter-burst': '2000',
};

const runtimes = option('--runtimes', 'FLEET_BENCH_RUNTIMES', 1000);
const steadySeconds = option('--steady', 'FLEET_BENCH_STEADY', 300);
const changes = option('--changes', 'FLEET_BENCH_CHANGES', 100);
const changeRate = option('--change-rate', 'FLEET_BENCH_CHANGE_RATE', 2);
const convergeTimeoutSeconds = option('--converge-timeout', 'FLEET_BENCH_CONVERGE_TIMEOUT', 3600);
const heapSnapshotPath = process.argv.includes('--heap-snapshot') ? process.argv[process.argv.indexOf('--heap-snapshot') + 1] : undefined;

/** `--flag value` pairs of the command line that are not the benchmark's own, plus the default deviations. */
function controllerFlags(): { argv: string[]; deviations: Record<string, string> } {
  const given: Record<string, string> = {};
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    if (!args[i].startsWith('--')) throw new Error(`unexpected argument ${args[i]}`);
    if (BENCH_OPTIONS.has(args[i])) {
      i++;
      continue;
    }
    const [name, inline] = args[i].slice(2).split('=', 2);
    if (inline !== undefined) given[name] = inline;
    else given[name] = args[++i] ?? '';
  }
  const deviations = { ...DEFAULT_DEVIATIONS, ...given };
  return { argv: Object.entries(deviations).flatMap(([k, v]) => [`--${k}`, v]), deviations };
}

/** Current and peak resident memory of a process, in MiB (NaN where /proc is not there). */
function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const m = processRss(pid);
  return m ? { rssMiB: m.rss / 2 ** 20, peakMiB: m.peakRss / 2 ** 20 } : { rssMiB: NaN, peakMiB: NaN };
}

/** What the benchmark keeps of each object: its state, and the module states of a Kyma. */
type Slim = KubeObject & { status?: { state?: string; modules?: { name: string; state?: string }[] } };
function slim(o: KubeObject): Slim {
  const status = (o as Slim).status;
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    metadata: { name: o.metadata.name, namespace: o.metadata.namespace, resourceVersion: o.metadata.resourceVersion },
    status: { state: status?.state, ...(status?.modules ? { modules: status.modules.map((m) => ({ name: m.name, state: m.state })) } : {}) },
  };
}

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

function runtimeRequest(i: number) {
  return validateRuntimeRequest({
    name: `rt-${String(i).padStart(5, '0')}`,
    provider: 'aws',
    region: 'eu-central-1',
    administrators: ['admin@example.com'],
    minimum: 1,
    maximum: 3,
    purpose: 'evaluation',
    platformRegion: 'cf-eu10',
    globalAccountID: 'ga-1',
    subaccountID: 'sa-1',
    channel: 'regular',
  });
}

async function main(): Promise<void> {
  const { argv, deviations } = controllerFlags();
  const flags = new FlagReader(parseArgs(argv, switchesOf(UP_FLAGS)), UP_FLAGS, 'bench:fleet');
  const config = controlPlaneConfigFrom(flags, NS);
  if (!config.watcher) throw new Error('bench:fleet runs with the runtime watcher (kcp up\'s default); do not pass --enable-kcp-watcher=false');
  const clientLimits = clientLimitsFrom(flags);
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`fleet: ${runtimes} runtimes x ${MODULES.length} modules of ${OBJECTS_PER_MODULE} objects (and a default CR); steady window ${steadySeconds} s; ${changes} module enables at ${changeRate}/s`);
  printSettings({ ...Object.fromEntries(Object.entries(deviations).map(([k, v]) => [`--${k}`, v])) });
  console.log('production settings kept: kcp up\'s controller flags otherwise (watcher on, 5 min fallback passes), the embedded Gardener simulator\'s timing, module operators at their default delay');

  const work = mkdtempSync(join(os.tmpdir(), 'kcp-bench-fleet-'));
  const modulesDir = join(work, 'modules');
  writeFleetModules(modulesDir, [...MODULES, EXTRA_MODULE]);
  const up = await startUp({
    dataDir: join(work, 'data'),
    port: 0,
    catalogDir: modulesDir,
    landscapeMode: 'process',
    logLevel: flags.level(),
    controlPlane: config,
    ...clientLimits,
  });
  const info = up.landscapeInfo;
  console.log(`landscape: pid ${info.pid} (API server and simulators), registry ${info.registry.kind} at ${info.registry.host}; controllers: pid ${process.pid}; started in ${up.startupMs} ms`);

  const kcpKubeconfig = readFileSync(info.files.kcpKubeconfig, 'utf8');
  const kcp = clientFromKubeconfig(kcpKubeconfig, { qps: 0 });
  const stats = statsReader(kcpKubeconfig);
  const lifetime = new AbortController();
  const informers = {
    runtimes: new Informer<Slim>(kcp, { kind: Runtime, namespace: NS, transform: slim }),
    kymas: new Informer<Slim>(kcp, { kind: Kyma, namespace: NS, transform: slim }),
    manifests: new Informer<Slim>(kcp, { kind: Manifest, namespace: NS, transform: slim }),
  };
  for (const inf of Object.values(informers)) inf.run(lifetime.signal).catch((e: unknown) => console.error(`informer ${inf.kind.kind} failed`, e));
  for (const inf of Object.values(informers)) await inf.synced;
  /** The benchmark's own requests (informer lists and watches), counted out of the server's. */
  const ownRequests = () => Object.values(informers).reduce((n, inf) => n + inf.stats.lists * Math.max(1, Math.ceil(inf.store.size / 500)) + inf.stats.watches, 0);

  let peak = { controllers: 0, apiserver: 0 };
  const sampler = setInterval(() => {
    peak = { controllers: Math.max(peak.controllers, memoryOf(process.pid).peakMiB), apiserver: Math.max(peak.apiserver, memoryOf(info.pid).peakMiB) };
  }, 1000);

  // 1. Converge.
  const reconciles = () => reconcilesByController(up.controlPlane.manager.registry.render());
  const requests0 = (await stats()) - ownRequests();
  const cpu = new CpuWindow();
  const t0 = performance.now();
  for (let i = 0; i < runtimes; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, runtimes - i) }, async (_, j) => {
        const built = buildRuntimeAndKyma(runtimeRequest(i + j), NS);
        await kcp.create<RuntimeObject>(built.runtime);
        await kcp.create<KymaObject>({ ...built.kyma, spec: { ...built.kyma.spec, modules: MODULES.map((name) => ({ name })) } });
      }),
    );
  }
  console.log(`created ${runtimes} Runtimes and Kymas in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const allReady = () => {
    const kymas = informers.kymas.store.list();
    const readyKymas = kymas.filter((k) => k.status?.state === 'Ready' && (k.status.modules ?? []).length === MODULES.length).length;
    const readyManifests = informers.manifests.store.list().filter((m) => m.status?.state === 'Ready').length;
    return { readyKymas, readyManifests, done: readyKymas === runtimes && readyManifests === runtimes * MODULES.length };
  };
  let lastPrint = 0;
  for (;;) {
    const s = allReady();
    const seconds = (performance.now() - t0) / 1000;
    if (s.done) break;
    if (seconds > convergeTimeoutSeconds) throw new Error(`not converged after ${convergeTimeoutSeconds} s: ${s.readyKymas}/${runtimes} Kymas, ${s.readyManifests}/${runtimes * MODULES.length} Manifests Ready`);
    if (performance.now() - lastPrint >= 10_000) {
      lastPrint = performance.now();
      console.log(
        `  ${seconds.toFixed(0)} s: Runtimes ${statesOf(informers.runtimes.store.list())}; Kymas Ready ${s.readyKymas}/${runtimes}; Manifests Ready ${s.readyManifests}/${runtimes * MODULES.length}; RSS controllers ${memoryOf(process.pid).rssMiB.toFixed(0)} MiB, API server ${memoryOf(info.pid).rssMiB.toFixed(0)} MiB`,
      );
    }
    await sleep(250);
  }
  const convergeSeconds = (performance.now() - t0) / 1000;
  const convergeRequests = (await stats()) - ownRequests() - requests0;
  const requestsPerModule = convergeRequests / (runtimes * MODULES.length);
  console.log(`converged: ${runtimes} x ${MODULES.length} modules Ready in ${convergeSeconds.toFixed(1)} s; ${convergeRequests} API requests (${requestsPerModule.toFixed(1)} per module, ${(convergeRequests / runtimes).toFixed(1)} per runtime, provisioning included); ${cpu.text()}`);
  console.log(`memory once converged: RSS ${memoryOf(process.pid).rssMiB.toFixed(0)} MiB, heap after a full GC ${liveHeapMiB().toFixed(0)} MiB`);
  if (heapSnapshotPath) {
    const t = performance.now();
    v8.writeHeapSnapshot(heapSnapshotPath);
    console.log(`heap snapshot of the controllers' process written to ${heapSnapshotPath} in ${((performance.now() - t) / 1000).toFixed(1)} s (summarize: node scripts/heap-summary.mjs ${heapSnapshotPath})`);
  }

  // 2. Steady state: a short settle, then the window.
  await sleep(30_000);
  const steadyCpu = new CpuWindow();
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
  const latencies = await enableInRuntimes(kcp, informers.kymas.store.list().map((k) => k.metadata.name ?? ''));
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
  const depths = series(up.controlPlane.manager.registry.render(), 'workqueue_depth');
  console.log(`  work queues: ${[...depths].map(([labels, v]) => `${/name="([^"]*)"/.exec(labels)?.[1] ?? labels} ${v}`).join(', ')}`);
  console.log(`  metrics: ${seriesByMetric(up.controlPlane.manager.registry.render())}`);
  console.log(`  TLS contexts: ${JSON.stringify(secureContexts.stats())}`);
  console.log(`controllers now: heap after a full GC ${live.toFixed(0)} MiB, external ${(heap.external / 2 ** 20).toFixed(0)} MiB, array buffers ${(heap.arrayBuffers / 2 ** 20).toFixed(0)} MiB; remote clients ${JSON.stringify(up.controlPlane.remoteClusters.stats())}`);
  lifetime.abort();
  kcp.close();
  await up.stop();
  rmSync(work, { recursive: true, force: true });
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

/**
 * Requests the landscape's API server answered since it started (`GET /_kcp/stats`), read with the
 * KCP kubeconfig: its token is the server's admin token.
 */
function statsReader(kcpKubeconfig: string): () => Promise<number> {
  const cluster = loadKubeconfig(kcpKubeconfig);
  const agent = new https.Agent({ ca: cluster.tls.ca, keepAlive: true, maxSockets: 1 });
  return async () => {
    const authorization = (await cluster.auth?.authorization()) ?? '';
    const body = await new Promise<string>((resolve, reject) => {
      const req = https.get(new URL('/_kcp/stats', cluster.server), { agent, headers: { authorization } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`GET /_kcp/stats: ${res.statusCode ?? '?'} ${text}`))));
      });
      req.on('error', reject);
    });
    return (JSON.parse(body) as { requests: number }).requests;
  };
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
      enableOne(kcp, name).then(
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

async function enableOne(kcp: Client, kymaName: string): Promise<number> {
  const secret = await kcp.get<KubeObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NS, name: kubeconfigSecretName(kymaName) });
  const runtime = clientFromKubeconfig(Buffer.from(secret.data?.config ?? '', 'base64').toString('utf8'), { qps: 0 });
  const key = { namespace: Namespaces.Remote, name: DEFAULT_REMOTE_KYMA_NAME };
  const watchAbort = new AbortController();
  try {
    const current = await runtime.get<KymaObject>(Kyma, key);
    const isReady = (k: KymaObject) => (k.status?.modules ?? []).some((m) => m.name === EXTRA_MODULE && m.state === 'Ready');
    const seen = (async () => {
      for await (const ev of runtime.watch<KymaObject>(Kyma, { namespace: key.namespace, fieldSelector: `metadata.name=${key.name}`, resourceVersion: current.metadata.resourceVersion, signal: watchAbort.signal })) {
        if (ev.type !== 'ERROR' && isReady(ev.object)) return performance.now();
      }
      throw new Error('the watch of the runtime Kyma ended');
    })();
    const sent = performance.now();
    await runtime.patch(Kyma, key, 'merge', { spec: { modules: [...(current.spec.modules ?? []), { name: EXTRA_MODULE }] } });
    const readyAt = await Promise.race([seen, sleep(120_000).then(() => Promise.reject(new Error('not Ready within 120 s')))]);
    return readyAt - sent;
  } finally {
    watchAbort.abort();
    runtime.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
