// The Runtime controller: watches Runtimes in the KCP, their GardenerClusters, and Shoots in the
// garden cluster (a Shoot maps back to the Runtime whose `spec.shoot.name` names it, or whose runtime
// id its annotation carries), and runs the state machine (machine.ts, steps/) once per
// reconciliation. It writes the status the steps computed when it changed, records an Event for
// every condition change, and keeps the `im_runtime_state` metric.
import { jsonEqual } from '../../kube/json.js';
import { Shoot, type ShootObject } from '../../api/gardener/index.js';
import {
  GardenerCluster,
  type GardenerClusterObject,
  LabelKymaRuntimeID,
  Runtime,
  type RuntimeObject,
  RuntimeStateFailed,
  RuntimeStateReady,
  type RuntimeStatus,
} from '../../api/infrastructuremanager/index.js';
import { isConflict } from '../../runtime/client/errors.js';
import { CachedReader, NotingClient, OwnWrites } from '../../runtime/cache/own-writes.js';
import type { Client } from '../../runtime/client/interface.js';
import { type Controller, KeyChannel, newControllerManagedBy, type ReconcileResult, type Request } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/events.js';
import { Informer } from '../../runtime/cache/informer.js';
import type { Store } from '../../runtime/cache/store.js';
import type { Logger } from '../../runtime/log.js';
import type { Manager } from '../../runtime/manager.js';
import { annotationsChanged, generationChanged, labelsChanged, or, type Predicate } from '../../runtime/predicates.js';
import type { RemoteClusterCache } from '../../runtime/remote/cache.js';
import { namespacedName } from '../../kube/keys.js';
import { Kyma, type KymaObject } from '../../api/operator/index.js';
import type { ConverterConfig } from '../converter/index.js';
import { projectNamespace, ShootRuntimeIDAnnotation } from '../converter/index.js';
import { type InfrastructureMetrics, infrastructureMetrics } from '../metrics.js';
import { prepareCluster } from '../preparation/index.js';
import { type ClusterPreparer, defaultRuntimeTiming, type Machine, runSteps, type RuntimeTiming, type SystemState } from './machine.js';
import { conditionChanges } from './status.js';
import { peersOf } from './runtime-id.js';
import { initialize } from './steps/initialize.js';

export const RUNTIME_CONTROLLER_NAME = 'runtime';
/** Field manager of the Shoot writes (upstream's `kim`). */
export const FIELD_MANAGER = 'kim';
export const DEFAULT_RUNTIME_NAMESPACE = 'kcp-system';

export interface RuntimeControllerOptions {
  kcp: Client;
  garden: Client;
  /** Gardener project; Shoots live in `garden-<project>`. */
  project: string;
  converterConfig: ConverterConfig;
  /** Fail Runtimes without an audit log tenant for their provider and region (default false; see Machine). */
  auditLogMandatory?: boolean;
  /** Namespace of the Runtimes (default kcp-system). */
  namespace?: string;
  timing?: Partial<RuntimeTiming>;
  /** Parallel reconciles (upstream `--runtime-ctrl-workers-cnt`, default 25). */
  workers?: number;
  /**
   * Watch the KCP's Kymas (the Kyma CRD must be served): a deleted Runtime deletes the Kyma of its
   * runtime and waits for it to remove the modules before the kubeconfig and the Shoot go.
   */
  watchKymas?: boolean;
  /** Clients of the runtime clusters: the control plane's cache keyed by kubeconfig Secret (see remote-cluster.ts). */
  remoteClusters: RemoteClusterCache;
  /** Default: `prepareCluster` from src/infrastructure/preparation. */
  prepareCluster?: ClusterPreparer;
  logger?: Logger;
}

export interface RuntimeControllerHandle {
  controller: Controller;
  remoteClusters: RemoteClusterCache;
  metrics: InfrastructureMetrics;
}

const SHOOT_NAME_INDEX = 'shootName';
const RUNTIME_ID_INDEX = 'runtimeId';

/** Runtime updates that matter: spec, labels, annotations, finalizers, deletion (not status writes). */
const runtimeChanged: Predicate = or(generationChanged, labelsChanged, annotationsChanged, {
  update: (o, n) => o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp || (o.metadata.finalizers ?? []).join() !== (n.metadata.finalizers ?? []).join(),
});

/**
 * Shoot updates that matter: spec, deletion, and where Gardener's operation stands (its type and
 * state, errors). Gardener writes the operation's progress and description every few seconds while
 * it works; no step decides on them, so those writes wake no Runtime (its status mirror of the last
 * operation, `shootLastOperation`, shows them from its next pass on).
 */
export function shootProgressed(o: ShootObject, n: ShootObject): boolean {
  const before = o.status?.lastOperation;
  const after = n.status?.lastOperation;
  return (
    o.metadata.generation !== n.metadata.generation ||
    o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp ||
    before?.type !== after?.type ||
    before?.state !== after?.state ||
    !jsonEqual(o.status?.lastErrors, n.status?.lastErrors) ||
    o.status?.observedGeneration !== n.status?.observedGeneration
  );
}

export function setupRuntimeController(manager: Manager, opts: RuntimeControllerOptions): RuntimeControllerHandle {
  const namespace = opts.namespace ?? DEFAULT_RUNTIME_NAMESPACE;
  const log = (opts.logger ?? manager.logger).child(RUNTIME_CONTROLLER_NAME);
  const metrics = infrastructureMetrics(manager.registry);
  const remoteClusters = opts.remoteClusters;
  const shootNamespace = projectNamespace(opts.project);

  const runtimeInformer = manager.informer<RuntimeObject>(Runtime, { namespace });
  const runtimes = runtimeInformer.store;
  runtimes.addIndex(SHOOT_NAME_INDEX, (rt) => (rt.spec?.shoot?.name ? [rt.spec.shoot.name] : []));
  runtimes.addIndex(RUNTIME_ID_INDEX, (rt) => {
    const id = rt.metadata.labels?.[LabelKymaRuntimeID];
    return id ? [id] : [];
  });

  // Shoots live in another cluster: the manager's informers read the KCP, so the garden's Shoots
  // get their own informer, run by the manager, feeding keys through a channel.
  const shootKeys = new KeyChannel();
  const shoots = new Informer<ShootObject>(opts.garden, { kind: Shoot, namespace: shootNamespace, logger: log });
  const enqueueForShoot = (shoot: ShootObject) => {
    const keys = new Set(runtimes.byIndex(SHOOT_NAME_INDEX, shoot.metadata.name ?? '').map((rt) => namespacedName(rt)));
    const runtimeID = shoot.metadata.annotations?.[ShootRuntimeIDAnnotation];
    if (runtimeID) for (const rt of runtimes.byIndex(RUNTIME_ID_INDEX, runtimeID)) keys.add(namespacedName(rt));
    for (const key of keys) shootKeys.send(key);
  };
  shoots.addHandlers({
    onAdd: enqueueForShoot,
    onUpdate: (o, n) => {
      if (shootProgressed(o, n)) enqueueForShoot(n);
    },
    onDelete: enqueueForShoot,
  });
  manager.add({
    name: 'garden-shoot-informer',
    start: (signal) => shoots.run(signal),
  });

  // The Runtime, its Shoot and its GardenerCluster are read from the informers (as upstream's
  // cached client reads them), from the API servers only while this controller's own write of one
  // has not reached its informer yet (own-writes.ts); every write of the three is noted for that.
  const gardenerClusterInformer = manager.informer<GardenerClusterObject>(GardenerCluster, { namespace });
  const runtimeWrites = new OwnWrites(runtimeInformer);
  const shootWrites = new OwnWrites(shoots);
  const gardenerClusterWrites = new OwnWrites(gardenerClusterInformer);
  const kcp = new NotingClient(opts.kcp, [
    { kind: Runtime, writes: runtimeWrites },
    { kind: GardenerCluster, writes: gardenerClusterWrites },
  ]);
  const garden = new NotingClient(opts.garden, [{ kind: Shoot, writes: shootWrites }]);

  const kymas = opts.watchKymas ? manager.cache<KymaObject>(Kyma, { namespace }) : undefined;

  const reconciler = new RuntimeReconciler({
    kcp,
    garden,
    runtimeReader: new CachedReader(kcp, Runtime, runtimeWrites),
    shootReader: new CachedReader(garden, Shoot, shootWrites),
    gardenerClusters: new CachedReader(kcp, GardenerCluster, gardenerClusterWrites),
    project: opts.project,
    shootNamespace,
    converterConfig: opts.converterConfig,
    auditLogMandatory: opts.auditLogMandatory ?? false,
    timing: { ...defaultRuntimeTiming, ...opts.timing },
    remoteClusters,
    runtimes,
    ...(kymas ? { kymas } : {}),
    prepareCluster: opts.prepareCluster ?? prepareCluster,
    metrics,
    events: manager.events,
    log,
  });

  const builder = newControllerManagedBy(manager)
    .named(RUNTIME_CONTROLLER_NAME)
    .for(Runtime, { namespace, predicates: [runtimeChanged] })
    .watches<GardenerClusterObject>(
      GardenerCluster,
      (gc) => runtimes.byIndex(RUNTIME_ID_INDEX, gc.metadata.labels?.[LabelKymaRuntimeID] ?? gc.metadata.name ?? '').map((rt) => namespacedName(rt)),
      { namespace },
    )
    // Runtimes sharing a runtime id: one that appears, goes or is relabelled decides which of the others holds it.
    .watches<RuntimeObject>(Runtime, (rt) => peersOf(runtimes, rt).map((peer) => namespacedName(peer)), {
      namespace,
      predicates: [{ update: (o, n) => o.metadata.labels?.[LabelKymaRuntimeID] !== n.metadata.labels?.[LabelKymaRuntimeID] }],
    })
    .watchesChannel(shootKeys)
    .withOptions({ maxConcurrentReconciles: opts.workers ?? 25 });
  if (kymas) {
    // A Runtime being deleted waits for its Kyma: the Kyma's deletion (start and end) wakes it.
    builder.watches<KymaObject>(Kyma, (kyma) => runtimesOfKyma(runtimes, kyma), {
      namespace,
      predicates: [{ create: () => false, update: (o, n) => o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp }],
    });
  }
  const controller = builder.complete((req, signal) => reconciler.reconcile(req, signal));
  return { controller, remoteClusters, metrics };
}

/** The Runtimes a Kyma belongs to: by the runtime id label, or by name. */
function runtimesOfKyma(runtimes: Store<RuntimeObject>, kyma: KymaObject): string[] {
  const id = kyma.metadata.labels?.[LabelKymaRuntimeID];
  const keys = new Set((id ? runtimes.byIndex(RUNTIME_ID_INDEX, id) : []).map((rt) => namespacedName(rt)));
  keys.add(namespacedName(kyma));
  return [...keys];
}

interface ReconcilerDeps extends Omit<Machine, 'signal' | 'log' | 'fieldManager'> {
  runtimeReader: CachedReader<RuntimeObject>;
  shootReader: CachedReader<ShootObject>;
  events: EventRecorder;
  log: Logger;
}

export class RuntimeReconciler {
  constructor(private readonly deps: ReconcilerDeps) {}

  async reconcile(req: Request, signal: AbortSignal): Promise<ReconcileResult> {
    const { log: baseLog, metrics, runtimeReader, events } = this.deps;
    const key = namespacedName(req);
    // Absent from the cache: asked of the API server before it counts as gone.
    const runtime = await runtimeReader.get(req, { signal, confirmAbsent: true });
    if (!runtime) {
      metrics.runtimeGone(key);
      return {};
    }
    const log = baseLog.child(undefined, { runtime: key });
    const before = structuredClone(runtime.status);
    const state: SystemState = { runtime, shoot: await this.getShoot(runtime, signal) };
    // What the steps record (FSM stops, Events) counts once the pass stands: a pass whose status
    // write conflicts runs again and records it then.
    const effects: (() => void)[] = [];
    const machine: Machine = {
      ...this.deps,
      metrics: { ...metrics, fsmStopped: (reason) => effects.push(() => metrics.fsmStopped(reason)) },
      events: { event: (...args) => effects.push(() => events.event(...args)) },
      fieldManager: FIELD_MANAGER,
      log,
      signal,
    };
    let conflicted = false;
    let ending: Awaited<ReturnType<typeof runSteps>>;
    try {
      ending = await runSteps(initialize, machine, state);
      log.debug('reconciled', { steps: ending.steps.join(' -> '), state: runtime.status?.state });
      if ((ending.writeStatus || state.milestone) && runtime.status && !jsonEqual(before, runtime.status)) {
        try {
          await this.writeStatus(runtime, before, signal);
        } catch (e) {
          if (!isConflict(e)) throw e;
          // Someone else changed the Runtime since the copy this pass decided on: the next pass
          // reads it from the API server and decides again.
          conflicted = true;
          runtimeReader.writes.distrust(key);
          log.debug('runtime changed during the pass; looking again', { error: e instanceof Error ? e.message : String(e) });
          return { requeueAfterMs: this.deps.timing.statusRequeueMs };
        }
        this.recordConditionEvents(runtime, before);
        logStateChange(log, runtime, before);
      }
    } finally {
      if (!conflicted) for (const record of effects) record();
    }
    if (runtime.status && !(runtime.metadata.deletionTimestamp && !(runtime.metadata.finalizers ?? []).length)) {
      metrics.runtimeState(key, {
        runtimeId: runtime.metadata.labels?.[LabelKymaRuntimeID] ?? '',
        runtimeName: runtime.metadata.name ?? '',
        shootName: runtime.spec.shoot.name,
        state: runtime.status.state,
      });
    } else if (runtime.metadata.deletionTimestamp) metrics.runtimeGone(key);
    return ending.requeueAfterMs !== undefined ? { requeueAfterMs: ending.requeueAfterMs, ...(ending.fallback ? { fallback: true } : {}) } : {};
  }

  private async getShoot(runtime: RuntimeObject, signal: AbortSignal): Promise<ShootObject | undefined> {
    const name = runtime.spec?.shoot?.name;
    if (!name) return undefined;
    return this.deps.shootReader.get({ namespace: this.deps.shootNamespace, name }, { signal });
  }

  /**
   * A merge patch of the status subresource; fields the steps dropped are sent as null. It carries
   * the resourceVersion the pass read (as upstream's status update does): a Runtime changed since
   * is a conflict, not a status decided on an older copy.
   */
  private async writeStatus(runtime: RuntimeObject, before: RuntimeStatus | undefined, signal: AbortSignal): Promise<void> {
    const status: Record<string, unknown> = { ...runtime.status };
    for (const k of Object.keys(before ?? {})) if (!(k in status)) status[k] = null;
    const patch = { metadata: { resourceVersion: runtime.metadata.resourceVersion }, status };
    await this.deps.kcp.patch(Runtime, { namespace: runtime.metadata.namespace, name: runtime.metadata.name ?? '' }, 'merge', patch, { subresource: 'status', signal });
  }

  private recordConditionEvents(runtime: RuntimeObject, before: RuntimeStatus | undefined): void {
    for (const change of conditionChanges(before, runtime.status)) {
      const c = change.after;
      this.deps.events.event(runtime, c.status === 'False' ? 'Warning' : 'Normal', c.reason, `${c.type} ${c.status}: ${c.message}`, 'Reconcile');
    }
  }
}

/**
 * A written state change: Failed at warn with the failing condition, Ready (provisioned or
 * updated) at info, the rest (Pending, Terminating) at debug. `log` carries the runtime.
 */
function logStateChange(log: Logger, runtime: RuntimeObject, before: RuntimeStatus | undefined): void {
  const from = before?.state;
  const to = runtime.status?.state;
  if (!to || from === to) return;
  const level = to === RuntimeStateFailed ? 'warn' : to === RuntimeStateReady ? 'info' : 'debug';
  if (!log.enabled(level)) return;
  const fields: Record<string, unknown> = { from: from ?? '', to, shoot: runtime.spec.shoot.name };
  if (to === RuntimeStateFailed) {
    const failing = runtime.status?.conditions?.filter((c) => c.status === 'False').sort((a, b) => (a.lastTransitionTime ?? '').localeCompare(b.lastTransitionTime ?? '')).at(-1);
    if (failing) Object.assign(fields, { reason: failing.reason, message: failing.message });
  }
  log[level]('Runtime state changed', fields);
}
