// Helpers shared by the latency benchmarks (bench:watcher, bench:sync): numeric options from a flag
// or an environment variable, quantiles of latency samples, counters from a metrics rendering.

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

export const sum = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);
