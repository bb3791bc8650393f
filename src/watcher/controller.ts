// The Watcher controller (KCP side): one reconcile brings a Watcher's route to the listener in line
// with its spec.
//   skip? -> deleting? (VirtualService removed, finalizer removed) -> finalizer -> spec valid? ->
//   Istio in the KCP? -> Gateways selected -> VirtualService created/updated -> status -> requeue.
// Without Istio's CRDs there is nothing to route: a listener served directly (it terminates mTLS
// itself) makes the Watcher Ready, and the condition says so; a listener that expects a gateway in
// front of it makes it Error. Istio is looked up at every reconcile (the success requeue is the
// re-check), so installing Istio later takes effect within a requeue.
import { jsonEqual } from '../kube/json.js';
import {
  Finalizers,
  isEnabled,
  Labels,
  States,
  Watcher,
  WATCHER_CONDITION_REASON,
  WatcherConditionTypes,
  type State,
  type WatcherObject,
} from '../api/operator/index.js';
import type { Condition } from '../api/schema.js';
import type { KindRef, KubeObject } from '../kube/object.js';
import { isConflict, isNotFound } from '../runtime/client/errors.js';
import { findObject } from '../runtime/client/find.js';
import type { Client } from '../runtime/client/interface.js';
import { type Controller, newControllerManagedBy } from '../runtime/controller.js';
import type { Logger } from '../runtime/log.js';
import type { Manager } from '../runtime/manager.js';
import { generationChanged, labelsChanged, or, type Predicate } from '../runtime/predicates.js';
import {
  CRD_KIND,
  DEFAULT_REQUEUE_ERROR_MS,
  DEFAULT_REQUEUE_READY_MS,
  GATEWAY_CRD,
  ISTIO_GROUP,
  ISTIO_PREFERRED_VERSION,
  VIRTUAL_SERVICE_CRD,
  WATCHER_CONTROLLER_NAME,
  WATCHER_FIELD_MANAGER,
  WatcherConditionMessages,
} from './constants.js';
import { watcherProblems } from './validate.js';
import { desiredVirtualService, GatewayError, selectorText, type GatewayObject, type VirtualServiceObject } from './virtual-service.js';

export interface WatcherListenerOptions {
  /**
   * How runtimes reach the KCP listener: `direct` — the lifecycle manager serves it and terminates
   * mTLS itself; `gateway` — it sits behind an Istio gateway that terminates mTLS (upstream's setup).
   */
  served: 'direct' | 'gateway';
  /** Where runtimes reach a directly served listener (e.g. `https://listener.example.com:8443`), for the condition message. */
  address?: string;
}

export interface WatcherControllerOptions {
  /** Namespace of the Watchers (and of their VirtualServices). */
  namespace: string;
  listener: WatcherListenerOptions;
  /** Requeue after success (default 1 minute, as upstream); also how often Istio is looked for again. */
  requeueReadyMs?: number;
  /** Retry of a Watcher in Error for a reason outside its spec: no Gateway, no Istio, an API error (default 10 s). */
  requeueErrorMs?: number;
  /** Namespace of the Istio Gateways (default: the Watchers' namespace; upstream's istio-gateway-namespace is kcp-system). */
  gatewayNamespace?: string;
  maxConcurrentReconciles?: number;
}

type Result = { requeueAfterMs?: number } | void;

interface Outcome {
  state: State;
  /** The VirtualService condition; left as it is when undefined. */
  condition?: { status: 'True' | 'False'; message: string };
  /** Event reason when the outcome is an Error (a Warning event is recorded on every Error outcome). */
  errorReason?: string;
}

/** The Istio versions the KCP serves, or undefined without Istio's VirtualService CRD. */
interface Istio {
  virtualService: KindRef;
  gateway: KindRef | undefined;
}

const deletionStarted: Predicate = { update: (o, n) => !o.metadata.deletionTimestamp && !!n.metadata.deletionTimestamp };

function servedVersion(crd: KubeObject): string | undefined {
  const versions = ((crd.spec as { versions?: { name: string; served?: boolean }[] } | undefined)?.versions ?? []).filter((v) => v.served);
  return (versions.find((v) => v.name === ISTIO_PREFERRED_VERSION) ?? versions.find((v) => v.name === 'v1') ?? versions[0])?.name;
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

class WatcherReconciler {
  private readonly kcp: Client;
  private readonly log: Logger;
  private readonly readyMs: number;
  private readonly errorMs: number;
  private readonly gatewayNamespace: string;

  constructor(
    private readonly manager: Manager,
    private readonly opts: WatcherControllerOptions,
  ) {
    this.kcp = manager.client;
    this.log = manager.logger.child('watcher');
    this.readyMs = opts.requeueReadyMs ?? DEFAULT_REQUEUE_READY_MS;
    this.errorMs = opts.requeueErrorMs ?? DEFAULT_REQUEUE_ERROR_MS;
    this.gatewayNamespace = opts.gatewayNamespace ?? opts.namespace;
  }

  async reconcile(req: { namespace?: string; name: string }, signal: AbortSignal): Promise<Result> {
    let w = await findObject<WatcherObject>(this.kcp, Watcher, req, { signal });
    if (!w) return;
    if (isEnabled(w.metadata.labels?.[Labels.SkipReconciliation])) {
      this.log.debug('skipping Watcher (skip-reconciliation label)', { watcher: req.name });
      return;
    }
    if (w.metadata.deletionTimestamp) return this.delete(w, signal);
    if (!(w.metadata.finalizers ?? []).includes(Finalizers.Watcher)) {
      w = await this.kcp.update<WatcherObject>({ ...w, metadata: { ...w.metadata, finalizers: [...(w.metadata.finalizers ?? []), Finalizers.Watcher] } }, { fieldManager: WATCHER_FIELD_MANAGER, signal });
    }
    const outcome = await this.route(w, signal);
    await this.writeStatus(w, outcome, signal);
    if (outcome.state === States.Ready) return { requeueAfterMs: this.readyMs };
    // A spec problem changes only with the spec (or the managed-by label), which the watch sees.
    return outcome.errorReason === 'InvalidSpec' ? undefined : { requeueAfterMs: this.errorMs };
  }

  /** Brings the route to the listener in line with the Watcher; says what the status should be. */
  private async route(w: WatcherObject, signal: AbortSignal): Promise<Outcome> {
    const problems = watcherProblems(w);
    if (problems.length > 0) return this.failed('InvalidSpec', `invalid Watcher: ${problems.join('; ')}`);
    const istio = await this.istio(signal);
    if (!istio) {
      if (this.opts.listener.served === 'gateway') {
        return this.failed('IstioNotFound', `the listener is served behind an Istio gateway, but the KCP has no Istio (CRD ${VIRTUAL_SERVICE_CRD} not found)`);
      }
      const at = this.opts.listener.address ? ` at ${this.opts.listener.address}` : '';
      return { state: States.Ready, condition: { status: 'True', message: `no Istio in the KCP: the listener terminates mTLS itself${at}; no VirtualService needed` } };
    }
    if (!istio.gateway) return this.failed('WatcherGatewayNotFound', `the KCP has Istio's VirtualService CRD but not its Gateway CRD (${GATEWAY_CRD})`);
    const selector = selectorText(w.spec.gateway?.selector);
    let gateways: GatewayObject[];
    try {
      gateways = (await this.kcp.list<GatewayObject>(istio.gateway, { namespace: this.gatewayNamespace, labelSelector: selector, signal })).items;
    } catch (e) {
      return this.failed('WatcherGatewayNotFound', `listing the Istio Gateways failed: ${errorMessage(e)}`);
    }
    if (gateways.length === 0) return this.failed('WatcherGatewayNotFound', `no Istio Gateway in namespace ${this.gatewayNamespace} matches the selector ${JSON.stringify(selector)}`);
    let desired: VirtualServiceObject;
    try {
      desired = desiredVirtualService(w, gateways, splitVersion(istio.virtualService.apiVersion));
    } catch (e) {
      if (!(e instanceof GatewayError)) throw e;
      return this.failed('WatcherGatewayNotFound', e.message);
    }
    try {
      await this.applyVirtualService(w, istio.virtualService, desired, signal);
    } catch (e) {
      if (isConflict(e)) throw e;
      return this.failed('VirtualServiceFailed', `writing the VirtualService failed: ${errorMessage(e)}`);
    }
    return { state: States.Ready, condition: { status: 'True', message: WatcherConditionMessages.Configured } };
  }

  private failed(reason: string, message: string): Outcome {
    return { state: States.Error, condition: { status: 'False', message: `${WatcherConditionMessages.NotConfigured}: ${message}` }, errorReason: reason };
  }

  /** Looks for Istio's CRDs in the KCP (every reconcile: Istio may come, or go). */
  private async istio(signal: AbortSignal): Promise<Istio | undefined> {
    const vsCrd = await findObject(this.kcp, CRD_KIND, { name: VIRTUAL_SERVICE_CRD }, { signal });
    const vsVersion = vsCrd && servedVersion(vsCrd);
    if (!vsVersion) return undefined;
    const gwCrd = await findObject(this.kcp, CRD_KIND, { name: GATEWAY_CRD }, { signal });
    const gwVersion = gwCrd && servedVersion(gwCrd);
    return {
      virtualService: { apiVersion: `${ISTIO_GROUP}/${vsVersion}`, kind: 'VirtualService' },
      gateway: gwVersion ? { apiVersion: `${ISTIO_GROUP}/${gwVersion}`, kind: 'Gateway' } : undefined,
    };
  }

  private async applyVirtualService(w: WatcherObject, kind: KindRef, desired: VirtualServiceObject, signal: AbortSignal): Promise<void> {
    const key = { namespace: w.metadata.namespace, name: w.metadata.name ?? '' };
    const existing = await findObject<VirtualServiceObject>(this.kcp, kind, key, { signal });
    if (!existing) {
      await this.kcp.create(desired, { fieldManager: WATCHER_FIELD_MANAGER, signal });
      this.manager.events.event(w as KubeObject, 'Normal', 'VirtualServiceCreated', `created the VirtualService ${key.namespace ?? ''}/${key.name}`);
      this.log.info('created the VirtualService', { watcher: key.name });
      return;
    }
    const owners = existing.metadata.ownerReferences ?? [];
    const owned = owners.some((o) => o.uid === w.metadata.uid);
    // Only the fields upstream sets are compared: Istio and other writers may add their own.
    const current = { gateways: existing.spec?.gateways, hosts: existing.spec?.hosts, http: existing.spec?.http };
    if (owned && jsonEqual(current, desired.spec)) return;
    await this.kcp.update<VirtualServiceObject>(
      {
        ...existing,
        metadata: { ...existing.metadata, ownerReferences: owned ? owners : [...owners, ...(desired.metadata.ownerReferences ?? [])] },
        spec: { ...existing.spec, ...desired.spec },
      },
      { fieldManager: WATCHER_FIELD_MANAGER, signal },
    );
    this.log.info('updated the VirtualService', { watcher: key.name });
  }

  private async delete(watcher: WatcherObject, signal: AbortSignal): Promise<Result> {
    const name = watcher.metadata.name ?? '';
    if (!(watcher.metadata.finalizers ?? []).includes(Finalizers.Watcher)) return;
    const w = watcher.status?.state === States.Deleting ? watcher : await this.writeStatus(watcher, { state: States.Deleting }, signal);
    try {
      const istio = await this.istio(signal);
      const vs = istio && (await findObject(this.kcp, istio.virtualService, { namespace: w.metadata.namespace, name }, { signal }));
      // A VirtualService of that name that the Watcher never owned is someone else's.
      if (istio && vs && (vs.metadata.ownerReferences ?? []).some((o) => o.uid === w.metadata.uid)) {
        await this.kcp.delete(istio.virtualService, { namespace: w.metadata.namespace, name }, { signal }).catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
        this.log.info('deleted the VirtualService', { watcher: name });
      }
    } catch (e) {
      if (isConflict(e)) throw e;
      await this.writeStatus(w, this.failed('VirtualServiceFailed', `deleting the VirtualService failed: ${errorMessage(e)}`), signal);
      return { requeueAfterMs: this.errorMs };
    }
    await this.kcp.update<WatcherObject>({ ...w, metadata: { ...w.metadata, finalizers: (w.metadata.finalizers ?? []).filter((f) => f !== Finalizers.Watcher) } }, { fieldManager: WATCHER_FIELD_MANAGER, signal });
    this.manager.events.event(w as KubeObject, 'Normal', 'Deleted', 'Watcher cleaned up, finalizer removed');
    this.log.info('Watcher cleaned up', { watcher: name });
  }

  /** Writes the status when it differs by value; an Event and a log line on state changes, a Warning Event on every Error. */
  private async writeStatus(w: WatcherObject, outcome: Outcome, signal: AbortSignal): Promise<WatcherObject> {
    const name = w.metadata.name ?? '';
    const previous = w.status?.state;
    let conditions: Condition[] = w.status?.conditions ?? [];
    if (outcome.condition) {
      const old = conditions.find((c) => c.type === WatcherConditionTypes.VirtualService);
      const next: Condition = {
        type: WatcherConditionTypes.VirtualService,
        status: outcome.condition.status,
        reason: WATCHER_CONDITION_REASON,
        message: outcome.condition.message,
        lastTransitionTime: old && old.status === outcome.condition.status ? old.lastTransitionTime : new Date().toISOString(),
        ...(w.metadata.generation !== undefined ? { observedGeneration: w.metadata.generation } : {}),
      };
      conditions = [...conditions.filter((c) => c.type !== WatcherConditionTypes.VirtualService), next];
    }
    const status = { state: outcome.state, conditions, ...(w.metadata.generation !== undefined ? { observedGeneration: w.metadata.generation } : {}) };
    const current = w.status ? { state: w.status.state, conditions: w.status.conditions ?? [], ...(w.status.observedGeneration !== undefined ? { observedGeneration: w.status.observedGeneration } : {}) } : undefined;
    let written = w;
    if (!jsonEqual(current, status)) {
      written = await this.kcp.patch<WatcherObject>(Watcher, { namespace: w.metadata.namespace, name }, 'merge', { status }, { fieldManager: WATCHER_FIELD_MANAGER, subresource: 'status', signal });
    }
    const message = outcome.condition?.message ?? '';
    if (outcome.state === States.Error) this.manager.events.event(w as KubeObject, 'Warning', outcome.errorReason ?? 'Error', message);
    if (previous !== outcome.state) {
      if (outcome.state !== States.Error) this.manager.events.event(w as KubeObject, 'Normal', 'StateChanged', `state ${previous || 'none'} -> ${outcome.state}${message ? `: ${message}` : ''}`);
      const fields = { watcher: name, from: previous ?? '', to: outcome.state, message };
      if (outcome.state === States.Error) this.log.warn('Watcher state changed', fields);
      else this.log.debug('Watcher state changed', fields);
    }
    return written;
  }
}

function splitVersion(apiVersion: string): string {
  return apiVersion.slice(apiVersion.indexOf('/') + 1);
}

/** Registers the Watcher controller with the manager. */
export function setupWatcherController(manager: Manager, opts: WatcherControllerOptions): Controller {
  const reconciler = new WatcherReconciler(manager, opts);
  return newControllerManagedBy(manager)
    .named(WATCHER_CONTROLLER_NAME)
    .for(Watcher, { namespace: opts.namespace, predicates: [or(generationChanged, labelsChanged, deletionStarted)] })
    .withOptions({ maxConcurrentReconciles: opts.maxConcurrentReconciles ?? 1 })
    .complete(reconciler);
}
