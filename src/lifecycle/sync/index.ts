// Module resource synchronization (docs/module-sync.md): the ModuleConfig controller (module CRs
// from runtimes into the KCP) and the SyncResource controller (module managers' objects from the
// KCP into runtimes). setupLifecycleManager adds both.
export { setupModuleConfigController, ModuleConfigReconciler, copyOfModuleResource, type ModuleConfigControllerOptions } from './module-config.js';
export { setupSyncResourceController, SyncResourceReconciler, type SyncResourceControllerOptions } from './sync-resource.js';
export { ModuleConfigWatchers } from './module-watchers.js';
export { SyncMetrics } from './metrics.js';
export * from './constants.js';
