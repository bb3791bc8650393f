// The lifecycle manager: the Kyma controller, the mandatory-module controller, the purge, the
// Manifest controller and module resource synchronization (ModuleConfig, SyncResource), added to a manager on the KCP, with runtime access through kubeconfig Secrets.
// The control plane's composition root (src/controlplane) calls this; nothing else starts them.
//
//   const lm = setupLifecycleManager(manager, { secrets, remoteClients, fetcher });
import { EventEmitter } from 'node:events';
import { Finalizers, Kyma, LabelValues, Labels, Manifest, Namespaces, Watcher, type KymaObject, type ManifestObject, type WatcherObject } from '../api/operator/index.js';
import type { Store } from '../runtime/cache/store.js';
import { namespacedName, type ObjectKey } from '../kube/keys.js';
import type { KeyEmitter, KeySource } from '../runtime/controller.js';
import { SECRET_KIND } from '../runtime/remote/secret.js';
import type { CaState, WatcherPkiSettings } from '../watcher/certificates.js';
import { SkrWebhookInstaller } from './remote/skr-webhook.js';
import { FIELD_MANAGER as RUNTIME_SYNC_FIELD_MANAGER } from './remote/crds.js';
import { MANIFEST_FIELD_MANAGER } from './manifest/constants.js';
import { SYNC_FIELD_MANAGER } from './sync/constants.js';
import { WatcherEventRouter } from './watcher-events.js';
import type { Manager } from '../runtime/manager.js';
import type { RemoteClusterCache } from '../runtime/remote/cache.js';
import type { ArtifactFetcher } from './artifacts/types.js';
import { setupKymaController } from './kyma/controller.js';
import { DEFAULT_RUNTIME_CHECK_MS, type RequeueIntervals } from './kyma/options.js';
import { setupMandatoryModuleController, setupMandatoryModuleDeletionController } from './mandatory/controller.js';
import { DEFAULT_DRIFT_CHECK_MS, setupManifestController, type RequeueIntervals as ManifestRequeueIntervals } from './manifest/index.js';
import type { MaintenanceWindowPolicy } from './maintenance/policy.js';
import { MaintenanceWindows } from './maintenance/windows.js';
import { LifecycleMetrics } from './metrics.js';
import { setupPurgeController } from './purge/controller.js';
import { RuntimeAccess, type Secret } from './remote/access.js';
import { DEFAULT_MODULE_CONFIG_POLL_MS, DEFAULT_RESYNC_MS as DEFAULT_SYNC_RESYNC_MS, ModuleConfigWatchers, setupModuleConfigController, setupSyncResourceController, SyncMetrics } from './sync/index.js';
import type { ListenerService } from '../watcher/defaults.js';
import { LIFECYCLE_MANAGER_EVENTS, MODULE_RESOURCE_EVENTS, MODULE_STATUS_EVENTS } from '../watcher/constants.js';

export { DEFAULT_INTERVALS, DEFAULT_RUNTIME_CHECK_MS, type RequeueIntervals } from './kyma/options.js';
export { DEFAULT_DRIFT_CHECK_MS, DEFAULT_INTERVALS as DEFAULT_MANIFEST_INTERVALS, DEFAULT_MANIFEST_WORKERS, type RequeueIntervals as ManifestRequeueIntervals } from './manifest/index.js';
export { DEFAULT_PURGE_GRACE_MS } from './purge/controller.js';
export { EVENT_RECHECK_MS } from './watcher-events.js';
export { DEFAULT_MIN_MAINTENANCE_WINDOW_MS } from './maintenance/windows.js';
export { MaintenancePolicyError, parseMaintenancePolicy, type MaintenanceWindowPolicy } from './maintenance/policy.js';
export { KUBECONFIG_SECRET_SELECTOR, RuntimeAccess, RuntimeAccessError } from './remote/access.js';
export { DEFAULT_FEEDBACK_MS, DEFAULT_MODULE_CONFIG_POLL_MS, DEFAULT_RESYNC_MS as DEFAULT_SYNC_RESYNC_MS } from './sync/constants.js';

export interface LifecycleManagerOptions {
  /** Namespace of Kymas, ModuleTemplates, ModuleReleaseMetas, Manifests and kubeconfig Secrets (default `kcp-system`). */
  namespace?: string;
  /** The informer store of kubeconfig Secrets (selector KUBECONFIG_SECRET_SELECTOR in `namespace`). */
  secrets: Store<Secret>;
  /** The control plane's cache of runtime clients, keyed by kubeconfig Secret. */
  remoteClients: RemoteClusterCache;
  /** Fetches module manifests for the Manifest controller. */
  fetcher: ArtifactFetcher;
  /** Requeue intervals of the Kyma controller by state (upstream defaults: Ready 30 s, busy 5 s, Warning 30 s, Error 2 s). */
  intervals?: Partial<RequeueIntervals>;
  /** How long a Kyma may be deleting before the purge strips runtime finalizers (default 5 min). */
  purgeGraceMs?: number;
  /** Opt-in: how long deletion retries an unreachable runtime whose kubeconfig Secret exists before skipping its cleanup (default: until the Secret is removed). */
  remoteCleanupTimeoutMs?: number;
  /** Upstream's restricted modules: offered only to Kymas their ModuleReleaseMeta's `spec.kymaSelector` selects. */
  restrictedModules?: readonly string[];
  /** Keys of Kymas whose runtime Kyma changed, from the runtime watcher if one runs. */
  watcherEvents?: KeySource;
  /** Requeue intervals of the Manifest controller. */
  manifestIntervals?: Partial<ManifestRequeueIntervals>;
  /** With the watcher: a Kyma's full runtime check runs at least this often (default 4 h; without the watcher on every reconcile). */
  runtimeCheckMs?: number;
  /** With the watcher: a Ready Manifest's objects are read back at least this often (default 24 h; without the watcher on every pass). */
  driftCheckMs?: number;
  /** With the watcher: a pass that answered events and found nothing changed looks once more after this long (default 1 s). */
  eventRecheckMs?: number;
  /** Parallel reconciles of the Kyma controller (default 4). */
  maxConcurrentReconciles?: number;
  /** Parallel reconciles of the Manifest controller (default 10). */
  maxConcurrentManifestReconciles?: number;
  /** The runtime watcher: its webhook is installed into every runtime and its events wake Kymas and Manifests. */
  watcher?: LifecycleWatcherOptions;
  /** Periodic passes of module resource synchronization (defaults: ModuleConfig 30 s, 5 min with the watcher; SyncResource 5 min; feedback 30 s). */
  moduleSync?: { moduleConfigResyncMs?: number; syncResourceResyncMs?: number; feedbackMs?: number };
  /** The maintenance-window policy (upstream's format); without one, upgrades that require downtime are Error. */
  maintenancePolicy?: MaintenanceWindowPolicy;
  /** A maintenance window is used only while it lasts at least this much longer (default 20 min). */
  minMaintenanceWindowMs?: number;
  /** Secret (`kubernetes.io/dockerconfigjson`) of `namespace` the Manifest controller pulls module artifacts with (upstream `--oci-registry-cred-secret`). */
  ociRegistryCredSecret?: string;
  /** Secret of `namespace` copied into every runtime's kyma-system and referenced by module workloads (upstream `--skr-image-pull-secret`). */
  skrImagePullSecret?: string;
}

export interface LifecycleWatcherOptions {
  /** Image and command of the skr-webhook Deployment. */
  image: string;
  command?: string[];
  /** The KCP listener's address as runtimes reach it (`host:port`). */
  kcpAddress: string;
  /** The current watcher CA (undefined until loaded). */
  ca: () => CaState | undefined;
  pki: WatcherPkiSettings;
  /** When the listener last accepted an event from a runtime. */
  lastEventAt: (runtimeId: string) => number | undefined;
  /** Re-apply unchanged webhook objects this often (default 5 min). */
  resyncMs?: number;
  /** The listener's Service as Watchers name it (for the Watchers of modules' custom resources). */
  listenerService: ListenerService;
}

export interface LifecycleManager {
  access: RuntimeAccess;
  metrics: LifecycleMetrics;
  /** Routes watcher events to the Kymas and Manifests of the sending runtime (with the watcher). */
  watcherEvents?: WatcherEventRouter;
  skrWebhook?: SkrWebhookInstaller;
  /**
   * Asks the next reconcile of these Kymas for a full runtime check: a replica that gains their shard
   * may hold records of its own from an earlier ownership (a webhook it installed, a check it made)
   * that the replica owning them since has made stale.
   */
  askRuntimeChecks(kymaKeys: Iterable<string>, reason: 'shard_gained'): void;
}

/**
 * The field managers of the lifecycle manager's writes into runtimes (module resources, the default
 * CR, the runtime Kyma and everything else it keeps there, synchronized resources). Its webhook in a
 * runtime sends no event for them: what the lifecycle manager wrote itself is not drift, and a new
 * runtime's install would otherwise echo back an event per object.
 */
export const RUNTIME_FIELD_MANAGERS: readonly string[] = [MANIFEST_FIELD_MANAGER, Finalizers.CustomResourceManager, RUNTIME_SYNC_FIELD_MANAGER, SYNC_FIELD_MANAGER];

/** Adds the lifecycle manager's controllers to `manager` (which the caller starts). */
export function setupLifecycleManager(manager: Manager, opts: LifecycleManagerOptions): LifecycleManager {
  const namespace = opts.namespace ?? Namespaces.ControlPlane;
  const access = new RuntimeAccess({ namespace, secrets: opts.secrets, remoteClients: opts.remoteClients });
  const metrics = new LifecycleMetrics(manager.registry);
  let router: WatcherEventRouter | undefined;
  let skrWebhook: SkrWebhookInstaller | undefined;
  if (opts.watcher) {
    const w = opts.watcher;
    router = new WatcherEventRouter(namespace, manager.cache<KymaObject>(Kyma, { namespace }), manager.cache<ManifestObject>(Manifest, { namespace }));
    router.onManifestKey = (found, lane) => metrics.eventManifestKey(found, lane);
    skrWebhook = new SkrWebhookInstaller({
      kcp: manager.client,
      namespace,
      image: w.image,
      command: w.command,
      kcpAddress: w.kcpAddress,
      // Not for ModuleConfig Watchers: a default CR the lifecycle manager created, or a module CR it
      // synchronized, wakes the module's ModuleConfig (and other Watchers see everything).
      ignoredWrites: { fieldManagers: RUNTIME_FIELD_MANAGERS, forManagers: [LIFECYCLE_MANAGER_EVENTS, MODULE_RESOURCE_EVENTS, MODULE_STATUS_EVENTS] },
      ca: w.ca,
      pki: w.pki,
      watchers: manager.cache<WatcherObject>(Watcher, { namespace }),
      certificates: manager.cache<Secret>(SECRET_KIND, { namespace, labelSelector: `${Labels.Purpose}=${LabelValues.CertManager}` }),
      lastEventAt: w.lastEventAt,
      resyncMs: w.resyncMs,
      registry: manager.registry,
    });
  }
  const kyma = setupKymaController(manager, {
    namespace,
    access,
    metrics,
    intervals: opts.intervals,
    remoteCleanupTimeoutMs: opts.remoteCleanupTimeoutMs,
    restrictedModules: opts.restrictedModules,
    maxConcurrentReconciles: opts.maxConcurrentReconciles,
    watcherEvents: mergeSources(opts.watcherEvents, router?.kymaSource, router ? (key) => router.kymaEvents.mark(typeof key === 'string' ? key : namespacedName(key)) : undefined),
    skrWebhook,
    runtimeCheckMs: opts.watcher ? (opts.runtimeCheckMs ?? DEFAULT_RUNTIME_CHECK_MS) : undefined,
    runtimeChecks: router?.runtimeChecks,
    runtimeKymaEvents: router?.kymaEvents,
    runtimeCheckKeys: router?.kymaWakeSource,
    webhookEvents: router?.webhookChecks,
    eventRecheckMs: opts.eventRecheckMs,
    maintenance: new MaintenanceWindows(opts.maintenancePolicy, opts.minMaintenanceWindowMs),
    skrImagePullSecret: opts.skrImagePullSecret,
  });
  setupMandatoryModuleController(manager, { namespace });
  setupMandatoryModuleDeletionController(manager, { namespace });
  setupPurgeController(manager, { namespace, access, graceMs: opts.purgeGraceMs });
  const manifests = setupManifestController(manager, {
    kcp: manager.client,
    namespace,
    remoteClients: (kyma) => access.lazyClient(kyma),
    fetcher: opts.fetcher,
    intervals: opts.manifestIntervals,
    watcherEvents: router?.manifestSource,
    watcherEventsUnderWay: router?.manifestUnderWaySource,
    driftCheckMs: opts.watcher ? (opts.driftCheckMs ?? DEFAULT_DRIFT_CHECK_MS) : undefined,
    driftChecks: router?.driftChecks,
    readinessChecks: router?.readinessChecks,
    eventRecheckMs: opts.eventRecheckMs,
    maxConcurrentReconciles: opts.maxConcurrentManifestReconciles,
    registryCredentialsSecret: opts.ociRegistryCredSecret ? { namespace, name: opts.ociRegistryCredSecret } : undefined,
    skrImagePullSecret: opts.skrImagePullSecret,
  });
  if (router) router.applied = (manifest, objectKey) => manifests.reconciler.names(manifest, objectKey);
  const syncMetrics = new SyncMetrics(manager.registry);
  setupModuleConfigController(manager, {
    namespace,
    access,
    metrics: syncMetrics,
    resyncMs: opts.moduleSync?.moduleConfigResyncMs ?? (opts.watcher ? DEFAULT_SYNC_RESYNC_MS : DEFAULT_MODULE_CONFIG_POLL_MS),
    watcherEvents: router?.moduleConfigSource,
    watchers: opts.watcher ? new ModuleConfigWatchers(manager.client, namespace, opts.watcher.listenerService, manager.cache<WatcherObject>(Watcher, { namespace })) : undefined,
  });
  setupSyncResourceController(manager, {
    namespace,
    access,
    metrics: syncMetrics,
    resyncMs: opts.moduleSync?.syncResourceResyncMs,
    feedbackMs: opts.moduleSync?.feedbackMs,
  });
  return {
    access,
    metrics,
    watcherEvents: router,
    skrWebhook,
    askRuntimeChecks: (keys, reason) => {
      for (const key of keys) kyma.askFullCheck(key, reason);
    },
  };
}

/** One source of keys from two (either may be missing); `onA` sees the keys of `a` before they are passed on. */
function mergeSources(a: KeySource | undefined, b: KeyEmitter | undefined, onA?: (key: string | ObjectKey) => void): KeySource | undefined {
  if (!a || !b) return a ?? b;
  if (!('on' in a)) throw new Error('a watcher event source must be an emitter when the runtime watcher also runs');
  const merged = new EventEmitter();
  const forward = (key: unknown): boolean => merged.emit('key', key);
  a.on('key', (key: string | ObjectKey) => {
    onA?.(key);
    forward(key);
  });
  b.on('key', forward);
  return merged;
}
