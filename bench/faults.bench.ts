// npm run bench:faults — API faults at fleet scale (issue 15): the landscape of bench:fleet (its own
// process, runtimes provisioned through the Gardener simulator, 5 modules each, the control plane in
// this process), then two fleet-wide module upgrades through their channel (ModuleReleaseMeta: channel
// regular moves from 1.0.0 to 1.1.0):
//
//   1. converge:  N runtimes until every Kyma and Manifest is Ready;
//   2. baseline:  fleet-alpha upgraded with no fault, timed per runtime until its Kyma shows it Ready;
//   3. faulted:   a share of the runtimes (10%) gets one fault each on its runtime cluster, split evenly
//                 over the six kinds of src/landscape/runtime-faults.ts, and fleet-beta is upgraded;
//                 the healthy runtimes and those with faults the controllers ride out are timed, the
//                 others' Kymas read (state, operation); errors counted per controller and reason,
//                 warn and error log lines per fault kind;
//   4. recover:   the faults lift; time until every runtime shows the upgrade Ready.
//
// It ends with one JSON line. Options: --runtimes N (1,000), --faulted-share S (0.1), --latency-ms MS
// (2,000), --fault-window SECONDS (600: the longest wait for the upgrade while faulted),
// --converge-timeout SECONDS (3,600); any other `--flag value` is a controller flag of `kcp up`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Runtime, type RuntimeObject } from '../src/api/infrastructuremanager/index.js';
import { Kyma, type KymaObject, ModuleReleaseMeta } from '../src/api/operator/index.js';
import { adminCall } from '../src/apiserver/admin-client.js';
import type { FaultConfig, FaultCounts } from '../src/apiserver/faults.js';
import { parseArgs } from '../src/cli/args.js';
import { clientLimitsFrom, controlPlaneConfigFrom, FlagReader, flagTableOf } from '../src/cli/controller-flags.js';
import { UP_FLAGS } from '../src/cli/up.js';
import { shootClusterName } from '../src/landscape/index.js';
import { RUNTIME_FAULT_KINDS, runtimeFault, type RuntimeFaultKind, SURVIVABLE_FAULTS } from '../src/landscape/runtime-faults.js';
import { type Client, clientFromKubeconfig, loadKubeconfig } from '../src/runtime/client/index.js';
import { createLogger, type LogLevel } from '../src/runtime/log.js';
import { startUp } from '../src/up/index.js';
import { sleep } from '../src/util/sleep.js';
import { controllerFlags, FleetWatch, machineLine, memoryOf, MODULES, NS } from './fleet-common.js';
import { FLEET_MODULE_UPGRADE, OBJECTS_PER_MODULE, writeFleetModules } from './fleet-modules.js';
import { printSettings } from './settings.js';
import { CpuWindow, option, quantilesOf, reconcileDelta, reconcilesByController, series, summary } from './stats.js';

const BENCH_OPTIONS = new Set(['--runtimes', '--faulted-share', '--latency-ms', '--fault-window', '--converge-timeout']);

const runtimes = option('--runtimes', 'FAULTS_BENCH_RUNTIMES', 1000);
const faultedShare = option('--faulted-share', 'FAULTS_BENCH_FAULTED_SHARE', 0.1);
const latencyMs = option('--latency-ms', 'FAULTS_BENCH_LATENCY_MS', 2000);
const faultWindowSeconds = option('--fault-window', 'FAULTS_BENCH_WINDOW', 600);
const convergeTimeoutSeconds = option('--converge-timeout', 'FAULTS_BENCH_CONVERGE_TIMEOUT', 3600);

const [BASELINE_MODULE, FAULTED_MODULE] = MODULES;

/** Log lines the controllers wrote at warn and error, by the Kyma they name (a field `kyma`, or the Kyma in `manifest`). */
class LogCounter {
  readonly byKyma = new Map<string, { warn: number; error: number; messages: Map<string, number> }>();
  readonly total = { warn: 0, error: 0 };

  constructor(private readonly kymaOfManifest: (manifest: string) => string | undefined) {}

  line(text: string): void {
    const r = JSON.parse(text) as { level: LogLevel; msg: string; kyma?: string; manifest?: string; name?: string };
    if (r.level !== 'warn' && r.level !== 'error') return;
    this.total[r.level]++;
    const kyma = r.kyma ?? (r.manifest ? this.kymaOfManifest(r.manifest) : undefined) ?? (r.name ? this.kymaOfManifest(r.name) : undefined) ?? '(none)';
    let e = this.byKyma.get(kyma);
    if (!e) this.byKyma.set(kyma, (e = { warn: 0, error: 0, messages: new Map() }));
    e[r.level]++;
    const key = `${r.level} ${r.msg}`;
    e.messages.set(key, (e.messages.get(key) ?? 0) + 1);
  }
}

/** Moves channel regular (and fast) of a fleet module to its upgrade version. */
async function upgrade(kcp: Client, module: string): Promise<void> {
  await kcp.patch(ModuleReleaseMeta, { namespace: NS, name: module }, 'merge', { spec: { channels: [{ channel: 'regular', version: FLEET_MODULE_UPGRADE }, { channel: 'fast', version: FLEET_MODULE_UPGRADE }] } });
}

/**
 * Milliseconds from `t0` until each of `names` showed `module` at the upgrade version Ready in a Ready
 * Kyma (polling the benchmark's informer every 250 ms); stops when all did or `until()` says so.
 */
async function upgradeTimes(fleet: FleetWatch, module: string, names: ReadonlySet<string>, t0: number, until: () => boolean, progress: (done: number) => string): Promise<Map<string, number>> {
  const done = new Map<string, number>();
  let lastPrint = performance.now();
  while (done.size < names.size && !until()) {
    for (const k of fleet.informers.kymas.store.list()) {
      const name = k.metadata.name ?? '';
      if (!names.has(name) || done.has(name) || k.status?.state !== 'Ready') continue;
      if (k.status.modules?.some((m) => m.name === module && m.version === FLEET_MODULE_UPGRADE && m.state === 'Ready')) done.set(name, performance.now() - t0);
    }
    if (performance.now() - lastPrint >= 10_000) {
      lastPrint = performance.now();
      console.log(`  ${((performance.now() - t0) / 1000).toFixed(0)} s: ${progress(done.size)}`);
    }
    await sleep(250);
  }
  return done;
}

/** Which runtimes get which fault: every (1/share)-th Kyma by name, kinds in turn. */
function pickFaulted(names: string[]): Map<string, RuntimeFaultKind> {
  const sorted = [...names].sort();
  const count = Math.max(RUNTIME_FAULT_KINDS.length, Math.round(sorted.length * faultedShare));
  const step = sorted.length / count;
  const out = new Map<string, RuntimeFaultKind>();
  for (let i = 0; i < count; i++) out.set(sorted[Math.floor(i * step)], RUNTIME_FAULT_KINDS[i % RUNTIME_FAULT_KINDS.length]);
  return out;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

async function main(): Promise<void> {
  const { argv, deviations } = controllerFlags(BENCH_OPTIONS);
  const flags = new FlagReader(parseArgs(argv, flagTableOf(UP_FLAGS), { lastWins: true }), UP_FLAGS, 'bench:faults');
  const config = controlPlaneConfigFrom(flags, NS);
  const clientLimits = clientLimitsFrom(flags);
  console.log(machineLine());
  console.log(`faults: ${runtimes} runtimes x ${MODULES.length} modules of ${OBJECTS_PER_MODULE} objects; ${(faultedShare * 100).toFixed(0)}% faulted over ${RUNTIME_FAULT_KINDS.join(', ')} (latency ${latencyMs} ms)`);
  printSettings({ ...Object.fromEntries(Object.entries(deviations).map(([k, v]) => [`--${k}`, v])) });
  console.log("production settings kept: kcp up's controller flags otherwise (watcher on, 5 min fallback passes), the runtime clients' retries (1 retry, 10 attempts while throttled) and 10 s timeout");

  const work = mkdtempSync(join(os.tmpdir(), 'kcp-bench-faults-'));
  const modulesDir = join(work, 'modules');
  writeFleetModules(modulesDir, MODULES, [BASELINE_MODULE, FAULTED_MODULE]);
  // Manifest (or Kyma) name -> Kyma, for log lines that name only the object.
  const fleet: { watch?: FleetWatch } = {};
  const kymaOfManifest = (manifest: string) => {
    const name = manifest.includes('/') ? manifest.slice(manifest.indexOf('/') + 1) : manifest;
    return fleet.watch?.kymaNames().find((k) => name === k || name.startsWith(`${k}-`));
  };
  const logs = new LogCounter(kymaOfManifest);
  const logger = createLogger({ level: 'warn', format: 'json', name: 'kcp', sink: (line) => logs.line(line) });
  const up = await startUp({ dataDir: join(work, 'data'), port: 0, catalogDir: modulesDir, landscapeMode: 'process', logger, controlPlane: config, ...clientLimits });
  const info = up.landscapeInfo;
  console.log(`landscape: pid ${info.pid}; controllers: pid ${process.pid}; started in ${up.startupMs} ms`);
  const kcpKubeconfig = readFileSync(info.files.kcpKubeconfig, 'utf8');
  const kcp = clientFromKubeconfig(kcpKubeconfig, { qps: 0 });
  const admin = loadKubeconfig(kcpKubeconfig);
  const adminToken = ((await admin.auth?.authorization()) ?? '').replace(/^Bearer /, '');
  const adminRequest = (method: string, path: string, body?: unknown) => adminCall(admin.server, adminToken, admin.tls.ca ?? '', method, path, body);
  // An empty config lifts the faults.
  const setFaults = (cluster: string, faults: FaultConfig | undefined) => adminRequest('PUT', `/_kcp/clusters/${cluster}/faults`, faults ?? {});
  const watch = new FleetWatch(kcp, runtimes);
  fleet.watch = watch;
  await watch.start();
  const registry = up.controlPlane.manager.registry;

  // 1. Converge.
  const t0 = performance.now();
  const cpu = new CpuWindow();
  await watch.createFleet();
  await watch.converge(t0, convergeTimeoutSeconds, () => `controllers ${memoryOf(process.pid).rssMiB.toFixed(0)} MiB, API server ${memoryOf(info.pid).rssMiB.toFixed(0)} MiB`);
  const convergeSeconds = (performance.now() - t0) / 1000;
  console.log(`converged: ${runtimes} x ${MODULES.length} modules Ready in ${convergeSeconds.toFixed(1)} s; ${cpu.text()}`);
  const all = new Set(watch.kymaNames());

  // 2. Baseline: the same change without faults.
  await sleep(10_000);
  const b0 = performance.now();
  await upgrade(kcp, BASELINE_MODULE);
  const baseline = await upgradeTimes(watch, BASELINE_MODULE, all, b0, () => performance.now() - b0 > faultWindowSeconds * 1000, (n) => `${n}/${all.size} runtimes show ${BASELINE_MODULE} ${FLEET_MODULE_UPGRADE} Ready`);
  const baselineAll = Math.max(...baseline.values());
  console.log(`baseline: ${BASELINE_MODULE} ${FLEET_MODULE_UPGRADE} Ready in ${baseline.size}/${all.size} runtimes, the last after ${seconds(baselineAll)}`);
  console.log(`  ${summary('per runtime', [...baseline.values()])}`);

  // 3. Faults on a share of the runtimes, then the second upgrade.
  await sleep(10_000);
  const faulted = pickFaulted([...all]);
  const clusterOf = new Map<string, string>();
  for (const name of faulted.keys()) {
    const rt = await kcp.get<RuntimeObject>(Runtime, { namespace: NS, name });
    clusterOf.set(name, shootClusterName(info.projectNamespace, rt.spec.shoot.name));
  }
  const healthy = new Set([...all].filter((n) => !faulted.has(n)));
  const survivors = new Set([...faulted].filter(([, k]) => SURVIVABLE_FAULTS.has(k)).map(([n]) => n));
  const failing = new Set([...faulted].filter(([, k]) => !SURVIVABLE_FAULTS.has(k)).map(([n]) => n));
  const reconciles0 = reconcilesByController(registry.render());
  // One counter for both controllers (upstream's); how runtimes failed is counted beside it.
  const requeueReasons0 = series(registry.render(), 'lifecycle_mgr_requeue_reason_total');
  const accessErrors0 = series(registry.render(), 'lifecycle_mgr_runtime_access_errors_total');
  const logs0 = new Map([...logs.byKyma].map(([k, v]) => [k, { warn: v.warn, error: v.error }]));
  const logTotal0 = { ...logs.total };
  for (const [name, kind] of faulted) await setFaults(clusterOf.get(name) ?? '', runtimeFault(kind, { latencyMs }));
  const f0 = performance.now();
  await upgrade(kcp, FAULTED_MODULE);
  const affected = new Set([...healthy, ...survivors]);
  const faultedTimes = await upgradeTimes(
    watch,
    FAULTED_MODULE,
    affected,
    f0,
    () => performance.now() - f0 > faultWindowSeconds * 1000,
    (n) => `${n}/${affected.size} healthy or survivably faulted runtimes show ${FAULTED_MODULE} ${FLEET_MODULE_UPGRADE} Ready; Kymas of faulted runtimes: ${statesByKind(watch, faulted)}`,
  );
  const healthyTimes = [...healthy].map((n) => faultedTimes.get(n)).filter((v): v is number => v !== undefined);
  console.log(`faulted window: ${faulted.size} runtimes faulted (${RUNTIME_FAULT_KINDS.map((k) => `${k} ${[...faulted.values()].filter((v) => v === k).length}`).join(', ')})`);
  console.log(`  healthy: ${healthyTimes.length}/${healthy.size} show ${FAULTED_MODULE} ${FLEET_MODULE_UPGRADE} Ready, the last after ${seconds(Math.max(...healthyTimes))}`);
  console.log(`  ${summary('healthy, per runtime', healthyTimes)}`);
  console.log(`  ${summary('baseline, per runtime (no fault)', [...baseline.values()])}`);

  // What the faulted runtimes' Kymas and Manifests say, per kind.
  const perKind: Record<string, unknown> = {};
  const counts = new Map<string, FaultCounts>();
  for (const [name, cluster] of clusterOf) counts.set(name, (await adminRequest('GET', `/_kcp/clusters/${cluster}/faults`)) as FaultCounts);
  for (const kind of RUNTIME_FAULT_KINDS) {
    const names = [...faulted].filter(([, k]) => k === kind).map(([n]) => n);
    const kymas = await Promise.all(names.map((name) => kcp.get<KymaObject>(Kyma, { namespace: NS, name })));
    const states = tally(kymas.map((k) => k.status?.state ?? '(none)'));
    const operations = tally(kymas.filter((k) => k.status?.state !== 'Ready').map((k) => (k.status?.lastOperation?.operation ?? '').replace(/Kyma \S+/, 'Kyma X').replace(/https:\/\/\S+/, 'URL').slice(0, 140)));
    const upgraded = names.filter((n) => faultedTimes.has(n)).map((n) => faultedTimes.get(n) as number);
    const injected = sumCounts(names.map((n) => counts.get(n)));
    const logged = names.reduce(
      (acc, n) => {
        const now = logs.byKyma.get(n);
        const before = logs0.get(n);
        return { warn: acc.warn + (now?.warn ?? 0) - (before?.warn ?? 0), error: acc.error + (now?.error ?? 0) - (before?.error ?? 0) };
      },
      { warn: 0, error: 0 },
    );
    const messages = tally(names.flatMap((n) => [...(logs.byKyma.get(n)?.messages ?? new Map<string, number>())].flatMap(([m, c]) => Array<string>(c).fill(m))));
    console.log(`  ${kind} (${names.length}): Kymas ${fmt(states)}; upgraded while faulted ${upgraded.length}/${names.length}${upgraded.length ? ` (p50 ${seconds(quantilesOf(upgraded).p50)})` : ''}; injected ${JSON.stringify(injected)}; logs warn ${logged.warn}, error ${logged.error}`);
    if (operations.size > 0) console.log(`    operations: ${fmt(operations)}`);
    if (messages.size > 0) console.log(`    log lines (whole run): ${fmt(messages)}`);
    perKind[kind] = { runtimes: names.length, states: Object.fromEntries(states), upgradedWhileFaulted: upgraded.length, warn: logged.warn, error: logged.error };
  }
  const delta = (pattern: RegExp, now: Map<string, number>, before: Map<string, number>) =>
    [...now].map(([labels, v]) => [pattern.exec(labels)?.slice(1).join('/') ?? labels, v - (before.get(labels) ?? 0)] as const).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
  const requeueReasons = delta(/requeue_reason="([^"]*)",requeue_type="([^"]*)"/, series(registry.render(), 'lifecycle_mgr_requeue_reason_total'), requeueReasons0);
  const accessErrors = delta(/controller="([^"]*)",reason="([^"]*)"/, series(registry.render(), 'lifecycle_mgr_runtime_access_errors_total'), accessErrors0);
  console.log(`  reconciles in the faulted window: ${reconcileDelta(reconciles0, reconcilesByController(registry.render()))}`);
  console.log(`  requeues by reason/type (Kyma and Manifest controllers): ${requeueReasons.map(([r, n]) => `${r} ${n}`).join(', ')}`);
  console.log(`  runtime access errors by controller/reason: ${accessErrors.map(([r, n]) => `${r} ${n}`).join(', ')}`);
  const unattributed = { warn: logs.total.warn - logTotal0.warn, error: logs.total.error - logTotal0.error };
  console.log(`  log lines in the faulted window: warn ${unattributed.warn}, error ${unattributed.error} (all runtimes); on healthy runtimes: ${[...healthy].reduce((n, k) => n + (logs.byKyma.get(k)?.warn ?? 0) + (logs.byKyma.get(k)?.error ?? 0) - (logs0.get(k)?.warn ?? 0) - (logs0.get(k)?.error ?? 0), 0)}`);

  // 4. The faults lift.
  for (const cluster of clusterOf.values()) await setFaults(cluster, undefined);
  const r0 = performance.now();
  const remaining = new Set([...faulted.keys()].filter((n) => !faultedTimes.has(n)));
  const recovered = await upgradeTimes(watch, FAULTED_MODULE, remaining, r0, () => performance.now() - r0 > faultWindowSeconds * 1000, (n) => `${n}/${remaining.size} faulted runtimes recovered`);
  const recoverMs = recovered.size > 0 ? Math.max(...recovered.values()) : 0;
  console.log(`recovered: ${recovered.size}/${remaining.size} runtimes still without the upgrade showed it Ready ${seconds(recoverMs)} after the faults lifted (${failing.size} had failing faults)`);

  watch.stop();
  kcp.close();
  await up.stop();
  rmSync(work, { recursive: true, force: true });
  const hq = quantilesOf(healthyTimes);
  const bq = quantilesOf([...baseline.values()]);
  console.log(
    JSON.stringify({
      runtimes,
      faulted: faulted.size,
      convergeSeconds: Number(convergeSeconds.toFixed(1)),
      baselineAllSeconds: Number((baselineAll / 1000).toFixed(1)),
      baselineP50Ms: Math.round(bq.p50),
      baselineP99Ms: Math.round(bq.p99),
      healthyUpgraded: healthyTimes.length,
      healthyAllSeconds: Number((Math.max(...healthyTimes) / 1000).toFixed(1)),
      healthyP50Ms: Math.round(hq.p50),
      healthyP99Ms: Math.round(hq.p99),
      perKind,
      errorReasons: Object.fromEntries(requeueReasons.filter(([r]) => r.endsWith('/unexpected'))),
      runtimeAccessErrors: Object.fromEntries(accessErrors),
      recovered: recovered.size,
      recoverSeconds: Number((recoverMs / 1000).toFixed(1)),
    }),
  );
}

function statesByKind(watch: FleetWatch, faulted: Map<string, RuntimeFaultKind>): string {
  const states = new Map<string, number>();
  for (const k of watch.informers.kymas.store.list()) {
    const kind = faulted.get(k.metadata.name ?? '');
    if (!kind) continue;
    const key = `${kind} ${k.status?.state ?? '(none)'}`;
    states.set(key, (states.get(key) ?? 0) + 1);
  }
  return fmt(states);
}

function tally(values: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const v of values) out.set(v, (out.get(v) ?? 0) + 1);
  return out;
}

function fmt(m: Map<string, number>): string {
  return [...m].map(([k, n]) => `${k} ${n}`).join(', ');
}

function sumCounts(all: (FaultCounts | undefined)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of all) {
    if (!c) continue;
    for (const [code, n] of Object.entries(c.errors)) out[code] = (out[code] ?? 0) + n;
    for (const k of ['delayed', 'watchesDropped', 'resumesForgotten', 'connectionsCut'] as const) if (c[k] > 0) out[k] = (out[k] ?? 0) + c[k];
  }
  return out;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
