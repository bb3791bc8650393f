// A small metrics registry (counters, gauges, histograms with labels) rendered in the Prometheus
// text exposition format (version 0.0.4), plus the work-queue and reconcile metrics under the names
// controller-runtime uses, so that existing dashboards and alerts keep working.

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

/** Label values in `labelNames` order, joined; also the key of a series. */
function seriesKey(labelNames: readonly string[], labels: Labels | undefined): string {
  if (labelNames.length === 0) return '';
  return labelNames.map((n) => labels?.[n] ?? '').join('\u0000');
}

function labelText(labelNames: readonly string[], key: string, extra?: string): string {
  const parts: string[] = [];
  if (labelNames.length > 0) {
    const values = key.split('\u0000');
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
    const k = seriesKey(this.labelNames, labels);
    this.values.set(k, (this.values.get(k) ?? 0) + by);
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
    const k = seriesKey(this.labelNames, labels);
    let s = this.series.get(k);
    if (!s) this.series.set(k, (s = { counts: new Array<number>(this.buckets.length).fill(0), sum: 0, count: 0 }));
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
    return this.register(o.name, 'counter', () => new Counter(o.name, o.help, o.labelNames ?? []));
  }

  gauge(o: MetricOptions): Gauge {
    return this.register(o.name, 'gauge', () => new Gauge(o.name, o.help, o.labelNames ?? []));
  }

  histogram(o: MetricOptions & { buckets?: readonly number[] }): Histogram {
    return this.register(o.name, 'histogram', () => new Histogram(o.name, o.help, o.labelNames ?? [], o.buckets ?? DEFAULT_BUCKETS));
  }

  /** The Prometheus text format of every metric. */
  render(): string {
    const out: string[] = [];
    for (const m of this.metrics.values()) {
      out.push(`# HELP ${m.name} ${m.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`);
      out.push(`# TYPE ${m.name} ${m.type}`);
      m.render(out);
    }
    return out.join('\n') + '\n';
  }

  private register<M extends Metric>(name: string, type: Metric['type'], make: () => M): M {
    const existing = this.metrics.get(name);
    if (existing) {
      if (existing.type !== type) throw new Error(`metric ${name} is already registered as a ${existing.type}`);
      return existing as M;
    }
    const m = make();
    this.metrics.set(name, m);
    return m;
  }
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** What a work queue reports; `WorkQueue` calls these, `workQueueMetrics` implements them. */
export interface WorkQueueMetricsHooks {
  added(): void;
  /** An item left the queue for a worker after waiting `queuedSeconds`. */
  started(queuedSeconds: number): void;
  finished(workSeconds: number): void;
  retried(): void;
  depth(n: number): void;
  /** Called at scrape time with functions reading the queue's in-flight state. */
  observeInFlight(unfinishedWorkSeconds: () => number, longestRunningSeconds: () => number): () => void;
}

const queueBuckets = exponentialBuckets(1e-8, 10, 10);

/** Work-queue metrics as controller-runtime names them, labelled with the queue (controller) name. */
export function workQueueMetrics(registry: Registry, name: string): WorkQueueMetricsHooks {
  const labelNames = ['controller', 'name'];
  const labels = { controller: name, name };
  const depth = registry.gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames });
  const adds = registry.counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames });
  const queueDuration = registry.histogram({ name: 'workqueue_queue_duration_seconds', help: 'How long in seconds an item stays in workqueue before being requested', labelNames, buckets: queueBuckets });
  const workDuration = registry.histogram({ name: 'workqueue_work_duration_seconds', help: 'How long in seconds processing an item from workqueue takes.', labelNames, buckets: queueBuckets });
  const retries = registry.counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames });
  const unfinished = registry.gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: 'How many seconds of work has been done that is in progress and hasn\'t been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
    labelNames,
  });
  const longest = registry.gauge({ name: 'workqueue_longest_running_processor_seconds', help: 'How many seconds has the longest running processor for workqueue been running.', labelNames });
  depth.set(labels, 0);
  adds.inc(labels, 0);
  retries.inc(labels, 0);
  return {
    added: () => adds.inc(labels),
    started: (s) => queueDuration.observe(labels, s),
    finished: (s) => workDuration.observe(labels, s),
    retried: () => retries.inc(labels),
    depth: (n) => depth.set(labels, n),
    observeInFlight: (unfinishedFn, longestFn) => {
      const a = unfinished.onCollect(() => unfinished.set(labels, unfinishedFn()));
      const b = longest.onCollect(() => longest.set(labels, longestFn()));
      return () => {
        a();
        b();
      };
    },
  };
}

export type ReconcileResultLabel = 'success' | 'error' | 'requeue' | 'requeue_after';

export interface ReconcileMetrics {
  reconciled(result: ReconcileResultLabel, seconds: number): void;
  activeWorkers(delta: number): void;
  maxConcurrent(n: number): void;
}

/** Reconcile metrics as controller-runtime names them. */
export function reconcileMetrics(registry: Registry, controller: string): ReconcileMetrics {
  const labels = { controller };
  const total = registry.counter({ name: 'controller_runtime_reconcile_total', help: 'Total number of reconciliations per controller', labelNames: ['controller', 'result'] });
  const errors = registry.counter({ name: 'controller_runtime_reconcile_errors_total', help: 'Total number of reconciliation errors per controller', labelNames: ['controller'] });
  const time = registry.histogram({
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'Length of time per reconciliation per controller',
    labelNames: ['controller'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60],
  });
  const active = registry.gauge({ name: 'controller_runtime_active_workers', help: 'Number of currently used workers per controller', labelNames: ['controller'] });
  const max = registry.gauge({ name: 'controller_runtime_max_concurrent_reconciles', help: 'Maximum number of concurrent reconciles per controller', labelNames: ['controller'] });
  for (const result of ['success', 'error', 'requeue', 'requeue_after'] as const) total.inc({ controller, result }, 0);
  errors.inc(labels, 0);
  active.set(labels, 0);
  return {
    reconciled: (result, seconds) => {
      total.inc({ controller, result });
      if (result === 'error') errors.inc(labels);
      time.observe(labels, seconds);
    },
    activeWorkers: (delta) => active.inc(labels, delta),
    maxConcurrent: (n) => max.set(labels, n),
  };
}
