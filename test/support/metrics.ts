// Reading a manager's metrics registry in tests: how often a controller reconciled, by result.
import type { Registry, ReconcileResultLabel } from '../../src/runtime/metrics.js';

const RESULTS: ReconcileResultLabel[] = ['success', 'error', 'requeue', 'requeue_after'];

/** `controller_runtime_reconcile_total` of `controller` for `result` (all results when omitted). */
export function reconcileCount(registry: Registry, controller: string, result?: ReconcileResultLabel): number {
  // Registering an existing name returns the metric the controllers count with.
  const total = registry.counter({ name: 'controller_runtime_reconcile_total', help: 'Total number of reconciliations per controller', labelNames: ['controller', 'result'] });
  return (result ? [result] : RESULTS).reduce((sum, r) => sum + total.get({ controller, result: r }), 0);
}
