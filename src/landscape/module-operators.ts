// Simulated module operators for the embedded landscape: what keda-manager, serverless-manager
// and the like do with their custom resources that matters to the lifecycle manager — report
// `status.state`. For every custom resource of a module's kind in a runtime cluster, the
// simulation sets `status.state` (Ready by default, or Processing/Error/Warning as configured per
// module) after a short delay, as the operator would once it reconciled; `Deleting` (or the module's
// configured deletion state) once the CR is marked for deletion (it then only exists while another
// finalizer holds it).
//
// A kind is a module's when its CRD was installed by the Manifest controller (label
// `operator.kyma-project.io/managed-by: kyma`) or carries the module-name label, or when
// it is configured explicitly. The simulation watches the in-process store of every logical
// cluster (no HTTP watches: thousands of runtimes cost nothing while idle).
import { Labels } from '../api/operator/index.js';
import type { LogicalCluster, UserInfo } from '../apiserver/cluster.js';
import { resourceKey, typesFromCrd, type ResourceType } from '../apiserver/resources.js';
import type { RunningApiServer } from '../apiserver/server.js';
import type { StoreEvent } from '../apiserver/store.js';
import type { ObjectWithMeta } from '../kube/object.js';
import { MODULE_RESOURCE_MANAGED_BY } from '../lifecycle/manifest/constants.js';
import { type Logger, silentLogger } from '../runtime/log.js';

export type SimulatedModuleState = 'Ready' | 'Processing' | 'Error' | 'Warning';

export interface ModuleBehaviour {
  /** The state the operator reports (default Ready). */
  state?: SimulatedModuleState;
  /** How long the operator takes to report it (default: the operators' `delayMs`). */
  delayMs?: number;
  /** The state reported once the CR is marked for deletion (default Deleting; template-operator's `--final-deletion-state`). */
  deletionState?: 'Deleting' | SimulatedModuleState;
}

export interface ModuleOperatorsOptions {
  server: RunningApiServer;
  /** Delay before a state is reported (default 200 ms). */
  delayMs?: number;
  /**
   * Behaviour per module: keys are module names (the CRD's `operator.kyma-project.io/module-name`
   * or `app.kubernetes.io/component` label), or `group/Kind` of the custom resource.
   */
  modules?: Record<string, ModuleBehaviour>;
  /** Extra custom resource kinds (`group/Kind`) to treat as module CRs though their CRDs carry no module label. */
  kinds?: string[];
  /** Which logical clusters are runtimes (default: every cluster but `default`). */
  isRuntime?: (cluster: string) => boolean;
  /** How often new logical clusters are looked for (default 500 ms); `attach` adds one at once. */
  discoverEveryMs?: number;
  /** States other than Ready reported, behaviour changes and failures (info and above); every report (debug). */
  logger?: Logger;
}

const CRDS = 'apiextensions.k8s.io/customresourcedefinitions';
const FIELD_MANAGER = 'simulated-module-operator';
/** Who the status writes come from in admission reviews (a module manager's ServiceAccount). */
const OPERATOR_USER: UserInfo = { username: 'system:serviceaccount:kyma-system:simulated-module-operator', uid: 'simulated-module-operator', groups: ['system:serviceaccounts', 'system:serviceaccounts:kyma-system', 'system:authenticated'] };

interface ModuleKind {
  type: ResourceType;
  /** Names under which behaviour may be configured, most specific first. */
  names: string[];
}

interface Attached {
  cluster: LogicalCluster;
  /** resource key (`group/plural`) -> module kind */
  kinds: Map<string, ModuleKind>;
  detach: () => void;
}

export class ModuleOperators {
  private readonly attached = new Map<string, Attached>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly behaviours: Map<string, ModuleBehaviour>;
  private readonly extraKinds: Set<string>;
  private readonly log: Logger;
  private discoverTimer: NodeJS.Timeout | undefined;
  /** The server's cluster set as of the last discovery (unchanged: nothing to discover). */
  private discoveredClusterSet = -1;
  private stopped = false;
  /** Status writes done, for tests and the CLI. */
  reported = 0;

  constructor(private readonly opts: ModuleOperatorsOptions) {
    this.behaviours = new Map(Object.entries(opts.modules ?? {}));
    this.extraKinds = new Set(opts.kinds ?? []);
    this.log = opts.logger ?? silentLogger;
  }

  start(): this {
    this.discover();
    const every = this.opts.discoverEveryMs ?? 500;
    this.discoverTimer = setInterval(() => this.discover(), every);
    this.discoverTimer.unref();
    return this;
  }

  /** Changes what a module's operator reports from now on (existing CRs are re-evaluated). */
  setBehaviour(module: string, behaviour: ModuleBehaviour): void {
    this.behaviours.set(module, behaviour);
    this.log.info('module operator behaviour set', { module, state: behaviour.state ?? 'Ready', delayMs: behaviour.delayMs });
    for (const a of this.attached.values()) for (const k of a.kinds.values()) if (k.names.includes(module)) this.scanKind(a, k);
  }

  /** Starts operating in one logical cluster now (otherwise found by the periodic discovery). */
  attach(clusterName: string): void {
    if (this.stopped || this.attached.has(clusterName) || !this.opts.server.hasCluster(clusterName)) return;
    const cluster = this.opts.server.cluster(clusterName);
    const a: Attached = { cluster, kinds: new Map(), detach: () => undefined };
    a.detach = cluster.store.onCommit((ev) => this.onCommit(clusterName, a, ev));
    this.attached.set(clusterName, a);
    for (const stored of cluster.store.list(CRDS)) this.learnCrd(clusterName, a, JSON.parse(stored.json) as ObjectWithMeta);
  }

  stop(): void {
    this.stopped = true;
    if (this.discoverTimer) clearInterval(this.discoverTimer);
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const a of this.attached.values()) a.detach();
    this.attached.clear();
  }

  private discover(): void {
    if (this.opts.server.clusterSetVersion === this.discoveredClusterSet) return;
    this.discoveredClusterSet = this.opts.server.clusterSetVersion;
    const isRuntime = this.opts.isRuntime ?? ((name: string) => name !== 'default');
    const names = new Set(this.opts.server.clusterNames());
    for (const name of names) if (isRuntime(name)) this.attach(name);
    for (const [name, a] of this.attached) {
      if (names.has(name)) continue;
      a.detach();
      this.attached.delete(name);
    }
  }

  private onCommit(clusterName: string, a: Attached, ev: StoreEvent): void {
    if (ev.resource === CRDS) {
      if (ev.type !== 'DELETED') this.learnCrd(clusterName, a, JSON.parse(ev.object.json) as ObjectWithMeta);
      return;
    }
    const kind = a.kinds.get(ev.resource);
    if (!kind || ev.type === 'DELETED') return;
    this.consider(clusterName, a, kind, JSON.parse(ev.object.json) as ObjectWithMeta);
  }

  private learnCrd(clusterName: string, a: Attached, crd: ObjectWithMeta): void {
    const labels = crd.metadata.labels ?? {};
    const spec = crd.spec as { group?: string; names?: { kind?: string } } | undefined;
    const groupKind = `${spec?.group ?? ''}/${spec?.names?.kind ?? ''}`;
    const moduleName = labels[Labels.ModuleName];
    const isModule = labels[Labels.ManagedBy] === MODULE_RESOURCE_MANAGED_BY || moduleName !== undefined || this.extraKinds.has(groupKind);
    if (!isModule) return;
    const names = [groupKind, moduleName, labels[Labels.Component]].filter((n): n is string => !!n);
    for (const type of typesFromCrd(crd as unknown as Record<string, unknown>)) {
      const key = resourceKey(type);
      if (a.kinds.has(key)) continue;
      const kind = { type, names };
      a.kinds.set(key, kind);
      this.scanKind(a, kind, clusterName);
    }
  }

  private scanKind(a: Attached, kind: ModuleKind, clusterName = a.cluster.name): void {
    for (const stored of a.cluster.store.list(resourceKey(kind.type))) this.consider(clusterName, a, kind, JSON.parse(stored.json) as ObjectWithMeta);
  }

  /** What the operator reports for this CR: its deletion state (default `Deleting`) once it is marked for deletion (as template-operator does while something else's finalizer holds it), else the module's configured state. */
  private behaviourOf(kind: ModuleKind, cr: ObjectWithMeta): { state: SimulatedModuleState | 'Deleting'; delayMs: number } {
    const b = kind.names.map((n) => this.behaviours.get(n)).find((x) => x !== undefined) ?? {};
    return { state: cr.metadata.deletionTimestamp ? (b.deletionState ?? 'Deleting') : (b.state ?? 'Ready'), delayMs: b.delayMs ?? this.opts.delayMs ?? 200 };
  }

  /** Schedules a status report when the CR's state is not (yet) the one its operator reports. */
  private consider(clusterName: string, a: Attached, kind: ModuleKind, cr: ObjectWithMeta): void {
    if (this.stopped) return;
    const want = this.behaviourOf(kind, cr);
    const status = (cr.status ?? {}) as { state?: string };
    if (status.state === want.state) return;
    const timerKey = `${clusterName}|${resourceKey(kind.type)}|${cr.metadata.namespace ?? ''}|${cr.metadata.name ?? ''}`;
    if (this.timers.has(timerKey)) return;
    const timer = setTimeout(() => {
      this.timers.delete(timerKey);
      // report() swallows write conflicts itself; anything else is a bug worth seeing.
      this.report(a, kind, cr.metadata.namespace ?? '', cr.metadata.name ?? '').catch((err: unknown) => {
        if (this.log !== silentLogger) this.log.error('module operator simulation failed', { cluster: clusterName, error: err });
        else console.error('module operator simulation:', err);
      });
    }, want.delayMs);
    timer.unref();
    this.timers.set(timerKey, timer);
  }

  private async report(a: Attached, kind: ModuleKind, namespace: string, name: string): Promise<void> {
    if (this.stopped) return;
    const current = a.cluster.tryGet(kind.type, namespace, name);
    if (!current) return;
    const want = this.behaviourOf(kind, current);
    const status = { ...((current.status ?? {}) as Record<string, unknown>), state: want.state };
    try {
      // Through admission, as an operator's writes are: the runtime watcher's webhook sees them.
      await a.cluster.update(kind.type, namespace, name, { ...current, status }, { fieldManager: FIELD_MANAGER, user: OPERATOR_USER, ...(kind.type.status ? { subresource: 'status' } : {}) });
      this.reported++;
      // Ready is the usual answer (one per module and runtime: debug); anything else was asked for and explains a module's state.
      const level = want.state === 'Ready' ? 'debug' : 'info';
      if (this.log.enabled(level)) this.log[level]('module CR state reported', { cluster: a.cluster.name, kind: `${kind.type.group}/${kind.type.kind}`, object: namespace ? `${namespace}/${name}` : name, state: want.state });
    } catch {
      // Changed or deleted meanwhile: the commit of that change schedules another look.
    }
  }
}

/** Starts simulated module operators for every runtime cluster of the embedded server. */
export function startModuleOperators(opts: ModuleOperatorsOptions): ModuleOperators {
  return new ModuleOperators(opts).start();
}
