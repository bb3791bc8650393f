// The Kyma controller: one reconcile moves a Kyma one step toward its desired state.
//   skip? -> deleting? (deletion.ts) -> finalizer+labels -> runtime access -> namespace, CRDs,
//   runtime Kyma (modules and channel follow the runtime) -> module catalog -> Manifests -> status -> requeue.
// A runtime without a kubeconfig Secret yet keeps the Kyma Processing (waiting for it); one that
// cannot be reached otherwise makes it Error with a message saying why. The Secret watch brings it
// back as soon as the Secret appears or is fixed.
//
// The runtime part (namespace, CRDs, runtime Kyma, catalog, webhook: the "full runtime check") runs
// on every reconcile without the runtime watcher. With it, a reconcile runs it only when something
// may have changed there (see fullCheckReason); a watcher event on the runtime Kyma reads only that
// Kyma (an "event pass"); a watcher event on the webhook's own objects there, or any pass after a
// check that found only the webhook not holding (a new runtime's, whose webhook is not available
// yet), reads the runtime Kyma and the webhook (a "webhook pass"); otherwise it works from the KCP
// caches alone and writes only what changed: the Manifests, the KCP status, the status mirrored
// into the runtime.
import {
  Finalizers,
  Kyma,
  KymaConditionMessages,
  KymaConditionTypes,
  LabelValues,
  Labels,
  Manifest,
  ModuleReleaseMeta,
  ModuleTemplate,
  States,
  Watcher,
  isEnabled,
  type KymaObject,
  type KymaStatus,
  type ManifestObject,
  type ModuleReleaseMetaObject,
  type ModuleTemplateObject,
  type State,
} from '../../api/operator/index.js';
import type { Condition } from '../../api/schema.js';
import type { Store } from '../../runtime/cache/store.js';
import type { Client } from '../../runtime/client/interface.js';
import { CachedReader, NotingClient, OwnWrites } from '../../runtime/cache/own-writes.js';
import { isConflict } from '../../runtime/client/errors.js';
import { type Controller, type KeySource, newControllerManagedBy, type ReconcileResult } from '../../runtime/controller.js';
import type { Logger } from '../../runtime/log.js';
import type { Manager } from '../../runtime/manager.js';
import { annotationsChanged, deletionChanged, generationChanged, labelsChanged, or, type Predicate } from '../../runtime/predicates.js';
import { jitter } from '../../runtime/timers.js';
import { canonicalJson, jsonEqual } from '../../kube/json.js';
import type { KubeObject } from '../../kube/object.js';
import type { CatalogView } from '../catalog/resolve.js';
import { catalogSyncEnabled, desiredCatalog, syncCatalog } from '../catalog/sync.js';
import type { LifecycleMetrics, RuntimeCheckReason } from '../metrics.js';
import { EVENT_RECHECK_MS, takeDue, untilRecheck } from '../watcher-events.js';
import { KymaRequeueReasons } from '../requeue-reasons.js';
import { accessErrorOf, KUBECONFIG_SECRET_SELECTOR, SECRET_KIND, type RuntimeAccess, type Secret } from '../remote/access.js';
import { FIELD_MANAGER, syncRemoteCrds } from '../remote/crds.js';
import { syncImagePullSecret } from '../remote/image-pull-secret.js';
import { ensureRemoteNamespace, mirrorStatus, syncRemoteKyma, writeRemoteStatus } from '../remote/kyma.js';
import type { SkrWebhookInstaller } from '../remote/skr-webhook.js';
import type { MaintenanceWindows } from '../maintenance/windows.js';
import { REMOVING_MODULES, runDeletion } from './deletion.js';
import { syncModules } from './modules.js';
import { DEFAULT_INTERVALS, intervalFor, type RequeueIntervals } from './options.js';
import { determineState, lastOperation, modulesCondition, removeCondition, setCondition, statusFingerprint } from './status.js';
import { createHash } from 'node:crypto';

export const KYMA_CONTROLLER_NAME = 'kyma';

export interface KymaControllerOptions {
  /** Namespace of Kymas, ModuleTemplates, ModuleReleaseMetas, Manifests and kubeconfig Secrets. */
  namespace: string;
  access: RuntimeAccess;
  metrics: LifecycleMetrics;
  intervals?: Partial<RequeueIntervals>;
  /** Opt-in: how long deletion retries an unreachable runtime whose kubeconfig Secret exists before skipping its cleanup (default: until the Secret is removed, as upstream). */
  remoteCleanupTimeoutMs?: number;
  maxConcurrentReconciles?: number;
  /** Keys from the runtime watcher (runtime Kyma or the webhook's objects changed), if one runs: they go ahead of other keys. */
  watcherEvents?: KeySource;
  /** Keys of Kymas the runtime watcher asks a full runtime check for (a CA rotation: every Kyma), in turn with other changes. */
  runtimeCheckKeys?: KeySource;
  /** Keeps the runtime watcher's webhook in every runtime, if the watcher runs. */
  skrWebhook?: SkrWebhookInstaller;
  /**
   * With the runtime watcher: a Kyma's full runtime check runs at least this often (jittered), and
   * otherwise only when asked for. Undefined (no watcher): every reconcile is a full runtime check.
   */
  runtimeCheckMs?: number;
  /** Kymas the runtime watcher asks a full runtime check for (marked before their key is enqueued). */
  runtimeChecks?: { take(key: string): boolean };
  /** Kymas whose runtime Kyma changed, as the runtime watcher reported (marked before their key is enqueued). */
  runtimeKymaEvents?: { take(key: string): boolean };
  /** Kymas whose webhook objects changed in the runtime (marked before their key is enqueued). */
  webhookEvents?: { take(key: string): boolean };
  /** An event pass that found the runtime Kyma unchanged looks once more after this long (default EVENT_RECHECK_MS). */
  eventRecheckMs?: number;
  /** Maintenance windows for module upgrades that require downtime. */
  maintenance?: MaintenanceWindows;
  /** Secret of `namespace` copied into every runtime's kyma-system (upstream `--skr-image-pull-secret`). */
  skrImagePullSecret?: string;
  /** Upstream's restricted modules (`--restricted-modules`): only for Kymas their ModuleReleaseMeta's `spec.kymaSelector` selects. */
  restrictedModules?: readonly string[];
}

/**
 * Why a pass looks at the webhook (a webhook pass): an event on its objects in the runtime, the
 * recheck of such a pass, or a last check that found only the webhook not holding (`unconfirmed`:
 * looking at it again is enough, the rest held).
 */
type WebhookLook = 'event' | 'recheck' | 'unconfirmed';

/**
 * What the last full runtime check of a Kyma found (and the event passes since, which move
 * generation, labels and mirrored along); forgotten when the Kyma goes (and on restart).
 */
interface RuntimeCheck {
  uid: string | undefined;
  generation: number | undefined;
  labels: Record<string, string>;
  /** The catalog and webhook conditions held. */
  healthy: boolean;
  /** Of them, only the webhook's did not hold: the next pass is a webhook pass, not a full check. */
  webhookOnly: boolean;
  /** When the next full check is due anyway. */
  dueAt: number;
  /** Fingerprint of the status last mirrored into the runtime Kyma. */
  mirrored?: string;
}

/** The status runtime admins see, by value (keys sorted): equal statuses need no mirror write. */
function mirrorFingerprint(status: KymaStatus): string {
  return createHash('sha256').update(canonicalJson(status)).digest('base64');
}

/** Conditions the full runtime check sets: while one does not hold, the next reconcile checks again. */
const RUNTIME_CONDITIONS: readonly string[] = [KymaConditionTypes.CRDsSync, KymaConditionTypes.SKRImagePullSecretSync, KymaConditionTypes.ModuleCatalog, KymaConditionTypes.SKRWebhook];

/** Processing only because modules are not settled: their Manifests' status changes wake the Kyma. */
function waitingOnlyForModules(status: KymaStatus): boolean {
  return status.state === States.Processing && (status.conditions ?? []).every((c) => c.type === KymaConditionTypes.Modules || c.status === 'True');
}

/** Caches the controllers of the lifecycle manager read (shared informers of the manager). */
export function catalogCaches(manager: Manager, namespace: string, restrictedModules?: ReadonlySet<string>) {
  const templates = manager.cache<ModuleTemplateObject>(ModuleTemplate, { namespace });
  const metas = manager.cache<ModuleReleaseMetaObject>(ModuleReleaseMeta, { namespace });
  const view: CatalogView = {
    releaseMeta: (moduleName) => metas.get(`${namespace}/${moduleName}`) ?? metas.list({ namespace }).find((m) => m.spec.moduleName === moduleName),
    template: (name) => templates.get(`${namespace}/${name}`),
    restrictedModules,
  };
  return { templates, metas, view };
}

/**
 * How long a Kyma's pass waits after a change of one of its Manifests, so that the changes of
 * modules installed or changed together make one pass and one status write (in the KCP and in the
 * runtime), not one each.
 */
export const MANIFEST_BATCH_MS = 1_000;

/** A Manifest that had a state has another one now. */
function stateChanged(old: ManifestObject | undefined, m: ManifestObject): boolean {
  return !!old?.status?.state && !!m.status?.state && old.status.state !== m.status.state;
}

const deletionStarted: Predicate = { update: (o, n) => !o.metadata.deletionTimestamp && !!n.metadata.deletionTimestamp };

type Ids = { shoot?: string; instanceId?: string };
function idsOf(kyma: KymaObject): Ids {
  return { shoot: kyma.metadata.labels?.[Labels.ShootName], instanceId: kyma.metadata.labels?.[Labels.InstanceID] };
}

class KymaReconciler {
  private readonly kcp: Client;
  private readonly log: Logger;
  private readonly intervals: RequeueIntervals;
  private readonly catalog: ReturnType<typeof catalogCaches>;
  private readonly manifests: Store<ManifestObject>;
  private readonly kymas: Store<KymaObject>;
  /** The Kyma a pass works on: from the cache unless this controller's own write has not reached it (own-writes.ts). */
  private readonly kymaReader: CachedReader<KymaObject>;
  private readonly kymaWrites: OwnWrites<KymaObject>;
  /** The last full runtime check per Kyma name. */
  private readonly checks = new Map<string, RuntimeCheck>();
  /** Full runtime checks asked for by KCP changes that concern the runtime (catalog entries, Watchers), by Kyma key. */
  private readonly asked = new Map<string, RuntimeCheckReason>();
  /**
   * Kymas whose event pass found the runtime Kyma unchanged (`kyma`), or whose webhook pass found
   * the webhook not available (`webhook`), by name, with when to look once more (performance.now();
   * the pass that asked requeued the Kyma for then).
   */
  private readonly rechecks = new Map<string, { dueAt: number; kyma: boolean; webhook: boolean }>();

  constructor(
    private readonly manager: Manager,
    private readonly opts: KymaControllerOptions,
  ) {
    const kymaInformer = manager.informer<KymaObject>(Kyma, { namespace: opts.namespace });
    this.kymaWrites = new OwnWrites(kymaInformer);
    // Every write of a Kyma by this controller is noted, so that the next pass waits for it.
    this.kcp = new NotingClient(manager.client, [{ kind: Kyma, writes: this.kymaWrites }]);
    this.kymaReader = new CachedReader(this.kcp, Kyma, this.kymaWrites);
    this.log = manager.logger.child('kyma');
    this.intervals = { ...DEFAULT_INTERVALS, ...opts.intervals };
    this.catalog = catalogCaches(manager, opts.namespace, new Set(opts.restrictedModules ?? []));
    this.manifests = manager.cache<ManifestObject>(Manifest, { namespace: opts.namespace });
    this.kymas = kymaInformer.store;
  }

  async reconcile(req: { namespace?: string; name: string }, signal: AbortSignal): Promise<ReconcileResult | void> {
    const result = await this.reconcileOnce(req, signal);
    // A webhook pass's recheck goes ahead of other keys, as the event it repeats did.
    const recheck = this.rechecks.get(req.name);
    return untilRecheck(result, recheck?.dueAt, recheck?.webhook === true);
  }

  private async reconcileOnce(req: { namespace?: string; name: string }, signal: AbortSignal): Promise<ReconcileResult | void> {
    const key = `${req.namespace ?? this.opts.namespace}/${req.name}`;
    // The marks are taken now: this reconcile is the one that answers them.
    const requested = this.opts.runtimeChecks?.take(key) ?? false;
    // A recheck answers the event of the pass that asked for it once more (the event may have come
    // before the API server stored the write it reports).
    const recheck = takeDue(this.rechecks, req.name);
    const freshEvent = this.opts.runtimeKymaEvents?.take(key) ?? false;
    const changedInRuntime = freshEvent || recheck?.kyma === true;
    const asked = this.asked.get(key);
    this.asked.delete(key);
    const last = this.checks.get(req.name);
    const webhook: WebhookLook | undefined = this.opts.webhookEvents?.take(key) ? 'event' : recheck?.webhook ? 'recheck' : last && !last.healthy && last.webhookOnly ? 'unconfirmed' : undefined;
    const cached = this.kymas.get(key);
    const reason = cached ? this.fullCheckReason(cached, last, requested, asked) : 'first';
    // The informer behind this process's own write (an event pass that followed the runtime): the
    // cached spec is older than the one the last pass settled, so this pass reads the Kyma first.
    const stale = !!cached && !!last && (cached.metadata.generation ?? 0) < (last.generation ?? 0);
    // The cached copy serves a cached pass only when no write of this controller is on its way to it.
    if (cached && !reason && !changedInRuntime && !webhook && !stale && !this.kymaWrites.lagging(key)) return this.cachedPass(structuredClone(cached), signal);
    // Older than what a pass already settled, even once the wait for that write was given up: from the API server.
    if (stale) this.kymaWrites.distrust(key);
    // A mark answered by nothing (the KCP read fails, the Kyma is skipped) must not be lost: without
    // the check record, the next reconcile makes a full check, which answers every mark.
    if (changedInRuntime || webhook || requested || asked) this.checks.delete(req.name);
    // From the cache, as upstream's cached client reads; from the API server while this
    // controller's own write is on its way to the cache.
    const kyma = await this.kymaReader.get({ namespace: req.namespace ?? this.opts.namespace, name: req.name }, { signal, confirmAbsent: true });
    if (!kyma) {
      // The runtime's client is not dropped here: it belongs to the kubeconfig Secret, which the
      // infrastructure manager may still use, and goes when the Secret goes.
      this.forget(req.name, {});
      return;
    }
    if (isEnabled(kyma.metadata.labels?.[Labels.SkipReconciliation])) {
      this.log.debug('skipping Kyma (skip-reconciliation label)', { kyma: req.name });
      return;
    }
    if (kyma.metadata.deletionTimestamp) return this.delete(kyma, signal);
    try {
      return await this.reconcileRead(kyma, reason, changedInRuntime, last, signal, freshEvent, webhook);
    } catch (e) {
      // Written by someone else since the copy this pass worked from: the next pass reads it from the API server.
      if (isConflict(e)) this.kymaWrites.distrust(key);
      throw e;
    }
  }

  /**
   * `freshEvent`: this pass took an event's mark (else a runtime Kyma change is looked for again by a
   * recheck). `webhook`: why the pass looks at the webhook too (WebhookLook), if it does.
   */
  private async reconcileRead(read: KymaObject, reason: RuntimeCheckReason | undefined, changedInRuntime: boolean, last: RuntimeCheck | undefined, signal: AbortSignal, freshEvent: boolean, webhook: WebhookLook | undefined): Promise<ReconcileResult> {
    const kyma = await this.ensureFinalizerAndLabels(read, signal);
    // An event pass only when the Kyma as read now needs no full check either (the cache may lag).
    const fullReason = reason ?? this.fullCheckReason(kyma, last, false, undefined);
    if (!fullReason && !changedInRuntime && !webhook) return this.cachedPass(kyma, signal);
    if (changedInRuntime) this.opts.metrics.runtimeKymaEvent(fullReason ? 'full' : freshEvent ? 'event' : 'recheck');
    if (webhook && !fullReason) this.opts.metrics.webhookPass(webhook);
    return this.reconcileRuntime(kyma, signal, fullReason ?? 'event', last, freshEvent, fullReason ? undefined : webhook);
  }

  /**
   * Why this reconcile must look at the whole runtime, or undefined when the KCP caches (or a webhook
   * pass, when only the webhook did not hold at the last check) suffice.
   */
  private fullCheckReason(kyma: KymaObject, last: RuntimeCheck | undefined, requested: boolean, asked: RuntimeCheckReason | undefined): RuntimeCheckReason | undefined {
    if (this.opts.runtimeCheckMs === undefined) return 'watcher_off';
    const meta = kyma.metadata;
    // Skipped, deleting, or without finalizer and label: the full path decides what to do.
    if (isEnabled(meta.labels?.[Labels.SkipReconciliation]) || meta.deletionTimestamp || !meta.finalizers?.includes(Finalizers.Kyma)) return 'changed';
    if (requested) return 'ca_changed';
    if (!last || last.uid !== meta.uid) return 'first';
    if (!last.healthy && !last.webhookOnly) return 'unhealthy';
    // A cached generation below the recorded one is the informer lagging behind this process's own
    // write, not a change (the caller reads the Kyma then).
    if ((meta.generation ?? 0) > (last.generation ?? 0) || !jsonEqual(last.labels, meta.labels ?? {})) return 'changed';
    if (asked) return asked;
    if (Date.now() >= last.dueAt) return 'interval';
    return undefined;
  }

  /** Asks the next reconcile of a Kyma for a full runtime check (called before its key is enqueued). */
  askFullCheck(key: string, reason: 'catalog_changed' | 'watchers_changed' | 'shard_gained'): void {
    this.asked.set(key, reason);
  }

  /** Forgets everything kept for a Kyma that is gone: the next one of that name starts with a full check. */
  private forget(name: string, ids: Ids): void {
    this.opts.metrics.forget(name, ids);
    this.opts.skrWebhook?.forget(name);
    this.checks.delete(name);
    this.rechecks.delete(name);
  }

  private async ensureFinalizerAndLabels(kyma: KymaObject, signal: AbortSignal): Promise<KymaObject> {
    const hasFinalizer = (kyma.metadata.finalizers ?? []).includes(Finalizers.Kyma);
    const hasLabel = kyma.metadata.labels?.[Labels.ManagedBy] === LabelValues.LifecycleManager;
    if (hasFinalizer && hasLabel) return kyma;
    return this.kcp.update<KymaObject>(
      {
        ...kyma,
        metadata: {
          ...kyma.metadata,
          finalizers: hasFinalizer ? kyma.metadata.finalizers : [...(kyma.metadata.finalizers ?? []), Finalizers.Kyma],
          labels: { ...kyma.metadata.labels, [Labels.ManagedBy]: LabelValues.LifecycleManager },
        },
      },
      { fieldManager: FIELD_MANAGER, signal },
    );
  }

  /**
   * The runtime part of a reconcile. A full check (any `reason`) looks at everything the lifecycle
   * manager keeps in the runtime; an `event` pass (a watcher event on the runtime Kyma, after a
   * healthy full check) reads and follows the runtime Kyma only, and with `webhook` (WebhookLook)
   * looks at the webhook as well.
   */
  private async reconcileRuntime(kyma: KymaObject, signal: AbortSignal, reason: RuntimeCheckReason | 'event', last: RuntimeCheck | undefined, freshEvent = false, webhook?: WebhookLook): Promise<ReconcileResult> {
    const name = kyma.metadata.name ?? '';
    const now = new Date().toISOString();
    const full = reason !== 'event';
    if (full) this.opts.metrics.runtimeCheck(reason);
    // Until this pass completes, the next reconcile makes a full check.
    this.checks.delete(name);
    let conditions: Condition[] = kyma.status?.conditions ?? [];
    let remote: Client;
    let remoteKyma: KymaObject;
    let webhookFailed = false;
    let webhookHolds = true;
    let followed: boolean;
    // No check of this Kyma ever got as far as its CRDs (its status says so, whichever process made
    // it): the runtime is new, and what the check creates there is created without a read first.
    const fresh = full && !kyma.status?.conditions?.some((c) => c.type === KymaConditionTypes.CRDsSync);
    try {
      remote = this.opts.access.client(name);
      if (full) {
        await ensureRemoteNamespace(remote, signal);
        try {
          const applied = await syncRemoteCrds(remote, signal, fresh);
          if (applied.length > 0) this.log.debug('applied CRDs in the runtime', { kyma: name, crds: applied });
          conditions = setCondition(conditions, KymaConditionTypes.CRDsSync, 'True', KymaConditionMessages.CRDsSynced, kyma.metadata.generation, now);
        } catch (e) {
          if (accessErrorOf(name, e)) throw e;
          // As upstream: the condition says the CRDs are out of sync, the Kyma is Error with the cause.
          conditions = setCondition(conditions, KymaConditionTypes.CRDsSync, 'False', KymaConditionMessages.CRDsNotSynced, kyma.metadata.generation, now);
          this.log.warn('syncing the CRDs into the runtime failed', { kyma: name, error: e });
          return this.fail(kyma, `could not sync CRDs: ${(e as Error).message}`, 'crds_sync', signal, conditions);
        }
        const pullSecret = this.opts.skrImagePullSecret;
        if (pullSecret) {
          try {
            if (await syncImagePullSecret(this.kcp, remote, { namespace: this.opts.namespace, name: pullSecret }, signal)) this.log.debug('synced the image pull secret into the runtime', { kyma: name, secret: pullSecret });
            conditions = setCondition(conditions, KymaConditionTypes.SKRImagePullSecretSync, 'True', KymaConditionMessages.PullSecretSynced, kyma.metadata.generation, now);
          } catch (e) {
            if (accessErrorOf(name, e)) throw e;
            // As upstream: the condition says the Secret is out of sync, the Kyma is Error with the cause.
            conditions = setCondition(conditions, KymaConditionTypes.SKRImagePullSecretSync, 'False', KymaConditionMessages.PullSecretOutOfSync, kyma.metadata.generation, now);
            return this.fail(kyma, `could not sync image pull secret: ${(e as Error).message}`, 'image_pull_secret_sync', signal, conditions);
          }
        } else conditions = removeCondition(conditions, KymaConditionTypes.SKRImagePullSecretSync);
      }
      const synced = await syncRemoteKyma(remote, kyma, signal, fresh);
      if (synced.created) this.manager.events.event(kyma as KubeObject, 'Normal', 'RemoteKymaCreated', `created the Kyma ${synced.remote.metadata.namespace ?? ''}/${synced.remote.metadata.name ?? ''} in the runtime`);
      // A runtime Kyma that had to be re-created says the runtime was (partly) wiped: look at everything.
      if (!full && synced.created) return this.reconcileRuntime(kyma, signal, 'unhealthy', last);
      remoteKyma = synced.remote;
      const before = kyma;
      kyma = await this.followRuntimeSpec(kyma, remoteKyma, signal);
      followed = kyma !== before;
      // The runtime conditions do not depend on the spec the Kyma just followed: they hold for its new generation too.
      if (!full) conditions = conditions.map((c) => (RUNTIME_CONDITIONS.includes(c.type) && kyma.metadata.generation !== undefined ? { ...c, observedGeneration: kyma.metadata.generation } : c));
      if (full) {
        // Copies are not listed first only in a runtime whose Kyma this check created: one whose Kyma
        // status was lost (restored without it) still gets its stale copies deleted.
        const catalogSynced = catalogSyncEnabled(kyma) ? await this.syncCatalog(kyma, remote, signal, fresh && synced.created) : undefined;
        if (catalogSynced === undefined) conditions = removeCondition(conditions, KymaConditionTypes.ModuleCatalog);
        else if (catalogSynced) conditions = setCondition(conditions, KymaConditionTypes.ModuleCatalog, 'True', KymaConditionMessages.CatalogSynced, kyma.metadata.generation, now);
        else conditions = setCondition(conditions, KymaConditionTypes.ModuleCatalog, 'False', KymaConditionMessages.CatalogOutOfSync, kyma.metadata.generation, now);
      }
      if (full || webhook) {
        const condition = this.opts.skrWebhook ? await this.syncWebhook(kyma, remote, remoteKyma, signal) : undefined;
        if (condition) {
          webhookFailed = condition.error;
          webhookHolds = condition.status === 'True';
          conditions = setCondition(conditions, KymaConditionTypes.SKRWebhook, condition.status, condition.message, kyma.metadata.generation, now);
        } else conditions = removeCondition(conditions, KymaConditionTypes.SKRWebhook);
      }
    } catch (e) {
      const accessError = accessErrorOf(name, e);
      if (!accessError) throw e;
      if (accessError.reason === 'SecretNotFound') return this.waitForKubeconfig(kyma, accessError.message, signal);
      // A runtime that answers (server errors, throttling) keeps its client: its connections work.
      if (accessError.reason === 'Unauthorized' || accessError.reason === 'Unreachable') this.opts.access.evict(name);
      // As upstream: what the modules do in a runtime that cannot be used is not known; their entries say so.
      return this.fail(kyma, accessError.message, `remote_${accessError.reason}`, signal, undefined, true);
    }

    const status = await this.settle(kyma, conditions, webhookFailed, signal);
    let mirrored: string | undefined;
    try {
      await mirrorStatus(remote, remoteKyma, status, signal);
      mirrored = mirrorFingerprint(status);
    } catch (e) {
      this.log.warn('mirroring the status into the runtime Kyma failed', { kyma: name, error: e });
      this.opts.metrics.requeue(KymaRequeueReasons.StatusSyncToRemote, 'unexpected');
    }
    if (this.opts.runtimeCheckMs !== undefined) {
      const failing = conditions.filter((c) => RUNTIME_CONDITIONS.includes(c.type) && c.status !== 'True');
      this.checks.set(name, {
        uid: kyma.metadata.uid,
        generation: kyma.metadata.generation,
        labels: { ...kyma.metadata.labels },
        healthy: failing.length === 0,
        webhookOnly: failing.length > 0 && failing.every((c) => c.type === KymaConditionTypes.SKRWebhook),
        // An event pass leaves the next full check where the last one put it.
        dueAt: !full && last ? last.dueAt : Date.now() + jitter(this.opts.runtimeCheckMs, 0.1),
        mirrored,
      });
    }
    // An event pass that found the runtime Kyma as the event's mark left it: one more look soon
    // (reconcile requeues for it).
    // Likewise a webhook pass for an event that found the webhook not holding: the Deployment's
    // status event may have come before the API server stored the status it reports.
    const kymaRecheck = !followed && freshEvent;
    const webhookRecheck = webhook === 'event' && !webhookHolds;
    if (!full && (kymaRecheck || webhookRecheck)) {
      // A recheck of the other kind not taken yet stays asked for.
      const pending = this.rechecks.get(name);
      this.rechecks.set(name, { dueAt: performance.now() + (this.opts.eventRecheckMs ?? EVENT_RECHECK_MS), kyma: kymaRecheck || pending?.kyma === true, webhook: webhookRecheck || pending?.webhook === true });
      this.opts.metrics.eventRecheck();
    }
    return this.requeue(status);
  }

  /**
   * A reconcile from the KCP caches: the runtime part keeps what the last full check found (its
   * conditions in the status); Manifests, status and the runtime Kyma's status mirror are written
   * only when they changed.
   */
  private async cachedPass(kyma: KymaObject, signal: AbortSignal): Promise<{ requeueAfterMs: number; fallback?: boolean }> {
    const name = kyma.metadata.name ?? '';
    this.opts.metrics.cachedPass();
    const status = await this.settle(kyma, kyma.status?.conditions ?? [], false, signal);
    const last = this.checks.get(name);
    const fingerprint = mirrorFingerprint(status);
    if (last && last.mirrored !== fingerprint) {
      try {
        await writeRemoteStatus(this.opts.access.client(name), status, signal);
        last.mirrored = fingerprint;
      } catch (e) {
        // The next reconcile looks at the runtime (and reports why it cannot be reached).
        last.healthy = false;
        last.webhookOnly = false;
        this.log.warn('mirroring the status into the runtime Kyma failed', { kyma: name, error: e });
        this.opts.metrics.requeue(KymaRequeueReasons.StatusSyncToRemote, 'unexpected');
      }
    }
    return this.requeue(status);
  }

  /** The Manifests, the Modules condition and the state; writes the KCP status when it changed. */
  private async settle(kyma: KymaObject, runtimeConditions: Condition[], webhookFailed: boolean, signal: AbortSignal): Promise<KymaStatus> {
    const name = kyma.metadata.name ?? '';
    const now = new Date().toISOString();
    const modules = await syncModules({ kcp: this.kcp, catalog: this.catalog.view, manifests: this.manifests, maintenance: this.opts.maintenance }, kyma, signal);
    const mc = modulesCondition(modules);
    const conditions = setCondition(runtimeConditions, KymaConditionTypes.Modules, mc.status, mc.message, kyma.metadata.generation, now);
    const state = webhookFailed ? States.Error : determineState(modules, conditions);
    const webhookProblem = conditions.find((c) => c.type === KymaConditionTypes.SKRWebhook && c.status !== 'True')?.message;
    const operation =
      state === States.Ready
        ? 'kyma is ready'
        : (modules.find((m) => m.state === state && m.message)?.message ?? (state === States.Error || !modules.some((m) => m.state === state) ? webhookProblem : undefined) ?? `kyma is ${state.toLowerCase()}`);
    const status: KymaStatus = { state, conditions, modules, activeChannel: kyma.spec.channel, lastOperation: lastOperation(kyma, operation, now) };
    await this.writeStatus(kyma, status, signal);
    this.opts.metrics.modules(name, modules, idsOf(kyma));
    return status;
  }

  /**
   * Fallbacks (ReconcileResult.fallback): the pass of a Kyma waiting only for its Manifests (their
   * changes wake it), and with the runtime watcher a Ready Kyma's (its events report the runtime).
   */
  private requeue(status: KymaStatus): { requeueAfterMs: number; fallback?: boolean } {
    const state = status.state ?? '';
    const waiting = waitingOnlyForModules(status);
    this.opts.metrics.requeue(waiting ? 'kyma_waiting_for_modules' : `kyma_${state.toLowerCase()}`);
    const fallback = waiting || (state === States.Ready && this.opts.runtimeCheckMs !== undefined);
    return { requeueAfterMs: intervalFor(state, this.intervals, waiting), ...(fallback ? { fallback } : {}) };
  }

  /**
   * The runtime's catalog copies, which depend on the KCP catalog and the KCP Kyma's labels, not on
   * the runtime Kyma: whether they are in sync (a failure other than runtime access is logged).
   */
  private async syncCatalog(kyma: KymaObject, remote: Client, signal: AbortSignal, fresh: boolean): Promise<boolean> {
    try {
      const source = {
        templates: () => this.catalog.templates.list({ namespace: this.opts.namespace }),
        releaseMetas: () => this.catalog.metas.list({ namespace: this.opts.namespace }),
        restrictedModules: this.catalog.view.restrictedModules,
      };
      await syncCatalog(remote, desiredCatalog(kyma, source), signal, fresh);
      return true;
    } catch (e) {
      if (accessErrorOf(kyma.metadata.name ?? '', e)) throw e;
      this.log.warn('module catalog sync failed', { kyma: kyma.metadata.name, error: e });
      this.opts.metrics.requeue(KymaRequeueReasons.ModuleCatalogSync, 'unexpected');
      return false;
    }
  }

  /** The watcher's webhook in the runtime; a failure other than runtime access is the condition's message. */
  private async syncWebhook(kyma: KymaObject, remote: Client, remoteKyma: KymaObject, signal: AbortSignal): Promise<{ status: 'True' | 'False'; message: string; error: boolean }> {
    try {
      return await (this.opts.skrWebhook as SkrWebhookInstaller).sync(kyma, remote, remoteKyma, signal);
    } catch (e) {
      if (accessErrorOf(kyma.metadata.name ?? '', e)) throw e;
      this.log.warn('runtime watcher webhook sync failed', { kyma: kyma.metadata.name, error: e });
      this.opts.metrics.requeue(KymaRequeueReasons.SkrWebhookResourcesInstallation, 'unexpected');
      return { status: 'False', message: `${KymaConditionMessages.WebhookOutOfSync}: ${(e as Error).message}`, error: false };
    }
  }

  /**
   * The KCP Kyma's modules and channel follow the runtime Kyma, where runtime admins enable and
   * disable modules and switch the channel (upstream's ReplaceSpec). A channel edited in the KCP
   * Kyma after the runtime Kyma exists is overwritten by the runtime's.
   */
  private async followRuntimeSpec(kyma: KymaObject, remoteKyma: KymaObject, signal: AbortSignal): Promise<KymaObject> {
    const modules = remoteKyma.spec.modules ?? [];
    const channel = remoteKyma.spec.channel;
    const modulesChanged = !jsonEqual(modules, kyma.spec.modules ?? []);
    if (!modulesChanged && channel === kyma.spec.channel) return kyma;
    if (modulesChanged) this.log.info('modules changed in the runtime Kyma', { kyma: kyma.metadata.name, modules: modules.map((m) => m.name) });
    if (channel !== kyma.spec.channel) this.log.info('channel changed in the runtime Kyma', { kyma: kyma.metadata.name, from: kyma.spec.channel, to: channel });
    return this.kcp.update<KymaObject>({ ...kyma, spec: { ...kyma.spec, modules, channel } }, { fieldManager: FIELD_MANAGER, signal });
  }

  /** Error with `message`; `modulesToo`: every module entry Error with the message as well (upstream's setModuleStatusesToError). */
  private async fail(kyma: KymaObject, message: string, reason: string, signal: AbortSignal, conditions?: Condition[], modulesToo = false): Promise<{ requeueAfterMs: number; error: string }> {
    const now = new Date().toISOString();
    const status: KymaStatus = { ...kyma.status, ...(conditions ? { conditions } : {}), state: States.Error, lastOperation: lastOperation(kyma, message, now) };
    if (modulesToo && status.modules) {
      status.modules = status.modules.map((m) => ({ ...m, state: States.Error, message }));
      this.opts.metrics.modules(kyma.metadata.name ?? '', status.modules, idsOf(kyma));
    }
    await this.writeStatus(kyma, status, signal);
    this.opts.metrics.requeue(reason, 'unexpected');
    return { requeueAfterMs: intervalFor(States.Error, this.intervals), error: message };
  }

  /**
   * No kubeconfig Secret yet: a new runtime whose infrastructure is still being provisioned. The
   * Kyma is Processing (not Error) until the Secret appears; the Secret watch wakes it then.
   */
  private async waitForKubeconfig(kyma: KymaObject, cause: string, signal: AbortSignal): Promise<{ requeueAfterMs: number }> {
    const now = new Date().toISOString();
    const operation = `waiting for the runtime's kubeconfig: ${cause}`;
    await this.writeStatus(kyma, { ...kyma.status, state: States.Processing, lastOperation: lastOperation(kyma, operation, now) }, signal);
    this.opts.metrics.requeue('kyma_waiting_for_kubeconfig');
    // The Secret watch wakes the Kyma when the kubeconfig arrives: no busy poll while Gardener works.
    return { requeueAfterMs: intervalFor(States.Processing, this.intervals, true) };
  }

  /** Writes the status when it changed; records the state metric and an Event on state changes. */
  private async writeStatus(kyma: KymaObject, status: KymaStatus, signal: AbortSignal): Promise<void> {
    const name = kyma.metadata.name ?? '';
    const previous: State | undefined = kyma.status?.state;
    if (statusFingerprint(kyma.status) !== statusFingerprint(status)) {
      await this.kcp.patch(Kyma, { namespace: kyma.metadata.namespace, name }, 'merge', { status }, { fieldManager: FIELD_MANAGER, subresource: 'status', signal });
    }
    const state = status.state ?? '';
    this.opts.metrics.kyma(name, state, idsOf(kyma));
    if (previous !== state) {
      const warn = state === States.Error || state === States.Warning;
      this.manager.events.event(kyma as KubeObject, warn ? 'Warning' : 'Normal', 'StateChanged', `state ${previous || 'none'} -> ${state}: ${status.lastOperation?.operation ?? ''}`);
      // Kymas move between Processing and Ready with every module change: only an Error is news.
      const level = state === States.Error ? 'warn' : state === States.Warning ? 'info' : 'debug';
      if (this.log.enabled(level)) this.log[level]('Kyma state changed', { kyma: name, from: previous ?? '', to: state, ...(state !== States.Ready ? { reason: status.lastOperation?.operation ?? '' } : {}) });
    }
  }

  private async delete(kyma: KymaObject, signal: AbortSignal): Promise<{ requeueAfterMs?: number } | void> {
    const name = kyma.metadata.name ?? '';
    const outcome = await runDeletion(
      {
        kcp: this.kcp,
        access: this.opts.access,
        remoteCleanupTimeoutMs: this.opts.remoteCleanupTimeoutMs,
        log: this.log,
        removeWebhook: this.opts.skrWebhook ? (remote, kymaName, s) => (this.opts.skrWebhook as SkrWebhookInstaller).remove(remote, kymaName, s) : undefined,
        writeState: (k, state, operation, s) => this.writeStatus(k, { ...k.status, state, lastOperation: lastOperation(k, operation, new Date().toISOString()) }, s),
      },
      kyma,
      signal,
    );
    switch (outcome.step) {
      case 'marked':
        this.opts.metrics.requeue('kyma_deletion_started');
        return { requeueAfterMs: 1 };
      case 'waitingForManifests':
        // Back from Error once the runtime answers again.
        await this.writeStatus(kyma, { ...kyma.status, state: States.Deleting, lastOperation: lastOperation(kyma, REMOVING_MODULES, new Date().toISOString()) }, signal);
        this.opts.metrics.requeue('kyma_deletion_waiting_for_manifests');
        return { requeueAfterMs: intervalFor(States.Deleting, this.intervals) };
      case 'waitingForRuntime': {
        // Upstream's Error: the runtime cannot be reached while its kubeconfig Secret exists; the
        // deletion goes on when it answers again or the Secret is removed (the Secret watch wakes it).
        const operation = outcome.remaining > 0
          ? `deleting the Kyma: the runtime cannot be reached to remove ${outcome.remaining} module(s): ${outcome.error.message}`
          : `waiting for the runtime to be cleaned up: ${outcome.error.message}`;
        await this.writeStatus(kyma, { ...kyma.status, state: States.Error, lastOperation: lastOperation(kyma, operation, new Date().toISOString()) }, signal);
        this.opts.metrics.requeue(`kyma_deletion_remote_${outcome.error.reason}`, 'unexpected');
        return { requeueAfterMs: intervalFor(States.Error, this.intervals) };
      }
      case 'done':
        this.opts.metrics.requeue(KymaRequeueReasons.KymaDeletion);
        this.forget(name, idsOf(kyma));
        this.manager.events.event(kyma as KubeObject, outcome.skippedRuntime ? 'Warning' : 'Normal', 'Deleted', outcome.skippedRuntime ? 'Kyma deleted; the runtime was unreachable, its cleanup was skipped' : 'Kyma deleted');
        return;
    }
  }
}

/** Whether a Kyma lists a module in its spec or its status. */
function usesModule(kyma: KymaObject, moduleName: string): boolean {
  return (kyma.spec.modules ?? []).some((m) => m.name === moduleName) || (kyma.status?.modules ?? []).some((m) => m.name === moduleName);
}

/**
 * The Kymas a catalog entry concerns: those that list its module (a new version or channel changes
 * their Manifests). Mandatory modules concern no Kyma here: the mandatory-module controller installs
 * them. The runtime catalog copies of the other Kymas follow at their next full runtime check.
 */
export function kymasUsingModule(kymas: Store<KymaObject>, namespace: string, moduleName: string | undefined, mandatory: boolean): string[] {
  if (!moduleName || mandatory) return [];
  return kymas
    .list({ namespace })
    .filter((k) => usesModule(k, moduleName))
    .map((k) => `${namespace}/${k.metadata.name ?? ''}`);
}

/** The Kyma controller as registered, and a way to ask a Kyma's next reconcile for a full runtime check. */
export interface KymaController {
  controller: Controller;
  askFullCheck(key: string, reason: 'shard_gained'): void;
}

/** Registers the Kyma controller with the manager. */
export function setupKymaController(manager: Manager, opts: KymaControllerOptions): KymaController {
  const reconciler = new KymaReconciler(manager, opts);
  const ns = opts.namespace;
  const kymas = manager.cache<KymaObject>(Kyma, { namespace: ns });
  const catalog = catalogCaches(manager, ns).view;
  const mandatoryModule = (moduleName: string | undefined): boolean => !!moduleName && !!catalog.releaseMeta(moduleName)?.spec.mandatory;
  /** The Kymas of a module, marked so that their runtime catalog copies follow at once. */
  const affected = (moduleName: string | undefined, mandatory: boolean): string[] => {
    const keys = kymasUsingModule(kymas, ns, moduleName, mandatory);
    for (const key of keys) reconciler.askFullCheck(key, 'catalog_changed');
    return keys;
  };
  const builder = newControllerManagedBy(manager)
    .named(KYMA_CONTROLLER_NAME)
    .for(Kyma, { namespace: ns, predicates: [or(generationChanged, labelsChanged, annotationsChanged, deletionStarted)] })
    // A Manifest whose state changed after its first pass reports a module under way (installed,
    // failing, back): the Kyma's pass that follows is a cheap one (from the caches, or a webhook
    // pass) and goes ahead of new Kymas' first full checks, so a Kyma is Ready once its modules are,
    // not once every Kyma created before it had its first pass.
    // Changes of a Kyma's Manifests that come within MANIFEST_BATCH_MS make one pass.
    .owns(Manifest, { namespace: ns, first: (m, old) => stateChanged(old as ManifestObject | undefined, m as ManifestObject), batchMs: MANIFEST_BATCH_MS })
    .watches<Secret>(SECRET_KIND, (s) => {
      const kyma = s.metadata.labels?.[Labels.KymaName];
      return kyma ? [{ namespace: ns, name: kyma }] : [];
    }, { namespace: ns, labelSelector: KUBECONFIG_SECRET_SELECTOR })
    .watches<ModuleTemplateObject>(ModuleTemplate, (t) => {
      const moduleName = t.spec.moduleName ?? t.metadata.labels?.[Labels.ModuleName];
      return affected(moduleName, !!t.spec.mandatory || mandatoryModule(moduleName));
    }, {
      namespace: ns,
      predicates: [or(generationChanged, labelsChanged)],
    })
    .watches<ModuleReleaseMetaObject>(ModuleReleaseMeta, (m) => affected(m.spec.moduleName, !!m.spec.mandatory), { namespace: ns, predicates: [or(generationChanged, labelsChanged)] })
    .withOptions({ maxConcurrentReconciles: opts.maxConcurrentReconciles ?? 4 });
  if (opts.watcherEvents) builder.watchesChannel(opts.watcherEvents, { first: true });
  if (opts.runtimeCheckKeys) builder.watchesChannel(opts.runtimeCheckKeys);
  if (opts.skrWebhook) {
    // The runtimes' webhook configuration is made of the Watchers: a Watcher created, changed or
    // deleted is rolled out to every runtime now.
    builder.watches(
      Watcher,
      () => [...kymas.keys()].map((key) => {
        reconciler.askFullCheck(key, 'watchers_changed');
        return key;
      }),
      { namespace: ns, predicates: [or(generationChanged, labelsChanged, deletionChanged)] },
    );
  }
  return { controller: builder.complete(reconciler), askFullCheck: (key, reason) => reconciler.askFullCheck(key, reason) };
}
