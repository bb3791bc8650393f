// Helpers shared by the benchmarks (bench:watcher, bench:sync, bench:fleet): numeric options from a
// flag or an environment variable, quantiles of latency samples, counters from a metrics rendering,
// CPU of this process and of the machine, reconciles per controller, states of cached objects.
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/** A positive number from `--flag N`, else from the environment variable, else the fallback. */
export function option(flag: string, env: string, fallback: number): number {
  const i = process.argv.indexOf(flag);
  const raw = i >= 0 ? process.argv[i + 1] : process.env[env];
  const n = Number(raw ?? fallback);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} (${env}) must be a positive number, got ${String(raw)}`);
  return n;
}

/** The q-quantile of ascending values (nearest rank); NaN when there are none. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export interface Quantiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  n: number;
}

export function quantilesOf(values: number[]): Quantiles {
  const s = [...values].sort((a, b) => a - b);
  return { p50: quantile(s, 0.5), p90: quantile(s, 0.9), p99: quantile(s, 0.99), max: s[s.length - 1] ?? NaN, n: s.length };
}

/** `name: p50 .. ms, p90 .. ms, p99 .. ms, max .. ms (n=..)`. */
export function summary(name: string, values: number[]): string {
  const q = quantilesOf(values);
  const f = (v: number) => (Number.isNaN(v) ? 'n/a' : `${v.toFixed(0)} ms`);
  return `${name}: p50 ${f(q.p50)}, p90 ${f(q.p90)}, p99 ${f(q.p99)}, max ${f(q.max)} (n=${q.n})`;
}

/** `name{labels} value` lines of a Prometheus text rendering, as label string -> value. */
export function series(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(name.length, at), Number(line.slice(at + 1)));
  }
  return out;
}

/**
 * How much a counter grew between two renderings of the metrics, by the value of one label
 * (`a 3, b 2`, largest first), or in all when no label is named; `none` when it did not grow.
 */
export function labelledDelta(before: string, after: string, name: string, label?: string): string {
  const grown = new Map<string, number>();
  const start = series(before, name);
  for (const [labels, v] of series(after, name)) {
    const key = label === undefined ? '' : (new RegExp(`${label}="([^"]*)"`).exec(labels)?.[1] ?? '?');
    const d = v - (start.get(labels) ?? 0);
    if (d > 0) grown.set(key, (grown.get(key) ?? 0) + d);
  }
  if (grown.size === 0) return 'none';
  if (label === undefined) return String(grown.get(''));
  return [...grown].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');
}

/** Ready keys per lane of the named controllers' work queues, with the wait of each lane's head: `manifest first 12 (3 s) normal ...`. */
export function queueLanes(controllers: readonly { name: string; queue: { laneStats(): Record<string, { size: number; headWaitMs: number }> } }[], names: string[]): string {
  return names
    .map((name) => {
      const c = controllers.find((x) => x.name === name);
      if (!c) return `${name} none`;
      const lanes = Object.entries(c.queue.laneStats()).map(([lane, l]) => `${lane} ${l.size}${l.size > 0 ? ` (${(l.headWaitMs / 1000).toFixed(0)} s)` : ''}`);
      return `${name} ${lanes.join(' ')}`;
    })
    .join('; ');
}

/** Reconciles of the named controllers between two renderings of controller_runtime_reconcile_time_seconds, with their mean time: `kyma 120 (0.41 s)`. */
export function passesSince(before: string, after: string, controllers: string[]): string {
  const of = (text: string, suffix: string, controller: string) => sum(new Map([...series(text, `controller_runtime_reconcile_time_seconds_${suffix}`)].filter(([labels]) => labels.includes(`controller="${controller}"`))));
  return controllers
    .map((c) => {
      const n = of(after, 'count', c) - of(before, 'count', c);
      const seconds = of(after, 'sum', c) - of(before, 'sum', c);
      return `${c} ${n}${n > 0 ? ` (${(seconds / n).toFixed(2)} s)` : ''}`;
    })
    .join(', ');
}

export const sum = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

/** CPU seconds the whole machine spent busy (all cores), from /proc/stat; undefined elsewhere. */
export function machineBusySeconds(): number | undefined {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = f;
    // USER_HZ is 100 on Linux.
    return (user + nice + system + irq + softirq + steal) / 100;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of a process's threads, from /proc/<pid>/task (Linux; undefined elsewhere or once it
 * ended): its main thread (the event loop) and the others together (V8's GC helpers, libuv's pool).
 */
export function threadCpuSeconds(pid: number): { main: number; others: number } | undefined {
  try {
    let main = 0;
    let others = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // The fields after the command name (which may hold spaces): state is the first, utime the 12th, stime the 13th; USER_HZ is 100.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const seconds = (Number(f[11]) + Number(f[12])) / 100;
      if (tid === String(pid)) main += seconds;
      else others += seconds;
    }
    return { main, others };
  } catch {
    return undefined;
  }
}

function threadsText(what: string, now: { main: number; others: number } | undefined, start: { main: number; others: number } | undefined): string {
  if (!now || !start) return '';
  const main = now.main - start.main;
  const others = now.others - start.others;
  return `; ${what} ${(main + others).toFixed(1)} s CPU: main thread ${main.toFixed(1)} s, other threads ${others.toFixed(1)} s`;
}

/**
 * This process's CPU and the rest of the machine's over a window; with `landscapePid`, also the
 * landscape process's CPU by thread (a busy main thread is its event loop's limit; the other
 * threads are mostly V8's garbage collector).
 */
export class CpuWindow {
  private readonly own = process.cpuUsage();
  private readonly ownThreads = threadCpuSeconds(process.pid);
  private readonly machine = machineBusySeconds();
  private readonly landscape: { main: number; others: number } | undefined;
  private readonly t0 = performance.now();

  constructor(private readonly landscapePid?: number) {
    this.landscape = landscapePid === undefined ? undefined : threadCpuSeconds(landscapePid);
  }

  text(): string {
    const seconds = (performance.now() - this.t0) / 1000;
    const u = process.cpuUsage(this.own);
    const own = (u.user + u.system) / 1e6;
    const now = machineBusySeconds();
    const others = now !== undefined && this.machine !== undefined ? Math.max(0, now - this.machine - own) : undefined;
    const threads =
      threadsText('this process', threadCpuSeconds(process.pid), this.ownThreads) +
      (this.landscapePid === undefined ? '' : threadsText('landscape process', threadCpuSeconds(this.landscapePid), this.landscape));
    return `this process ${own.toFixed(1)} s CPU in ${seconds.toFixed(1)} s (${((own / seconds) * 100).toFixed(0)}% of one core)${others !== undefined ? `, other processes ${((others / seconds) * 100).toFixed(0)}% of one core` : ''}${threads}; load average ${os.loadavg()[0].toFixed(2)}`;
  }
}

/** Share of a core each process's threads used since the previous call: for progress lines. */
export class CpuShares {
  private last = performance.now();
  private own = threadCpuSeconds(process.pid);
  private landscape: { main: number; others: number } | undefined;

  constructor(private readonly landscapePid: number) {
    this.landscape = threadCpuSeconds(landscapePid);
  }

  text(): string {
    const now = performance.now();
    const seconds = (now - this.last) / 1000;
    const own = threadCpuSeconds(process.pid);
    const landscape = threadCpuSeconds(this.landscapePid);
    const pct = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || !(seconds > 0) ? '?' : `${Math.round(((a - b) / seconds) * 100)}%`);
    const text = `CPU of a core: controllers ${pct(own && own.main + own.others, this.own && this.own.main + this.own.others)}, landscape main thread ${pct(landscape?.main, this.landscape?.main)} and other threads ${pct(landscape?.others, this.landscape?.others)}`;
    this.last = now;
    this.own = own;
    this.landscape = landscape;
    return text;
  }
}

/** The metrics reconcilesByController reads (to render only those: a full rendering of a large fleet's metrics is tens of MiB). */
export const RECONCILE_METRICS = ['controller_runtime_reconcile_total', 'controller_runtime_reconcile_errors_total'];

/** Reconciles per controller (all results, and those that failed) in a metrics rendering. */
export function reconcilesByController(text: string): Map<string, { all: number; errors: number }> {
  const out = new Map<string, { all: number; errors: number }>();
  const of = (labels: string) => {
    const controller = /controller="([^"]*)"/.exec(labels)?.[1] ?? '?';
    let e = out.get(controller);
    if (!e) out.set(controller, (e = { all: 0, errors: 0 }));
    return e;
  };
  for (const [labels, v] of series(text, 'controller_runtime_reconcile_total')) of(labels).all += v;
  for (const [labels, v] of series(text, 'controller_runtime_reconcile_errors_total')) of(labels).errors += v;
  return out;
}

/** `kyma 12, manifest 340 (3 failed), ...`: reconciles per controller between two renderings (only those that ran). */
export function reconcileDelta(before: Map<string, { all: number; errors: number }>, after: Map<string, { all: number; errors: number }>): string {
  const lines: string[] = [];
  for (const [c, v] of after) {
    const all = v.all - (before.get(c)?.all ?? 0);
    const errors = v.errors - (before.get(c)?.errors ?? 0);
    if (all > 0) lines.push(`${c} ${all}${errors > 0 ? ` (${errors} failed)` : ''}`);
  }
  return lines.join(', ') || 'none';
}

/** `Ready 990, Processing 10`: states of the cached objects. */
export function statesOf(objects: { status?: { state?: string } }[]): string {
  const states = new Map<string, number>();
  for (const o of objects) states.set(o.status?.state ?? '(none)', (states.get(o.status?.state ?? '(none)') ?? 0) + 1);
  return [...states].map(([s, n]) => `${s} ${n}`).join(', ');
}
