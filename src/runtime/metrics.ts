// The controllers' metrics: the work-queue and reconcile metrics under the names controller-runtime
// uses, so that existing dashboards and alerts keep working (registry and text format: util/prometheus.ts).
import { exponentialBuckets, type Registry } from '../util/prometheus.js';

export { Counter, DEFAULT_BUCKETS, exponentialBuckets, Gauge, Histogram, type Labels, type MetricOptions, PROMETHEUS_CONTENT_TYPE, Registry, StateGauge } from '../util/prometheus.js';

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
