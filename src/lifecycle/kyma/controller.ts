// The Kyma controller: one reconcile moves a Kyma one step toward its desired state.
//   skip? -> deleting? (deletion.ts) -> finalizer+labels -> runtime access -> namespace, CRDs,
//   runtime Kyma (modules follow the runtime) -> module catalog -> Manifests -> status -> requeue.
// A runtime that cannot be reached makes the Kyma Error with a message saying why; the Secret
// watch brings it back as soon as the Secret is fixed.
import { jsonEqual } from '../../kube/json.js';
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
import { isNotFound } from '../../runtime/client/errors.js';
import { type Controller, type KeySource, newControllerManagedBy } from '../../runtime/controller.js';
import type { Logger } from '../../runtime/log.js';
import type { Manager } from '../../runtime/manager.js';
import { annotationsChanged, generationChanged, labelsChanged, or, type Predicate } from '../../runtime/predicates.js';
import type { KubeObject } from '../../kube/object.js';
import type { CatalogView } from '../catalog/resolve.js';
import { catalogSyncEnabled, desiredCatalog, syncCatalog } from '../catalog/sync.js';
import type { LifecycleMetrics } from '../metrics.js';
import { accessErrorOf, KUBECONFIG_SECRET_SELECTOR, SECRET_KIND, type RuntimeAccess, type Secret } from '../remote/access.js';
import { FIELD_MANAGER, syncRemoteCrds } from '../remote/crds.js';
import { ensureRemoteNamespace, mirrorStatus, syncRemoteKyma } from '../remote/kyma.js';
import type { SkrWebhookInstaller } from '../remote/skr-webhook.js';
import { runDeletion } from './deletion.js';
import { syncModules } from './modules.js';
import { DEFAULT_INTERVALS, DEFAULT_REMOTE_CLEANUP_TIMEOUT_MS, intervalFor, type RequeueIntervals } from './options.js';
import { determineState, lastOperation, modulesCondition, removeCondition, setCondition, statusFingerprint } from './status.js';

export const KYMA_CONTROLLER_NAME = 'kyma';

export interface KymaControllerOptions {
  /** Namespace of Kymas, ModuleTemplates, ModuleReleaseMetas, Manifests and kubeconfig Secrets. */
  namespace: string;
  access: RuntimeAccess;
  metrics: LifecycleMetrics;
  intervals?: Partial<RequeueIntervals>;
  /** How long deletion retries an unreachable runtime before skipping its cleanup (default 60 s). */
  remoteCleanupTimeoutMs?: number;
  maxConcurrentReconciles?: number;
  /** Keys from the runtime watcher (runtime Kyma changed), if one runs. */
  watcherEvents?: KeySource;
  /** Keeps the runtime watcher's webhook in every runtime, if the watcher runs. */
  skrWebhook?: SkrWebhookInstaller;
}

/** Caches the controllers of the lifecycle manager read (shared informers of the manager). */
export function catalogCaches(manager: Manager, namespace: string) {
  const templates = manager.cache<ModuleTemplateObject>(ModuleTemplate, { namespace });
  const metas = manager.cache<ModuleReleaseMetaObject>(ModuleReleaseMeta, { namespace });
  const view: CatalogView = {
    releaseMeta: (moduleName) => metas.get(`${namespace}/${moduleName}`) ?? metas.list({ namespace }).find((m) => m.spec.moduleName === moduleName),
    template: (name) => templates.get(`${namespace}/${name}`),
  };
  return { templates, metas, view };
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

  constructor(
    private readonly manager: Manager,
    private readonly opts: KymaControllerOptions,
  ) {
    this.kcp = manager.client;
    this.log = manager.logger.child('kyma');
    this.intervals = { ...DEFAULT_INTERVALS, ...opts.intervals };
    this.catalog = catalogCaches(manager, opts.namespace);
    this.manifests = manager.cache<ManifestObject>(Manifest, { namespace: opts.namespace });
  }

  async reconcile(req: { namespace?: string; name: string }, signal: AbortSignal): Promise<{ requeueAfterMs?: number } | void> {
    let kyma: KymaObject;
    try {
      kyma = await this.kcp.get<KymaObject>(Kyma, req, { signal });
    } catch (e) {
      if (!isNotFound(e)) throw e;
      // The runtime's client is not dropped here: it belongs to the kubeconfig Secret, which the
      // infrastructure manager may still use, and goes when the Secret goes.
      this.opts.metrics.forget(req.name, {});
      this.opts.skrWebhook?.forget(req.name);
      return;
    }
    if (isEnabled(kyma.metadata.labels?.[Labels.SkipReconciliation])) {
      this.log.debug('skipping Kyma (skip-reconciliation label)', { kyma: req.name });
      return;
    }
    if (kyma.metadata.deletionTimestamp) return this.delete(kyma, signal);
    kyma = await this.ensureFinalizerAndLabels(kyma, signal);
    return this.reconcileRuntime(kyma, signal);
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

  private async reconcileRuntime(kyma: KymaObject, signal: AbortSignal): Promise<{ requeueAfterMs: number }> {
    const name = kyma.metadata.name ?? '';
    const now = new Date().toISOString();
    let conditions: Condition[] = kyma.status?.conditions ?? [];
    let remote: Client;
    let remoteKyma: KymaObject;
    let webhookFailed = false;
    try {
      remote = this.opts.access.client(name);
      await ensureRemoteNamespace(remote, signal);
      const applied = await syncRemoteCrds(remote, signal);
      if (applied.length > 0) this.log.info('applied CRDs in the runtime', { kyma: name, crds: applied });
      const synced = await syncRemoteKyma(remote, kyma, signal);
      if (synced.created) this.manager.events.event(kyma as KubeObject, 'Normal', 'RemoteKymaCreated', `created the Kyma ${synced.remote.metadata.namespace ?? ''}/${synced.remote.metadata.name ?? ''} in the runtime`);
      remoteKyma = synced.remote;
      kyma = await this.followRuntimeModules(kyma, remoteKyma, signal);
      if (catalogSyncEnabled(kyma)) {
        try {
          const source = { templates: () => this.catalog.templates.list({ namespace: this.opts.namespace }), releaseMetas: () => this.catalog.metas.list({ namespace: this.opts.namespace }) };
          await syncCatalog(remote, desiredCatalog(kyma, source), signal);
          conditions = setCondition(conditions, KymaConditionTypes.ModuleCatalog, 'True', KymaConditionMessages.CatalogSynced, kyma.metadata.generation, now);
        } catch (e) {
          if (accessErrorOf(name, e)) throw e;
          this.log.warn('module catalog sync failed', { kyma: name, error: e });
          conditions = setCondition(conditions, KymaConditionTypes.ModuleCatalog, 'False', KymaConditionMessages.CatalogOutOfSync, kyma.metadata.generation, now);
        }
      } else conditions = removeCondition(conditions, KymaConditionTypes.ModuleCatalog);
      if (this.opts.skrWebhook) {
        const webhook = await this.syncWebhook(kyma, remote, remoteKyma, signal);
        webhookFailed = webhook.error;
        conditions = setCondition(conditions, KymaConditionTypes.SKRWebhook, webhook.status, webhook.message, kyma.metadata.generation, now);
      } else conditions = removeCondition(conditions, KymaConditionTypes.SKRWebhook);
    } catch (e) {
      const accessError = accessErrorOf(name, e);
      if (!accessError) throw e;
      if (accessError.reason === 'Unauthorized' || accessError.reason === 'Unreachable') this.opts.access.evict(name);
      return this.fail(kyma, accessError.message, `remote_${accessError.reason}`, signal);
    }

    const modules = await syncModules({ kcp: this.kcp, catalog: this.catalog.view, manifests: this.manifests }, kyma, signal);
    const mc = modulesCondition(modules);
    conditions = setCondition(conditions, KymaConditionTypes.Modules, mc.status, mc.message, kyma.metadata.generation, now);
    const state = webhookFailed ? States.Error : determineState(modules, conditions);
    const webhookProblem = conditions.find((c) => c.type === KymaConditionTypes.SKRWebhook && c.status !== 'True')?.message;
    const operation =
      state === States.Ready
        ? 'kyma is ready'
        : (modules.find((m) => m.state === state && m.message)?.message ?? (state === States.Error || !modules.some((m) => m.state === state) ? webhookProblem : undefined) ?? `kyma is ${state.toLowerCase()}`);
    const status: KymaStatus = { state, conditions, modules, activeChannel: kyma.spec.channel, lastOperation: lastOperation(kyma, operation, now) };
    await this.writeStatus(kyma, status, signal);
    try {
      await mirrorStatus(remote, remoteKyma, status, signal);
    } catch (e) {
      this.log.warn('mirroring the status into the runtime Kyma failed', { kyma: name, error: e });
    }
    this.opts.metrics.modules(name, modules, idsOf(kyma));
    const after = intervalFor(state, this.intervals);
    this.opts.metrics.requeue(`kyma_${state.toLowerCase()}`);
    return { requeueAfterMs: after };
  }

  /** The watcher's webhook in the runtime; a failure other than runtime access is the condition's message. */
  private async syncWebhook(kyma: KymaObject, remote: Client, remoteKyma: KymaObject, signal: AbortSignal): Promise<{ status: 'True' | 'False'; message: string; error: boolean }> {
    try {
      return await (this.opts.skrWebhook as SkrWebhookInstaller).sync(kyma, remote, remoteKyma, signal);
    } catch (e) {
      if (accessErrorOf(kyma.metadata.name ?? '', e)) throw e;
      this.log.warn('runtime watcher webhook sync failed', { kyma: kyma.metadata.name, error: e });
      return { status: 'False', message: `${KymaConditionMessages.WebhookOutOfSync}: ${(e as Error).message}`, error: false };
    }
  }

  /** The KCP Kyma's modules follow the runtime Kyma, where runtime admins enable and disable them. */
  private async followRuntimeModules(kyma: KymaObject, remoteKyma: KymaObject, signal: AbortSignal): Promise<KymaObject> {
    const wanted = remoteKyma.spec.modules ?? [];
    if (jsonEqual(wanted, kyma.spec.modules ?? [])) return kyma;
    this.log.info('modules changed in the runtime Kyma', { kyma: kyma.metadata.name, modules: wanted.map((m) => m.name) });
    return this.kcp.update<KymaObject>({ ...kyma, spec: { ...kyma.spec, modules: wanted } }, { fieldManager: FIELD_MANAGER, signal });
  }

  private async fail(kyma: KymaObject, message: string, reason: string, signal: AbortSignal): Promise<{ requeueAfterMs: number }> {
    const now = new Date().toISOString();
    const status: KymaStatus = { ...kyma.status, state: States.Error, lastOperation: lastOperation(kyma, message, now) };
    await this.writeStatus(kyma, status, signal);
    this.opts.metrics.requeue(reason, 'unexpected');
    return { requeueAfterMs: this.intervals.errorMs };
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
      this.log.info('Kyma state changed', { kyma: name, from: previous ?? '', to: state });
    }
  }

  private async delete(kyma: KymaObject, signal: AbortSignal): Promise<{ requeueAfterMs?: number } | void> {
    const name = kyma.metadata.name ?? '';
    const outcome = await runDeletion(
      {
        kcp: this.kcp,
        access: this.opts.access,
        remoteCleanupTimeoutMs: this.opts.remoteCleanupTimeoutMs ?? DEFAULT_REMOTE_CLEANUP_TIMEOUT_MS,
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
        this.opts.metrics.requeue('kyma_deletion_waiting_for_manifests');
        return { requeueAfterMs: this.intervals.busyMs };
      case 'waitingForRuntime':
        await this.writeStatus(kyma, { ...kyma.status, state: States.Deleting, lastOperation: lastOperation(kyma, `waiting for the runtime to be cleaned up: ${outcome.error.message}`, new Date().toISOString()) }, signal);
        this.opts.metrics.requeue(`kyma_deletion_remote_${outcome.error.reason}`, 'unexpected');
        return { requeueAfterMs: this.intervals.errorMs };
      case 'done':
        this.opts.metrics.forget(name, idsOf(kyma));
        this.manager.events.event(kyma as KubeObject, outcome.skippedRuntime ? 'Warning' : 'Normal', 'Deleted', outcome.skippedRuntime ? 'Kyma deleted; the runtime was unreachable, its cleanup was skipped' : 'Kyma deleted');
        return;
    }
  }
}

/** Registers the Kyma controller with the manager. */
export function setupKymaController(manager: Manager, opts: KymaControllerOptions): Controller {
  const reconciler = new KymaReconciler(manager, opts);
  const ns = opts.namespace;
  const kymas = manager.cache<KymaObject>(Kyma, { namespace: ns });
  const allKymas = (): string[] => [...kymas.keys()];
  const builder = newControllerManagedBy(manager)
    .named(KYMA_CONTROLLER_NAME)
    .for(Kyma, { namespace: ns, predicates: [or(generationChanged, labelsChanged, annotationsChanged, deletionStarted)] })
    .owns(Manifest, { namespace: ns })
    .watches<Secret>(SECRET_KIND, (s) => {
      const kyma = s.metadata.labels?.[Labels.KymaName];
      return kyma ? [{ namespace: ns, name: kyma }] : [];
    }, { namespace: ns, labelSelector: KUBECONFIG_SECRET_SELECTOR })
    .watches(ModuleTemplate, allKymas, { namespace: ns, predicates: [or(generationChanged, labelsChanged)] })
    .watches(ModuleReleaseMeta, allKymas, { namespace: ns, predicates: [or(generationChanged, labelsChanged)] })
    .withOptions({ maxConcurrentReconciles: opts.maxConcurrentReconciles ?? 4 });
  if (opts.watcherEvents) builder.watchesChannel(opts.watcherEvents);
  return builder.complete(reconciler);
}


