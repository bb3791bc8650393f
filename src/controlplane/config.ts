// What the control plane's controllers can be told: one shape for `kcp run` (real clusters) and
// `kcp up` (the embedded landscape), filled from the same flags (src/cli/controller-flags.ts).
// Defaults are upstream's; `defaultControlPlaneConfig()` is the one place they are written down.
import { DEFAULT_EXPIRATION_SECONDS, DEFAULT_MINIMAL_ROTATION_TIME_RATIO, DEFAULT_ROTATION_PERIOD_RATIO } from '../infrastructure/gardener-cluster/rotation.js';
import { defaultRuntimeTiming, type RuntimeTiming } from '../infrastructure/index.js';
import {
  DEFAULT_FEEDBACK_MS,
  DEFAULT_DRIFT_CHECK_MS,
  DEFAULT_INTERVALS,
  DEFAULT_MANIFEST_INTERVALS,
  DEFAULT_MIN_MAINTENANCE_WINDOW_MS,
  DEFAULT_MODULE_CONFIG_POLL_MS,
  DEFAULT_PURGE_GRACE_MS,
  DEFAULT_RUNTIME_CHECK_MS,
  DEFAULT_SYNC_RESYNC_MS,
  EVENT_RECHECK_MS,
  type ManifestRequeueIntervals,
  type RequeueIntervals,
} from '../lifecycle/index.js';
import { DEFAULT_TIMING as DEFAULT_LEASE_TIMING } from '../runtime/leader/election.js';
import type { MaintenanceWindowPolicy } from '../lifecycle/maintenance/policy.js';
import type { LeaderPod } from './leader-pod.js';
import type { WatcherConfig } from './watcher.js';
import type { RuntimeAdmissionConfig } from './runtime-admission.js';

/** A listen address: `:8080` is `{ host: '0.0.0.0', port: 8080 }`; port 0 picks a free port. */
export interface BindAddress {
  host: string;
  port: number;
}

export interface LeaseTiming {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export interface ControlPlaneConfig {
  /** Namespace of Runtimes, GardenerClusters, Kymas, the module catalog, Manifests and kubeconfig Secrets. */
  namespace: string;
  infrastructureManager: boolean;
  lifecycleManager: boolean;

  // Infrastructure manager.
  /** Longest wait while Gardener creates, updates or deletes a Shoot (upstream 15 s). */
  gardenerRequeueMs: number;
  /** Longest wait for a GardenerCluster or a cluster preparation (upstream 10 s). */
  controlPlaneRequeueMs: number;
  /** Finer Runtime requeue timing than the two flags above (no flag; tests and benchmarks). */
  runtimeTiming?: Partial<RuntimeTiming>;
  runtimeWorkers: number;
  gardenerClusterWorkers: number;
  gardenerClusterReconcileTimeoutMs: number;
  /** When Gardener does not know a GardenerCluster's Shoot, look again after this long (no flag; default 15 s). */
  missingShootRetryMs?: number;
  kubeconfigExpirationSeconds: number;
  minimalRotationTimeRatio: number;
  rotationPeriodRatio: number;
  /** Audit logging is mandatory: a Runtime without an audit log tenant for its provider and region fails (upstream `--audit-log-mandatory`; no flag; default false). */
  auditLogMandatory?: boolean;
  /** The registry cache controller: each runtime's RegistryCacheConfigs into its Runtime (no flag; undefined: off). */
  registryCache?: { resyncMs?: number };

  // Lifecycle manager.
  kymaIntervals: RequeueIntervals;
  manifestIntervals: ManifestRequeueIntervals;
  /** With the watcher: a Kyma's full runtime check (namespace, CRDs, runtime Kyma, catalog, webhook) runs at least this often (default 4 h). */
  kymaRuntimeCheckMs?: number;
  /** With the watcher: a Ready Manifest's objects are read back from its runtime at least this often (default 24 h). */
  manifestDriftCheckMs?: number;
  /** With the watcher: a pass that answered events and found nothing changed looks once more after this long (default 1 s). */
  watcherEventRecheckMs?: number;
  kymaWorkers: number;
  /** Parallel reconciles of the Manifest controller (no default here: the controller's own, 10). */
  manifestWorkers?: number;
  purgeGraceMs: number;
  /**
   * Opt-in bound (no flag): how long a Kyma's deletion retries a runtime that cannot be reached while
   * its kubeconfig Secret exists before skipping its cleanup. Unset (default): until the Secret is
   * removed, as upstream.
   */
  remoteCleanupTimeoutMs?: number;
  /** Upstream's `--restricted-modules`: modules offered only to Kymas their ModuleReleaseMeta's `spec.kymaSelector` selects. */
  restrictedModules?: readonly string[];
  /** Periodic passes of module resource synchronization (ModuleConfig, SyncResource). */
  moduleSync: ModuleSyncIntervals;
  /** Maintenance windows of upgrades that require downtime, in upstream's policy format (undefined: none, such upgrades are Error). */
  maintenancePolicy?: MaintenanceWindowPolicy;
  /** A maintenance window is used only while it lasts at least this much longer (upstream `--min-maintenance-window-size`, 20 min). */
  minMaintenanceWindowMs?: number;
  /** Secret in `namespace` (`kubernetes.io/dockerconfigjson`) whose credentials the Manifest controller pulls module artifacts with (upstream `--oci-registry-cred-secret`). */
  ociRegistryCredSecret?: string;
  /** Secret in `namespace` copied into every runtime's `kyma-system` and referenced by module Deployments and StatefulSets (upstream `--skr-image-pull-secret`). */
  skrImagePullSecret?: string;

  // Runtime clusters (both managers share one client per runtime).
  /** Per-request timeout of runtime clients (no flag; default 10 s). */
  remoteRequestTimeoutMs?: number;

  /** The runtime watcher (with the lifecycle manager; undefined: off, the lifecycle manager polls). */
  watcher?: WatcherConfig;
  /** The admission webhook that refuses a second Runtime with one runtime id (with the infrastructure manager; undefined: off). */
  runtimeAdmission?: RuntimeAdmissionConfig;

  // Coordination and operations.
  /** `pod`: the leader labels this Pod `kcp-controllers/leader=true` (leader-pod.ts), for a Service that sends the watcher's events to the leader only. */
  leaderElection?: LeaseTiming & { name: string; namespace: string; pod?: LeaderPod };
  sharding?: LeaseTiming & { shards: number; prefix: string; namespace: string };
  /** Where /metrics is served (undefined: off). */
  metrics?: BindAddress;
  /** Where /healthz and /readyz are served (undefined: off). */
  health?: BindAddress;
  gracefulShutdownTimeoutMs: number;
}

export interface ModuleSyncIntervals {
  /** Each ModuleConfig is copied from its runtime again this often (default: 30 s, with the watcher 5 min, as its events carry the changes). */
  moduleConfigResyncMs?: number;
  /** Each SyncResource is applied again this often (repairs changes made in the runtime). */
  syncResourceResyncMs: number;
  /** Feedback values of SyncResource items are read again this often. */
  feedbackMs: number;
}

export const DEFAULT_MODULE_SYNC: ModuleSyncIntervals = { syncResourceResyncMs: DEFAULT_SYNC_RESYNC_MS, feedbackMs: DEFAULT_FEEDBACK_MS };
/** The ModuleConfig pass without the watcher (with it, the watcher's fallback interval). */
export const DEFAULT_MODULE_CONFIG_RESYNC_MS = DEFAULT_MODULE_CONFIG_POLL_MS;

/** Upstream's defaults, both managers on, no coordination, no endpoints. */
export function defaultControlPlaneConfig(): ControlPlaneConfig {
  return {
    namespace: 'kcp-system',
    infrastructureManager: true,
    lifecycleManager: true,
    gardenerRequeueMs: defaultRuntimeTiming.gardenerRequeueMs,
    controlPlaneRequeueMs: defaultRuntimeTiming.controlPlaneRequeueMs,
    runtimeWorkers: 25,
    gardenerClusterWorkers: 25,
    gardenerClusterReconcileTimeoutMs: 60_000,
    kubeconfigExpirationSeconds: DEFAULT_EXPIRATION_SECONDS,
    minimalRotationTimeRatio: DEFAULT_MINIMAL_ROTATION_TIME_RATIO,
    rotationPeriodRatio: DEFAULT_ROTATION_PERIOD_RATIO,
    kymaIntervals: { ...DEFAULT_INTERVALS },
    manifestIntervals: { ...DEFAULT_MANIFEST_INTERVALS },
    kymaRuntimeCheckMs: DEFAULT_RUNTIME_CHECK_MS,
    manifestDriftCheckMs: DEFAULT_DRIFT_CHECK_MS,
    watcherEventRecheckMs: EVENT_RECHECK_MS,
    kymaWorkers: 4,
    purgeGraceMs: DEFAULT_PURGE_GRACE_MS,
    moduleSync: { ...DEFAULT_MODULE_SYNC },
    minMaintenanceWindowMs: DEFAULT_MIN_MAINTENANCE_WINDOW_MS,
    gracefulShutdownTimeoutMs: 30_000,
  };
}

/** Lease timing defaults (upstream's controller-runtime: 15 s, 10 s, 2 s). */
export const DEFAULT_LEASE: LeaseTiming = { ...DEFAULT_LEASE_TIMING };

/** The Runtime controller's timing: the two flags set every Shoot wait and the control-plane wait. */
export function runtimeTimingOf(config: ControlPlaneConfig): RuntimeTiming {
  const g = config.gardenerRequeueMs;
  return {
    ...defaultRuntimeTiming,
    gardenerRequeueMs: g,
    shootCreateRequeueMs: g,
    shootReconcileRequeueMs: g,
    shootDeleteRequeueMs: g,
    controlPlaneRequeueMs: config.controlPlaneRequeueMs,
    // A deleted Runtime waits for its Kyma at most as long as the purge lets a Kyma deletion hang.
    kymaDeletionTimeoutMs: config.purgeGraceMs,
    ...config.runtimeTiming,
  };
}
