// The lifecycle manager: the Kyma controller, the mandatory-module controller, the purge and the
// Manifest controller on one manager, with runtime access through kubeconfig Secrets.
//
//   const lm = await startLifecycleManager({ kcp }, signal);
//   await lm.ready(); ... await lm.stop();
import { Namespaces } from '../api/operator/index.js';
import type { Client } from '../runtime/client/interface.js';
import type { KeySource } from '../runtime/controller.js';
import { createLogger, type Logger } from '../runtime/log.js';
import { newManager, type Manager } from '../runtime/manager.js';
import type { Registry } from '../runtime/metrics.js';
import type { RemoteClusterCache } from '../runtime/remote/cache.js';
import { OciArtifactFetcher } from './artifacts/fetcher.js';
import type { ArtifactFetcher } from './artifacts/types.js';
import { setupKymaController } from './kyma/controller.js';
import type { RequeueIntervals } from './kyma/options.js';
import { setupMandatoryModuleController } from './mandatory/controller.js';
import { setupManifestController, type RequeueIntervals as ManifestRequeueIntervals } from './manifest/index.js';
import { LifecycleMetrics } from './metrics.js';
import { setupPurgeController } from './purge/controller.js';
import { KUBECONFIG_SECRET_SELECTOR, RuntimeAccess, SECRET_KIND, type Secret } from './remote/access.js';

export { DEFAULT_INTERVALS, DEFAULT_REMOTE_CLEANUP_TIMEOUT_MS, type RequeueIntervals } from './kyma/options.js';
export { DEFAULT_PURGE_GRACE_MS } from './purge/controller.js';
export { RuntimeAccess, RuntimeAccessError } from './remote/access.js';

export interface LifecycleManagerOptions {
  /** Client of the control-plane cluster. */
  kcp: Client;
  /** Namespace of Kymas, ModuleTemplates, ModuleReleaseMetas, Manifests and kubeconfig Secrets (default `kcp-system`). */
  namespace?: string;
  /** Fetches module manifests for the Manifest controller (default: its own). */
  fetcher?: ArtifactFetcher;
  /** A shared cache of runtime clients; it must map a Kyma name to that Kyma's kubeconfig Secret. */
  remoteClients?: RemoteClusterCache;
  /** Requeue intervals of the Kyma controller by state (upstream defaults: Ready 30 s, busy 5 s, Warning 30 s, Error 2 s). */
  intervals?: Partial<RequeueIntervals>;
  /** How long a Kyma may be deleting before the purge strips runtime finalizers (default 5 min). */
  purgeGraceMs?: number;
  /** How long deletion retries an unreachable runtime before skipping its cleanup (default 60 s). */
  remoteCleanupTimeoutMs?: number;
  /** Per-request timeout of runtime clients (default 10 s). */
  remoteRequestTimeoutMs?: number;
  /** Keys of Kymas whose runtime Kyma changed, from the runtime watcher if one runs. */
  watcherEvents?: KeySource;
  /** Run the Manifest controller too (default true). */
  manifestController?: boolean;
  /** Requeue intervals of the Manifest controller. */
  manifestIntervals?: Partial<ManifestRequeueIntervals>;
  /** Parallel reconciles of the Kyma controller (default 4). */
  maxConcurrentReconciles?: number;
  /** Use this manager instead of creating one (it is started by startLifecycleManager). */
  manager?: Manager;
  logger?: Logger;
  registry?: Registry;
  /** Port of /metrics, /healthz, /readyz (0: any free port); none when undefined. */
  operationsPort?: number;
}

export interface LifecycleManagerHandle {
  manager: Manager;
  access: RuntimeAccess;
  /** Whether the Manifest controller runs. */
  manifestController: boolean;
  /** Resolves when caches are synced and the controllers run. */
  ready(): Promise<void>;
  /** Stops the controllers (in-flight reconciles finish) and closes runtime clients. */
  stop(): Promise<void>;
}

export async function startLifecycleManager(opts: LifecycleManagerOptions, signal?: AbortSignal): Promise<LifecycleManagerHandle> {
  const namespace = opts.namespace ?? Namespaces.ControlPlane;
  const logger = opts.logger ?? createLogger({ name: 'lifecycle-manager' });
  const manager = opts.manager ?? newManager({ client: opts.kcp, name: 'lifecycle-manager', logger, registry: opts.registry, operationsPort: opts.operationsPort });
  const secretInformer = manager.informer<Secret>(SECRET_KIND, { namespace, labelSelector: KUBECONFIG_SECRET_SELECTOR });
  const access = new RuntimeAccess({
    kcp: manager.client,
    namespace,
    secrets: secretInformer.store,
    remoteClients: opts.remoteClients,
    requestTimeoutMs: opts.remoteRequestTimeoutMs,
    log: logger,
  });
  const unsubscribe = secretInformer.addHandlers({
    onAdd: (s) => access.secretEvent('upsert', s),
    onUpdate: (_old, s) => access.secretEvent('upsert', s),
    onDelete: (s) => access.secretEvent('delete', s),
  });
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
  const manifestController = opts.manifestController !== false;
  if (manifestController) {
    setupManifestController(manager, {
      kcp: manager.client,
      namespace,
      remoteClients: access.clients,
      fetcher: opts.fetcher ?? new OciArtifactFetcher(),
      intervals: opts.manifestIntervals,
    });
  }

  const stopper = new AbortController();
  const onAbort = (): void => stopper.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) stopper.abort();
  const running = manager.start(stopper.signal).catch((e: unknown) => logger.error('lifecycle manager failed', { error: e }));
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      stopper.abort();
      signal?.removeEventListener('abort', onAbort);
      await running;
      unsubscribe();
      access.close();
    })());
  stopper.signal.addEventListener('abort', () => void stop(), { once: true });
  return { manager, access, manifestController, ready: () => manager.ready(), stop };
}
