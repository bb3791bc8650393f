// Watcher events into the lifecycle manager's work queues. The listener has authenticated the
// runtime (the certificate's Common Name is its runtime-id); the event body only says which object
// changed. So an event can only ever wake the Kyma of the runtime that sent it, or its Manifests.
//   lifecycle-manager            (Watcher klm-watcher: the runtime's Kyma)  -> that Kyma
//   lifecycle-manager-resources  (module resources changed or deleted)      -> the Manifest that owns it (else that Kyma's Manifests)
//   lifecycle-manager-module-status (their status changed)                  -> the same Manifests: readiness, and that object
//   lifecycle-manager-module-config (a module's custom resource changed)    -> that Kyma's ModuleConfigs (keyed by Manifest)
// The watcher's own webhook objects in the runtime (in practice its Deployment's status: the default
// Watchers see no other change of them) belong to no Manifest: their events go to the Kyma, whose next
// pass looks at the webhook.
// Before a key is enqueued it is marked: a marked Kyma reads its runtime Kyma at its next reconcile
// (an event pass), a Manifest marked for drift reads its objects back, one marked for readiness
// reads its readiness and the objects the events named, where an unmarked periodic pass works from
// the caches.
import { EventEmitter } from 'node:events';
import { Kyma, Labels, type KymaObject, type ManifestObject } from '../api/operator/index.js';
import type { Store } from '../runtime/cache/store.js';
import type { KeyEmitter, ReconcileResult } from '../runtime/controller.js';
import { splitApiVersion } from '../kube/object.js';
import { managedDefaultCR } from './manifest/default-cr.js';
import { runtimeIdOf } from '../watcher/certificates.js';
import { isSkrWebhookObject } from '../watcher/skr-objects.js';

export interface DeliveredWatchEvent {
  runtimeId: string;
  /** What the webhook saw change (the v2 body), when known. */
  event?: { watched?: { namespace: string; name: string }; watchedGvk: { group: string; kind: string } };
}

/** `ignored`: accepted, but nothing needs to look (the listener answers 200 all the same). */
export type RouteResult = 'enqueued' | 'ignored' | 'unknown-runtime';

/** The runtime Kyma: its status is the lifecycle manager's own mirror, not a module's. */
function isRuntimeKyma(e: DeliveredWatchEvent): boolean {
  return e.event?.watchedGvk.group === 'operator.kyma-project.io' && e.event.watchedGvk.kind === Kyma.kind;
}

/**
 * A pass that answered watcher events and found nothing changed looks once more this much later:
 * a webhook is called before the API server stores the write, so the event can come first (upstream's
 * runtime-watcher sends it before it even answers the API server).
 */
export const EVENT_RECHECK_MS = 1_000;

/**
 * The result of a pass, bringing the key back by its pending recheck's time (`dueAt`,
 * performance.now()) at the latest: the work queue keeps only the earliest wake-up of a key, so every
 * pass (also one that came sooner) asks for the recheck's. `first`: the recheck goes ahead of other
 * keys, as the events it repeats did.
 */
export function untilRecheck(result: ReconcileResult | void, dueAt: number | undefined, first = false): ReconcileResult | void {
  // A failure's backoff stays as it is (requeueAfterMs would reset it); the recheck waits for the pass after.
  if (dueAt === undefined || (result?.requeue && result.requeueAfterMs === undefined)) return result;
  const ms = Math.max(1, Math.ceil(dueAt - performance.now()));
  if (result?.requeueAfterMs !== undefined && result.requeueAfterMs <= ms) return result;
  return { ...result, requeueAfterMs: ms, fallback: false, ...(first ? { first } : {}) };
}

/**
 * Takes the recheck of `key` when it is due (`performance.now()` at or after its time, less a
 * timer's slack); one not yet due stays for the requeue that comes for it, so that a pass woken
 * sooner (by the asking pass's own writes) does not use it up before the change could be stored.
 */
export function takeDue<T extends { dueAt: number }>(rechecks: Map<string, T>, key: string): T | undefined {
  const r = rechecks.get(key);
  if (r === undefined || performance.now() < r.dueAt - 50) return undefined;
  rechecks.delete(key);
  return r;
}

/** Keys marked for a closer look at their next reconcile: set by events, taken by the reconciler. */
export class PendingChecks {
  private readonly keys = new Set<string>();

  mark(key: string): void {
    this.keys.add(key);
  }

  /** Whether the key was marked; clears the mark. */
  take(key: string): boolean {
    return this.keys.delete(key);
  }

  /** Whether the key is marked (the mark stays). */
  has(key: string): boolean {
    return this.keys.has(key);
  }
}

/** An object a status event named: `group/kind/namespace/name` (the Manifest inventory's key form). */
export function objectKeyOf(e: DeliveredWatchEvent): string | undefined {
  const watched = e.event?.watched;
  if (!e.event || !watched?.name) return undefined;
  return `${e.event.watchedGvk.group}/${e.event.watchedGvk.kind}/${watched.namespace}/${watched.name}`;
}

/** Keys marked with the objects that changed (ANY_OBJECT: an event that named none). */
export class PendingObjects {
  static readonly ANY_OBJECT = '*';
  private readonly keys = new Map<string, Set<string>>();

  mark(key: string, object: string | undefined): void {
    let objects = this.keys.get(key);
    if (!objects) this.keys.set(key, (objects = new Set()));
    objects.add(object ?? PendingObjects.ANY_OBJECT);
  }

  /** The objects marked for the key (undefined: not marked); clears the mark. */
  take(key: string): ReadonlySet<string> | undefined {
    const objects = this.keys.get(key);
    this.keys.delete(key);
    return objects;
  }

  /** Whether the key is marked (the mark stays). */
  has(key: string): boolean {
    return this.keys.has(key);
  }
}

/** Whether this process's Manifest reconciler applied, or is applying, the object (`group/kind/namespace/name`) for this Manifest. */
export type AppliedObjects = (manifest: ManifestObject, objectKey: string) => boolean;

/**
 * The Manifests an object belongs to: those whose inventory (`status.synced`) or default CR
 * (`spec.resource`) names it, or whose pass here applied or is applying it (`applied`: the status
 * events of a module's objects come while the pass that creates them runs, before it writes the
 * inventory). None known (this process did not apply it and no inventory names it yet, an event
 * without the object): all of the Kyma's Manifests, as a safe default.
 */
function owners(manifests: ManifestObject[], e: DeliveredWatchEvent, applied: AppliedObjects | undefined): { manifests: ManifestObject[]; found: boolean } {
  const watched = e.event?.watched;
  if (!watched || !e.event) return { manifests, found: false };
  const { group, kind } = e.event.watchedGvk;
  const object = objectKeyOf(e);
  const named = (ns: string | undefined, n: string | undefined) => (ns ?? '') === watched.namespace && n === watched.name;
  const found = manifests.filter((m) => {
    if (object !== undefined && applied?.(m, object)) return true;
    if ((m.status?.synced ?? []).some((r) => r.group === group && r.kind === kind && named(r.namespace, r.name))) return true;
    const cr = managedDefaultCR(m);
    return !!cr && cr.kind === kind && splitApiVersion(cr.apiVersion).group === group && named(cr.metadata.namespace, cr.metadata.name);
  });
  return found.length > 0 ? { manifests: found, found: true } : { manifests, found: false };
}

export class WatcherEventRouter {
  private readonly kymaKeys = new EventEmitter();
  private readonly manifestKeys = new EventEmitter();
  /** Manifests under way (reconciled before: they have a state) that an event concerns. */
  private readonly manifestUnderWayKeys = new EventEmitter();
  private readonly moduleConfigKeys = new EventEmitter();
  /** A CA rotation's wake-all: every Kyma, in turn with other changes. */
  private readonly kymaWakeKeys = new EventEmitter();
  /** Kymas whose runtime reported a change of its Kyma: the next reconcile reads the runtime Kyma. */
  readonly kymaEvents = new PendingChecks();
  /** Kymas that need a full runtime check at once (their certificates must be re-issued). */
  readonly runtimeChecks = new PendingChecks();
  /** Kymas whose runtime reported a change of the webhook's own objects: the next reconcile looks at the webhook. */
  readonly webhookChecks = new PendingChecks();
  /** Manifests whose resources changed in their runtime. */
  readonly driftChecks = new PendingChecks();
  /** Manifests whose resources' status changed in their runtime, with those resources. */
  readonly readinessChecks = new PendingObjects();
  /** Called with the Kyma key of every routed event (e.g. to time event -> reconcile). */
  onRouted?: (kymaKey: string, e: DeliveredWatchEvent) => void;
  /** Set by the wiring: what this process's Manifest reconciler applied or is applying (see owners). */
  applied?: AppliedObjects;
  /** Called for every Manifest key an event about a module's resources enqueued (drift or readiness). */
  onManifestKey?: (found: 'owner' | 'all', lane: 'first' | 'normal') => void;

  constructor(
    private readonly namespace: string,
    private readonly kymas: Store<KymaObject>,
    private readonly manifests: Store<ManifestObject>,
  ) {
    this.kymaKeys.setMaxListeners(0);
    this.manifestKeys.setMaxListeners(0);
    this.manifestUnderWayKeys.setMaxListeners(0);
    this.moduleConfigKeys.setMaxListeners(0);
    this.kymaWakeKeys.setMaxListeners(0);
  }

  /**
   * Keys for the Kyma controller of Kymas whose runtime Kyma changed (marked in kymaEvents) or whose
   * webhook objects changed there (marked in webhookChecks). Both passes are cheap and concern work
   * under way (a runtime admin's change; whether the runtime's events can be relied on, which its
   * Manifests wait for), so they go ahead of other Kymas' passes.
   */
  get kymaSource(): KeyEmitter {
    return this.kymaKeys;
  }

  /** Keys for the Kyma controller of every Kyma after a CA rotation (marked in runtimeChecks): full checks, in turn with other changes. */
  get kymaWakeSource(): KeyEmitter {
    return this.kymaWakeKeys;
  }

  /** Keys for the Manifest controller. */
  get manifestSource(): KeyEmitter {
    return this.manifestKeys;
  }

  /**
   * Keys for the Manifest controller of Manifests reconciled before (they have a state, or this
   * process applied the object the event names for them): an event about one of them concerns work
   * under way (a module installing, a change to put back), which goes ahead of new Manifests' first
   * passes. An event about a Manifest not reconciled yet (the router hands an object nothing names
   * yet to all of a Kyma's Manifests) comes through manifestSource and keeps its place among the
   * first passes.
   */
  get manifestUnderWaySource(): KeyEmitter {
    return this.manifestUnderWayKeys;
  }

  /** Manifest keys for the ModuleConfig controller. */
  get moduleConfigSource(): KeyEmitter {
    return this.moduleConfigKeys;
  }

  /** The Kyma of a runtime, from the informer cache (indexed by label). */
  kymaOf(runtimeId: string): KymaObject | undefined {
    const labelled = this.kymas.list({ namespace: this.namespace, labelSelector: `${Labels.RuntimeID}=${runtimeId}` });
    if (labelled.length > 0) return labelled[0];
    const named = this.kymas.get(`${this.namespace}/${runtimeId}`);
    // A Kyma named like the runtime but labelled with another runtime-id belongs to that other runtime.
    return named && runtimeIdOf(named) === runtimeId ? named : undefined;
  }

  kymaChanged(e: DeliveredWatchEvent): RouteResult {
    return this.toKyma(e, this.kymaEvents);
  }

  moduleResourceChanged(e: DeliveredWatchEvent): RouteResult {
    // A klm-module-status Watcher from before it had a manager of its own sends status events here.
    if (isRuntimeKyma(e)) return this.kymaOf(e.runtimeId) ? 'ignored' : 'unknown-runtime';
    return this.toWebhook(e) ?? this.toManifests(e, this.manifestKeys, this.driftChecks, (ms) => owners(ms, e, this.applied), this.manifestUnderWayKeys);
  }

  moduleStatusChanged(e: DeliveredWatchEvent): RouteResult {
    // klm-module-status sees every status labelled managed-by: kyma, the runtime Kyma's included:
    // the lifecycle manager writes that one itself (its webhook does not send its own writes, upstream's
    // image does), and no Manifest needs to look again for it.
    if (isRuntimeKyma(e)) return this.kymaOf(e.runtimeId) ? 'ignored' : 'unknown-runtime';
    const object = objectKeyOf(e);
    return this.toWebhook(e) ?? this.toManifests(e, this.manifestKeys, { mark: (key) => this.readinessChecks.mark(key, object) }, (ms) => owners(ms, e, this.applied), this.manifestUnderWayKeys);
  }

  /** A module's custom resource changed: the ModuleConfig controller looks at that Kyma's modules (cheap for those that do not opt in). */
  moduleConfigChanged(e: DeliveredWatchEvent): RouteResult {
    return this.toManifests(e, this.moduleConfigKeys);
  }

  /** An event about one of the webhook's own objects: to its Kyma (undefined: the event names another object). */
  private toWebhook(e: DeliveredWatchEvent): RouteResult | undefined {
    const watched = e.event?.watched;
    if (!e.event || !watched?.name) return undefined;
    if (!isSkrWebhookObject(e.event.watchedGvk.group, e.event.watchedGvk.kind, watched.namespace, watched.name)) return undefined;
    return this.toKyma(e, this.webhookChecks);
  }

  /** The event's Kyma, marked in `checks`, to the Kyma controller's events channel. */
  private toKyma(e: DeliveredWatchEvent, checks: PendingChecks): RouteResult {
    const kyma = this.kymaOf(e.runtimeId);
    if (!kyma) return 'unknown-runtime';
    const key = `${this.namespace}/${kyma.metadata.name ?? ''}`;
    this.onRouted?.(key, e);
    checks.mark(key);
    this.kymaKeys.emit('key', key);
    return 'enqueued';
  }

  private toManifests(
    e: DeliveredWatchEvent,
    keys: EventEmitter,
    checks?: Pick<PendingChecks, 'mark'>,
    pick?: (manifests: ManifestObject[]) => { manifests: ManifestObject[]; found: boolean },
    underWayKeys?: EventEmitter,
  ): RouteResult {
    const kyma = this.kymaOf(e.runtimeId);
    if (!kyma) return 'unknown-runtime';
    const name = kyma.metadata.name ?? '';
    this.onRouted?.(`${this.namespace}/${name}`, e);
    const ofKyma = this.manifests.list({ namespace: this.namespace, labelSelector: `${Labels.KymaName}=${name}` });
    const picked = pick?.(ofKyma);
    const object = objectKeyOf(e);
    for (const m of picked?.manifests ?? ofKyma) {
      const key = `${this.namespace}/${m.metadata.name ?? ''}`;
      checks?.mark(key);
      // A state, or its object applied here (its first pass may have ended before the cache has the state it wrote).
      const underWay = !!underWayKeys && (!!m.status?.state || (object !== undefined && this.applied?.(m, object) === true));
      (underWay ? underWayKeys : keys).emit('key', key);
      if (picked) this.onManifestKey?.(picked.found ? 'owner' : 'all', underWay ? 'first' : 'normal');
    }
    return 'enqueued';
  }

  /** Wakes every Kyma for a full runtime check (after a CA rotation, so their certificates are re-issued now). */
  wakeAll(): void {
    for (const key of this.kymas.keys()) {
      this.runtimeChecks.mark(key);
      this.kymaWakeKeys.emit('key', key);
    }
  }
}
