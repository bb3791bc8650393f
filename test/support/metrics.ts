// Reading a manager's metrics registry in tests: how often a controller reconciled, by result.
import type { Manager } from '../../src/runtime/manager.js';
import type { Registry, ReconcileResultLabel } from '../../src/runtime/metrics.js';

const RESULTS: ReconcileResultLabel[] = ['success', 'error', 'requeue', 'requeue_after'];

/** `controller_runtime_reconcile_total` of `controller` for `result` (all results when omitted). */
export function reconcileCount(registry: Registry, controller: string, result?: ReconcileResultLabel): number {
  // Registering an existing name returns the metric the controllers count with.
  const total = registry.counter({ name: 'controller_runtime_reconcile_total', help: 'Total number of reconciliations per controller', labelNames: ['controller', 'result'] });
  return (result ? [result] : RESULTS).reduce((sum, r) => sum + total.get({ controller, result: r }), 0);
}

/**
 * Counts, per controller and key (`namespace/name`), how often the manager's controllers took a key
 * up to reconcile it: the manager's gate is asked right before every reconcile. Installs a gate that
 * always says yes, so use it only where nothing else sets a gate. Because one key is never
 * reconciled twice at once, a count that grew by n + 1 means n reconciles of that key completed.
 */
export function countReconciles(manager: Manager): (controller: string, key: string) => number {
  const counts = new Map<string, number>();
  manager.setGate((controller, _kind, req) => {
    const k = `${controller} ${req.namespace ?? ''}/${req.name}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
    return true;
  });
  return (controller, key) => counts.get(`${controller} ${key}`) ?? 0;
}

/** The value of one series of a counter the controllers registered (0 when that series was never counted). */
export function counterValue(registry: Registry, name: string, labels: Record<string, string>): number {
  // Registering an existing name returns the metric as its owner registered it (help and label names).
  return registry.counter({ name, help: '', labelNames: Object.keys(labels) }).get(labels);
}
