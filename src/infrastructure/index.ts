// The infrastructure manager: the Runtime controller and the GardenerCluster controller in one
// manager on the KCP, talking to the garden cluster of one Gardener project.
//
//   const im = startInfrastructureManager({ kcp, garden, project: 'kyma-dev', converterConfig }, signal);
//   await im.ready();
//   ...
//   await im.stop();
import type { Client } from '../runtime/client/interface.js';
import type { Logger } from '../runtime/log.js';
import { type Manager, newManager } from '../runtime/manager.js';
import type { Registry } from '../runtime/metrics.js';
import type { ConverterConfig } from './converter/index.js';
import { type GardenerClusterControllerOptions, setupGardenerClusterController } from './gardener-cluster/index.js';
import type { RuntimeTiming } from './runtime/machine.js';
import { DEFAULT_RUNTIME_NAMESPACE, type RuntimeControllerHandle, type RuntimeControllerOptions, setupRuntimeController } from './runtime/controller.js';

export { DEFAULT_RUNTIME_NAMESPACE, FIELD_MANAGER, RUNTIME_CONTROLLER_NAME, RuntimeReconciler, setupRuntimeController } from './runtime/controller.js';
export type { RuntimeControllerHandle, RuntimeControllerOptions } from './runtime/controller.js';
export { defaultRuntimeTiming, type RuntimeTiming, type Step, type Machine, type SystemState } from './runtime/machine.js';

export interface InfrastructureManagerOptions {
  /** Client of the KCP: Runtimes, GardenerClusters, kubeconfig Secrets. */
  kcp: Client;
  /** Client of the garden cluster with access to the project's Shoots. */
  garden: Client;
  /** Gardener project (Shoots in `garden-<project>`). */
  project: string;
  converterConfig: ConverterConfig;
  /** Namespace of Runtimes and GardenerClusters in the KCP (default kcp-system). */
  namespace?: string;
  metrics?: Registry;
  logger?: Logger;
  /** Requeue durations of the Runtime state machine (defaults as upstream: 10-15 s). */
  timing?: Partial<RuntimeTiming>;
  /** Parallel reconciles of the Runtime controller (default 25). */
  runtimeWorkers?: number;
  /** Validity of the kubeconfigs the GardenerCluster controller fetches (default as upstream, 24 h). */
  kubeconfigExpirationSeconds?: number;
  /** Further options of the GardenerCluster controller. */
  gardenerCluster?: Omit<GardenerClusterControllerOptions, 'garden' | 'kcp' | 'project' | 'namespace' | 'logger' | 'expirationSeconds'>;
  /** Further options of the Runtime controller (e.g. another cluster preparation). */
  runtime?: Pick<RuntimeControllerOptions, 'prepareCluster' | 'remoteClusters'>;
  /** Port of /metrics, /healthz, /readyz (none when undefined). */
  operationsPort?: number;
  /** How long stop() waits for in-flight reconciles (default 30 s). */
  gracefulShutdownTimeoutMs?: number;
}

export interface InfrastructureManager {
  manager: Manager;
  runtime: RuntimeControllerHandle;
  /** Resolves when the caches are synced and the controllers run. */
  ready(): Promise<void>;
  /** Stops the controllers (in-flight reconciles finish) and resolves when everything stopped. */
  stop(): Promise<void>;
  /** Resolves when the manager stopped (after stop() or the signal). */
  done: Promise<void>;
}

export function startInfrastructureManager(opts: InfrastructureManagerOptions, signal?: AbortSignal): InfrastructureManager {
  const namespace = opts.namespace ?? DEFAULT_RUNTIME_NAMESPACE;
  const manager = newManager({
    client: opts.kcp,
    name: 'infrastructure-manager',
    logger: opts.logger,
    registry: opts.metrics,
    operationsPort: opts.operationsPort,
    gracefulShutdownTimeoutMs: opts.gracefulShutdownTimeoutMs,
  });
  const runtime = setupRuntimeController(manager, {
    kcp: opts.kcp,
    garden: opts.garden,
    project: opts.project,
    converterConfig: opts.converterConfig,
    namespace,
    timing: opts.timing,
    workers: opts.runtimeWorkers,
    logger: opts.logger,
    ...opts.runtime,
  });
  setupGardenerClusterController(manager, {
    ...opts.gardenerCluster,
    garden: opts.garden,
    kcp: opts.kcp,
    project: opts.project,
    namespace,
    expirationSeconds: opts.kubeconfigExpirationSeconds,
    logger: opts.logger,
  });

  const lifetime = new AbortController();
  const onAbort = () => lifetime.abort(signal?.reason);
  if (signal?.aborted) lifetime.abort(signal.reason);
  else signal?.addEventListener('abort', onAbort, { once: true });
  const done = manager.start(lifetime.signal).finally(() => signal?.removeEventListener('abort', onAbort));
  // Failures surface through done; keep them from becoming unhandled rejections.
  done.catch(() => undefined);

  return {
    manager,
    runtime,
    ready: () => Promise.race([manager.ready(), done.then(() => Promise.reject(new Error('infrastructure manager stopped before it was ready')))]),
    stop: async () => {
      lifetime.abort(new Error('infrastructure manager stopped'));
      await done;
    },
    done,
  };
}
