// A small metrics registry (counters, gauges, histograms with labels) rendered in the Prometheus
// text exposition format (version 0.0.4). The controllers' metrics (runtime/metrics.ts) and the
// embedded API server's /metrics are built on it.

export type Labels = Record<string, string>;

interface Metric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  render(out: string[]): void;
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/**
 * Joins the label values of a series key: a series is keyed by its label values in `labelNames`
 * order, joined by this. Hot paths build the key themselves and use `incSeries`/`observeSeries`,
 * which allocate nothing but the key.
 */
export const SERIES_SEPARATOR = '\u0000';

/** Label values in `labelNames` order, joined; also the key of a series. */
function seriesKey(labelNames: readonly string[], labels: Labels | undefined): string {
  if (labelNames.length === 0) return '';
  return labelNames.map((n) => labels?.[n] ?? '').join(SERIES_SEPARATOR);
}

function labelText(labelNames: readonly string[], key: string, extra?: string): string {
  const parts: string[] = [];
  if (labelNames.length > 0) {
    const values = key.split(SERIES_SEPARATOR);
    labelNames.forEach((n, i) => parts.push(`${n}="${escapeLabel(values[i] ?? '')}"`));
  }
  if (extra) parts.push(extra);
  return parts.length > 0 ? `{${parts.join(',')}}` : '';
}

abstract class BaseMetric implements Metric {
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}
  abstract render(out: string[]): void;
}

export class Counter extends BaseMetric {
  readonly type = 'counter' as const;
  private readonly values = new Map<string, number>();

  inc(labels?: Labels, by = 1): void {
    this.incSeries(seriesKey(this.labelNames, labels), by);
  }

  /** Adds to the series with this key (label values joined by SERIES_SEPARATOR). */
  incSeries(key: string, by = 1): void {
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  get(labels?: Labels): number {
    return this.values.get(seriesKey(this.labelNames, labels)) ?? 0;
  }

  render(out: string[]): void {
    for (const [k, v] of this.values) out.push(`${this.name}${labelText(this.labelNames, k)} ${formatValue(v)}`);
  }
}

export class Gauge extends BaseMetric {
  readonly type = 'gauge' as const;
  private readonly values = new Map<string, number>();
  private readonly collectors: (() => void)[] = [];

  set(labels: Labels | undefined, value: number): void {
    this.values.set(seriesKey(this.labelNames, labels), value);
  }

  inc(labels?: Labels, by = 1): void {
    const k = seriesKey(this.labelNames, labels);
    this.values.set(k, (this.values.get(k) ?? 0) + by);
  }

  dec(labels?: Labels, by = 1): void {
    this.inc(labels, -by);
  }

  get(labels?: Labels): number {
    return this.values.get(seriesKey(this.labelNames, labels)) ?? 0;
  }

  remove(labels?: Labels): void {
    this.values.delete(seriesKey(this.labelNames, labels));
  }

  /** Runs `fn` before every render (to set values computed at scrape time); returns the unregister function. */
  onCollect(fn: () => void): () => void {
    this.collectors.push(fn);
    return () => {
      const i = this.collectors.indexOf(fn);
      if (i >= 0) this.collectors.splice(i, 1);
    };
  }

  render(out: string[]): void {
    for (const c of this.collectors) c();
    for (const [k, v] of this.values) out.push(`${this.name}${labelText(this.labelNames, k)} ${formatValue(v)}`);
  }
}

/**
 * A gauge over a closed set of states, as upstream's state gauges are: for each labelled object, 1
 * for its current state and 0 for every other. It keeps one entry per object (the state's index)
 * instead of one series per state, which matters at tens of thousands of modules.
 */
export class StateGauge extends BaseMetric {
  readonly type = 'gauge' as const;
  /** Labels without the state label -> index of the current state in `states` (-1: none of them). */
  private readonly current = new Map<string, number>();
  private readonly objectLabels: readonly string[];
  private readonly statePosition: number;
  /** `state="Ready"` and so on, escaped once. */
  private readonly statePairs: readonly string[];

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly stateLabel: string,
    readonly states: readonly string[],
  ) {
    super(name, help, labelNames);
    this.statePosition = labelNames.indexOf(stateLabel);
    if (this.statePosition < 0) throw new Error(`metric ${name}: the state label ${stateLabel} is not among its labels`);
    this.objectLabels = labelNames.filter((n) => n !== stateLabel);
    this.statePairs = states.map((s) => `${stateLabel}="${escapeLabel(s)}"`);
  }

  /** The object's current state (a state outside `states` renders 0 for all). */
  set(labels: Labels, state: string): void {
    this.current.set(seriesKey(this.objectLabels, labels), this.states.indexOf(state));
  }

  remove(labels: Labels): void {
    this.current.delete(seriesKey(this.objectLabels, labels));
  }

  /** The value of one series: `labels` includes the state label. */
  get(labels: Labels): number {
    const i = this.current.get(seriesKey(this.objectLabels, labels));
    return i !== undefined && i >= 0 && this.states[i] === labels[this.stateLabel] ? 1 : 0;
  }

  render(out: string[]): void {
    // An object's labels are escaped once for all of its lines (a scrape at 10,000 runtimes renders
    // hundreds of thousands of them).
    for (const [k, i] of this.current) {
      const values = k.split(SERIES_SEPARATOR);
      const pairs = this.objectLabels.map((n, j) => `${n}="${escapeLabel(values[j] ?? '')}"`);
      const before = pairs.slice(0, this.statePosition);
      const after = pairs.slice(this.statePosition);
      this.statePairs.forEach((statePair, j) => out.push(`${this.name}{${[...before, statePair, ...after].join(',')}} ${i === j ? 1 : 0}`));
    }
  }
}

interface HistogramSeries {
  counts: number[];
  sum: number;
  count: number;
}

/** Exponential buckets: `start`, `start*factor`, ... (`count` of them). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start * factor ** i);
}

export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class Histogram extends BaseMetric {
  readonly type = 'histogram' as const;
  private readonly series = new Map<string, HistogramSeries>();

  constructor(name: string, help: string, labelNames: readonly string[], readonly buckets: readonly number[]) {
    super(name, help, labelNames);
  }

  observe(labels: Labels | undefined, value: number): void {
    this.observeSeries(seriesKey(this.labelNames, labels), value);
  }

  /** Observes into the series with this key (label values joined by SERIES_SEPARATOR). */
  observeSeries(key: string, value: number): void {
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { counts: new Array<number>(this.buckets.length).fill(0), sum: 0, count: 0 }));
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]) s.counts[i]++;
    s.sum += value;
    s.count++;
  }

  count(labels?: Labels): number {
    return this.series.get(seriesKey(this.labelNames, labels))?.count ?? 0;
  }

  render(out: string[]): void {
    for (const [k, s] of this.series) {
      this.buckets.forEach((b, i) => out.push(`${this.name}_bucket${labelText(this.labelNames, k, `le="${formatValue(b)}"`)} ${s.counts[i]}`));
      out.push(`${this.name}_bucket${labelText(this.labelNames, k, 'le="+Inf"')} ${s.count}`);
      out.push(`${this.name}_sum${labelText(this.labelNames, k)} ${formatValue(s.sum)}`);
      out.push(`${this.name}_count${labelText(this.labelNames, k)} ${s.count}`);
    }
  }
}

export interface MetricOptions {
  name: string;
  help: string;
  labelNames?: readonly string[];
}

export class Registry {
  private readonly metrics = new Map<string, Metric>();

  /** Registering the same name twice returns the first metric (shared by several queues or controllers). */
  counter(o: MetricOptions): Counter {
    return this.register(o.name, Counter, () => new Counter(o.name, o.help, o.labelNames ?? []));
  }

  gauge(o: MetricOptions): Gauge {
    return this.register(o.name, Gauge, () => new Gauge(o.name, o.help, o.labelNames ?? []));
  }

  /** A state gauge (StateGauge): `labelNames` includes `stateLabel`. */
  stateGauge(o: MetricOptions & { stateLabel: string; states: readonly string[] }): StateGauge {
    return this.register(o.name, StateGauge, () => new StateGauge(o.name, o.help, o.labelNames ?? [], o.stateLabel, o.states));
  }

  histogram(o: MetricOptions & { buckets?: readonly number[] }): Histogram {
    return this.register(o.name, Histogram, () => new Histogram(o.name, o.help, o.labelNames ?? [], o.buckets ?? DEFAULT_BUCKETS));
  }

  /** The Prometheus text format of every metric, or of the metrics named. */
  render(names?: readonly string[]): string {
    const out: string[] = [];
    const chosen = names ? names.flatMap((n) => this.metrics.get(n) ?? []) : this.metrics.values();
    for (const m of chosen) {
      out.push(`# HELP ${m.name} ${m.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`);
      out.push(`# TYPE ${m.name} ${m.type}`);
      m.render(out);
    }
    return out.join('\n') + '\n';
  }

  private register<M extends Metric>(name: string, kind: abstract new (...args: never[]) => M, make: () => M): M {
    const existing = this.metrics.get(name);
    if (existing) {
      if (!(existing instanceof kind)) throw new Error(`metric ${name} is already registered as a ${existing.constructor.name}`);
      return existing;
    }
    const m = make();
    this.metrics.set(name, m);
    return m;
  }

}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

