// The control plane's composition root: the one place that wires the controllers. `kcp run` points
// it at real clusters, `kcp up` at the embedded landscape; tests and benchmarks use it as well.
//
// One Manager holds everything the controllers share: the KCP informers, one cache of runtime
// clients (one client per kubeconfig Secret, replaced as soon as the Secret changes, used by both
// managers), one metrics registry, /metrics, /healthz and /readyz, and the coordination of replicas
// (leader election or shards). Adding a controller means adding it here, or to the setup function
// of its manager (setupInfrastructureManager, setupLifecycleManager).
//
//   const cp = await startControlPlane({ config, kcp, garden, gardenerProject, converterConfig, fetcher });
//   await cp.ready(); ...; await cp.stop();
import { announceControlPlane } from './announce.js';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { ConverterConfig } from '../infrastructure/converter/index.js';
import { type InfrastructureManager, setupInfrastructureManager } from '../infrastructure/index.js';
import { OciArtifactFetcher } from '../lifecycle/artifacts/fetcher.js';
import type { ArtifactFetcher } from '../lifecycle/artifacts/types.js';
import { KUBECONFIG_SECRET_SELECTOR, type LifecycleManager, setupLifecycleManager } from '../lifecycle/index.js';
import { MODULE_CONFIG_EVENTS } from '../lifecycle/sync/index.js';
import type { Client } from '../runtime/client/interface.js';
import type { KeySource } from '../runtime/controller.js';
import { startOperationsServer, type OperationsServer } from '../runtime/health.js';
import { useLeaderElection } from '../runtime/leader/manager.js';
import { createLogger, type Logger } from '../runtime/log.js';
import { type Manager, newManager } from '../runtime/manager.js';
import type { Registry } from '../runtime/metrics.js';
import { kubeconfigRefOfKey, RemoteClusterCache } from '../runtime/remote/cache.js';
import { refString, SECRET_KIND, type Secret } from '../runtime/remote/secret.js';
import { useSharding } from '../runtime/sharding/manager.js';
import { LabelKymaManagedBy, ManagedByInfrastructureManager, Runtime, type RuntimeObject } from '../api/infrastructuremanager/index.js';
import { Kyma, type KymaObject, Manifest, type ManifestObject, SyncResource, type SyncResourceObject } from '../api/operator/index.js';
import { type ControlPlaneConfig, runtimeTimingOf } from './config.js';
import { kymasOfShards, runtimeShardKey } from './shard-keys.js';
import { startWatcherRuntime, type WatcherRuntime } from './watcher.js';
import { type RuntimeAdmission, startRuntimeAdmission } from './runtime-admission.js';
import { LeaderPodLabel } from './leader-pod.js';
import { ensureDefaultWatchers, setupWatcherController, LIFECYCLE_MANAGER_EVENTS, MODULE_RESOURCE_EVENTS, MODULE_STATUS_EVENTS, DEFAULT_LISTENER, type ListenerService } from '../watcher/index.js';

export { defaultControlPlaneConfig, runtimeTimingOf, type BindAddress, type ControlPlaneConfig, type LeaseTiming } from './config.js';
export type { WatcherConfig, WatcherRuntime } from './watcher.js';
export type { RuntimeAdmission, RuntimeAdmissionConfig } from './runtime-admission.js';

/** Name of the manager: the reporting controller of Events, the Lease holder's prefix in logs. */
export const CONTROL_PLANE_NAME = 'kcp-controllers';

export interface ControlPlaneOptions {
  config: ControlPlaneConfig;
  /** Client of the KCP. Owned by the caller (closed by the caller after stop()). */
  kcp: Client;
  /** Client of the garden cluster; required with the infrastructure manager. Owned by the caller. */
  garden?: Client;
  /** Gardener project (Shoots in `garden-<project>`); required with the infrastructure manager. */
  gardenerProject?: string;
  /** The Runtime-to-Shoot converter configuration; required with the infrastructure manager. */
  converterConfig?: ConverterConfig;
  /** Fetches module manifests (default: OCI registries and https). */
  fetcher?: ArtifactFetcher;
  /** Keys of Kymas whose runtime changed, from the runtime watcher. */
  watcherEvents?: KeySource;
  logger?: Logger;
  /** Metrics registry (default: the manager's own). */
  registry?: Registry;
  /** Replica identity for leader election, sharding and Events (default: POD_NAME or the host name, plus a random suffix). */
  identity?: string;
  /** Aborting it stops the control plane, as stop() does. */
  signal?: AbortSignal;
}

export interface ControlPlane {
  manager: Manager;
  /** This replica's identity (Lease holder, Events' reporting instance). */
  identity: string;
  /** The one cache of runtime clients, keyed by kubeconfig Secret. */
  remoteClusters: RemoteClusterCache;
  infrastructure?: InfrastructureManager;
  lifecycle?: LifecycleManager;
  /** The runtime watcher's listener and CA (when the watcher is on). */
  watcher?: WatcherRuntime;
  /** The Runtime admission webhook (when on). */
  runtimeAdmission?: RuntimeAdmission;
  /** Base URL of /metrics (undefined when off). */
  metricsUrl?: string;
  /** Base URL of /healthz and /readyz (undefined when off). */
  healthUrl?: string;
  /** Resolves when caches are synced and the controllers run (for a follower: when caches are synced). */
  ready(): Promise<void>;
  /** Graceful stop: intake stops, in-flight reconciles finish, Leases are released, servers and runtime clients close. */
  stop(): Promise<void>;
  /** Resolves when the control plane stopped (after stop(), the signal, or a failure of the manager). */
  done: Promise<void>;
}

/** Checks what the enabled managers need; throws one line naming what is missing. */
function checkInputs(opts: ControlPlaneOptions): void {
  const c = opts.config;
  if (!c.infrastructureManager && !c.lifecycleManager) throw new Error('nothing to run: both the infrastructure manager and the lifecycle manager are off');
  if (c.infrastructureManager) {
    const missing = [!opts.garden && 'a garden client', !opts.gardenerProject && 'a Gardener project', !opts.converterConfig && 'a converter configuration'].filter(Boolean);
    if (missing.length > 0) throw new Error(`the infrastructure manager needs ${missing.join(', ')}`);
  }
  if (c.leaderElection && c.sharding) throw new Error('leader election and sharding exclude each other');
}

export async function startControlPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  checkInputs(opts);
  const { config, kcp } = opts;
  const logger = opts.logger ?? createLogger({ name: 'kcp' });
  const identity = opts.identity ?? `${process.env.POD_NAME ?? hostname()}_${randomUUID().slice(0, 8)}`;
  const namespace = config.namespace;

  // The manager serves /healthz and /readyz (informers synced, controllers started); /metrics gets
  // its own listener unless both addresses are the same.
  const sameAddress = !!config.metrics && !!config.health && config.metrics.host === config.health.host && config.metrics.port === config.health.port && config.metrics.port !== 0;
  const manager = newManager({
    client: kcp,
    name: CONTROL_PLANE_NAME,
    logger,
    registry: opts.registry,
    operationsPort: config.health?.port,
    operationsHost: config.health?.host,
    gracefulShutdownTimeoutMs: config.gracefulShutdownTimeoutMs,
    reportingInstance: identity,
  });
  let lifecycle: LifecycleManager | undefined;
  let leaderPodLabel: LeaderPodLabel | undefined;
  if (config.leaderElection) {
    const { pod, ...lease } = config.leaderElection;
    const elector = useLeaderElection(manager, {
      client: kcp,
      identity,
      log: logger.child('leader-election'),
      ...lease,
      onStartedLeading: () => leaderPodLabel?.changed(),
      onStoppedLeading: () => leaderPodLabel?.changed(),
    });
    if (pod) leaderPodLabel = new LeaderPodLabel(kcp, pod, () => elector.isLeader(), logger.child('leader-pod'), lease.retryPeriodMs);
  } else if (config.sharding) {
    const s = config.sharding;
    useSharding(manager, {
      client: kcp,
      identity,
      namespace: s.namespace,
      name: s.prefix,
      shardCount: s.shards,
      leaseDurationMs: s.leaseDurationMs,
      renewDeadlineMs: s.renewDeadlineMs,
      retryPeriodMs: s.retryPeriodMs,
      log: logger.child('sharding'),
      // Split by runtime (shard-keys.ts); the caches are the lifecycle manager's own. The Kymas of a
      // gained shard get a full runtime check: this replica's records of them may be stale.
      ...(config.lifecycleManager
        ? {
            shardKeyOf: runtimeShardKey({ manifests: manager.cache<ManifestObject>(Manifest, { namespace }), syncResources: manager.cache<SyncResourceObject>(SyncResource, { namespace }) }),
            onGained: (gained: number[]) => lifecycle?.askRuntimeChecks(kymasOfShards(manager.cache<KymaObject>(Kyma, { namespace }), gained, s.shards), 'shard_gained'),
          }
        : {}),
    });
  }

  // One client per runtime, for both managers, keyed by kubeconfig Secret and fed by the Secret
  // informers: the lifecycle manager's (Secrets with a Kyma name) and, with the infrastructure
  // manager, the GardenerCluster controller's (Secrets it manages). A rotated Secret replaces the
  // client before the old credentials expire.
  const kymaSecrets = config.lifecycleManager ? manager.informer<Secret>(SECRET_KIND, { namespace, labelSelector: KUBECONFIG_SECRET_SELECTOR }) : undefined;
  const managedSecrets = config.infrastructureManager
    ? manager.informer<Secret>(SECRET_KIND, { namespace, labelSelector: `${LabelKymaManagedBy}=${ManagedByInfrastructureManager}` })
    : undefined;
  const remoteClusters = new RemoteClusterCache({
    client: kcp,
    kubeconfigFor: kubeconfigRefOfKey,
    // A runtime's first client is built from the Secret these informers hold, without a GET; when
    // both hold it at different versions (one has seen a rotation the other has not yet), it is read.
    cachedSecret: (ref) => {
      const key = refString(ref);
      const a = kymaSecrets?.store.get(key);
      const b = managedSecrets?.store.get(key);
      if (a && b && a.metadata.resourceVersion !== b.metadata.resourceVersion) return undefined;
      return a ?? b;
    },
    // One retry for a runtime that does not answer or fails (its Kyma reports it and is looked at
    // again soon); a runtime that throttles (429 with Retry-After) is waited for up to 10 attempts, as
    // client-go does, so that throttling alone does not make a module Error.
    clientOptions: { requestTimeoutMs: config.remoteRequestTimeoutMs ?? 10_000, retries: { attempts: 2, throttledAttempts: 10 } },
    log: logger,
  });
  const unsubscribe = [kymaSecrets, managedSecrets].flatMap((informer) =>
    informer
      ? [
          informer.addHandlers({
            onAdd: (s) => remoteClusters.secretChanged(s),
            onUpdate: (_old, s) => remoteClusters.secretChanged(s),
            onDelete: (s) => remoteClusters.secretDeleted({ namespace: s.metadata.namespace, name: s.metadata.name ?? '' }),
          }),
        ]
      : [],
  );

  let infrastructure: InfrastructureManager | undefined;
  if (config.infrastructureManager && opts.garden && opts.gardenerProject && opts.converterConfig) {
    infrastructure = setupInfrastructureManager(manager, {
      kcp,
      garden: opts.garden,
      project: opts.gardenerProject,
      converterConfig: opts.converterConfig,
      ...(config.auditLogMandatory !== undefined ? { auditLogMandatory: config.auditLogMandatory } : {}),
      ...(config.registryCache ? { registryCache: config.registryCache } : {}),
      remoteClusters,
      namespace,
      timing: runtimeTimingOf(config),
      runtimeWorkers: config.runtimeWorkers,
      // The Kyma kind is served where the lifecycle manager runs: a deleted Runtime then waits for its Kyma.
      watchKymas: config.lifecycleManager,
      gardenerCluster: {
        expirationSeconds: config.kubeconfigExpirationSeconds,
        minimalRotationTimeRatio: config.minimalRotationTimeRatio,
        rotationPeriodRatio: config.rotationPeriodRatio,
        workers: config.gardenerClusterWorkers,
        reconcileTimeoutMs: config.gardenerClusterReconcileTimeoutMs,
        ...(config.missingShootRetryMs !== undefined ? { missingShootRetryMs: config.missingShootRetryMs } : {}),
      },
      logger: logger.child('infrastructure-manager'),
    });
  }
  // The webhook that refuses a second Runtime with one runtime id, answered from the Runtime
  // controller's cache (it fills once the manager starts; until then every Runtime is let through).
  let runtimeAdmission: RuntimeAdmission | undefined;
  if (infrastructure && config.runtimeAdmission) {
    try {
      runtimeAdmission = await startRuntimeAdmission({
        kcp,
        namespace,
        runtimes: manager.cache<RuntimeObject>(Runtime, { namespace }),
        config: config.runtimeAdmission,
        log: logger.child('runtime-admission'),
      });
    } catch (e) {
      remoteClusters.close();
      throw e;
    }
  }
  // The runtime watcher: CA and listener first, so that the webhook installed into runtimes points
  // at a listener that already serves.
  let watcher: WatcherRuntime | undefined;
  if (config.watcher && config.lifecycleManager) {
    try {
      watcher = await startWatcherRuntime({ kcp, namespace, config: config.watcher, registry: manager.registry, log: logger.child('watcher') });
      await ensureDefaultWatchers(kcp, namespace, watcherServiceOf(config));
    } catch (e) {
      await watcher?.stop();
      await runtimeAdmission?.stop();
      remoteClusters.close();
      throw e;
    }
    setupWatcherController(manager, { namespace, listener: { served: config.watcher.trustGateway ? 'gateway' : 'direct', address: watcher.kcpAddress } });
  }
  if (kymaSecrets) {
    lifecycle = setupLifecycleManager(manager, {
      namespace,
      secrets: kymaSecrets.store,
      remoteClients: remoteClusters,
      fetcher: opts.fetcher ?? new OciArtifactFetcher(),
      intervals: config.kymaIntervals,
      manifestIntervals: config.manifestIntervals,
      runtimeCheckMs: config.kymaRuntimeCheckMs,
      driftCheckMs: config.manifestDriftCheckMs,
      eventRecheckMs: config.watcherEventRecheckMs,
      maxConcurrentReconciles: config.kymaWorkers,
      maxConcurrentManifestReconciles: config.manifestWorkers,
      purgeGraceMs: config.purgeGraceMs,
      remoteCleanupTimeoutMs: config.remoteCleanupTimeoutMs,
      restrictedModules: config.restrictedModules,
      moduleSync: config.moduleSync,
      maintenancePolicy: config.maintenancePolicy,
      minMaintenanceWindowMs: config.minMaintenanceWindowMs,
      ociRegistryCredSecret: config.ociRegistryCredSecret,
      skrImagePullSecret: config.skrImagePullSecret,
      watcherEvents: opts.watcherEvents,
      watcher: watcher
        ? {
            image: config.watcher?.image ?? '',
            command: config.watcher?.command,
            kcpAddress: watcher.kcpAddress,
            ca: watcher.ca,
            pki: watcher.pki,
            lastEventAt: (runtimeId) => watcher?.listener.lastEventAt(runtimeId),
            resyncMs: config.watcher?.webhookResyncMs,
            listenerService: watcherServiceOf(config),
          }
        : undefined,
    });
    const router = lifecycle.watcherEvents;
    if (watcher && router) {
      watcher.listener.handle(LIFECYCLE_MANAGER_EVENTS, (e) => router.kymaChanged(e));
      watcher.listener.handle(MODULE_RESOURCE_EVENTS, (e) => router.moduleResourceChanged(e));
      watcher.listener.handle(MODULE_STATUS_EVENTS, (e) => router.moduleStatusChanged(e));
      watcher.listener.handle(MODULE_CONFIG_EVENTS, (e) => router.moduleConfigChanged(e));
      // A new CA means new runtime certificates: every Kyma gets them now, not at its next requeue.
      watcher.onCaChanged = () => router.wakeAll();
    }
  }

  let metricsServer: OperationsServer | undefined;
  if (config.metrics && !sameAddress) {
    try {
      metricsServer = await startOperationsServer({
        port: config.metrics.port,
        host: config.metrics.host,
        registry: manager.registry,
        healthChecks: new Map([['ping', () => true]]),
        readyChecks: new Map(),
      });
    } catch (e) {
      remoteClusters.close();
      await watcher?.stop();
      await runtimeAdmission?.stop();
      throw new Error(`cannot serve metrics on ${config.metrics.host}:${config.metrics.port}: ${(e as Error).message}`, { cause: e });
    }
  }

  const lifetime = new AbortController();
  const onAbort = (): void => lifetime.abort(opts.signal?.reason);
  if (opts.signal?.aborted) lifetime.abort(opts.signal.reason);
  else opts.signal?.addEventListener('abort', onAbort, { once: true });
  const running = manager.start(lifetime.signal);
  // Follows leadership until the control plane stops, and removes the label before the client closes.
  const labelling = leaderPodLabel?.run(lifetime.signal);
  const done = running
    .catch((e: unknown) => {
      logger.error('control plane failed', { error: e });
      throw e;
    })
    .finally(async () => {
      opts.signal?.removeEventListener('abort', onAbort);
      // The manager may end on its own (a failure at start): the label loop stops with it.
      lifetime.abort(new Error('control plane stopped'));
      await labelling;
      for (const off of unsubscribe) off();
      remoteClusters.close();
      await metricsServer?.close();
      await watcher?.stop();
      await runtimeAdmission?.stop();
    });
  // Failures surface through done and ready(); keep them from becoming unhandled rejections here.
  done.catch(() => undefined);

  // Rejects when the manager ends before it was ready: with its error, or with this one.
  const stoppedEarly: Promise<never> = done.then(() => {
    throw new Error('the control plane stopped before it was ready');
  });
  stoppedEarly.catch(() => undefined);
  try {
    await waitForOperationsServer(manager, config, stoppedEarly);
  } catch (e) {
    lifetime.abort(e);
    await done.catch(() => undefined);
    const code = (e as NodeJS.ErrnoException).code;
    if (config.health && (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')) {
      throw new Error(`cannot serve health probes on ${config.health.host}:${config.health.port}: ${(e as Error).message}`, { cause: e });
    }
    throw e;
  }
  await announceControlPlane(kcp, namespace, identity, logger, lifetime.signal);
  logger.info('controllers started', {
    identity,
    infrastructureManager: config.infrastructureManager,
    lifecycleManager: config.lifecycleManager,
    namespace,
    coordination: config.leaderElection ? 'leader-election' : config.sharding ? `${config.sharding.shards} shards` : 'none',
    metrics: metricsServer?.url ?? (sameAddress ? manager.operationsUrl : undefined),
    health: manager.operationsUrl,
  });

  let stopping: Promise<void> | undefined;
  return {
    manager,
    identity,
    remoteClusters,
    infrastructure,
    lifecycle,
    watcher,
    runtimeAdmission,
    metricsUrl: metricsServer?.url ?? (sameAddress ? manager.operationsUrl : undefined),
    healthUrl: manager.operationsUrl,
    ready: () => Promise.race([manager.ready(), stoppedEarly]),
    stop: () =>
      (stopping ??= (async () => {
        lifetime.abort(new Error('control plane stopped'));
        await done.catch(() => undefined);
      })()),
    done,
  };
}

/** The listener's Service as Watchers name it (VirtualServices route to it behind a gateway). */
function watcherServiceOf(config: ControlPlaneConfig): ListenerService {
  return { serviceName: DEFAULT_LISTENER.serviceName, serviceNamespace: config.namespace, port: config.watcher?.listen.port || DEFAULT_LISTENER.port };
}

/** The manager opens its health server inside start(): wait until it listens, or start failed. */
async function waitForOperationsServer(manager: Manager, config: ControlPlaneConfig, failed: Promise<never>): Promise<void> {
  if (!config.health) return;
  let timer: NodeJS.Timeout | undefined;
  const listening = new Promise<void>((resolve, reject) => {
    const deadline = Date.now() + 10_000;
    const poll = (): void => {
      if (manager.operationsUrl) resolve();
      else if (Date.now() > deadline) reject(new Error(`cannot serve health probes on ${config.health?.host}:${config.health?.port} within 10 s`));
      else timer = setTimeout(poll, 10);
    };
    poll();
  });
  try {
    await Promise.race([listening, failed]);
  } finally {
    clearTimeout(timer);
  }
}
