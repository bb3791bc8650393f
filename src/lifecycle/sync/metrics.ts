// Metrics of module resource synchronization.
import type { Counter, Registry } from '../../runtime/metrics.js';

/** What happened to one SyncResource item in one pass. */
export type ItemOutcome = 'applied' | 'created' | 'deleted' | 'unchanged' | 'refused' | 'failed' | 'removed';

export class SyncMetrics {
  private readonly configUpdates: Counter;
  private readonly items: Counter;

  constructor(registry: Registry) {
    this.configUpdates = registry.counter({ name: 'lifecycle_mgr_module_config_updates_total', help: 'Copies of a module custom resource written into its ModuleConfig, by module.', labelNames: ['module_name'] });
    this.items = registry.counter({ name: 'lifecycle_mgr_sync_resource_items_total', help: 'SyncResource items handled, by module and outcome.', labelNames: ['module_name', 'outcome'] });
  }

  moduleConfigUpdated(module: string): void {
    this.configUpdates.inc({ module_name: module });
  }

  item(module: string, outcome: ItemOutcome): void {
    this.items.inc({ module_name: module, outcome });
  }
}
