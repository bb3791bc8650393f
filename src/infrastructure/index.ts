// The infrastructure manager: the Runtime controller, the GardenerCluster controller and (optional) the
// registry cache controller, added to a manager on the KCP, talking to the garden cluster of one Gardener project. The control plane's
// composition root (src/controlplane) calls this; nothing else starts these controllers.
//
//   const im = setupInfrastructureManager(manager, { kcp, garden, project: 'kyma-dev', converterConfig, remoteClusters });
import type { Client } from '../runtime/client/interface.js';
import type { Logger } from '../runtime/log.js';
import type { Manager } from '../runtime/manager.js';
import type { RemoteClusterCache } from '../runtime/remote/cache.js';
import type { ConverterConfig } from './converter/index.js';
import { type GardenerClusterControllerHandle, type GardenerClusterControllerOptions, setupGardenerClusterController } from './gardener-cluster/index.js';
import type { RuntimeTiming } from './runtime/machine.js';
import { setupRegistryCacheController } from './registry-cache/controller.js';
import { DEFAULT_RUNTIME_NAMESPACE, type RuntimeControllerHandle, type RuntimeControllerOptions, setupRuntimeController } from './runtime/controller.js';

export { DEFAULT_RUNTIME_NAMESPACE, FIELD_MANAGER, RUNTIME_CONTROLLER_NAME, RuntimeReconciler, setupRuntimeController } from './runtime/controller.js';
export type { RuntimeControllerHandle, RuntimeControllerOptions } from './runtime/controller.js';
export { DEFAULT_REGISTRY_CACHE_RESYNC_MS, REGISTRY_CACHE_CONTROLLER_NAME, RegistryCacheConfigKind } from './registry-cache/controller.js';
export { defaultRuntimeTiming, type RuntimeTiming, type Step, type Machine, type SystemState } from './runtime/machine.js';

export interface InfrastructureManagerOptions {
  /** Client of the KCP: Runtimes, GardenerClusters, kubeconfig Secrets. */
  kcp: Client;
  /** Client of the garden cluster with access to the project's Shoots. */
  garden: Client;
  /** Gardener project (Shoots in `garden-<project>`). */
  project: string;
  converterConfig: ConverterConfig;
  /** Fail Runtimes without an audit log tenant for their provider and region (upstream `--audit-log-mandatory`; default false). */
  auditLogMandatory?: boolean;
  /** Clients of the runtime clusters, keyed by kubeconfig Secret (`<namespace>/kubeconfig-<runtime id>`). */
  remoteClusters: RemoteClusterCache;
  /** Namespace of Runtimes and GardenerClusters in the KCP (default kcp-system). */
  namespace?: string;
  logger?: Logger;
  /** Requeue durations of the Runtime state machine (defaults as upstream: 10-15 s). */
  timing?: Partial<RuntimeTiming>;
  /** Parallel reconciles of the Runtime controller (default 25). */
  runtimeWorkers?: number;
  /** Watch the KCP's Kymas: a deleted Runtime deletes its Kyma and waits for it (needs the Kyma CRD). */
  watchKymas?: boolean;
  /** Options of the GardenerCluster controller (kubeconfig validity, rotation, workers). */
  gardenerCluster?: Omit<GardenerClusterControllerOptions, 'garden' | 'kcp' | 'project' | 'namespace' | 'logger'>;
  /**
   * The registry cache controller (RegistryCacheConfigs of each runtime -> `spec.imageRegistryCache`),
   * reading every runtime again after `resyncMs` (default 5 min); undefined: off.
   */
  registryCache?: { resyncMs?: number; workers?: number };
  /** Another cluster preparation (tests). */
  prepareCluster?: RuntimeControllerOptions['prepareCluster'];
}

export interface InfrastructureManager {
  runtime: RuntimeControllerHandle;
  gardenerCluster: GardenerClusterControllerHandle;
}

/** Adds the infrastructure manager's controllers to `manager` (which the caller starts). */
export function setupInfrastructureManager(manager: Manager, opts: InfrastructureManagerOptions): InfrastructureManager {
  const namespace = opts.namespace ?? DEFAULT_RUNTIME_NAMESPACE;
  const logger = opts.logger ?? manager.logger;
  const runtime = setupRuntimeController(manager, {
    kcp: opts.kcp,
    garden: opts.garden,
    project: opts.project,
    converterConfig: opts.converterConfig,
    auditLogMandatory: opts.auditLogMandatory,
    namespace,
    timing: opts.timing,
    workers: opts.runtimeWorkers,
    watchKymas: opts.watchKymas,
    logger,
    remoteClusters: opts.remoteClusters,
    ...(opts.prepareCluster ? { prepareCluster: opts.prepareCluster } : {}),
  });
  const gardenerCluster = setupGardenerClusterController(manager, {
    ...opts.gardenerCluster,
    garden: opts.garden,
    kcp: opts.kcp,
    project: opts.project,
    namespace,
    logger,
  });
  if (opts.registryCache) {
    setupRegistryCacheController(manager, { kcp: opts.kcp, remoteClusters: opts.remoteClusters, namespace, logger, ...opts.registryCache });
  }
  return { runtime, gardenerCluster };
}
