// Names of module resource synchronization (ModuleConfig and SyncResource, docs/module-sync.md).
import { OPERATOR_GROUP } from '../../api/operator/index.js';

/** Field manager of the ModuleConfigs the lifecycle manager writes. */
export const MODULE_CONFIG_FIELD_MANAGER = 'lifecycle-manager-module-config';
/** Field manager of the objects the lifecycle manager applies into runtimes for SyncResources. */
export const SYNC_FIELD_MANAGER = 'lifecycle-manager-sync';
/** Manager (Watcher spec.manager) of the module-CR Watchers: its events go to the ModuleConfig controller. */
export const MODULE_CONFIG_EVENTS = 'lifecycle-manager-module-config';
/** Label on the objects the lifecycle manager creates in runtimes for SyncResources (value: the module). */
export const SYNCED_BY_LABEL = `${OPERATOR_GROUP}/synced-by-module`;

/** A ModuleConfig is named after its Kyma and module. */
export function moduleConfigName(kyma: string, module: string): string {
  return `${kyma}-${module}`;
}

/** The Watcher of one module's custom resources in every runtime. */
export function moduleConfigWatcherName(module: string): string {
  return `module-config-${module}`;
}

/** Periodic pass of both controllers when the runtime watcher carries the changes (upstream's fallback). */
export const DEFAULT_RESYNC_MS = 5 * 60_000;
/** The ModuleConfig pass without the runtime watcher: the only way a runtime's edit arrives. */
export const DEFAULT_MODULE_CONFIG_POLL_MS = 30_000;
/** Retry after a runtime could not be reached or an apply failed. */
export const DEFAULT_ERROR_RETRY_MS = 5_000;
/** How often feedback values are read again while a SyncResource asks for them. */
export const DEFAULT_FEEDBACK_MS = 30_000;
