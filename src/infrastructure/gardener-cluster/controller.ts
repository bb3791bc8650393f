// The GardenerCluster controller (upstream: internal/controller/kubeconfig): keeps an admin
// kubeconfig of each Shoot in the Secret the GardenerCluster names, rotates it before it expires
// (or at once on the force-rotation annotation, which it then removes), reports the
// KubeconfigManagement condition, and deletes the Secret once the GardenerCluster is gone.
import {
  AnnotationForceKubeconfigRotation,
  AnnotationKubeconfigExpiration,
  AnnotationLastKubeconfigSync,
  ConditionReasonFailedToCreateSecret,
  ConditionReasonFailedToGetKubeconfig,
  ConditionReasonFailedToGetSecret,
  ConditionReasonFailedToUpdateSecret,
  ConditionReasonKubeconfigSecretCreated,
  ConditionReasonKubeconfigSecretRotated,
  ConditionTypeKubeconfigManagement,
  GardenerCluster,
  type GardenerClusterConditionReason,
  type GardenerClusterObject,
  LabelKymaRuntimeID,
} from '../../api/infrastructuremanager/index.js';
import type { CachedReader } from '../../runtime/cache/own-writes.js';
import { isConflict, isNotFound } from '../../runtime/client/errors.js';
import type { Client } from '../../runtime/client/interface.js';
import type { ReconcileResult, Request } from '../../runtime/controller.js';
import type { Logger } from '../../runtime/log.js';
import type { Gauge } from '../../runtime/metrics.js';
import { namespacedName } from '../../kube/keys.js';
import type { IssuedKubeconfig, KubeconfigProvider } from './admin-kubeconfig.js';
import { formatLastSync, msUntilRotation, parseLastSync, rotationAfterMs, type RotationPolicy } from './rotation.js';
import { kubeconfigProblem, newKubeconfigSecret, rotatedSecret, SECRET_KIND, type SecretObject, secretSelector, type SyncedKubeconfig } from './secret.js';
import { errorStatus, nextStatus, readyStatus, type StatusChange } from './status.js';
import { linkedSignal } from '../../util/signals.js';

export interface GardenerClusterMetrics {
  /** 1 per GardenerCluster for its current state and condition reason (upstream `im_gardener_clusters_state`). */
  state: Gauge;
  /** When the current kubeconfig is rotated, epoch seconds (upstream `im_kubeconfig_expiration`). */
  rotation: Gauge;
}

export interface GardenerClusterReconcilerDeps {
  /** The KCP; every GardenerCluster and Secret write goes through it (so that the readers below wait for it). */
  kcp: Client;
  /** The GardenerClusters and the kubeconfig Secrets, from the informers unless this controller's own write has not reached them (own-writes.ts); GETs when absent. */
  clusters: Pick<CachedReader<GardenerClusterObject>, 'get'>;
  secrets: Pick<CachedReader<SecretObject>, 'get' | 'writes'>;
  provider: KubeconfigProvider;
  policy: RotationPolicy;
  log: Logger;
  /** A reconcile (Gardener call included) is aborted after this long. */
  reconcileTimeoutMs: number;
  /** When Gardener does not know the Shoot (404), look again after this long. */
  missingShootRetryMs: number;
  /** Namespace searched for the Secrets of deleted GardenerClusters (all when unset). */
  secretNamespace?: string;
  metrics?: GardenerClusterMetrics;
  now?: () => number;
}

/** Thrown after the status was written, so the key goes back to the queue with backoff. */
class ReportedError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'ReportedError';
  }
}

export class GardenerClusterReconciler {
  private readonly now: () => number;
  /** Label sets of the metric series per GardenerCluster key, to drop them when it is gone. */
  private readonly series = new Map<string, { state: Record<string, string>; rotation?: Record<string, string> }>();

  constructor(private readonly deps: GardenerClusterReconcilerDeps) {
    this.now = deps.now ?? Date.now;
  }

  async reconcile(req: Request, parent: AbortSignal): Promise<ReconcileResult> {
    // Linked, not AbortSignal.any: that would leave an entry on the long-lived parent per reconcile.
    const linked = linkedSignal(parent, AbortSignal.timeout(this.deps.reconcileTimeoutMs));
    try {
      return await this.reconcileWithin(req, linked.signal);
    } finally {
      linked.dispose();
    }
  }

  private async reconcileWithin(req: Request, signal: AbortSignal): Promise<ReconcileResult> {
    const cluster = await this.deps.clusters.get(req, { signal, confirmAbsent: true });
    if (!cluster) {
      await this.deleteSecrets(req, signal);
      this.forgetMetrics(req);
      return {};
    }
    // No finalizer (as upstream): a GardenerCluster being deleted is left alone; its Secret goes when it is gone.
    if (cluster.metadata.deletionTimestamp) return {};

    const ref = cluster.spec.kubeconfig.secret;
    let secret: SecretObject | undefined;
    try {
      secret = await this.deps.secrets.get({ namespace: ref.namespace, name: ref.name }, { signal, confirmAbsent: true });
    } catch (e) {
      return this.fail(cluster, errorStatus(ConditionReasonFailedToGetSecret, e), e, signal);
    }

    const forced = cluster.metadata.annotations?.[AnnotationForceKubeconfigRotation] !== undefined;
    const annotations = secret?.metadata.annotations ?? {};
    // A Secret that does not hold this Shoot's kubeconfig as written (overwritten, issued for another Shoot) is repaired now.
    const problem = secret ? kubeconfigProblem(secret, cluster) : undefined;
    const lastSync = !secret || problem ? undefined : parseLastSync(annotations[AnnotationLastKubeconfigSync]);
    const expiresAt = parseLastSync(annotations[AnnotationKubeconfigExpiration]);
    const wait = msUntilRotation(this.deps.policy, lastSync, this.now(), expiresAt);
    if (!forced && secret && lastSync !== undefined && wait > 0) {
      await this.writeStatus(cluster, readyStatus(this.currentReadyReason(cluster) ?? ConditionReasonKubeconfigSecretCreated), signal);
      this.recordMetrics(cluster, lastSync, expiresAt);
      return { requeueAfterMs: wait };
    }

    let issued: IssuedKubeconfig;
    try {
      issued = await this.deps.provider.fetch(cluster.spec.shoot.name, signal);
    } catch (e) {
      await this.writeStatus(cluster, errorStatus(ConditionReasonFailedToGetKubeconfig, e), signal).catch(() => undefined);
      if (isNotFound(e)) {
        this.deps.log.warn('shoot not found in Gardener; looking again later', { ...req, shoot: cluster.spec.shoot.name });
        return { requeueAfterMs: this.deps.missingShootRetryMs };
      }
      throw new ReportedError(e);
    }

    const syncedAt = this.now();
    const sync: SyncedKubeconfig = { kubeconfig: issued.kubeconfig, lastSync: formatLastSync(new Date(syncedAt)), expiresAt: issued.expirationTimestamp };
    try {
      if (secret) await this.deps.kcp.update(rotatedSecret(secret, cluster, sync), { signal });
      else await this.deps.kcp.create(newKubeconfigSecret(cluster, sync), { signal });
    } catch (e) {
      // Changed by someone else since the copy this pass read: the next pass reads it from the API server.
      if (isConflict(e)) this.deps.secrets.writes.distrust(namespacedName({ namespace: ref.namespace, name: ref.name }));
      return this.fail(cluster, errorStatus(secret ? ConditionReasonFailedToUpdateSecret : ConditionReasonFailedToCreateSecret, e), e, signal);
    }
    if (problem) this.deps.log.warn('kubeconfig secret repaired', { ...req, secret: `${ref.namespace}/${ref.name}`, problem });
    else {
      this.deps.log.info(secret ? (forced ? 'kubeconfig rotated on request' : 'kubeconfig rotated') : 'kubeconfig secret created', {
        ...req,
        secret: `${ref.namespace}/${ref.name}`,
      });
    }

    if (forced) await this.removeForceAnnotation(req, signal);
    await this.writeStatus(cluster, readyStatus(secret ? ConditionReasonKubeconfigSecretRotated : ConditionReasonKubeconfigSecretCreated), signal);
    // The annotation has whole seconds: time the next rotation from what the next reconcile will read.
    const syncedMs = parseLastSync(sync.lastSync) ?? syncedAt;
    const newExpiresAt = parseLastSync(sync.expiresAt);
    this.recordMetrics(cluster, syncedMs, newExpiresAt);
    return { requeueAfterMs: Math.max(1, msUntilRotation(this.deps.policy, syncedMs, this.now(), newExpiresAt)) };
  }

  /**
   * The reason of a Ready condition already reported. Upstream writes KubeconfigSecretCreated on every
   * reconcile that finds nothing to rotate, so `Rotated` lasts until the next event; keeping it tells
   * what happened last.
   */
  private currentReadyReason(cluster: GardenerClusterObject): GardenerClusterConditionReason | undefined {
    const c = cluster.status?.conditions?.find((x) => x.type === ConditionTypeKubeconfigManagement);
    if (c?.status !== 'True') return undefined;
    return c.reason === ConditionReasonKubeconfigSecretRotated || c.reason === ConditionReasonKubeconfigSecretCreated ? c.reason : undefined;
  }

  private async fail(cluster: GardenerClusterObject, change: StatusChange, error: unknown, signal: AbortSignal): Promise<never> {
    await this.writeStatus(cluster, change, signal).catch((e: unknown) => this.deps.log.warn('status update failed', { namespace: cluster.metadata.namespace, name: cluster.metadata.name, error: e }));
    throw new ReportedError(error);
  }

  private async writeStatus(cluster: GardenerClusterObject, change: StatusChange, signal: AbortSignal): Promise<void> {
    const status = nextStatus(cluster, change, new Date(this.now()));
    this.recordState(cluster, change);
    if (!status) return;
    await this.deps.kcp.patch(GardenerCluster, { namespace: cluster.metadata.namespace, name: cluster.metadata.name ?? '' }, 'merge', { status }, { subresource: 'status', signal });
  }

  private async removeForceAnnotation(req: Request, signal: AbortSignal): Promise<void> {
    try {
      await this.deps.kcp.patch(GardenerCluster, req, 'merge', { metadata: { annotations: { [AnnotationForceKubeconfigRotation]: null } } }, { signal });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  /** Deletes the Secrets written for a GardenerCluster that is gone (found by label, as upstream). */
  private async deleteSecrets(req: Request, signal: AbortSignal): Promise<void> {
    const { items } = await this.deps.kcp.list<SecretObject>(SECRET_KIND, { namespace: this.deps.secretNamespace, labelSelector: secretSelector(req.name), signal });
    for (const s of items) {
      // A Secret owned by a GardenerCluster of the same name in another namespace is not ours.
      const owner = s.metadata.ownerReferences?.find((o) => o.kind === GardenerCluster.kind && o.controller);
      if (owner && s.metadata.namespace !== req.namespace) continue;
      try {
        await this.deps.kcp.delete(SECRET_KIND, { namespace: s.metadata.namespace, name: s.metadata.name ?? '' }, { signal, preconditions: s.metadata.uid ? { uid: s.metadata.uid } : undefined });
        this.deps.log.debug('kubeconfig secret deleted: its GardenerCluster is gone', { ...req, secret: `${s.metadata.namespace ?? ''}/${s.metadata.name ?? ''}` });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
  }

  private recordState(cluster: GardenerClusterObject, change: StatusChange): void {
    const metrics = this.deps.metrics;
    if (!metrics) return;
    const key = namespacedName(cluster);
    const labels = { runtimeId: cluster.metadata.labels?.[LabelKymaRuntimeID] ?? cluster.metadata.name ?? '', shootName: cluster.spec.shoot.name, state: change.state, reason: change.reason };
    const known = this.series.get(key);
    if (known) metrics.state.remove(known.state);
    metrics.state.set(labels, 1);
    this.series.set(key, { ...known, state: labels });
  }

  private recordMetrics(cluster: GardenerClusterObject, lastSyncMs: number, expiresAtMs: number | undefined): void {
    const metrics = this.deps.metrics;
    if (!metrics) return;
    const labels = { runtimeId: cluster.metadata.labels?.[LabelKymaRuntimeID] ?? cluster.metadata.name ?? '', shootName: cluster.spec.shoot.name };
    metrics.rotation.set(labels, Math.round((lastSyncMs + rotationAfterMs(this.deps.policy, lastSyncMs, expiresAtMs)) / 1000));
    const known = this.series.get(namespacedName(cluster));
    if (known) known.rotation = labels;
  }

  private forgetMetrics(req: Request): void {
    const key = namespacedName(req);
    const known = this.series.get(key);
    if (!known) return;
    this.deps.metrics?.state.remove(known.state);
    if (known.rotation) this.deps.metrics?.rotation.remove(known.rotation);
    this.series.delete(key);
  }
}
