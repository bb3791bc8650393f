// The Manager owns what controllers share: the client, the informers (one per kind + namespace +
// label selector), the controllers, the metrics registry, the event recorder and the operations
// HTTP endpoint (/metrics, /healthz, /readyz). `start(signal)` starts runnables and informers,
// waits for the caches to sync, starts the controllers, and on abort shuts down gracefully:
// intake stops, queues drain (in-flight reconciles finish), informers stop, the server closes.
//
// Coordination hook (leader election, sharding): `setGate(fn)` installs a function asked before
// every reconcile, "may this replica reconcile this key of this controller now?". A key it
// refuses is dropped (not retried); when the answer changes to yes (leadership acquired, a shard
// gained), call `requeueAll({ kind })` to enqueue every cached key again. Informers keep running
// either way, so a replica that takes over starts with warm caches.
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type { Store } from './cache/store.js';
import type { Client } from './client/interface.js';
import { Controller, ControllerBuilder, type ControllerHost, type InformerScope, type Request } from './controller.js';
import { EventRecorder } from './events.js';
import { startOperationsServer, type Check, type OperationsServer } from './health.js';
import { Informer, type BackoffOptions } from './cache/informer.js';
import { createLogger, type Logger } from './log.js';
import { Registry } from './metrics.js';
import type { KindRef, KubeObject } from '../kube/object.js';
import { pause, untilAborted } from '../util/sleep.js';

/** Answers whether this replica may reconcile `req` of `controller` now (leader election, sharding). */
export type ReconcileGate = (controller: string, kind: KindRef, req: Request) => boolean;

/** Something else the manager starts with it and stops on shutdown (e.g. a leader elector). */
export interface Runnable {
  name: string;
  /** Runs until the signal aborts. */
  start(signal: AbortSignal): Promise<void>;
}

/** The part of the Manager that leader election and sharding plug into (structural, so tests can pass a stand-in). */
export interface GatedHost {
  add(r: Runnable): void;
  setGate(gate: ReconcileGate | undefined): void;
  requeueAll(): void;
}

export interface ManagerOptions {
  client: Client;
  /** Logger name and default reportingController of events. */
  name?: string;
  logger?: Logger;
  registry?: Registry;
  /** Port of the operations endpoint (0: any free port); no server when undefined. */
  operationsPort?: number;
  operationsHost?: string;
  /** How long shutdown waits for in-flight reconciles before aborting their signal (default 30 s). */
  gracefulShutdownTimeoutMs?: number;
  /** Informer reconnect backoff. */
  informerBackoff?: BackoffOptions;
  /** Informer list page size. */
  pageSize?: number;
  /** For events; default the host name. */
  reportingInstance?: string;
  gate?: ReconcileGate;
}

/** An AbortSignal that aborts on SIGTERM or SIGINT (a second signal exits at once). */
export function signalHandler(): AbortSignal {
  const ac = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (ac.signal.aborted) process.exit(1);
    ac.abort(new Error(`received ${sig}`));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return ac.signal;
}

function scopeKey(kind: KindRef, scope: InformerScope): string {
  return [kind.apiVersion, kind.kind, scope.namespace ?? '', scope.labelSelector ?? ''].join('|');
}

interface RunState {
  signal: AbortSignal;
  informerStop: AbortController;
  reconcileStop: AbortController;
  informerRuns: Promise<void>[];
  controllerRuns: Promise<void>[];
}

export class Manager implements ControllerHost {
  readonly client: Client;
  readonly registry: Registry;
  readonly logger: Logger;
  readonly events: EventRecorder;
  private readonly informers = new Map<string, Informer>();
  private readonly controllers: Controller[] = [];
  private readonly runnables: Runnable[] = [];
  private readonly healthChecks = new Map<string, Check>([['ping', () => true]]);
  private readonly readyChecks = new Map<string, Check>();
  private gate: ReconcileGate | undefined;
  private run: RunState | undefined;
  private server: OperationsServer | undefined;
  private resolveReady!: () => void;
  private readonly readyPromise: Promise<void>;
  private isReady = false;

  constructor(private readonly opts: ManagerOptions) {
    this.client = opts.client;
    this.registry = opts.registry ?? new Registry();
    this.logger = opts.logger ?? createLogger({ name: opts.name ?? 'manager' });
    this.gate = opts.gate;
    this.events = new EventRecorder(opts.client, {
      reportingController: opts.name ?? 'kcp-manager',
      reportingInstance: opts.reportingInstance ?? hostname(),
      logger: this.logger,
    });
    this.readyPromise = new Promise((resolve) => (this.resolveReady = resolve));
    this.readyChecks.set('informers', () => {
      const pending = [...this.informers.values()].filter((i) => !i.hasSynced).map((i) => i.kind.kind);
      return pending.length === 0 ? true : `not synced: ${pending.join(', ')}`;
    });
    this.readyChecks.set('controllers', () => this.isReady || 'controllers not started');
  }

  /** The URL of the operations endpoint once started. */
  get operationsUrl(): string | undefined {
    return this.server?.url;
  }

  /** Resolves when caches are synced and controllers run. */
  ready(): Promise<void> {
    return this.readyPromise;
  }

  /** The shared informer for a kind and scope; started at once when the manager runs. */
  informer<T extends KubeObject = KubeObject>(kind: KindRef, scope: InformerScope = {}): Informer<T> {
    const key = scopeKey(kind, scope);
    let inf = this.informers.get(key);
    if (!inf) {
      inf = new Informer(this.client, {
        kind,
        namespace: scope.namespace,
        labelSelector: scope.labelSelector,
        backoff: this.opts.informerBackoff,
        pageSize: this.opts.pageSize,
        logger: this.logger,
      });
      this.informers.set(key, inf);
      if (this.run && !this.run.informerStop.signal.aborted) this.run.informerRuns.push(inf.run(this.run.informerStop.signal));
    }
    return inf as unknown as Informer<T>;
  }

  /**
   * What each shared informer holds (kind, scope, objects), e.g. to report memory per cache; with
   * `jsonBytes`, also the objects' size as JSON (a proxy for their heap share; costs a serialization).
   */
  cacheSizes(opts: { jsonBytes?: boolean } = {}): { kind: string; scope: string; objects: number; jsonBytes?: number }[] {
    return [...this.informers.entries()].map(([scope, inf]) => {
      let bytes = 0;
      if (opts.jsonBytes) for (const o of inf.store.values()) bytes += JSON.stringify(o).length;
      return { kind: inf.kind.kind, scope, objects: inf.store.size, ...(opts.jsonBytes ? { jsonBytes: bytes } : {}) };
    });
  }

  /** Cached objects of a kind (reads from memory; treat them as read-only). */
  cache<T extends KubeObject = KubeObject>(kind: KindRef, scope: InformerScope = {}): Store<T> {
    return this.informer<T>(kind, scope).store;
  }

  addController(c: Controller): void {
    this.controllers.push(c);
    if (this.run && !this.run.signal.aborted) this.run.controllerRuns.push(this.startController(c, this.run));
  }

  getControllers(): readonly Controller[] {
    return this.controllers;
  }

  add(r: Runnable): void {
    if (this.run) throw new Error('add runnables before start()');
    this.runnables.push(r);
  }

  addHealthCheck(name: string, check: Check): void {
    this.healthChecks.set(name, check);
  }

  addReadyCheck(name: string, check: Check): void {
    this.readyChecks.set(name, check);
  }

  setGate(gate: ReconcileGate | undefined): void {
    this.gate = gate;
  }

  mayReconcile(controller: string, kind: KindRef, req: Request): boolean {
    return this.gate ? this.gate(controller, kind, req) : true;
  }

  /** Enqueues every cached key of the matching controllers (all when no filter). */
  requeueAll(filter: { kind?: KindRef; controller?: string } = {}): void {
    for (const c of this.controllers) {
      if (filter.controller && c.name !== filter.controller) continue;
      if (filter.kind && (c.forKind.kind !== filter.kind.kind || c.forKind.apiVersion !== filter.kind.apiVersion)) continue;
      c.enqueueAll();
    }
  }

  /** Runs until `signal` aborts, then shuts down gracefully; resolves when everything stopped. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.run) throw new Error('manager already started');
    const run: RunState = { signal, informerStop: new AbortController(), reconcileStop: new AbortController(), informerRuns: [], controllerRuns: [] };
    this.run = run;
    // Every controller, informer and runnable listens on these signals: that many listeners is expected.
    setMaxListeners(0, signal, run.informerStop.signal, run.reconcileStop.signal);
    const log = this.logger;
    if (this.opts.operationsPort !== undefined) {
      this.server = await startOperationsServer({
        port: this.opts.operationsPort,
        host: this.opts.operationsHost,
        registry: this.registry,
        healthChecks: this.healthChecks,
        readyChecks: this.readyChecks,
      });
      log.info('serving metrics and probes', { url: this.server.url });
    }
    const runnableRuns = this.runnables.map((r) =>
      r.start(signal).catch((e: unknown) => {
        log.error('runnable failed', { runnable: r.name, error: e });
      }),
    );
    for (const inf of this.informers.values()) run.informerRuns.push(inf.run(run.informerStop.signal));
    for (const c of this.controllers) run.controllerRuns.push(this.startController(c, run));
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync(signal)));
    if (!signal.aborted) {
      this.isReady = true;
      this.resolveReady();
      log.info('caches synced, controllers running', { controllers: this.controllers.length, informers: this.informers.size });
    }
    await untilAborted(signal);
    await this.shutdown(run, runnableRuns);
  }

  private async startController(c: Controller, run: RunState): Promise<void> {
    const synced = await Promise.all(c.informers().map((i) => i.waitForSync(run.signal)));
    if (!synced.every(Boolean)) return;
    try {
      await c.start(run.signal, run.reconcileStop.signal);
    } catch (e) {
      this.logger.error('controller failed', { controller: c.name, error: e });
    }
  }

  private async shutdown(run: RunState, runnableRuns: Promise<void>[]): Promise<void> {
    const log = this.logger;
    log.info('shutting down: draining queues');
    const timeoutMs = this.opts.gracefulShutdownTimeoutMs ?? 30_000;
    const deadline = new AbortController();
    const drained = Promise.all(run.controllerRuns).then(() => 'drained' as const);
    const timedOut = pause(timeoutMs, deadline.signal).then(() => 'timeout' as const);
    if ((await Promise.race([drained, timedOut])) === 'timeout') {
      log.warn('in-flight reconciles did not finish in time; aborting them', { timeoutMs });
      run.reconcileStop.abort();
      // Reconcilers that ignore their signal are not waited for forever.
      const grace = new AbortController();
      await Promise.race([drained, pause(5_000, grace.signal)]);
      grace.abort();
    }
    deadline.abort();
    run.informerStop.abort();
    await Promise.all(run.informerRuns);
    await Promise.all(runnableRuns);
    const flushDeadline = new AbortController();
    await Promise.race([this.events.flush(), pause(2_000, flushDeadline.signal)]);
    flushDeadline.abort();
    await this.server?.close();
    this.server = undefined;
    log.info('stopped');
  }
}

export function newManager(opts: ManagerOptions): Manager {
  return new Manager(opts);
}

export function newControllerManagedBy(manager: ControllerHost): ControllerBuilder {
  return new ControllerBuilder(manager);
}
