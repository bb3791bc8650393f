// The Manifest reconciler: one module in one runtime. The flow, each step one function:
//
//   read -> skip? -> unmanaged? (remove labels, delete the Manifest) -> orphaned? -> finalizers
//   -> target client -> [deleting: user CRs block -> default CR -> resources -> finalizers]
//   -> fetch -> render -> apply (or check drift, or a clean pass) -> prune -> default CR -> readiness -> status
//
// Everything the reconciler needs to know is in the API server (status.synced is the inventory);
// the in-memory record of the last apply only saves requests: without it, the next reconcile
// applies everything once more.
//
// With the runtime watcher, a Ready Manifest whose rendered objects did not change is not read back
// on every pass: its runtime reports changes of the module's resources (spec and status), so a
// periodic pass is a "clean pass" without requests. The drift check (a GET per object, then the
// readiness reads) runs when driftCheckReason says why.
import {
  Annotations,
  Finalizers,
  isEnabled,
  type KymaObject,
  Labels,
  Manifest,
  ManifestConditionReasons,
  ManifestConditionTypes,
  type ManifestObject,
  type State,
  States,
  SyncStrategies,
} from '../../api/operator/index.js';
import type { Store } from '../../runtime/cache/store.js';
import { isConflict, isNotFound } from '../../runtime/client/errors.js';
import type { Client } from '../../runtime/client/interface.js';
import type { ReconcileResult, Request } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/events.js';
import type { Logger } from '../../runtime/log.js';
import { KubeconfigSecretError } from '../../runtime/remote/cache.js';
import type { KubeObject } from '../../kube/object.js';
import { namespacedName } from '../../kube/keys.js';
import { ArtifactError } from '../artifacts/types.js';
import { accessErrorOf, type RuntimeAccessError } from '../remote/access.js';
import { type Applied, type AppliedRecord, ApplyError, applyAll, CrdNotEstablishedError } from './apply.js';
import { CUSTOM_STATE_CHECK_ANNOTATION, MANIFEST_FINALIZERS as OUR_FINALIZERS, Messages, MODULE_RESOURCE_MANAGED_BY } from './constants.js';
import { deleteDefaultCR, describeUserCRs, ensureDefaultCR, findUserCRs, liveDefaultCR, managedDefaultCR, moduleKinds } from './default-cr.js';
import { checkDrift } from './drift.js';
import { describeRef, refKey, refOf, removedRefs, type ResourceRef, unionRefs } from './inventory.js';
import type { ManifestMetrics } from './metrics.js';
import { ManifestRequeueReasons } from '../requeue-reasons.js';
import { EVENT_RECHECK_MS, takeDue, untilRecheck } from '../watcher-events.js';
import { deleteResources } from './prune.js';
import { findManager, managerStateOf, moduleCRState, readManager, type StateInfo, statusSubresourceOf } from './readiness.js';
import { sharedStrings } from '../../util/intern.js';
import { hashObjects, RenderError, renderObjects } from './render.js';
import type { CredentialsFor } from './registry-credentials.js';
import { linkOf, type ManifestSource } from './source.js';
import { StatusDraft } from './status.js';
import { messageOf } from './util.js';
import { jitter } from '../../runtime/timers.js';

export interface RequeueIntervals {
  /** After a Ready reconcile (also the period of the drift check). */
  successMs: number;
  /** While installing, pruning or deleting. */
  busyMs: number;
  /** After an error the controller reports in the status (fetch, apply). */
  errorMs: number;
  /** In Warning. */
  warningMs: number;
}

export const DEFAULT_INTERVALS: RequeueIntervals = { successMs: 30_000, busyMs: 5_000, errorMs: 2_000, warningMs: 30_000 };

/** With the runtime watcher: a Ready Manifest's objects are read back at least this often (jittered). */
export const DEFAULT_DRIFT_CHECK_MS = 24 * 60 * 60_000;

/** Why a Ready Manifest's pass reads its objects back (see driftCheckReason). */
export type DriftCheckReason = 'watcher_off' | 'not_watched' | 'watcher_event' | 'not_ready' | 'changed' | 'webhook_unhealthy' | 'events_missed' | 'interval';

/** Every periodic requeue is spread by up to this share, so that Manifests installed together do not stay in step. */
const JITTER = 0.1;

/** Event marks: a read-back of every object asked (`drift`), and the objects whose status changed. */
interface Marks {
  drift: boolean;
  objects: ReadonlySet<string> | undefined;
}

/** The event marks a recheck repeats, and when (performance.now()). */
interface Recheck extends Marks {
  dueAt: number;
}

/** How the target cluster of a Manifest is reached: a remote cluster cache keyed by Kyma name, or a function. */
/** The client of a Manifest's runtime; KubeconfigSecretError (SecretNotFound) when the runtime has no kubeconfig Secret. */
export type TargetClients = (kymaName: string, manifest: ManifestObject) => Client;

export interface ManifestReconcilerDeps {
  kcp: Client;
  manifests: Store<ManifestObject>;
  /** Kymas of the KCP for orphan detection; undefined disables it. */
  kymas?: { store: Store<KymaObject>; synced: () => boolean };
  targets: TargetClients;
  source: ManifestSource;
  events: EventRecorder;
  log: Logger;
  metrics: ManifestMetrics;
  fieldManager: string;
  intervals: RequeueIntervals;
  /** Requests one reconcile has in flight against the target cluster at most. */
  requestConcurrency: number;
  crdEstablishTimeoutMs: number;
  /**
   * With the runtime watcher: a Ready, unchanged Manifest's objects are read back at least this
   * often, else only when asked. Undefined (no watcher): on every pass.
   */
  driftCheckMs?: number;
  /** Manifests whose resources the runtime watcher reported changed (marked before their key is enqueued). */
  driftChecks?: { take(key: string): boolean; has?(key: string): boolean };
  /**
   * Manifests whose resources' status the runtime watcher reported changed (marked before their key
   * is enqueued), with those resources (`group/kind/namespace/name`; `*`: the event named none).
   */
  readinessChecks?: { take(key: string): ReadonlySet<string> | undefined; has?(key: string): boolean };
  /** A pass that answered events and found nothing changed looks once more after this long (default EVENT_RECHECK_MS). */
  eventRecheckMs?: number;
  /**
   * Since when the watcher's webhook in a Kyma's runtime works, so that its events can be relied on
   * (key `namespace/kyma`): a token that changes whenever it stops working and works again (the
   * `lastTransitionTime` of the Kyma's `SKRWebhook` condition while it is `True`); undefined while it
   * does not work.
   */
  webhookHealthySince?: (kymaKey: string) => string | undefined;
  /** Credentials for private registries (undefined: artifacts are pulled anonymously). */
  registryCredentials?: CredentialsFor;
  /** The runtime image-pull Secret module workloads are pointed at (upstream `--skr-image-pull-secret`). */
  skrImagePullSecret?: string;
}

interface AppliedState {
  uid: string;
  hash: string;
  /**
   * Digest of the artifact whose rendering gave `hash`: while the artifact and the Manifest's
   * generation stay, a pass that would be clean needs no rendering to know it.
   */
  renderedFrom: string;
  records: Map<string, AppliedRecord>;
  /** The Manifest's generation when its objects were last applied or read back. */
  generation: number | undefined;
  /** When the next drift check is due anyway (with the runtime watcher). */
  driftDueAt: number;
  /** When the objects were last applied or read back (Date.now()). */
  readAt: number;
  /**
   * The webhook health token (ManifestReconcilerDeps.webhookHealthySince) under which the objects
   * were applied or last read back; undefined when the webhook did not work then. While the token is
   * still the same, every change since is reported by an event: an installing Manifest's pass needs
   * only its readiness, a Ready one's nothing. A new token means the webhook stopped working in
   * between, and changes of that time went unreported.
   */
  watchedSince: string | undefined;
  /** What this process last read of the module's readiness (see Context.readinessNamed). */
  lastRead?: ReadinessRead;
}

/** One readiness object as a pass last read it: which object, at which version. */
interface ReadObject {
  /** Inventory key (`group/kind/namespace/name`). */
  key: string;
  resourceVersion: string | undefined;
}

/**
 * The module's readiness as a pass last read it, while the runtime's events flowed: the manager's
 * state, and the default CR reduced to what its state depends on without a custom state check
 * (name, creation time, `status.state`), each with the version read.
 */
interface ReadinessRead {
  manager?: ReadObject & { state: StateInfo };
  cr?: ReadObject & { object: KubeObject };
}

interface Context {
  manifest: ManifestObject;
  status: StatusDraft;
  signal: AbortSignal;
  /** The runtime watcher reported a change of the module's resources. */
  driftRequested: boolean;
  /**
   * The runtime watcher reported a status change of these of the module's resources: its readiness
   * may have changed, and so may their spec through a subresource no event reports (`kubectl scale`).
   */
  statusChanged: ReadonlySet<string> | undefined;
  /**
   * A readiness pass brought by status events while they flow (the objects were applied or read
   * back under a healthy webhook, and it still is): the objects the events named. Every status
   * change since the last read is reported by an event, so the manager or the default CR that no
   * event named is as that read found it; undefined: both are read.
   */
  readinessNamed?: ReadonlySet<string>;
  /** The objects the events taken by this pass named (not those of a recheck it repeats). */
  freshlyNamed?: ReadonlySet<string>;
  /** The objects of a recheck asked and not yet due: a read of them may have come before their write was stored. */
  pendingRecheck?: ReadonlySet<string>;
  /**
   * Objects the events named that this pass read at the version read before: the runtime called the
   * webhook before it stored the write the event reports.
   */
  readAsBefore?: ReadonlySet<string>;
  /** The last read of an earlier pass that this pass's read-back set aside (see readiness()). */
  readBefore?: ReadinessRead;
  /** Objects read back had drifted and were applied again. */
  restored?: boolean;
  /** The status was written. */
  statusWritten?: boolean;
}

export class ManifestReconciler {
  /** The last apply per Manifest key (`namespace/name`). */
  private readonly applied = new Map<string, AppliedState>();
  /** Metric labels reported per Manifest key, to drop the series when the Manifest goes. */
  private readonly reported = new Map<string, { kymaName: string; moduleName: string }>();
  /** Event passes to repeat once (EVENT_RECHECK_MS), by Manifest key. */
  private readonly rechecks = new Map<string, Recheck>();
  /** The objects of the applies under way, by Manifest key (until they are in `applied`). */
  private readonly applying = new Map<string, { uid: string; objects: ReadonlySet<string> }>();

  constructor(private readonly d: ManifestReconcilerDeps) {}

  /**
   * Whether this process applied the object (`group/kind/namespace/name`) for this Manifest (this
   * uid), or is applying it now: the watcher's router finds an event's Manifest by this before the
   * Manifest's inventory, written at the end of its pass, names the object.
   */
  names(manifest: ManifestObject, objectKey: string): boolean {
    const key = namespacedName(manifest);
    const uid = manifest.metadata.uid ?? '';
    const applying = this.applying.get(key);
    if (applying?.uid === uid && applying.objects.has(objectKey)) return true;
    const known = this.applied.get(key);
    return known?.uid === uid && known.records.has(objectKey);
  }

  async reconcile(req: Request, signal: AbortSignal): Promise<ReconcileResult | void> {
    const key = namespacedName(req);
    const result = await this.reconcileOnce(req, signal);
    // Events that came while this pass ran were routed by the Manifest as the cache had it then: on
    // its first pass, without a state, so behind newer Manifests' first passes. They are about work
    // under way now: the pass they ask for comes at once, ahead of other keys (a failure's backoff
    // stays). A recheck (which repeats events about work under way) goes first when due.
    const marked = (this.d.readinessChecks?.has?.(key) ?? false) || (this.d.driftChecks?.has?.(key) ?? false);
    if (marked && !(result?.requeue && result.requeueAfterMs === undefined)) return { first: true, ...(result?.error !== undefined ? { error: result.error } : {}) };
    return untilRecheck(result, this.rechecks.get(key)?.dueAt, true);
  }

  private async reconcileOnce(req: Request, signal: AbortSignal): Promise<ReconcileResult | void> {
    const key = namespacedName(req);
    // A recheck answers the marks of the pass that asked for it once more; marks taken fresh from
    // events may ask for a recheck of their own.
    const recheck = takeDue(this.rechecks, key);
    const freshObjects = this.d.readinessChecks?.take(key);
    // A status event that named no object: every object is read back, as for a spec event.
    const fresh: Marks = { drift: (this.d.driftChecks?.take(key) ?? false) || (freshObjects?.has('*') ?? false), objects: freshObjects };
    const statusChanged = union(freshObjects, recheck?.objects);
    const driftRequested = fresh.drift || (recheck?.drift ?? false);
    const cached = this.d.manifests.get(key);
    if (!cached) {
      this.forget(key);
      return;
    }
    let manifest = structuredClone(cached);
    // A pass that took event marks and did not look at what they named (skipped, orphaned, failed):
    // the next pass reads every object back, and both readiness objects, instead of what events name.
    const marked = driftRequested || statusChanged !== undefined;
    if (isEnabled(manifest.metadata.labels?.[Labels.SkipReconciliation])) {
      if (marked) this.unverified(key);
      return { requeueAfterMs: this.intervalFor(States.Ready), fallback: true }; // nothing to do but notice the label go
    }
    const ctx: Context = { manifest, status: new StatusDraft(manifest), signal, driftRequested, statusChanged, freshlyNamed: freshObjects, pendingRecheck: this.rechecks.get(key)?.objects };
    const deleting = !!manifest.metadata.deletionTimestamp;

    if (isEnabled(manifest.metadata.annotations?.[Annotations.Unmanaged])) return this.unmanage(ctx);
    // Our part of the deletion is done; other finalizers hold the Manifest. Nothing to do (and no
    // status write) until their owners remove them.
    if (deleting && !manifest.metadata.finalizers?.some((f) => OUR_FINALIZERS.includes(f))) return;

    if (!deleting) {
      if (this.isOrphaned(manifest)) {
        if (marked) this.unverified(key);
        return this.orphaned(ctx);
      }
      // Upstream requeues after adding its finalizers; this pass goes on with the written Manifest
      // (the controller's predicate lets the event of our own addition pass by), which spares every
      // new Manifest a second trip through a queue that is thousands of keys long in a fleet.
      const written = await this.ensureFinalizers(manifest);
      if (written === 'conflict') {
        // A newer version is on its way through the informer, but its event may be one the
        // predicate lets by (this pass read a copy older than an earlier pass's own write): look
        // again soon, and read everything back then if this pass took event marks.
        if (marked) this.unverified(key);
        return { requeue: true };
      }
      if (written) {
        // Counted under upstream's reason, which dashboards and its tests read, though no requeue follows.
        this.d.metrics.requeue(ManifestRequeueReasons.AddFinalizer, 'intended');
        manifest = ctx.manifest = written;
      }
    }
    try {
      const target = this.targetClient(manifest);
      const result = deleting ? await this.remove(ctx, target) : await this.install(ctx, target);
      if (marked && ctx.status.state === States.Error) this.unverified(key);
      if (!deleting) {
        // One more look at what the events named when the pass saw none of it, and at what it read
        // at the version read before (Context.readAsBefore), even when it wrote the status.
        const nothing = this.foundNothing(ctx, fresh);
        if (nothing || ctx.readAsBefore) this.askRecheck(key, { drift: nothing && fresh.drift, objects: union(nothing ? fresh.objects : undefined, ctx.readAsBefore) });
      }
      return result;
    } catch (e) {
      if (marked) this.unverified(key);
      if (signal.aborted) throw e;
      if (deleting && e instanceof KubeconfigSecretError && e.reason === 'SecretNotFound') {
        // The runtime is gone with its kubeconfig: nothing left to clean up there.
        this.d.log.info('kubeconfig Secret gone; releasing the Manifest', { manifest: namespacedName(req) });
        await this.dropFinalizers(manifest, OUR_FINALIZERS);
        this.d.metrics.requeue(ManifestRequeueReasons.RemoveFinalizerWhenSecretGone, 'intended');
        return;
      }
      const access = this.runtimeAccessError(manifest, e);
      if (access) {
        // The runtime does not answer, fails or throttles: the status says so (logged once, at warn,
        // as a state change), and the Manifest is looked at again with its backoff.
        ctx.status.set(States.Error, access.message);
        return this.finish(ctx, `remote_${access.reason}`, true);
      }
      ctx.status.set(States.Error, messageOf(e));
      await this.finish(ctx, 'unexpected error');
      throw e;
    }
  }

  /**
   * Whether a pass that answered fresh event marks saw none of what they reported: no object
   * restored, no status change, no error; for a spec event, or for a status event of one of this
   * Manifest's own objects (not one the router handed to every Manifest of the Kyma because none
   * has it yet) that left it Ready or installing as it was. An installing Manifest's busy pass is a
   * fallback while events flow, and in a fleet's long queue it may come minutes later: the event
   * that its manager Deployment became available, read before the write was stored, must not wait
   * for it.
   */
  private foundNothing(ctx: Context, fresh: Marks): boolean {
    if (!fresh.drift && !fresh.objects) return false;
    if (ctx.restored || ctx.statusWritten || ctx.status.state === States.Error) return false;
    if (fresh.drift) return true;
    if (ctx.status.state !== States.Ready && ctx.status.state !== States.Processing) return false;
    const own = new Set((ctx.status.synced ?? []).map(refKey));
    const cr = managedDefaultCR(ctx.manifest);
    if (cr) own.add(refKey(refOf(cr)));
    for (const k of fresh.objects ?? []) if (own.has(k)) return true;
    return false;
  }

  /** Repeats these event marks once, EVENT_RECHECK_MS from now (with those of a recheck still pending). */
  private askRecheck(key: string, marks: Marks): void {
    const pending = this.rechecks.get(key);
    this.rechecks.set(key, { drift: marks.drift || (pending?.drift ?? false), objects: union(marks.objects, pending?.objects), dueAt: performance.now() + (this.d.eventRecheckMs ?? EVENT_RECHECK_MS) });
    this.d.metrics.eventRecheck();
  }

  /** A failure to use the Manifest's runtime (not the KCP) as the Kyma controller names it; undefined for anything else. */
  private runtimeAccessError(manifest: ManifestObject, e: unknown): RuntimeAccessError | undefined {
    if (this.isLocal(manifest)) return undefined;
    return accessErrorOf(manifest.metadata.labels?.[Labels.KymaName] ?? '', e);
  }

  // ---- install ------------------------------------------------------------------------------

  private async install(ctx: Context, target: Client): Promise<ReconcileResult> {
    const { manifest, status } = ctx;
    // Upstream's initial conditions: nothing holds until this reconcile proves it.
    status.initial(ManifestConditionTypes.Resources, 'False', ManifestConditionReasons.ResourcesAvailable, Messages.ResourcesNotParsed);
    status.initial(ManifestConditionTypes.Installation, 'False', ManifestConditionReasons.Ready, Messages.InstallationNotReady);
    if (managedDefaultCR(manifest)) status.initial(ManifestConditionTypes.ModuleCR, 'False', ManifestConditionReasons.ModuleCRCreated, Messages.ModuleCRNotCreated);
    const synced = await this.syncObjects(ctx, target);
    if (synced === 'clean') {
      // Ready, unchanged, and nothing reported from the runtime: the status stays as it is.
      this.d.metrics.cleanPass();
      return this.finish(ctx, 'clean pass');
    }
    if (!('objects' in synced)) return synced;
    const { objects, live, leftovers } = synced;
    const readiness = await this.readiness(ctx, target, objects, live);
    if (leftovers.length > 0) {
      status.set(States.Warning, `deletion is not yet finished: ${leftovers.map(describeRef).join(', ')}`);
      return this.finish(ctx, 'prune not finished');
    }
    this.setState(ctx, readiness);
    return this.finish(ctx, 'reconciled');
  }

  /**
   * Fetch, render, apply (or restore drift), prune what the Manifest's version no longer contains.
   * A finished reconcile (its status written) when a step failed; 'clean' when there is nothing to
   * check; else the objects, what was read back and the pruned objects that are still there.
   */
  private async syncObjects(ctx: Context, target: Client): Promise<ReconcileResult | 'clean' | { objects: KubeObject[]; live: Map<string, KubeObject>; leftovers: ResourceRef[] }> {
    const { manifest, status, signal } = ctx;
    let objects: KubeObject[] | undefined;
    let digest: string;
    try {
      const fetched = await this.d.source.fetch(linkOf(manifest), signal, this.d.registryCredentials);
      digest = fetched.digest;
      // The fallback pass of every Ready Manifest comes here (at 10,000 runtimes about 170 a second):
      // when the artifact and the generation are those last rendered and nothing is to be checked, the
      // render and its hash (most of such a pass's CPU) are what that rendering gave.
      if (!this.cleanWithoutRendering(ctx, digest)) objects = await renderObjects(fetched.objects, manifest, target, signal, { imagePullSecret: this.d.skrImagePullSecret });
    } catch (e) {
      if (e instanceof ArtifactError || e instanceof RenderError) return this.invalidManifest(ctx, e);
      throw e;
    }
    status.condition(ManifestConditionTypes.Resources, 'True', ManifestConditionReasons.ResourcesAvailable, Messages.ResourcesParsed);
    if (!objects) return 'clean';

    let live: Map<string, KubeObject> | 'clean';
    try {
      live = await this.applyOrRestore(ctx, target, objects, digest);
    } catch (e) {
      if (!(e instanceof ApplyError)) throw e;
      const applied = objects.filter((o) => e.appliedKeys.includes(refKey(refOf(o)))).map(refOf);
      status.synced = unionRefs(status.synced, applied);
      if (e.cause instanceof CrdNotEstablishedError) {
        status.set(States.Processing, e.message);
        return this.finish(ctx, 'crds not established');
      }
      const access = this.runtimeAccessError(manifest, e.cause);
      status.set(States.Error, `failed to apply the module's resources: ${access?.message ?? e.message}`);
      this.d.events.event(manifest, 'Warning', 'ApplyFailed', status.operation.slice(0, 1000));
      return this.finish(ctx, access ? `remote_${access.reason}` : 'apply failed', true);
    }
    if (live === 'clean') return 'clean';
    const targetRefs = objects.map(refOf);
    const leftovers = await this.prune(ctx, target, removedRefs(status.synced, targetRefs));
    status.synced = [...targetRefs, ...leftovers];
    return { objects, live, leftovers };
  }

  /**
   * Applies everything when the rendered objects changed, else re-applies only the objects that
   * drifted; 'clean' when no drift check is needed (driftCheckReason).
   */
  private async applyOrRestore(ctx: Context, target: Client, objects: KubeObject[], digest: string): Promise<Map<string, KubeObject> | 'clean'> {
    const key = namespacedName(ctx.manifest);
    const uid = ctx.manifest.metadata.uid ?? '';
    const generation = ctx.manifest.metadata.generation;
    const hash = hashObjects(objects);
    const opts = { fieldManager: this.d.fieldManager, concurrency: this.d.requestConcurrency, crdEstablishTimeoutMs: this.d.crdEstablishTimeoutMs, signal: ctx.signal };
    const known = this.applied.get(key);
    // Taken before the requests: a change made during them is then reported too.
    const token = this.watchToken(ctx.manifest);
    if (!known || known.hash !== hash || known.uid !== uid) {
      this.applied.delete(key);
      this.applying.set(key, { uid, objects: new Set(objects.map((o) => refKey(refOf(o)))) });
      let applied: Applied;
      try {
        applied = await applyAll(target, objects, opts);
      } finally {
        this.applying.delete(key);
      }
      this.applied.set(key, { uid, hash, renderedFrom: digest, records: applied.records, generation, driftDueAt: this.nextDriftCheck(), readAt: Date.now(), watchedSince: token });
      if (known) this.d.events.event(ctx.manifest, 'Normal', 'ResourcesApplied', `applied ${objects.length} resources of the new module manifest`);
      // The objects as the server stored them just now: the manager's readiness is read from its
      // answer, not from a GET right after it.
      return applied.stored;
    }
    // This artifact renders to what was applied (its digest may be new: the same objects published
    // again in other bytes): later clean passes may skip rendering it.
    known.renderedFrom = digest;
    const reason = this.driftCheckReason(ctx, known, token);
    // A status change reported in the runtime (a Ready Manifest), or an installing Manifest none of
    // whose objects changed since they were applied (an event would have marked it,
    // `watcher_event`): readiness is read (the manager, the module CR), and the objects whose
    // status changed are read back. Their spec may have changed through a subresource that no spec
    // event reports (`kubectl scale` writes deployments/scale), which the new generation shows;
    // kinds without a generation are left out (a status write alone moves their resourceVersion).
    if (!reason && !ctx.statusChanged) return 'clean';
    if (!reason || ((reason === 'not_ready' || reason === 'webhook_unhealthy') && this.unchangedSinceRead(known, token, ctx.status.before?.state))) {
      // Changes from now on go unreported until the webhook is healthy again: the next pass under a
      // healthy webhook reads everything back once.
      if (reason && token === undefined) {
        known.watchedSince = undefined;
        known.lastRead = undefined;
      }
      if (ctx.statusChanged && isWatched(known, token)) ctx.readinessNamed = ctx.statusChanged;
      this.d.metrics.readinessPass();
      const named = ctx.statusChanged
        ? objects.filter((o) => {
            const k = refKey(refOf(o));
            return ctx.statusChanged?.has(k) && known.records.get(k)?.generation !== undefined;
          })
        : [];
      return named.length > 0 ? this.restoreDrift(ctx, target, named, known, opts) : new Map();
    }
    this.d.metrics.driftCheck(reason);
    // Read afresh by this pass's readiness if it gets there: a last read from before must not be used
    // once the objects count as watched again (it stays the version to compare this pass's reads with).
    ctx.readBefore = known.lastRead;
    known.lastRead = undefined;
    // The read-back counts once it went through: a pass that fails in it (the runtime not answering)
    // leaves the next pass to read everything back again, not to take the objects as checked.
    known.watchedSince = undefined;
    const readAt = Date.now();
    const live = await this.restoreDrift(ctx, target, objects, known, opts);
    known.generation = generation;
    known.driftDueAt = this.nextDriftCheck();
    known.readAt = readAt;
    known.watchedSince = token;
    return live;
  }

  /** Reads `objects` back and applies again those that changed or went; returns the live copies of the others. */
  private async restoreDrift(ctx: Context, target: Client, objects: KubeObject[], known: AppliedState, opts: Parameters<typeof applyAll>[2]): Promise<Map<string, KubeObject>> {
    const drift = await checkDrift(target, objects, known.records, this.d.requestConcurrency, ctx.signal);
    if (drift.drifted.length > 0) {
      ctx.restored = true;
      const applied = await applyAll(target, drift.drifted, opts);
      for (const [k, r] of applied.records) known.records.set(k, r);
      for (const [k, o] of applied.stored) drift.live.set(k, o);
      const what = drift.drifted.map((o) => describeRef(refOf(o)));
      this.d.log.info('restored drifted resources', { manifest: namespacedName(ctx.manifest), resources: what });
      this.d.events.event(ctx.manifest, 'Normal', 'DriftRestored', `restored ${what.slice(0, 10).join(', ')}${what.length > 10 ? ` and ${what.length - 10} more` : ''}`);
    }
    return drift.live;
  }

  /**
   * Whether a pass may skip reading the objects back although no event can report their changes.
   * Under a healthy webhook (a Manifest that is not Ready): when they were applied or read back
   * under it too (every change since was reported). Without one (a new runtime's webhook is not up
   * yet, its Kyma has not confirmed it, or it is broken), an installing (Processing) or Ready
   * Manifest: when they were read less than a success interval ago (the fallback pass of a Ready
   * Manifest, 5 min with the watcher), so that busy passes every few seconds, and the passes that
   * status events and a fleet's long queues bring, do not each read every object back while a
   * fleet's webhooks come up; a change meanwhile is put back within that interval, as a Ready
   * Manifest's is. A Manifest in Error reads them back on every pass (a deleted object may be why
   * it fails).
   */
  private unchangedSinceRead(known: AppliedState, token: string | undefined, before: State | undefined): boolean {
    if (token !== undefined) return isWatched(known, token);
    if (before !== States.Processing && before !== States.Ready) return false;
    return Date.now() < known.readAt + this.d.intervals.successMs;
  }

  /** The objects' state since the last apply or read-back is not known (an event's check failed). */
  private unverified(key: string): void {
    const known = this.applied.get(key);
    if (!known) return;
    known.watchedSince = undefined;
    known.lastRead = undefined;
  }

  /**
   * The health token of the webhook that reports changes of this Manifest's objects now (its
   * Kyma's webhook; ManifestReconcilerDeps.webhookHealthySince), undefined when none does.
   */
  private watchToken(manifest: ManifestObject): string | undefined {
    if (this.d.driftCheckMs === undefined || this.isLocal(manifest)) return undefined;
    return this.d.webhookHealthySince?.(`${manifest.metadata.namespace ?? ''}/${manifest.metadata.labels?.[Labels.KymaName] ?? ''}`);
  }

  /** Whether the runtime's watcher reports changes of this Manifest's objects now (its Kyma's webhook is healthy). */
  private eventsFlow(manifest: ManifestObject): boolean {
    return this.watchToken(manifest) !== undefined;
  }

  /**
   * Whether applyOrRestore would find this pass clean, known without rendering: the objects last
   * applied were rendered from this artifact (`digest`) for this Manifest, at the generation checked
   * since (driftCheckReason's `changed`), and the pass has nothing to read back. Rendering also
   * depends on the process's pull-Secret setting (fixed) and, for custom kinds the module does not
   * define, on their scope in the runtime; a non-clean pass renders afresh.
   */
  private cleanWithoutRendering(ctx: Context, digest: string): boolean {
    const known = this.applied.get(namespacedName(ctx.manifest));
    if (!known || known.renderedFrom !== digest || known.uid !== (ctx.manifest.metadata.uid ?? '')) return false;
    return !ctx.statusChanged && this.driftCheckReason(ctx, known, this.watchToken(ctx.manifest)) === undefined;
  }

  /** Why this pass reads the objects back, or undefined for a clean pass. */
  private driftCheckReason(ctx: Context, known: AppliedState, token: string | undefined): DriftCheckReason | undefined {
    const { manifest } = ctx;
    if (this.d.driftCheckMs === undefined) return 'watcher_off';
    // Objects in the KCP itself are not watched by any runtime's webhook.
    if (this.isLocal(manifest)) return 'not_watched';
    if (ctx.driftRequested) return 'watcher_event';
    // A Deleting Manifest here is one whose default CR is held by its operator (whileDefaultCRDeleting):
    // its resources stay installed and are looked after as a Ready Manifest's are, not read back on
    // every busy pass for as long as the operator holds the CR.
    const before = ctx.status.before?.state;
    if (before !== States.Ready && !(before === States.Deleting && manifest.metadata.deletionTimestamp)) return 'not_ready';
    // spec.resource or spec.manager may have changed: the readiness reads must run again.
    if (known.generation !== manifest.metadata.generation) return 'changed';
    if (token === undefined) return 'webhook_unhealthy';
    // Read back last while the webhook did not work, or before it stopped working and came back, or
    // a pass could not answer an event's marks (unverified): a change since may not have been reported.
    if (known.watchedSince !== token) return 'events_missed';
    if (Date.now() >= known.driftDueAt) return 'interval';
    return undefined;
  }

  private nextDriftCheck(): number {
    return this.d.driftCheckMs === undefined ? 0 : Date.now() + jitter(this.d.driftCheckMs, JITTER);
  }

  /** Deletes what the new version no longer contains; returns what is still there. */
  private async prune(ctx: Context, target: Client, removed: ResourceRef[]): Promise<ResourceRef[]> {
    if (removed.length === 0) return [];
    const remaining = await deleteResources(target, removed, this.d.requestConcurrency, ctx.signal);
    const done = removed.length - remaining.length;
    if (done > 0) this.d.log.info('pruned resources', { manifest: namespacedName(ctx.manifest), pruned: done, remaining: remaining.length });
    return remaining;
  }

  /**
   * Default CR (created once), then the manager's and the module CR's state. In a readiness pass
   * brought by events (Context.readinessNamed) what no event named is taken from the last read.
   */
  private async readiness(ctx: Context, target: Client, objects: KubeObject[], live: Map<string, KubeObject>): Promise<StateInfo> {
    const { manifest, status, signal } = ctx;
    const key = namespacedName(manifest);
    const known = this.applied.get(key);
    const last = ctx.readinessNamed ? known?.lastRead : undefined;
    // No event of this pass named it, and no recheck waits to read it again: as the last read found it.
    const asLastRead = (k: string) => ctx.readinessNamed !== undefined && !ctx.readinessNamed.has(k) && !(ctx.pendingRecheck?.has(k) ?? false);
    const customCheck = manifest.metadata.annotations?.[CUSTOM_STATE_CHECK_ANNOTATION] !== undefined;

    const desired = managedDefaultCR(manifest);
    const crKey = desired ? refKey(refOf(desired)) : undefined;
    let cr: KubeObject | undefined;
    let crRead = false;
    if (desired && crKey) {
      if (last?.cr?.key === crKey && asLastRead(crKey) && !customCheck) {
        cr = last.cr.object;
        this.d.metrics.readinessReadSkipped('module_cr');
      } else {
        // Until a pass has seen the CR (its ModuleCR condition is still the initial one), it is most likely not there yet.
        const seen = status.before?.conditions?.some((c) => c.type === ManifestConditionTypes.ModuleCR && c.message !== Messages.ModuleCRNotCreated) ?? false;
        const ensured = await ensureDefaultCR(target, desired, signal, !seen);
        cr = ensured.cr;
        crRead = true;
        if (ensured.created) this.d.events.event(manifest, 'Normal', 'ModuleCRCreated', `created ${desired.kind} ${namespacedName(desired)}`);
      }
    }

    const managerObject = findManager(manifest, objects);
    const managerKey = managerObject ? refKey(refOf(managerObject)) : undefined;
    let mgr: StateInfo = { state: States.Ready };
    let manager: (ReadObject & { state: StateInfo }) | undefined;
    if (managerObject && managerKey) {
      if (last?.manager?.key === managerKey && asLastRead(managerKey)) {
        manager = last.manager;
        this.d.metrics.readinessReadSkipped('manager');
      } else {
        const current = await readManager(target, managerObject, live, signal);
        manager = { key: managerKey, resourceVersion: current?.metadata.resourceVersion, state: managerStateOf(current) };
      }
      mgr = manager.state;
    }

    if (known) {
      const previous = known.lastRead ?? ctx.readBefore;
      // An object a fresh event named, read at the version read before: the write the event reported
      // is not stored yet (the runtime calls the webhook before it stores the write). The pass asks
      // for one more look, even when it wrote the status: this read must not stand in for later
      // passes. Once only: a recheck's own pass brings no fresh marks, so it asks for none.
      const readAsBefore = (k: string | undefined, before: ReadObject | undefined, resourceVersion: string | undefined): k is string =>
        k !== undefined && (ctx.freshlyNamed?.has(k) ?? false) && before?.key === k && before.resourceVersion === resourceVersion;
      const unseen: string[] = [];
      if (manager !== previous?.manager && readAsBefore(managerKey, previous?.manager, manager?.resourceVersion)) unseen.push(managerKey);
      if (crRead && readAsBefore(crKey, previous?.cr, cr?.metadata.resourceVersion)) unseen.push(crKey);
      if (unseen.length > 0) ctx.readAsBefore = new Set(unseen);
      // Kept only while events flow (no other pass uses it); the CR only when its status changes come
      // as events of their own (it carries the label the status Watcher selects, and its CRD, installed
      // by the module, has the status subresource) and no custom state check reads other fields. A
      // CR taken from the last read stays as it was kept.
      if (this.eventsFlow(manifest)) {
        let crKept = previous?.cr?.key === crKey ? previous?.cr : undefined;
        if (crRead && cr && crKey) {
          const crEvents = !customCheck && cr.metadata.labels?.[Labels.ManagedBy] === MODULE_RESOURCE_MANAGED_BY && statusSubresourceOf(cr, objects);
          crKept = crEvents ? { key: crKey, resourceVersion: cr.metadata.resourceVersion, object: stateOfCR(cr) } : undefined;
        }
        known.lastRead = { ...(manager ? { manager } : {}), ...(crKept ? { cr: crKept } : {}) };
      } else {
        known.lastRead = undefined;
      }
    }

    if (!cr) return mgr;
    const crState = moduleCRState(manifest, cr);
    if (crState.state === States.Warning) status.condition(ManifestConditionTypes.ModuleCR, 'False', ManifestConditionReasons.ModuleCRWarning, crState.info ?? Messages.ModuleCRStateMissing);
    else status.condition(ManifestConditionTypes.ModuleCR, 'True', ManifestConditionReasons.ModuleCRCreated, Messages.ModuleCRCreated);
    return mgr.state !== States.Ready ? mgr : crState;
  }

  private setState(ctx: Context, info: StateInfo): void {
    const { status } = ctx;
    if (info.state === States.Ready) {
      status.condition(ManifestConditionTypes.Installation, 'True', ManifestConditionReasons.Ready, Messages.InstallationReady);
      status.set(States.Ready, Messages.ResourcesReady);
    } else {
      status.condition(ManifestConditionTypes.Installation, 'False', ManifestConditionReasons.Ready, Messages.InstallationNotReady);
      status.set(info.state, info.info ?? Messages.WaitingForResources);
    }
  }

  private async invalidManifest(ctx: Context, e: ArtifactError | RenderError): Promise<ReconcileResult> {
    const reason = e instanceof ArtifactError ? e.reason : 'InvalidManifest';
    ctx.status.condition(ManifestConditionTypes.Resources, 'False', reason, e.message.slice(0, 30_000));
    ctx.status.set(States.Error, `${reason}: ${e.message}`.slice(0, 30_000));
    if (ctx.status.operation !== ctx.status.before?.lastOperation?.operation) this.d.events.event(ctx.manifest, 'Warning', reason, e.message.slice(0, 1000));
    return this.finish(ctx, 'invalid manifest', true);
  }

  // ---- deletion -----------------------------------------------------------------------------

  private async remove(ctx: Context, target: Client): Promise<ReconcileResult | void> {
    const { manifest, status, signal } = ctx;
    // The module's kinds once per pass: the user CRs and the default CR's served version both need them.
    const kinds = await moduleKinds(target, manifest, status.synced, signal);
    const userCRs = await findUserCRs(target, manifest, kinds, signal);
    if (userCRs.length > 0) {
      status.set(States.Deleting, `${Messages.WaitingForModuleCRs}: ${describeUserCRs(userCRs)}`);
      // One event per change of the blocking set, not one per reconcile.
      if (status.operation !== status.before?.lastOperation?.operation) this.d.events.event(manifest, 'Warning', 'DeletionBlocked', status.operation.slice(0, 1000));
      return this.finish(ctx, 'module crs exist');
    }
    const desired = managedDefaultCR(manifest);
    if (desired) {
      const live = liveDefaultCR(desired, kinds);
      if (!(await deleteDefaultCR(target, live, signal))) return this.whileDefaultCRDeleting(ctx, target, desired, live);
    }
    const remaining = await deleteResources(target, status.synced, this.d.requestConcurrency, signal);
    if (remaining.length > 0) {
      status.synced = remaining;
      status.set(States.Deleting, `waiting for resources to be deleted: ${remaining.slice(0, 10).map(describeRef).join(', ')}`);
      return this.finish(ctx, 'resources deletion');
    }
    this.d.events.event(manifest, 'Normal', 'ModuleRemoved', 'module resources removed from the runtime');
    if (manifest.metadata.finalizers?.some((f) => !OUR_FINALIZERS.includes(f))) {
      // As upstream: the Manifest stays Deleting and says why, written once.
      status.set(States.Deleting, Messages.WaitingForOtherFinalizers);
      await this.finish(ctx, 'other finalizers');
    }
    // Logged once: a lost race on the finalizers brings the same pass again.
    if (await this.dropFinalizers(manifest, OUR_FINALIZERS)) {
      this.d.metrics.requeue(ManifestRequeueReasons.RemoveFinalizerInDeleting, 'intended');
      this.d.log.info('module removed from the runtime', { manifest: namespacedName(manifest), module: manifest.metadata.labels?.[Labels.ModuleName] ?? '', kyma: manifest.metadata.labels?.[Labels.KymaName] ?? '' });
    }
    this.forget(namespacedName(manifest));
  }

  /**
   * The default CR is marked for deletion and its operator still holds it (a finalizer): the module
   * keeps running meanwhile, and keeps following its Manifest, so that a new version reaches it
   * (upstream's upgrade under deletion; re-enabling the module changes nothing until it is gone).
   * Not when the new version names the CR in an API version the installed CRD does not serve: its
   * CRDs would change the CR's storage under the operator that is finalizing it, so the installed
   * version stays until the CR is gone (upstream's module API upgrade under blocked deletion).
   */
  private async whileDefaultCRDeleting(ctx: Context, target: Client, desired: KubeObject, live: KubeObject): Promise<ReconcileResult> {
    const { status } = ctx;
    const waiting = `waiting for the deletion of the module CR ${desired.kind} ${namespacedName(desired)}`;
    if (live.apiVersion !== desired.apiVersion) {
      status.set(States.Deleting, `${waiting}; the new version (module CR API ${desired.apiVersion}) is not installed meanwhile`);
      return this.finish(ctx, 'default cr deletion');
    }
    const synced = await this.syncObjects(ctx, target);
    if (synced !== 'clean' && !('objects' in synced)) return synced;
    status.set(States.Deleting, waiting);
    return this.finish(ctx, 'default cr deletion');
  }

  // ---- unmanaged ----------------------------------------------------------------------------

  /** The user took the module over: its resources stay, without our managed-by label, and the Manifest goes. */
  private async unmanage(ctx: Context): Promise<ReconcileResult | void> {
    const { manifest, signal } = ctx;
    if (manifest.metadata.finalizers?.includes(Finalizers.LabelRemoval)) {
      try {
        await this.removeManagedByLabels(this.targetClient(manifest), manifest, signal);
      } catch (e) {
        // Without the runtime's kubeconfig there are no labels to remove any more.
        if (!(e instanceof KubeconfigSecretError && e.reason === 'SecretNotFound')) throw e;
      }
      this.d.events.event(manifest, 'Normal', 'Unmanaged', 'managed-by labels removed; the module resources stay in the runtime');
      await this.dropFinalizers(manifest, manifest.metadata.deletionTimestamp ? OUR_FINALIZERS : [Finalizers.LabelRemoval]);
      return;
    }
    if (manifest.metadata.deletionTimestamp) {
      await this.dropFinalizers(manifest, OUR_FINALIZERS);
      this.forget(namespacedName(manifest));
      return;
    }
    try {
      await this.d.kcp.delete(Manifest, { namespace: manifest.metadata.namespace, name: manifest.metadata.name ?? '' }, { signal });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  private async removeManagedByLabels(target: Client, manifest: ManifestObject, signal: AbortSignal): Promise<void> {
    const refs: { apiVersion: string; kind: string; namespace?: string; name: string }[] = (manifest.status?.synced ?? []).map((r) => ({
      apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
      kind: r.kind,
      namespace: r.namespace || undefined,
      name: r.name,
    }));
    const cr = managedDefaultCR(manifest);
    if (cr) refs.push({ apiVersion: cr.apiVersion, kind: cr.kind, namespace: cr.metadata.namespace || undefined, name: cr.metadata.name ?? '' });
    // The default CR carries no watched-by label; removing an absent label is a no-op.
    const patch = { metadata: { labels: { [Labels.ManagedBy]: null, [Labels.WatchedBy]: null } } };
    for (const r of refs) {
      if (signal.aborted) throw signal.reason;
      try {
        await target.patch(r, { namespace: r.namespace, name: r.name }, 'merge', patch, { signal });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
  }

  // ---- orphans ------------------------------------------------------------------------------

  private isOrphaned(manifest: ManifestObject): boolean {
    const kymas = this.d.kymas;
    const kymaName = manifest.metadata.labels?.[Labels.KymaName];
    if (!kymas || !kymaName || !kymas.synced()) return false;
    return kymas.store.get(`${manifest.metadata.namespace ?? ''}/${kymaName}`) === undefined;
  }

  private async orphaned(ctx: Context): Promise<ReconcileResult> {
    ctx.status.set(States.Error, Messages.Orphaned);
    if (ctx.status.before?.lastOperation?.operation !== Messages.Orphaned) {
      const kymaName = ctx.manifest.metadata.labels?.[Labels.KymaName] ?? '';
      this.d.events.event(ctx.manifest, 'Warning', 'OrphanedManifest', `${Messages.Orphaned} (${kymaName})`);
      this.d.log.warn('orphaned manifest', { manifest: namespacedName(ctx.manifest), kyma: kymaName });
    }
    return this.finish(ctx, 'orphaned', true);
  }

  // ---- shared -------------------------------------------------------------------------------

  private isLocal(manifest: ManifestObject): boolean {
    return manifest.metadata.annotations?.[Annotations.SyncStrategy] === SyncStrategies.LocalClient || manifest.spec.remote === false;
  }

  private targetClient(manifest: ManifestObject): Client {
    if (this.isLocal(manifest)) return this.d.kcp;
    const kymaName = manifest.metadata.labels?.[Labels.KymaName] ?? '';
    return this.d.targets(kymaName, manifest);
  }

  /**
   * Adds the finalizers the Manifest needs: the Manifest as written, undefined when none was
   * missing, 'conflict' when a newer version came first (or the Manifest went).
   */
  private async ensureFinalizers(manifest: ManifestObject): Promise<ManifestObject | 'conflict' | undefined> {
    const want = [Finalizers.Manifest, Finalizers.LabelRemoval, ...(managedDefaultCR(manifest) ? [Finalizers.CustomResourceManager] : [])];
    const have = manifest.metadata.finalizers ?? [];
    const missing = want.filter((f) => !have.includes(f));
    if (missing.length === 0) return undefined;
    return (await this.updateFinalizers(manifest, [...have, ...missing])) ?? 'conflict';
  }

  /** Whether the finalizers were dropped now (false: none of ours left, or a newer version came first). */
  private async dropFinalizers(manifest: ManifestObject, drop: readonly string[]): Promise<boolean> {
    const have = manifest.metadata.finalizers ?? [];
    const keep = have.filter((f) => !drop.includes(f));
    return keep.length !== have.length && (await this.updateFinalizers(manifest, keep)) !== undefined;
  }

  /** The Manifest as written; undefined when a newer version came first or it went (on its way through the informer). */
  private async updateFinalizers(manifest: ManifestObject, finalizers: string[]): Promise<ManifestObject | undefined> {
    try {
      return await this.d.kcp.update<ManifestObject>({ ...manifest, metadata: { ...manifest.metadata, finalizers } });
    } catch (e) {
      if (isConflict(e) || isNotFound(e)) return undefined;
      throw e;
    }
  }

  /**
   * Writes the status when it changed, records metrics and says when to look again: after the
   * interval of the state, or with the per-Manifest exponential backoff (`backoff`) for failures
   * that repeat until someone fixes something (a broken artifact, an orphan).
   */
  private async finish(ctx: Context, reason: string, backoff = false): Promise<ReconcileResult> {
    const { manifest, status } = ctx;
    const next = status.toWrite();
    if (next) {
      ctx.statusWritten = true;
      try {
        await this.d.kcp.patch(Manifest, { namespace: manifest.metadata.namespace, name: manifest.metadata.name ?? '' }, 'merge', { status: next }, { subresource: 'status', signal: ctx.signal });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    const previous = status.before?.state;
    const kymaName = manifest.metadata.labels?.[Labels.KymaName] ?? '';
    const moduleName = manifest.metadata.labels?.[Labels.ModuleName] ?? '';
    this.reported.set(namespacedName(manifest), { kymaName, moduleName });
    if (previous !== status.state) this.logStateChange(manifest, previous, status.state, status.operation);
    this.d.metrics.recordState({
      manifest: manifest.metadata.name ?? '',
      namespace: manifest.metadata.namespace ?? '',
      kymaName,
      moduleName,
      state: status.state,
      previous,
    });
    this.d.metrics.requeue(reason, status.state === States.Error ? 'unexpected' : 'intended', previous !== status.state);
    const error = status.state === States.Error ? status.operation : undefined;
    const fallback = !backoff && this.isFallback(manifest, status.state);
    return { ...(backoff ? { requeue: true } : { requeueAfterMs: this.intervalFor(status.state) }), ...(fallback ? { fallback } : {}), ...(error !== undefined ? { error } : {}) };
  }

  /**
   * Passes that look for what events report anyway wait behind the Manifests woken by changes: a
   * Ready Manifest's with the runtime watcher, and an installing one's busy pass while its runtime's
   * webhook reports its module's status (else the busy pass is how it notices readiness).
   */
  private isFallback(manifest: ManifestObject, state: State): boolean {
    if (state !== States.Ready && state !== States.Processing) return false;
    return this.eventsFlow(manifest);
  }

  /** Error: warn with the reason; Ready (installed, upgraded, repaired) and Warning: info; the rest debug. */
  private logStateChange(manifest: ManifestObject, from: State | undefined, to: State, reason: string): void {
    const level = to === States.Error ? 'warn' : to === States.Ready || to === States.Warning ? 'info' : 'debug';
    if (!this.d.log.enabled(level)) return;
    const labels = manifest.metadata.labels ?? {};
    this.d.log[level]('Manifest state changed', {
      manifest: namespacedName(manifest),
      module: labels[Labels.ModuleName] ?? '',
      kyma: labels[Labels.KymaName] ?? '',
      from: from ?? '',
      to,
      ...(to !== States.Ready ? { reason } : {}),
    });
  }

  private intervalFor(state: State): number {
    const i = this.d.intervals;
    const base = state === States.Ready ? i.successMs : state === States.Warning ? i.warningMs : state === States.Error ? i.errorMs : i.busyMs;
    return Math.round(jitter(base, JITTER));
  }

  private forget(key: string): void {
    this.applied.delete(key);
    this.rechecks.delete(key);
    const labels = this.reported.get(key);
    if (labels) {
      this.d.metrics.forget(key.slice(key.indexOf('/') + 1), labels.kymaName, labels.moduleName);
      this.reported.delete(key);
    }
  }
}

function union(a: ReadonlySet<string> | undefined, b: ReadonlySet<string> | undefined): ReadonlySet<string> | undefined {
  if (!a || !b) return a ?? b;
  return new Set([...a, ...b]);
}

/**
 * What moduleCRState reads of a default CR without a custom state check (`status.state`, the name
 * and the creation time), kept instead of the whole object; the strings that recur in every
 * runtime are shared.
 */
function stateOfCR(cr: KubeObject): KubeObject {
  const state = (cr.status as { state?: unknown } | undefined)?.state;
  return {
    apiVersion: sharedStrings.intern(cr.apiVersion),
    kind: sharedStrings.intern(cr.kind),
    metadata: { name: sharedStrings.intern(cr.metadata.name ?? ''), namespace: sharedStrings.intern(cr.metadata.namespace ?? ''), creationTimestamp: cr.metadata.creationTimestamp },
    ...(state !== undefined ? { status: { state } } : {}),
  };
}

/** Whether every change of the objects since they were applied or read back was reported: under a working webhook that has not stopped working since. */
function isWatched(known: AppliedState, token: string | undefined): boolean {
  return token !== undefined && known.watchedSince === token;
}
