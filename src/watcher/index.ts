// The Watcher component (KCP side): the Watcher controller, the default Watchers, and the runtime's
// webhook configuration built from the Watchers. Wired into the control plane by src/controlplane.
export * from './constants.js';
export { eventPath, CONTRACT_VERSION, type WatchEvent } from './event.js';
export { setupWatcherController, type WatcherControllerOptions, type WatcherListenerOptions } from './controller.js';
export { defaultWatchers, ensureDefaultWatchers, type ListenerService } from './defaults.js';
export { managerOf, watcherProblems } from './validate.js';
export { desiredVirtualService, selectorText, type GatewayObject, type VirtualServiceObject } from './virtual-service.js';
export { type IgnoredWriters, webhookConfigurationFor, webhookName, type ValidatingWebhook, type ValidatingWebhookConfiguration } from './webhook-config.js';
