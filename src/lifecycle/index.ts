// The lifecycle manager: the Kyma controller, the mandatory-module controller, the purge and the
// Manifest controller, added to a manager on the KCP, with runtime access through kubeconfig Secrets.
// The control plane's composition root (src/controlplane) calls this; nothing else starts them.
//
//   const lm = setupLifecycleManager(manager, { secrets, remoteClients, fetcher });
import { Namespaces } from '../api/operator/index.js';
import type { Store } from '../runtime/cache/store.js';
import type { KeySource } from '../runtime/controller.js';
import type { Manager } from '../runtime/manager.js';
import type { RemoteClusterCache } from '../runtime/remote/cache.js';
import type { ArtifactFetcher } from './artifacts/types.js';
import { setupKymaController } from './kyma/controller.js';
import type { RequeueIntervals } from './kyma/options.js';
import { setupMandatoryModuleController } from './mandatory/controller.js';
import { setupManifestController, type RequeueIntervals as ManifestRequeueIntervals } from './manifest/index.js';
import { LifecycleMetrics } from './metrics.js';
import { setupPurgeController } from './purge/controller.js';
import { RuntimeAccess, type Secret } from './remote/access.js';

export { DEFAULT_INTERVALS, DEFAULT_REMOTE_CLEANUP_TIMEOUT_MS, type RequeueIntervals } from './kyma/options.js';
export { DEFAULT_INTERVALS as DEFAULT_MANIFEST_INTERVALS, type RequeueIntervals as ManifestRequeueIntervals } from './manifest/index.js';
export { DEFAULT_PURGE_GRACE_MS } from './purge/controller.js';
export { KUBECONFIG_SECRET_SELECTOR, RuntimeAccess, RuntimeAccessError } from './remote/access.js';

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
  /** How long deletion retries an unreachable runtime before skipping its cleanup (default 60 s). */
  remoteCleanupTimeoutMs?: number;
  /** Keys of Kymas whose runtime Kyma changed, from the runtime watcher if one runs. */
  watcherEvents?: KeySource;
  /** Requeue intervals of the Manifest controller. */
  manifestIntervals?: Partial<ManifestRequeueIntervals>;
  /** Parallel reconciles of the Kyma controller (default 4). */
  maxConcurrentReconciles?: number;
}

export interface LifecycleManager {
  access: RuntimeAccess;
  metrics: LifecycleMetrics;
}

/** Adds the lifecycle manager's controllers to `manager` (which the caller starts). */
export function setupLifecycleManager(manager: Manager, opts: LifecycleManagerOptions): LifecycleManager {
  const namespace = opts.namespace ?? Namespaces.ControlPlane;
  const access = new RuntimeAccess({ namespace, secrets: opts.secrets, remoteClients: opts.remoteClients });
  const metrics = new LifecycleMetrics(manager.registry);
  setupKymaController(manager, {
    namespace,
    access,
    metrics,
    intervals: opts.intervals,
    remoteCleanupTimeoutMs: opts.remoteCleanupTimeoutMs,
    maxConcurrentReconciles: opts.maxConcurrentReconciles,
    watcherEvents: opts.watcherEvents,
  });
  setupMandatoryModuleController(manager, { namespace });
  setupPurgeController(manager, { namespace, access, graceMs: opts.purgeGraceMs });
  setupManifestController(manager, {
    kcp: manager.client,
    namespace,
    remoteClients: (kyma) => access.lazyClient(kyma),
    fetcher: opts.fetcher,
    intervals: opts.manifestIntervals,
  });
  return { access, metrics };
}
