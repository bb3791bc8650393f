// npm run bench:shards — bench:fleet's fleet with the controllers scaled out: the embedded landscape in
// a process of its own (as bench:fleet starts it), and the controllers as K separate `kcp run
// --shards K` processes against the landscape's KCP and garden kubeconfig files, the watcher on
// (each process runs its own listener on loopback; a runtime's webhook reports to the process
// that owns the runtime, docs/sharding.md "Shards and the runtime watcher"). Phases:
//
//   1. converge: N Runtimes with Kymas enabling 5 modules, until all are Ready (progress lines);
//      then each process's peak RSS and its reconciles (from its /metrics);
//   2. kill:     one process is SIGKILLed (its whole process group); timed until the other
//                processes hold its shard Leases;
//   3. change:   right then, a sixth module is enabled in runtimes of the killed process's shards
//                (in their own Kymas), timed until Ready there.
//
// It ends with one JSON line: {runtimes, shards, convergeSeconds, shardPeakRssMiB, takeoverSeconds,
// changeAfterTakeoverMs}. Options: --runtimes N (500), --shards K (2; K processes and K shards),
// --changes C (5), --converge-timeout SECONDS (3,600); any other `--flag value` is a flag of kcp run.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from '../src/cli/args.js';
import { parseRunConfig, RUN_FLAG_TABLE } from '../src/cli/run.js';
import { startLandscapeProcess } from '../src/landscape/process.js';
import { freePort } from '../src/landscape/registry.js';
import { LEASE_KIND, type Lease } from '../src/runtime/leader/lease.js';
import { type Client, clientFromKubeconfig } from '../src/runtime/client/index.js';
import { shardOf } from '../src/runtime/sharding/hash.js';
import { SHARD_GROUP_LABEL, shardLeaseName } from '../src/runtime/sharding/shards.js';
import { DEFAULT_CONVERTER_CONFIG } from '../src/up/index.js';
import { sleep } from '../src/util/sleep.js';
import { controllerFlags, enableInRuntime, EXTRA_MODULE, FleetWatch, machineLine, memoryOf, MODULES, NS, statsReader } from './fleet-common.js';
import { OBJECTS_PER_MODULE, writeFleetModules } from './fleet-modules.js';
import { printSettings } from './settings.js';
import { CpuWindow, option, quantilesOf, reconcilesByController, series, summary } from './stats.js';

const BENCH_OPTIONS = new Set(['--runtimes', '--shards', '--changes', '--converge-timeout']);
const MAIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
/** The shard group's Lease prefix (kcp run's default). */
const GROUP = 'kcp-controllers';

const runtimes = option('--runtimes', 'SHARDS_BENCH_RUNTIMES', 500);
const shardCount = option('--shards', 'SHARDS_BENCH_SHARDS', 2);
const changes = option('--changes', 'SHARDS_BENCH_CHANGES', 5);
const convergeTimeoutSeconds = option('--converge-timeout', 'SHARDS_BENCH_CONVERGE_TIMEOUT', 3600);

/** One `kcp run` process; its identity starts with `shard-<index>_` (POD_NAME). */
interface ShardProcess {
  index: number;
  pid: number;
  child: ChildProcess;
  metricsUrl: string;
  log: string;
  exited: Promise<void>;
  /** Highest VmHWM seen, in MiB (kept after the process is gone). */
  peakMiB: number;
}

const processes: ShardProcess[] = [];

/** SIGKILLs a process's whole group (it was started detached, as its group's leader). */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // nothing left in the group
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

// Whatever happens to the benchmark, no controller process outlives it.
process.on('exit', () => {
  for (const p of processes) killGroup(p.pid);
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => process.exit(130));

async function startShard(index: number, argv: string[], dir: string): Promise<ShardProcess> {
  const port = await freePort();
  const log = join(dir, `shard-${index}.log`);
  const fd = openSync(log, 'a');
  const child = spawn(process.execPath, [MAIN, 'run', ...argv, `--metrics-bind-address=127.0.0.1:${port}`], {
    detached: true,
    stdio: ['ignore', fd, fd],
    env: { ...process.env, POD_NAME: `shard-${index}` },
  });
  closeSync(fd);
  if (child.pid === undefined) throw new Error(`kcp run (shard process ${index}) did not start`);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const p: ShardProcess = { index, pid: child.pid, child, metricsUrl: `http://127.0.0.1:${port}/metrics`, log, exited, peakMiB: 0 };
  processes.push(p);
  return p;
}

async function metricsOf(p: ShardProcess): Promise<string | undefined> {
  try {
    const res = await fetch(p.metricsUrl, { signal: AbortSignal.timeout(5_000) });
    return res.ok ? await res.text() : undefined;
  } catch {
    return undefined;
  }
}

/** Shard index -> index of the process holding its Lease (only shards held by a live-looking holder). */
async function holders(kcp: Client): Promise<Map<number, number>> {
  const leases = await kcp.list<Lease>(LEASE_KIND, { namespace: NS, labelSelector: `${SHARD_GROUP_LABEL}=${GROUP}` });
  const out = new Map<number, number>();
  for (let shard = 0; shard < shardCount; shard++) {
    const holder = leases.items.find((l) => l.metadata.name === shardLeaseName(GROUP, shard))?.spec?.holderIdentity ?? '';
    const m = /^shard-(\d+)_/.exec(holder);
    if (m) out.set(shard, Number(m[1]));
  }
  return out;
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

async function stopShard(p: ShardProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return killGroup(p.pid);
  p.child.kill('SIGTERM');
  const killed = setTimeout(() => killGroup(p.pid), 30_000);
  await p.exited;
  clearTimeout(killed);
  killGroup(p.pid);
}

/** `kyma 12, manifest 340`: the non-empty work queues in a metrics rendering. */
function queueDepths(metrics: string): string {
  const depths = [...series(metrics, 'workqueue_depth')].filter(([, v]) => v > 0);
  return depths.map(([labels, v]) => `${/name="([^"]*)"/.exec(labels)?.[1] ?? labels} ${v}`).join(', ') || 'empty';
}

async function main(): Promise<void> {
  const { argv: extra, deviations } = controllerFlags(BENCH_OPTIONS);
  console.log(machineLine());
  console.log(`fleet: ${runtimes} runtimes x ${MODULES.length} modules of ${OBJECTS_PER_MODULE} objects (and a default CR); controllers: ${shardCount} kcp run processes with --shards ${shardCount}; ${changes} module enables after the takeover`);
  printSettings(Object.fromEntries(Object.entries(deviations).map(([k, v]) => [`--${k}`, v])));
  console.log('production settings kept: kcp run\'s controller flags otherwise (Lease timing 15 s / 10 s / 2 s, 5 min fallback passes), the watcher on as kcp up runs it (listener on loopback, one per process)');

  const work = mkdtempSync(join(os.tmpdir(), 'kcp-bench-shards-'));
  const modulesDir = join(work, 'modules');
  writeFleetModules(modulesDir, [...MODULES, EXTRA_MODULE]);
  const landscape = await startLandscapeProcess({ dataDir: join(work, 'data'), port: 0, catalogDir: modulesDir });
  const info = landscape.info;
  const runArgv = [
    `--kubeconfig=${info.files.kcpKubeconfig}`,
    `--gardener-kubeconfig=${info.files.gardenKubeconfig}`,
    `--gardener-project=${info.project}`,
    `--converter-config=${DEFAULT_CONVERTER_CONFIG}`,
    `--shards=${shardCount}`,
    '--enable-kcp-watcher',
    // As kcp up: the runtimes' webhooks run in the landscape, on this machine.
    '--watcher-listener-address=127.0.0.1:0',
    '--health-probe-bind-address=127.0.0.1:0',
    ...extra,
  ];
  // The same checks kcp run makes, here, before anything is spawned.
  if (!parseRunConfig(parseArgs([...runArgv, '--metrics-bind-address=127.0.0.1:0'], RUN_FLAG_TABLE, { lastWins: true })).watcher) throw new Error('bench:shards runs with the watcher');

  const kcpKubeconfig = readFileSync(info.files.kcpKubeconfig, 'utf8');
  const kcp = clientFromKubeconfig(kcpKubeconfig, { qps: 0 });
  const stats = statsReader(kcpKubeconfig);
  const fleet = new FleetWatch(kcp, runtimes);
  let sampler: NodeJS.Timeout | undefined;
  try {
    for (let i = 0; i < shardCount; i++) await startShard(i, runArgv, work);
    for (const p of processes) await until(`metrics of shard process ${p.index} (log ${p.log})`, 60_000, async () => ((await metricsOf(p)) !== undefined ? true : undefined));
    // Each process holds one shard before the fleet comes (shards are spread at the second round).
    const spread = await until('shards spread over the processes', 120_000, async () => {
      const h = await holders(kcp);
      return h.size === shardCount && new Set(h.values()).size === shardCount ? h : undefined;
    });
    console.log(`landscape: pid ${info.pid} (API server and simulators), registry ${info.registry.kind} at ${info.registry.host}; controllers: ${processes.map((p) => `shard process ${p.index} pid ${p.pid}`).join(', ')}; shards held: ${[...spread].map(([s, p]) => `shard ${s} by process ${p}`).join(', ')}`);
    await fleet.start();

    sampler = setInterval(() => {
      for (const p of processes) p.peakMiB = Math.max(p.peakMiB, memoryOf(p.pid).peakMiB || 0);
    }, 1000);
    const memory = () => processes.map((p) => `shard process ${p.index} ${memoryOf(p.pid).rssMiB.toFixed(0)} MiB`).join(', ') + `, API server ${memoryOf(info.pid).rssMiB.toFixed(0)} MiB`;

    // 1. Converge.
    const requests0 = (await stats()) - fleet.ownRequests();
    const cpu = new CpuWindow();
    const t0 = performance.now();
    await fleet.createFleet();
    await fleet.converge(t0, convergeTimeoutSeconds, memory);
    const convergeSeconds = (performance.now() - t0) / 1000;
    const requests = (await stats()) - fleet.ownRequests() - requests0;
    console.log(`converged: ${runtimes} x ${MODULES.length} modules Ready in ${convergeSeconds.toFixed(1)} s; ${requests} API requests (${(requests / (runtimes * MODULES.length)).toFixed(1)} per module); ${cpu.text()} (this process: the benchmark only)`);

    const owner = await holders(kcp);
    const transitions = (await kcp.list<Lease>(LEASE_KIND, { namespace: NS, labelSelector: `${SHARD_GROUP_LABEL}=${GROUP}` })).items
      .filter((l) => l.metadata.name?.startsWith(`${GROUP}-shard-`))
      .map((l) => `${l.metadata.name ?? ''} ${l.spec?.leaseTransitions ?? 0}`);
    console.log(`shard Lease holder changes since the processes started (the first holder counts 0 or 1; more means ownership moved): ${transitions.join(', ')}`);
    const kymasOf = (proc: number) => fleet.kymaNames().filter((k) => owner.get(shardOf(`${NS}/${k}`, shardCount)) === proc);
    for (const p of processes) {
      p.peakMiB = Math.max(p.peakMiB, memoryOf(p.pid).peakMiB || 0);
      const reconciles = reconcilesByController((await metricsOf(p)) ?? '');
      const count = (c: string) => reconciles.get(c)?.all ?? 0;
      console.log(
        `  shard process ${p.index}: shards ${[...owner].filter(([, q]) => q === p.index).map(([s]) => s).join(', ')}, ${kymasOf(p.index).length} runtimes; peak RSS ${p.peakMiB.toFixed(0)} MiB (now ${memoryOf(p.pid).rssMiB.toFixed(0)} MiB); reconciles: kyma ${count('kyma')}, manifest ${count('manifest')}, runtime ${count('runtime')}, gardener-cluster ${count('gardener-cluster')}`,
      );
    }
    const shardPeakRssMiB = processes.map((p) => Math.round(p.peakMiB));

    // 2. Kill one process, with whatever it started.
    const victim = processes[0];
    const victimShards = [...owner].filter(([, q]) => q === victim.index).map(([s]) => s);
    const pool = kymasOf(victim.index);
    const chosen = Array.from({ length: Math.min(changes, pool.length) }, () => pool.splice(Math.floor(Math.random() * pool.length), 1)[0]);
    const tKill = performance.now();
    killGroup(victim.pid);
    await victim.exited;
    console.log(`SIGKILLed shard process ${victim.index} (pid ${victim.pid}, shards ${victimShards.join(', ')}); its process group ${groupAlive(victim.pid) ? 'STILL HAS PROCESSES' : 'is empty'}`);
    const takenBy = await until('the killed shards taken over', 300_000, async () => {
      const h = await holders(kcp);
      const by = victimShards.map((s) => h.get(s));
      return by.every((q) => q !== undefined && q !== victim.index) ? by : undefined;
    });
    const takeoverSeconds = (performance.now() - tKill) / 1000;
    console.log(`takeover: shards ${victimShards.join(', ')} held by process ${[...new Set(takenBy)].join(', ')} ${takeoverSeconds.toFixed(1)} s after the kill`);

    // 3. A change in runtimes of the killed shards, made right at the takeover; meanwhile the
    // survivors' work queues (the gained keys were all enqueued at once).
    const survivors = processes.filter((p) => p !== victim);
    const queues = setInterval(() => {
      Promise.all(survivors.map(async (p) => `process ${p.index}: ${queueDepths((await metricsOf(p)) ?? '')}`)).then(
        (lines) => console.log(`  ${((performance.now() - tKill) / 1000).toFixed(0)} s after the kill, work queues: ${lines.join('; ')}`),
        () => undefined,
      );
    }, 10_000);
    const latencies = await Promise.all(chosen.map((name) => enableInRuntime(kcp, name, 600_000))).finally(() => clearInterval(queues));
    console.log(summary(`${EXTRA_MODULE} enabled in ${chosen.length} runtime Kymas of the killed shards, right at the takeover -> Ready`, latencies));
    const changeAfterTakeoverMs = Math.round(quantilesOf(latencies).p50);
    for (const p of survivors) {
      p.peakMiB = Math.max(p.peakMiB, memoryOf(p.pid).peakMiB || 0);
      console.log(`  shard process ${p.index} after the takeover: RSS ${memoryOf(p.pid).rssMiB.toFixed(0)} MiB, peak ${p.peakMiB.toFixed(0)} MiB`);
    }

    console.log(
      JSON.stringify({
        runtimes,
        shards: shardCount,
        convergeSeconds: Number(convergeSeconds.toFixed(1)),
        shardPeakRssMiB,
        takeoverSeconds: Number(takeoverSeconds.toFixed(1)),
        changeAfterTakeoverMs,
      }),
    );
  } finally {
    clearInterval(sampler);
    fleet.stop();
    kcp.close();
    await Promise.all(processes.map((p) => stopShard(p)));
    const left = processes.filter((p) => groupAlive(p.pid));
    console.log(left.length === 0 ? 'stopped: every controller process and its group are gone' : `processes left in the groups of ${left.map((p) => p.pid).join(', ')}`);
    await landscape.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
