// The ModuleConfig controller: for every module installed in a runtime whose ModuleTemplate opts in
// (`spec.enableModuleConfig`), a ModuleConfig `<kyma>-<module>` in the KCP holds a copy of the
// module's custom resource as the runtime has it, so that module managers read it without access to
// the runtime. One reconcile per Manifest (the module in one Kyma):
//
//   Manifest gone or deleting -> nothing (garbage collection removes the ModuleConfig it owns)
//   template does not opt in  -> our ModuleConfig removed
//   otherwise                 -> read the CR in the runtime -> write spec and status when they differ
//
// Woken by the Manifest, its ModuleConfig, the module's templates, and watcher events for the
// module's custom resource (Watcher `module-config-<module>`); a jittered periodic pass repairs
// anything missed.
import {
  Labels,
  Manifest,
  ModuleConfig,
  ModuleTemplate,
  States,
  SyncConditionTypes,
  isEnabled,
  type ManifestObject,
  type ModuleConfigObject,
  type ModuleTemplateObject,
  type State,
} from '../../api/operator/index.js';
import type { Condition } from '../../api/schema.js';
import { jsonEqual } from '../../kube/json.js';
import { namespacedName } from '../../kube/keys.js';
import type { KubeObject } from '../../kube/object.js';
import type { Store } from '../../runtime/cache/store.js';
import { isNoKindMatch } from '../../runtime/client/discovery.js';
import { isConflict, isNotFound } from '../../runtime/client/errors.js';
import { findObject } from '../../runtime/client/find.js';
import type { Client } from '../../runtime/client/interface.js';
import type { KeySource, ReconcileResult, Request } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/events.js';
import type { Logger } from '../../runtime/log.js';
import { type Manager, newControllerManagedBy } from '../../runtime/manager.js';
import { generationChanged, labelsChanged, or } from '../../runtime/predicates.js';
import { jitter } from '../../runtime/timers.js';
import { accessErrorOf, type RuntimeAccess } from '../remote/access.js';
import { setCondition } from '../kyma/status.js';
import { messageOf } from '../manifest/util.js';
import { DEFAULT_ERROR_RETRY_MS, DEFAULT_RESYNC_MS, moduleConfigName } from './constants.js';
import type { SyncMetrics } from './metrics.js';
import { sameStatusIgnoringTimes } from './status.js';
import { type ModuleCatalog, moduleResourceOf, templateOf } from './module-template.js';
import type { ModuleConfigWatchers } from './module-watchers.js';

export interface ModuleConfigControllerOptions {
  namespace: string;
  access: RuntimeAccess;
  metrics: SyncMetrics;
  /** Periodic pass per module (default 5 min, jittered). */
  resyncMs?: number;
  /** Retry after the runtime could not be read (default 5 s). */
  errorRetryMs?: number;
  /** Manifest keys of Kymas whose module custom resources changed (runtime watcher events). */
  watcherEvents?: KeySource;
  /** Keeps the Watchers of modules' custom resources (with the runtime watcher). */
  watchers?: ModuleConfigWatchers;
}

/** Annotations of the runtime's copy that say nothing about the module's configuration. */
const DROPPED_ANNOTATIONS = ['kubectl.kubernetes.io/last-applied-configuration'];

/** The copy of a module CR kept in a ModuleConfig: no managedFields, no resourceVersion (it moves on every write). */
export function copyOfModuleResource(cr: KubeObject): Record<string, unknown> {
  const { managedFields: _m, resourceVersion: _rv, ...metadata } = cr.metadata;
  if (metadata.annotations) {
    const annotations = Object.fromEntries(Object.entries(metadata.annotations).filter(([k]) => !DROPPED_ANNOTATIONS.includes(k)));
    if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
    else delete metadata.annotations;
  }
  const copy: Record<string, unknown> = { apiVersion: cr.apiVersion, kind: cr.kind, metadata };
  for (const [k, v] of Object.entries(cr)) if (k !== 'apiVersion' && k !== 'kind' && k !== 'metadata') copy[k] = v;
  return copy;
}

interface Observed {
  /** The copy to keep; undefined: none (the CR does not exist). */
  resource: Record<string, unknown> | undefined;
  state: State;
  message: string;
  retry: boolean;
}

export class ModuleConfigReconciler {
  private readonly resyncMs: number;
  private readonly errorRetryMs: number;
  /** The spec last written per Manifest (`namespace/name`): its own write coming back through the watch wakes nothing. */
  private readonly written = new Map<string, ModuleConfigObject['spec']>();

  constructor(
    private readonly d: {
      namespace: string;
      kcp: Client;
      access: RuntimeAccess;
      catalog: ModuleCatalog;
      configs: Store<ModuleConfigObject>;
      events: EventRecorder;
      log: Logger;
      metrics: SyncMetrics;
      watchers?: ModuleConfigWatchers;
      resyncMs?: number;
      errorRetryMs?: number;
    },
  ) {
    this.resyncMs = d.resyncMs ?? DEFAULT_RESYNC_MS;
    this.errorRetryMs = d.errorRetryMs ?? DEFAULT_ERROR_RETRY_MS;
  }

  async reconcile(req: Request, signal: AbortSignal): Promise<ReconcileResult | void> {
    const manifest = this.d.catalog.manifests.get(namespacedName(req));
    // Garbage collection removes the ModuleConfig of a Manifest that goes (it is the owner).
    if (!manifest || manifest.metadata.deletionTimestamp) {
      this.written.delete(namespacedName(req));
      return;
    }
    if (isEnabled(manifest.metadata.labels?.[Labels.SkipReconciliation])) return { requeueAfterMs: jitter(this.resyncMs, 0.1) };
    const kyma = manifest.metadata.labels?.[Labels.KymaName];
    const module = manifest.metadata.labels?.[Labels.ModuleName];
    if (!kyma || !module) return;
    const key = { namespace: manifest.metadata.namespace ?? this.d.namespace, name: moduleConfigName(kyma, module) };
    const existing = this.d.configs.get(namespacedName(key));
    const template = templateOf(this.d.catalog, manifest);
    // A template that appears later wakes its module's Manifests through the template watch.
    if (!template) return { requeueAfterMs: jitter(this.resyncMs, 0.1) };
    if (template.spec?.enableModuleConfig !== true) {
      if (existing && ownedBy(existing, manifest)) await this.remove(existing, signal);
      if (this.d.watchers?.has(module) && !this.anyTemplateOptsIn(module)) await this.d.watchers.retire(module, signal);
      return;
    }
    const observed = await this.observe(kyma, module, template, existing, signal);
    await this.write(manifest, kyma, module, existing, observed, signal);
    return { requeueAfterMs: observed.retry ? this.errorRetryMs : jitter(this.resyncMs, 0.1) };
  }

  /**
   * True when a ModuleConfig's spec is the one this controller last wrote for its Manifest: the
   * watch event of its own update, which needs no reconcile (one would read the runtime again and,
   * on a cache not yet holding the status it wrote next, fail with a conflict).
   */
  isOwnWrite(config: KubeObject): boolean {
    const owner = (config.metadata.ownerReferences ?? []).find((r) => r.kind === Manifest.kind);
    const written = owner && this.written.get(`${config.metadata.namespace ?? ''}/${owner.name}`);
    return written !== undefined && jsonEqual(written, (config as ModuleConfigObject).spec);
  }

  private anyTemplateOptsIn(module: string): boolean {
    return this.d.catalog.templates.list({ namespace: this.d.namespace }).some((t) => t.spec?.moduleName === module && t.spec.enableModuleConfig === true);
  }

  /** Reads the module CR from the runtime. */
  private async observe(kyma: string, module: string, template: ModuleTemplateObject, existing: ModuleConfigObject | undefined, signal: AbortSignal): Promise<Observed> {
    const ref = moduleResourceOf(template);
    if (!ref) {
      return { resource: undefined, state: States.Warning, message: `ModuleTemplate ${template.metadata.name ?? ''} has no spec.data: the module has no custom resource to copy`, retry: false };
    }
    const what = `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
    const kept = existing?.spec.resource as Record<string, unknown> | undefined;
    try {
      const client = this.d.access.lazyClient(kyma);
      const info = await client.resourceFor(ref);
      await this.d.watchers?.ensure(module, info, signal);
      const cr = await findObject(client, ref, { namespace: info.namespaced ? (ref.namespace ?? '') : undefined, name: ref.name }, { signal });
      if (!cr) return { resource: undefined, state: States.Warning, message: `${what} does not exist in the runtime`, retry: false };
      return { resource: copyOfModuleResource(cr), state: States.Ready, message: `copied ${what} from the runtime`, retry: false };
    } catch (e) {
      if (signal.aborted) throw e;
      if (isNoKindMatch(e)) return { resource: undefined, state: States.Processing, message: `the runtime does not serve ${ref.apiVersion} ${ref.kind} yet`, retry: true };
      const access = accessErrorOf(kyma, e);
      if (!access) throw e;
      // The last copy stays: a runtime that cannot be read says nothing about the configuration.
      return { resource: kept, state: States.Error, message: access.message, retry: true };
    }
  }

  private async write(manifest: ManifestObject, kyma: string, module: string, existing: ModuleConfigObject | undefined, o: Observed, signal: AbortSignal): Promise<void> {
    const namespace = manifest.metadata.namespace ?? this.d.namespace;
    const desired: ModuleConfigObject = {
      apiVersion: ModuleConfig.apiVersion,
      kind: ModuleConfig.kind,
      metadata: {
        name: moduleConfigName(kyma, module),
        namespace,
        labels: { ...existing?.metadata.labels, [Labels.KymaName]: kyma, [Labels.ModuleName]: module },
        ownerReferences: [{ apiVersion: Manifest.apiVersion, kind: Manifest.kind, name: manifest.metadata.name ?? '', uid: manifest.metadata.uid ?? '', controller: true }],
      },
      spec: { kyma, module, ...(o.resource ? { resource: o.resource } : {}) },
    };
    let current = existing;
    const resourceChanged = !jsonEqual(existing?.spec.resource, desired.spec.resource);
    try {
      if (!current) {
        current = await this.d.kcp.create(desired, { signal });
        this.d.events.event(current, 'Normal', 'Created', `copied the module's custom resource of Kyma ${kyma}`);
      } else if (!jsonEqual(current.spec, desired.spec) || !jsonEqual(current.metadata.labels, desired.metadata.labels) || !ownedBy(current, manifest)) {
        // A PUT, not an apply: a copy that lost a field must lose it here too.
        this.written.set(namespacedName(manifest), desired.spec);
        current = await this.d.kcp.update({ ...current, metadata: { ...current.metadata, labels: desired.metadata.labels, ownerReferences: desired.metadata.ownerReferences }, spec: desired.spec }, { signal });
      }
      if (resourceChanged) this.d.metrics.moduleConfigUpdated(module);
      const status = this.statusOf(current, o, resourceChanged);
      if (!sameStatusIgnoringTimes(current.status, status)) await this.d.kcp.updateStatus({ ...current, status }, { signal });
    } catch (e) {
      if (isConflict(e) || isNotFound(e)) {
        // Our cache was behind: the next reconcile works on the new object.
        throw new Error(`ModuleConfig ${namespace}/${desired.metadata.name ?? ''} changed meanwhile: ${messageOf(e)}`, { cause: e });
      }
      throw e;
    }
  }

  private statusOf(current: ModuleConfigObject, o: Observed, resourceChanged: boolean): NonNullable<ModuleConfigObject['status']> {
    const now = new Date().toISOString();
    const old = current.status;
    const conditions = setCondition(old?.conditions ?? [], SyncConditionTypes.Synced, o.state === States.Ready ? 'True' : 'False', o.message, current.metadata.generation, now) as Condition[];
    const generation = (o.resource?.metadata as { generation?: number } | undefined)?.generation;
    const status: NonNullable<ModuleConfigObject['status']> = {
      state: o.state,
      conditions,
      lastOperation: { operation: o.message, lastUpdateTime: old?.lastOperation?.operation === o.message ? (old.lastOperation.lastUpdateTime ?? now) : now },
      lastSyncTime: resourceChanged || !old?.lastSyncTime ? now : old.lastSyncTime,
    };
    if (generation !== undefined) status.resourceGeneration = generation;
    return status;
  }

  private async remove(existing: ModuleConfigObject, signal: AbortSignal): Promise<void> {
    try {
      await this.d.kcp.delete(ModuleConfig, { namespace: existing.metadata.namespace, name: existing.metadata.name ?? '' }, { signal, preconditions: { uid: existing.metadata.uid } });
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }
}

function ownedBy(config: ModuleConfigObject, manifest: ManifestObject): boolean {
  return (config.metadata.ownerReferences ?? []).some((r) => r.uid === manifest.metadata.uid && r.kind === Manifest.kind);
}

export function setupModuleConfigController(manager: Manager, opts: ModuleConfigControllerOptions): ModuleConfigReconciler {
  const scope = { namespace: opts.namespace };
  const manifests = manager.cache<ManifestObject>(Manifest, scope);
  const templates = manager.cache<ModuleTemplateObject>(ModuleTemplate, scope);
  const configs = manager.cache<ModuleConfigObject>(ModuleConfig, scope);
  const reconciler = new ModuleConfigReconciler({
    namespace: opts.namespace,
    kcp: manager.client,
    access: opts.access,
    catalog: { manifests, templates },
    configs,
    events: manager.events,
    log: manager.logger.child('module-config'),
    metrics: opts.metrics,
    watchers: opts.watchers,
    resyncMs: opts.resyncMs,
    errorRetryMs: opts.errorRetryMs,
  });
  const manifestsOfModule = (t: ModuleTemplateObject) =>
    manifests.list({ namespace: opts.namespace, labelSelector: `${Labels.ModuleName}=${t.spec?.moduleName ?? ''}` }).map((m) => namespacedName(m));
  const builder = newControllerManagedBy(manager)
    .named('module-config')
    // New versions (spec.version), label changes (skip-reconciliation) and state changes (the module CR
    // was just created: without the watcher nothing else says so); not the Manifest's other status writes.
    .for(Manifest, { ...scope, predicates: [or(generationChanged, labelsChanged, { update: (o, n) => (o as ManifestObject).status?.state !== (n as ManifestObject).status?.state })] })
    // Someone else's edit or deletion of a ModuleConfig is repaired at once.
    .watches<ModuleConfigObject>(
      ModuleConfig,
      (c) => (c.metadata.ownerReferences ?? []).filter((r) => r.kind === Manifest.kind).map((r) => ({ namespace: c.metadata.namespace, name: r.name })),
      { ...scope, predicates: [{ create: () => false, update: (o, n) => o.metadata.generation !== n.metadata.generation && !reconciler.isOwnWrite(n) }] },
    )
    // A template that opts in or out.
    .watches<ModuleTemplateObject>(ModuleTemplate, manifestsOfModule, { ...scope, predicates: [generationChanged] })
    .withOptions({ maxConcurrentReconciles: 8 });
  if (opts.watcherEvents) builder.watchesChannel(opts.watcherEvents);
  builder.complete(reconciler);
  return reconciler;
}
