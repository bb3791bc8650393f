// The lifecycle manager's Manifest controller: installs one module into one runtime with
// server-side apply, keeps it there (drift), upgrades it (prune), reports its readiness, and
// removes it when the Manifest goes (blocked while users' custom resources of the module exist).
import { Kyma, KymaConditionTypes, type KymaObject, Labels, Manifest, type ManifestObject } from '../../api/operator/index.js';
import type { Client } from '../../runtime/client/interface.js';
import type { Controller, KeySource } from '../../runtime/controller.js';
import { type Manager, newControllerManagedBy } from '../../runtime/manager.js';
import { admits, annotationsChanged, deletionChanged, finalizersChanged, generationChanged, labelsChanged, or, type Predicate } from '../../runtime/predicates.js';
import { namespacedName } from '../../kube/keys.js';
import type { ArtifactFetcher } from '../artifacts/types.js';
import { MANIFEST_FIELD_MANAGER, MANIFEST_FINALIZERS } from './constants.js';
import { ManifestMetrics, type ModuleStateHook } from './metrics.js';
import { DEFAULT_INTERVALS, ManifestReconciler, type ManifestReconcilerDeps, type RequeueIntervals, type TargetClients } from './reconciler.js';
import { credentialsFromKcpSecret } from './registry-credentials.js';
import { ManifestSource } from './source.js';

export interface ManifestControllerOptions {
  /** Client of the control-plane cluster (Manifests, Kymas, Events). */
  kcp: Client;
  /** Namespace of the Manifests (kcp-system); all namespaces when undefined. */
  namespace?: string;
  /** The client of a Kyma's runtime cluster (KubeconfigSecretError SecretNotFound when it has no kubeconfig Secret). */
  remoteClients: TargetClients;
  fetcher: ArtifactFetcher;
  /** Field manager of the server-side applies (default `declarative.kyma-project.io/applier`). */
  fieldManager?: string;
  intervals?: Partial<RequeueIntervals>;
  maxConcurrentReconciles?: number;
  /** Requests one reconcile keeps in flight against a runtime (default 4). */
  requestConcurrency?: number;
  /** How long one reconcile waits for new CRDs to be established (default 10 s). */
  crdEstablishTimeoutMs?: number;
  /** A fetched manifest is reused for the same link this long (default 10 min; digest links until evicted). */
  refetchAfterMs?: number;
  /** Report Manifests whose Kyma does not exist (default true; needs the Kyma CRD in the KCP). */
  detectOrphans?: boolean;
  /** Called when a module's state changes (besides the `lifecycle_mgr_manifest_state` gauge). */
  onModuleState?: ModuleStateHook;
  /** Keys of Manifests whose resources changed in their runtime (runtime watcher events). */
  watcherEvents?: KeySource;
  /** Keys of watcher events about Manifests under way (reconciled before), served ahead of the others. */
  watcherEventsUnderWay?: KeySource;
  /**
   * With the runtime watcher: a Ready, unchanged Manifest's objects are read back from its runtime
   * at least this often (jittered), else only on a watcher event, a change, or while the runtime's
   * webhook is not healthy (its Kyma's SKRWebhook condition is not True). Undefined: on every pass.
   */
  driftCheckMs?: number;
  /** Manifests the runtime watcher asks a drift check for (marked before their key is enqueued). */
  driftChecks?: { take(key: string): boolean; has?(key: string): boolean };
  /** Manifests whose resources' status the runtime watcher reported changed, with those resources (`group/kind/namespace/name`, `*` for any). */
  readinessChecks?: { take(key: string): ReadonlySet<string> | undefined; has?(key: string): boolean };
  /** A pass that answered events and found nothing changed looks once more after this long (default EVENT_RECHECK_MS). */
  eventRecheckMs?: number;
  /** The KCP Secret with the credentials of private registries (upstream `--oci-registry-cred-secret`). */
  registryCredentialsSecret?: { namespace: string; name: string };
  /** The runtime image-pull Secret module Deployments and StatefulSets are pointed at (upstream `--skr-image-pull-secret`). */
  skrImagePullSecret?: string;
}

export interface ManifestController {
  controller: Controller;
  reconciler: ManifestReconciler;
}

/**
 * Finalizer changes pass, but for the Manifest controller's own addition of its finalizers: the
 * pass that wrote them goes on with the written Manifest (ManifestReconciler.ensureFinalizers).
 */
export const finalizersChangedByOthers: Predicate = {
  update: (o, n) => {
    if (!admits(finalizersChanged, { type: 'update', oldObject: o, object: n })) return false;
    const before = o.metadata.finalizers ?? [];
    const after = n.metadata.finalizers ?? [];
    const onlyOursAdded = before.every((f, i) => after[i] === f) && after.slice(before.length).every((f) => MANIFEST_FINALIZERS.includes(f));
    return !onlyOursAdded;
  },
};

/** Our own status writes need no reconcile: updates pass when anything but the status changed. */
const notStatusOnly = or(generationChanged, deletionChanged, labelsChanged, annotationsChanged, finalizersChangedByOthers);

/** Parallel reconciles of the Manifest controller unless configured (`--max-concurrent-manifest-reconciles`). */
export const DEFAULT_MANIFEST_WORKERS = 10;

export function setupManifestController(manager: Manager, opts: ManifestControllerOptions): ManifestController {
  const scope = opts.namespace ? { namespace: opts.namespace } : {};
  const manifests = manager.cache<ManifestObject>(Manifest, scope);
  let kymas: ManifestReconcilerDeps['kymas'];
  if (opts.detectOrphans !== false) {
    const informer = manager.informer<KymaObject>(Kyma, scope);
    kymas = { store: informer.store, synced: () => informer.hasSynced };
  }
  let webhookHealthySince: ManifestReconcilerDeps['webhookHealthySince'];
  if (opts.driftCheckMs !== undefined) {
    const kymaStore = manager.cache<KymaObject>(Kyma, scope);
    // The condition's transition time changes whenever it leaves True and comes back.
    webhookHealthySince = (kymaKey) => {
      const webhook = kymaStore.get(kymaKey)?.status?.conditions?.find((c) => c.type === KymaConditionTypes.SKRWebhook);
      return webhook?.status === 'True' ? (webhook.lastTransitionTime ?? '') : undefined;
    };
  }
  const reconciler = new ManifestReconciler({
    kcp: opts.kcp,
    manifests,
    kymas,
    targets: opts.remoteClients,
    source: new ManifestSource(opts.fetcher, opts.refetchAfterMs ?? 10 * 60_000),
    events: manager.events,
    log: manager.logger.child('manifest'),
    metrics: new ManifestMetrics(manager.registry, opts.onModuleState),
    fieldManager: opts.fieldManager ?? MANIFEST_FIELD_MANAGER,
    intervals: { ...DEFAULT_INTERVALS, ...opts.intervals },
    requestConcurrency: opts.requestConcurrency ?? 4,
    crdEstablishTimeoutMs: opts.crdEstablishTimeoutMs ?? 10_000,
    driftCheckMs: opts.driftCheckMs,
    driftChecks: opts.driftChecks,
    readinessChecks: opts.readinessChecks,
    eventRecheckMs: opts.eventRecheckMs,
    webhookHealthySince,
    registryCredentials: opts.registryCredentialsSecret ? credentialsFromKcpSecret(opts.kcp, opts.registryCredentialsSecret) : undefined,
    skrImagePullSecret: opts.skrImagePullSecret,
  });
  const builder = newControllerManagedBy(manager)
    .named('manifest')
    .for(Manifest, { ...scope, predicates: [notStatusOnly] })
    .withOptions({ maxConcurrentReconciles: opts.maxConcurrentReconciles ?? DEFAULT_MANIFEST_WORKERS });
  if (kymas) {
    // A Kyma that appears or goes changes whether its Manifests are orphans; its many status
    // updates do not.
    builder.watches<KymaObject>(
      Kyma,
      (kyma) => manifests.list({ namespace: kyma.metadata.namespace, labelSelector: `${Labels.KymaName}=${kyma.metadata.name ?? ''}` }).map((m) => namespacedName(m)),
      { ...scope, predicates: [{ update: () => false }] },
    );
  }
  if (opts.watcherEvents) builder.watchesChannel(opts.watcherEvents);
  // Events about work under way (a module's status while it installs, a change to put back) go
  // ahead of new Manifests' first passes, which take several times as long: in a fleet's install,
  // an installing Manifest whose manager became available is Ready within moments, not behind
  // thousands of first passes.
  if (opts.watcherEventsUnderWay) builder.watchesChannel(opts.watcherEventsUnderWay, { first: true });
  const controller = builder.complete(reconciler);
  return { controller, reconciler };
}

export { DEFAULT_DRIFT_CHECK_MS, DEFAULT_INTERVALS, ManifestReconciler, type RequeueIntervals, type TargetClients } from './reconciler.js';
export { MANIFEST_FIELD_MANAGER, MODULE_RESOURCE_MANAGED_BY } from './constants.js';
export type { ModuleStateChange, ModuleStateHook } from './metrics.js';
