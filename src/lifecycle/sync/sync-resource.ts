// The SyncResource controller: applies what module managers write into SyncResources to the runtime
// of the Kyma they name, and reports per item. One reconcile per SyncResource:
//
//   deleting            -> remove what it put into the runtime -> drop the finalizer
//   invalid / no Kyma   -> Error, nothing applied
//   module not enabled  -> remove what it put into the runtime, Warning
//   otherwise           -> per item: refuse kinds the module's template does not allow, or
//                          CreateAndSync (server-side apply) | CreateAndIgnore (create if missing) |
//                          Delete (make absent); read feedback values; handle items that left the spec
//
// What the lifecycle manager removes (docs/module-sync.md, "What is removed when"):
//   an item leaves the spec            -> its CreateAndSync object; CreateAndIgnore objects stay (the runtime owns them)
//   the SyncResource or module goes     -> every CreateAndSync object, and CreateAndIgnore objects it created
// Objects are only removed while they carry the module's synced-by label.
import {
  Finalizers,
  Kyma,
  Labels,
  Manifest,
  ModuleTemplate,
  States,
  SyncConditionTypes,
  SyncResource,
  isEnabled,
  validateSyncResource,
  type KymaObject,
  type ManifestObject,
  type ModuleTemplateObject,
  type State,
  type SyncResourceObject,
  type SyncedItem,
  type SyncedItemStatus,
} from '../../api/operator/index.js';
import type { Condition } from '../../api/schema.js';
import { namespacedName } from '../../kube/keys.js';
import type { KubeObject } from '../../kube/object.js';
import type { Store } from '../../runtime/cache/store.js';
import { isNoKindMatch } from '../../runtime/client/discovery.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../runtime/client/errors.js';
import { findObject } from '../../runtime/client/find.js';
import type { Client } from '../../runtime/client/interface.js';
import type { ReconcileResult, Request } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/events.js';
import { type Manager, newControllerManagedBy } from '../../runtime/manager.js';
import { deletionChanged, finalizersChanged, generationChanged, labelsChanged, or } from '../../runtime/predicates.js';
import { jitter } from '../../runtime/timers.js';
import { setCondition } from '../kyma/status.js';
import { messageOf } from '../manifest/util.js';
import { accessErrorOf, type RuntimeAccess, RuntimeAccessError } from '../remote/access.js';
import { DEFAULT_ERROR_RETRY_MS, DEFAULT_FEEDBACK_MS, DEFAULT_RESYNC_MS, SYNC_FIELD_MANAGER, SYNCED_BY_LABEL } from './constants.js';
import { describeTarget, desiredObjectOf, feedbackOf, hashOf, refusalOf, sameTarget, type Target, targetOf } from './items.js';
import type { SyncMetrics } from './metrics.js';
import { sameStatusIgnoringTimes } from './status.js';
import { manifestOf, type ModuleCatalog, templateOf } from './module-template.js';

export interface SyncResourceControllerOptions {
  namespace: string;
  access: RuntimeAccess;
  metrics: SyncMetrics;
  /** Every item is applied again this often (default 5 min, jittered), repairing changes in the runtime. */
  resyncMs?: number;
  /** Retry after an item failed or the runtime could not be reached (default 5 s). */
  errorRetryMs?: number;
  /** Feedback values are read again this often while an item has feedback rules (default 30 s). */
  feedbackMs?: number;
}

type ItemStatus = SyncedItemStatus;
type Status = NonNullable<SyncResourceObject['status']>;

interface Pass {
  sr: SyncResourceObject;
  module: string;
  client: Client;
  signal: AbortSignal;
  now: string;
}

/** Why a removal happens: an item left the spec, or everything goes (SyncResource deleted, module disabled). */
type Removal = 'item-removed' | 'teardown';

export class SyncResourceReconciler {
  private readonly resyncMs: number;
  private readonly errorRetryMs: number;
  private readonly feedbackMs: number;
  /** When each item (`<uid>/<item>`) was last applied: the periodic re-apply is due after resyncMs. */
  private readonly lastApplied = new Map<string, number>();
  /** The resourceVersion of each CreateAndSync object after our last apply, to tell drift from no-ops. */
  private readonly appliedVersion = new Map<string, string>();

  constructor(
    private readonly d: {
      namespace: string;
      kcp: Client;
      access: RuntimeAccess;
      catalog: ModuleCatalog;
      kymas: Store<KymaObject>;
      syncResources: Store<SyncResourceObject>;
      events: EventRecorder;
      metrics: SyncMetrics;
      resyncMs?: number;
      errorRetryMs?: number;
      feedbackMs?: number;
    },
  ) {
    this.resyncMs = d.resyncMs ?? DEFAULT_RESYNC_MS;
    this.errorRetryMs = d.errorRetryMs ?? DEFAULT_ERROR_RETRY_MS;
    this.feedbackMs = d.feedbackMs ?? DEFAULT_FEEDBACK_MS;
  }

  async reconcile(req: Request, signal: AbortSignal): Promise<ReconcileResult | void> {
    const cached = this.d.syncResources.get(namespacedName(req));
    if (!cached) return;
    let sr = structuredClone(cached);
    if (isEnabled(sr.metadata.labels?.[Labels.SkipReconciliation])) return;
    if (sr.metadata.deletionTimestamp) return this.finalize(sr, signal);
    if (!(sr.metadata.finalizers ?? []).includes(Finalizers.SyncResource)) {
      sr = await this.d.kcp.update({ ...sr, metadata: { ...sr.metadata, finalizers: [...(sr.metadata.finalizers ?? []), Finalizers.SyncResource] } }, { signal });
    }
    const now = new Date().toISOString();
    const refused = this.refusal(sr);
    if (refused) {
      await this.writeStatus(sr, States.Error, refused, sr.status?.items ?? [], now, signal);
      return;
    }
    const module = sr.spec.module ?? '';
    const manifest = manifestOf(this.d.catalog, sr.metadata.namespace ?? '', sr.spec.kyma, module);
    let client: Client;
    try {
      client = this.d.access.client(sr.spec.kyma);
      const pass: Pass = { sr, module, client, signal, now };
      if (!manifest || manifest.metadata.deletionTimestamp) {
        const left = await this.removeAll(pass, 'teardown');
        const message = `module ${module} is not enabled in Kyma ${sr.spec.kyma}: nothing is synchronized${left.some((i) => i.state !== States.Warning) ? '; removing what was' : ''}`;
        await this.writeStatus(sr, States.Warning, message, left, now, signal);
        return left.some((i) => i.state === States.Error) ? { requeueAfterMs: this.errorRetryMs } : undefined;
      }
      const template = templateOf(this.d.catalog, manifest);
      if (!template) {
        await this.writeStatus(sr, States.Error, `the ModuleTemplate of module ${module} version ${manifest.spec.version ?? ''} was not found: it lists the kinds the module may sync`, sr.status?.items ?? [], now, signal);
        return { requeueAfterMs: this.errorRetryMs };
      }
      const items = await this.syncItems(pass, template);
      const state = worst(items.map((i) => i.state));
      const failed = items.filter((i) => i.state !== States.Ready).length;
      const message = failed === 0 ? `${items.length} item(s) synchronized into the runtime of Kyma ${sr.spec.kyma}` : `${failed} of ${items.length} item(s) not synchronized`;
      await this.writeStatus(sr, state, message, items, now, signal);
      if (state !== States.Ready) return { requeueAfterMs: this.errorRetryMs };
      const feedback = sr.spec.items.some((i) => (i.feedback ?? []).length > 0);
      return { requeueAfterMs: jitter(feedback ? Math.min(this.feedbackMs, this.resyncMs) : this.resyncMs, 0.1) };
    } catch (e) {
      if (signal.aborted) throw e;
      const access = accessErrorOf(sr.spec.kyma, e);
      if (!access) throw e;
      // Every item says why it was not synchronized; the next pass picks up where the runtime is again.
      const items = (sr.status?.items ?? []).map((i): ItemStatus => ({ ...i, state: States.Error, message: access.message }));
      await this.writeStatus(sr, States.Error, access.message, items, now, signal);
      return { requeueAfterMs: this.errorRetryMs };
    }
  }

  /** What stops the whole SyncResource (its spec, its Kyma, its module name); undefined when it may go on. */
  private refusal(sr: SyncResourceObject): string | undefined {
    const problems = validateSyncResource(sr);
    if (problems.length > 0) return problems.map((p) => `${p.field}: ${p.message}`).join('; ');
    if (!this.d.kymas.get(`${sr.metadata.namespace ?? ''}/${sr.spec.kyma}`)) return `Kyma ${sr.spec.kyma} does not exist in namespace ${sr.metadata.namespace ?? ''}`;
    if (!sr.spec.module) return 'spec.module is required: the module\'s ModuleTemplate lists the kinds its SyncResources may carry';
    return undefined;
  }

  // ---- items ---------------------------------------------------------------------------------

  private async syncItems(p: Pass, template: ModuleTemplateObject): Promise<ItemStatus[]> {
    const previous = new Map((p.sr.status?.items ?? []).map((i) => [i.name, i]));
    const out: ItemStatus[] = [];
    for (const item of p.sr.spec.items) {
      out.push(await this.syncItem(p, item, previous.get(item.name), template));
      previous.delete(item.name);
    }
    for (const gone of previous.values()) {
      const left = await this.remove(p, gone, 'item-removed');
      if (left) out.push(left);
    }
    return out;
  }

  private async syncItem(p: Pass, item: SyncedItem, prev: ItemStatus | undefined, template: ModuleTemplateObject): Promise<ItemStatus> {
    const target = targetOf(item);
    const hash = hashOf(item);
    const base: ItemStatus = { name: item.name, state: States.Ready, strategy: item.strategy, target, lastAppliedGeneration: p.sr.metadata.generation };
    const refused = refusalOf(item, template);
    if (refused) {
      if (prev?.message !== refused) this.d.events.event(p.sr, 'Warning', 'Refused', refused);
      this.d.metrics.item(p.module, 'refused');
      // What the item applied before under another kind or name is no longer asked for.
      const left = prev?.target && !sameTarget(prev.target, target) ? await this.remove(p, prev, 'item-removed') : undefined;
      return { ...base, state: States.Error, message: left?.state === States.Error ? `${refused}; ${left.message ?? ''}` : refused };
    }
    const key = `${p.sr.metadata.uid ?? ''}/${item.name}`;
    try {
      if (prev?.target && !sameTarget(prev.target, target)) {
        const left = await this.remove(p, prev, 'item-removed');
        if (left?.state === States.Error) return { ...base, state: States.Error, message: left.message };
      }
      const due = prev?.hash !== hash || prev.state !== States.Ready || Date.now() - (this.lastApplied.get(key) ?? 0) >= this.resyncMs;
      const changed = prev?.hash !== hash;
      let current: KubeObject | undefined;
      let message = prev?.message ?? '';
      let created = sameTarget(prev?.target, target) ? prev?.created === true : false;
      let lastSyncTime = prev?.lastSyncTime;
      if (!due) {
        // Nothing to apply; feedback rules still want the object's current values.
        if ((item.feedback ?? []).length > 0 && item.strategy !== 'Delete') current = await findObject(p.client, target, keyOf(target), { signal: p.signal });
        this.d.metrics.item(p.module, 'unchanged');
      } else {
        const desired = desiredObjectOf(item, p.module);
        switch (item.strategy) {
          case 'CreateAndSync': {
            current = await p.client.apply(desired, { fieldManager: SYNC_FIELD_MANAGER, force: true, signal: p.signal });
            // The apply wrote when the object's resourceVersion moved since our last one (unknown after a restart: only a new spec counts).
            const remembered = this.appliedVersion.get(key);
            const wrote = remembered === undefined ? changed : remembered !== current.metadata.resourceVersion;
            this.appliedVersion.set(key, current.metadata.resourceVersion ?? '');
            message = `applied ${describeTarget(target)}`;
            if (wrote) lastSyncTime = p.now;
            if (wrote && changed) this.d.events.event(p.sr, 'Normal', 'Applied', `item "${item.name}": applied ${describeTarget(target)}`);
            else if (wrote) this.d.events.event(p.sr, 'Normal', 'DriftRestored', `item "${item.name}": ${describeTarget(target)} was changed in the runtime and is applied again`);
            this.d.metrics.item(p.module, wrote ? 'applied' : 'unchanged');
            break;
          }
          case 'CreateAndIgnore': {
            current = await findObject(p.client, target, keyOf(target), { signal: p.signal });
            if (!current) {
              try {
                current = await p.client.create(desired, { fieldManager: SYNC_FIELD_MANAGER, signal: p.signal });
                created = true;
                lastSyncTime = p.now;
                this.d.events.event(p.sr, 'Normal', 'Created', `item "${item.name}": created ${describeTarget(target)}`);
                this.d.metrics.item(p.module, 'created');
              } catch (e) {
                if (!isAlreadyExists(e)) throw e;
                current = await findObject(p.client, target, keyOf(target), { signal: p.signal });
              }
            }
            message = created ? `created ${describeTarget(target)}; left to the runtime since` : `${describeTarget(target)} exists; left to the runtime`;
            break;
          }
          case 'Delete': {
            const gone = await deleteIfPresent(p.client, target, p.signal);
            if (gone) {
              lastSyncTime = p.now;
              this.d.events.event(p.sr, 'Normal', 'Deleted', `item "${item.name}": deleted ${describeTarget(target)}`);
              this.d.metrics.item(p.module, 'deleted');
            }
            created = false;
            message = `${describeTarget(target)} is absent`;
            break;
          }
        }
        this.lastApplied.set(key, Date.now());
      }
      const status: ItemStatus = { ...base, message, hash, lastSyncTime: lastSyncTime ?? p.now };
      if (created) status.created = true;
      const fb = feedbackOf(item, current);
      if (fb) status.feedback = fb;
      return status;
    } catch (e) {
      if (p.signal.aborted || accessErrorOf(p.sr.spec.kyma, e)) throw e;
      const message = `item "${item.name}": ${isNoKindMatch(e) ? `the runtime does not serve ${target.apiVersion} ${target.kind}` : messageOf(e)}`;
      if (prev?.message !== message) this.d.events.event(p.sr, 'Warning', 'SyncFailed', message);
      this.d.metrics.item(p.module, 'failed');
      const failed: ItemStatus = { ...base, state: States.Error, message };
      if (prev?.created && sameTarget(prev.target, target)) failed.created = true;
      return failed;
    }
  }

  // ---- removal -------------------------------------------------------------------------------

  /**
   * Handles an item whose object is no longer wanted. Returns the entry to keep in the status
   * (undefined: the item is done with): Error while its object could not be removed.
   */
  private async remove(p: Pass, prev: ItemStatus, why: Removal): Promise<ItemStatus | undefined> {
    const target = prev.target;
    // The synced-by label decides what is ours at teardown: a CreateAndIgnore object found in the runtime never got it.
    const ours = prev.strategy === 'CreateAndSync' || (why === 'teardown' && prev.strategy === 'CreateAndIgnore');
    if (!target || !ours) return why === 'teardown' ? { name: prev.name, state: States.Warning, strategy: prev.strategy, target, message: 'not synchronized' } : undefined;
    try {
      const removed = await deleteIfLabelled(p.client, target, p.module, p.signal);
      if (removed) {
        this.d.events.event(p.sr, 'Normal', 'Removed', `item "${prev.name}": removed ${describeTarget(target)}`);
        this.d.metrics.item(p.module, 'removed');
      }
      this.forgetItem(p.sr, prev.name);
      return why === 'teardown' ? { name: prev.name, state: States.Warning, strategy: prev.strategy, target, message: `removed ${describeTarget(target)}` } : undefined;
    } catch (e) {
      if (p.signal.aborted || accessErrorOf(p.sr.spec.kyma, e)) throw e;
      return { ...prev, state: States.Error, message: `item "${prev.name}": removing ${describeTarget(target)} failed: ${messageOf(e)}` };
    }
  }

  private async removeAll(p: Pass, why: Removal): Promise<ItemStatus[]> {
    const out: ItemStatus[] = [];
    const reported = p.sr.status?.items ?? [];
    for (const prev of reported) {
      const left = await this.remove(p, prev, why);
      if (left) out.push(left);
    }
    // Items the status does not show yet (a pass cut short by the deletion): their objects carry the label too.
    for (const item of p.sr.spec.items) {
      const target = targetOf(item);
      if (item.strategy === 'Delete' || reported.some((r) => r.name === item.name && sameTarget(r.target, target))) continue;
      const left = await this.remove(p, { name: item.name, state: States.Ready, strategy: item.strategy, target }, why);
      if (left?.state === States.Error && !out.some((o) => o.name === item.name)) out.push(left);
    }
    return out;
  }

  /** Deletion: what was put into the runtime goes first; a runtime that is gone has nothing left to clean. */
  private async finalize(sr: SyncResourceObject, signal: AbortSignal): Promise<ReconcileResult | void> {
    if (!(sr.metadata.finalizers ?? []).includes(Finalizers.SyncResource)) return;
    const now = new Date().toISOString();
    let client: Client | undefined;
    try {
      client = this.d.access.client(sr.spec.kyma);
    } catch (e) {
      if (!(e instanceof RuntimeAccessError && e.reason === 'SecretNotFound')) throw e;
    }
    if (client) {
      try {
        const left = await this.removeAll({ sr, module: sr.spec.module ?? '', client, signal, now }, 'teardown');
        const failed = left.filter((i) => i.state === States.Error);
        if (failed.length > 0) {
          await this.writeStatus(sr, States.Deleting, failed.map((i) => i.message).join('; '), left, now, signal);
          return { requeueAfterMs: this.errorRetryMs };
        }
      } catch (e) {
        const access = accessErrorOf(sr.spec.kyma, e);
        if (!access || access.reason === 'SecretNotFound') throw e;
        await this.writeStatus(sr, States.Deleting, `cannot remove the synchronized objects yet: ${access.message}`, sr.status?.items ?? [], now, signal);
        return { requeueAfterMs: this.errorRetryMs };
      }
    }
    for (const item of sr.spec.items) this.forgetItem(sr, item.name);
    try {
      await this.d.kcp.update({ ...sr, metadata: { ...sr.metadata, finalizers: (sr.metadata.finalizers ?? []).filter((f) => f !== Finalizers.SyncResource) } }, { signal });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  private forgetItem(sr: SyncResourceObject, item: string): void {
    const key = `${sr.metadata.uid ?? ''}/${item}`;
    this.lastApplied.delete(key);
    this.appliedVersion.delete(key);
  }

  // ---- status --------------------------------------------------------------------------------

  private async writeStatus(sr: SyncResourceObject, state: State, message: string, items: ItemStatus[], now: string, signal: AbortSignal): Promise<void> {
    const old = sr.status;
    const status: Status = {
      state,
      conditions: setCondition(old?.conditions ?? [], SyncConditionTypes.Synced, state === States.Ready ? 'True' : 'False', message, sr.metadata.generation, now) as Condition[],
      lastOperation: { operation: message, lastUpdateTime: old?.lastOperation?.operation === message ? (old.lastOperation.lastUpdateTime ?? now) : now },
      items,
    };
    if (sameStatusIgnoringTimes(old, status)) return;
    try {
      await this.d.kcp.updateStatus({ ...sr, status }, { signal });
    } catch (e) {
      // Changed or gone meanwhile: the watch brings the next reconcile.
      if (!isConflict(e) && !isNotFound(e)) throw e;
    }
  }
}

function keyOf(t: Target): { namespace?: string; name: string } {
  return { namespace: t.namespace, name: t.name };
}

/** Deletes an object; true when it was there. */
async function deleteIfPresent(client: Client, t: Target, signal: AbortSignal): Promise<boolean> {
  try {
    await client.delete(t, keyOf(t), { propagationPolicy: 'Background', signal });
    return true;
  } catch (e) {
    if (isNotFound(e) || isNoKindMatch(e)) return false;
    throw e;
  }
}

/** Deletes an object only while it carries the module's synced-by label (someone else's object stays). */
async function deleteIfLabelled(client: Client, t: Target, module: string, signal: AbortSignal): Promise<boolean> {
  let current: KubeObject | undefined;
  try {
    current = await findObject(client, t, keyOf(t), { signal });
  } catch (e) {
    if (isNoKindMatch(e)) return false;
    throw e;
  }
  if (!current || current.metadata.labels?.[SYNCED_BY_LABEL] !== module) return false;
  try {
    await client.delete(t, keyOf(t), { propagationPolicy: 'Background', preconditions: { uid: current.metadata.uid }, signal });
  } catch (e) {
    if (isNotFound(e) || isConflict(e)) return false;
    throw e;
  }
  return true;
}

const RANK: Record<string, number> = { Error: 4, Deleting: 3, Warning: 2, Processing: 1, Ready: 0 };

/** The overall state: the worst of the items' (Error > Deleting > Warning > Processing > Ready). */
function worst(states: State[]): State {
  return states.reduce<State>((w, s) => ((RANK[s] ?? 0) > (RANK[w] ?? 0) ? s : w), States.Ready);
}

export function setupSyncResourceController(manager: Manager, opts: SyncResourceControllerOptions): SyncResourceReconciler {
  const scope = { namespace: opts.namespace };
  const syncResources = manager.cache<SyncResourceObject>(SyncResource, scope);
  const manifests = manager.cache<ManifestObject>(Manifest, scope);
  const templates = manager.cache<ModuleTemplateObject>(ModuleTemplate, scope);
  const kymas = manager.cache<KymaObject>(Kyma, scope);
  const reconciler = new SyncResourceReconciler({
    namespace: opts.namespace,
    kcp: manager.client,
    access: opts.access,
    catalog: { manifests, templates },
    kymas,
    syncResources,
    events: manager.events,
    metrics: opts.metrics,
    resyncMs: opts.resyncMs,
    errorRetryMs: opts.errorRetryMs,
    feedbackMs: opts.feedbackMs,
  });
  const ofKyma = (kyma: string, module?: string) =>
    syncResources
      .list({ namespace: opts.namespace, labelSelector: `${Labels.KymaName}=${kyma}` })
      .filter((s) => module === undefined || s.spec.module === module)
      .map((s) => namespacedName(s));
  newControllerManagedBy(manager)
    .named('sync-resource')
    // Spec, labels and deletion; not our own status writes.
    .for(SyncResource, { ...scope, predicates: [or(generationChanged, deletionChanged, labelsChanged, finalizersChanged)] })
    // The module enabled in or removed from the Kyma.
    .watches<ManifestObject>(Manifest, (m) => ofKyma(m.metadata.labels?.[Labels.KymaName] ?? '', m.metadata.labels?.[Labels.ModuleName] ?? ''), {
      ...scope,
      predicates: [or(deletionChanged, { update: (o, n) => (o as ManifestObject).spec.version !== (n as ManifestObject).spec.version })],
    })
    // A Kyma that appears or goes.
    .watches<KymaObject>(Kyma, (k) => ofKyma(k.metadata.name ?? ''), { ...scope, predicates: [{ update: () => false }] })
    // The kinds a module may sync changed.
    .watches<ModuleTemplateObject>(
      ModuleTemplate,
      (t) => syncResources.list({ namespace: opts.namespace }).filter((s) => s.spec.module === t.spec?.moduleName).map((s) => namespacedName(s)),
      { ...scope, predicates: [generationChanged] },
    )
    .withOptions({ maxConcurrentReconciles: 8 })
    .complete(reconciler);
  return reconciler;
}
