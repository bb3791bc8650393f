// Requeue reasons as upstream's lifecycle manager counts them: one counter,
// `lifecycle_mgr_requeue_reason_total{requeue_reason, requeue_type}`, shared by the Kyma and the
// Manifest controller (kyma-project/lifecycle-manager internal/pkg/metrics: kyma.go, manifest.go,
// shared.go). The controllers here name their outcomes in their own words; this table turns each
// outcome into upstream's reason and type where upstream has that case, and keeps the project's own
// name (snake_case, prefixed `kyma_` or `manifest_`) where it has none. docs/lifecycle-manager.md,
// "Requeue reasons", lists the mapping.
//
// How a runtime failed (unreachable, server errors, throttling, credentials) is what upstream folds
// into one reason; it is kept in `lifecycle_mgr_runtime_access_errors_total{controller, reason}`.
import type { Counter, Registry } from '../runtime/metrics.js';

export type RequeueType = 'intended' | 'unexpected';

export const REQUEUE_REASON_METRIC = 'lifecycle_mgr_requeue_reason_total';
export const RUNTIME_ACCESS_ERRORS_METRIC = 'lifecycle_mgr_runtime_access_errors_total';

/** Upstream's requeue reasons of the Kyma controller that this project records. */
export const KymaRequeueReasons = {
  CrdsSync: 'crds_sync',
  SyncContextRetrieval: 'sync_context_retrieval',
  StatusUpdateToDeleting: 'kyma_status_update_to_deleting',
  CleanupManifestCrs: 'manifest_crs_cleanup',
  RemoteKymaDeletion: 'remote_kyma_deletion',
  KymaDeletion: 'kyma_deletion',
  SkrWebhookResourcesInstallation: 'skr_webhook_installation',
  ModuleCatalogSync: 'module_catalog_sync',
  StatusSyncToRemote: 'status_sync_to_remote',
} as const;

/** Upstream's requeue reasons of the Manifest controller that this project records. */
export const ManifestRequeueReasons = {
  AddFinalizer: 'manifest_add_finalizer',
  SyncResourcesEnqueueRequired: 'manifest_sync_resources_enqueue_required',
  SyncResources: 'manifest_sync_resources',
  RenderResources: 'manifest_render_resources',
  PruneDiffNotFinished: 'manifest_prune_diff_not_finished',
  PreDeleteEnqueueRequired: 'manifest_pre_delete_enqueue_required',
  RemoveFinalizerInDeleting: 'manifest_remove_finalizer_in_deleting',
  RemoveFinalizerWhenSecretGone: 'manifest_remove_finalizer_when_secret_gone',
  ClientInit: 'manifest_client_init',
  Unauthorized: 'manifest_unauthorized',
} as const;

interface Counted {
  reason: string;
  /** Upstream's type for this case; the caller's when undefined. */
  type?: RequeueType;
}

/** Kyma controller outcomes (besides upstream's own reasons, which pass through as they are). */
const KYMA_OUTCOMES: Record<string, Counted> = {
  kyma_deletion_started: { reason: KymaRequeueReasons.StatusUpdateToDeleting, type: 'intended' },
  // Upstream returns "manifests still exist" as an error: a rate-limited, unexpected requeue.
  kyma_deletion_waiting_for_manifests: { reason: KymaRequeueReasons.CleanupManifestCrs, type: 'unexpected' },
  // No kubeconfig Secret yet: upstream cannot build the runtime's client either.
  kyma_waiting_for_kubeconfig: { reason: KymaRequeueReasons.SyncContextRetrieval, type: 'unexpected' },
};

/**
 * Manifest controller outcomes. `reconciled` is split by whether the state changed: upstream requeues
 * at once for a state that needs an update (manifest_sync_resources_enqueue_required).
 */
const MANIFEST_OUTCOMES: Record<string, Counted> = {
  'crds not established': { reason: ManifestRequeueReasons.SyncResourcesEnqueueRequired, type: 'intended' },
  'apply failed': { reason: ManifestRequeueReasons.SyncResources, type: 'unexpected' },
  'invalid manifest': { reason: ManifestRequeueReasons.RenderResources, type: 'unexpected' },
  'prune not finished': { reason: ManifestRequeueReasons.PruneDiffNotFinished, type: 'intended' },
  // Upstream renders for deletion and gets "waiting for module CRs deletion" back as an error.
  'module crs exist': { reason: ManifestRequeueReasons.RenderResources, type: 'unexpected' },
  'default cr deletion': { reason: ManifestRequeueReasons.PreDeleteEnqueueRequired, type: 'intended' },
  'resources deletion': { reason: ManifestRequeueReasons.PruneDiffNotFinished, type: 'intended' },
  // The module is removed; finalizers of others still hold the Manifest (upstream counts no reason).
  'other finalizers': { reason: 'manifest_waiting_for_other_finalizers', type: 'intended' },
  'clean pass': { reason: 'manifest_clean_pass' },
  orphaned: { reason: 'manifest_orphaned', type: 'unexpected' },
  'unexpected error': { reason: 'manifest_unexpected_error', type: 'unexpected' },
};

/** Upstream's Manifest reason for a runtime that cannot be used, by how it failed. */
const MANIFEST_ACCESS_REASONS: Record<string, string> = {
  Unauthorized: ManifestRequeueReasons.Unauthorized,
  Unreachable: ManifestRequeueReasons.Unauthorized,
  SecretNotFound: ManifestRequeueReasons.ClientInit,
  SecretInvalid: ManifestRequeueReasons.ClientInit,
};

/** The counters; one instance per controller, the series are shared through the registry. */
export class RequeueReasons {
  private readonly requeues: Counter;
  private readonly accessErrors: Counter;

  constructor(
    registry: Registry,
    private readonly controller: 'kyma' | 'manifest',
  ) {
    this.requeues = registry.counter({ name: REQUEUE_REASON_METRIC, help: 'Indicates the reason for requeue (Kyma and Manifest controllers, upstream reason names).', labelNames: ['requeue_reason', 'requeue_type'] });
    this.accessErrors = registry.counter({ name: RUNTIME_ACCESS_ERRORS_METRIC, help: 'Reconciles that could not use the runtime cluster, by controller and how the runtime failed.', labelNames: ['controller', 'reason'] });
  }

  /** Counts a Kyma controller outcome. */
  kyma(outcome: string, type: RequeueType): void {
    const remote = /^(kyma_deletion_)?remote_(.+)$/.exec(outcome);
    if (remote) {
      this.accessErrors.inc({ controller: this.controller, reason: remote[2] });
      this.count(remote[1] ? KymaRequeueReasons.RemoteKymaDeletion : KymaRequeueReasons.SyncContextRetrieval, 'unexpected');
      return;
    }
    if (outcome === 'kyma_waiting_for_kubeconfig') this.accessErrors.inc({ controller: this.controller, reason: 'SecretNotFound' });
    const mapped = KYMA_OUTCOMES[outcome];
    this.count(mapped?.reason ?? outcome, mapped?.type ?? type);
  }

  /** Counts a Manifest controller outcome; `stateChanged` tells a pass that moved the state. */
  manifest(outcome: string, type: RequeueType, stateChanged = false): void {
    const remote = /^remote_(.+)$/.exec(outcome);
    if (remote) {
      this.accessErrors.inc({ controller: this.controller, reason: remote[1] });
      this.count(MANIFEST_ACCESS_REASONS[remote[1]] ?? ManifestRequeueReasons.SyncResources, 'unexpected');
      return;
    }
    if (outcome === 'reconciled') {
      this.count(stateChanged ? ManifestRequeueReasons.SyncResourcesEnqueueRequired : 'manifest_reconciled', type);
      return;
    }
    const mapped = MANIFEST_OUTCOMES[outcome];
    this.count(mapped?.reason ?? outcome, mapped?.type ?? type);
  }

  private count(reason: string, type: RequeueType): void {
    this.requeues.inc({ requeue_reason: reason, requeue_type: type });
  }
}
