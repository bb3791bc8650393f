// The kubelets and workload controllers of runtime clusters, simulated (src/landscape/workloads/):
// Deployments get ReplicaSets, ReplicaSets get Pods, Pods are scheduled onto the cluster's Nodes and
// run `readyDelayMs` after they are bound, and the statuses follow as kube-controller-manager and
// the kubelets write them. StatefulSets and DaemonSets get the status their controllers would
// write once all pods run (they get no Pods). Clusters without Gardener get `nodes` Nodes of their
// own; a shoot cluster has the Nodes of its worker pools (src/landscape/gardener/machines.ts).
//
// Cost: one in-process commit listener per attached cluster (no sockets, no HTTP watches) and one
// shared, bounded work loop that reacts to commits only (no periodic pass). A pass writes only what
// differs by value, so nothing is written while nothing changes. Memory: the objects themselves (a
// ReplicaSet per template kept in history, a Pod per replica, the Nodes) and the loop's queued keys.
import { StatusError } from '../apiserver/errors.js';
import type { StoreEvent } from '../apiserver/store.js';
import type { RunningApiServer } from '../apiserver/server.js';
import { type JsonObject, jsonEqual } from '../kube/json.js';
import type { ObjectWithMeta, OwnerReference } from '../kube/object.js';
import { type Logger, silentLogger } from '../runtime/log.js';
import { KeyedLoop, type WorkResult } from './keyed-loop.js';
import { ClusterView, CONTROLLER_MANAGER, isRaceLost, kubeletOf, type SimResource } from './workloads/cluster-view.js';
import { syncDeployment } from './workloads/deployment.js';
import { podTemplateHash } from './workloads/hash.js';
import { plainNodes } from './workloads/nodes.js';
import { syncPod } from './workloads/pods.js';
import { syncReplicaSet } from './workloads/replicaset.js';
import { replicasOf } from './workloads/types.js';

export interface KubeletOptions {
  /** Time pods take to start: a ReplicaSet's new pods run this long after its change, a bound pod this long after its binding; StatefulSets and DaemonSets report ready this long after a change. */
  readyDelayMs: number;
  /** Nodes the kubelet simulation registers in an attached cluster that has none (see `registerNodes`). */
  nodes: number;
  /** Which attached clusters get `nodes` Nodes of their own when they have none (default: all; the garden landscape leaves shoot clusters to Gardener). */
  registerNodes?: (name: string) => boolean;
  /** Attach to every cluster whose name matches (checked every `scanIntervalMs`); none by default. */
  clusters?: (name: string) => boolean;
  scanIntervalMs: number;
  /** Passes at once, over all clusters. */
  concurrency: number;
  onError?: (err: unknown) => void;
}

export const defaultKubeletOptions: KubeletOptions = { readyDelayMs: 200, nodes: 1, scanIntervalMs: 500, concurrency: 8 };

/** What a loop key names: a workload, a pod, or the registration of a cluster's own nodes. */
type Kind = SimResource | 'register';
/** Longest wait before a failing pass is tried again. */
const MAX_BACKOFF_MS = 30_000;

interface Attached {
  view: ClusterView;
  unsubscribe: () => void;
}

export class KubeletSimulator {
  readonly options: KubeletOptions;
  private readonly attached = new Map<string, Attached>();
  private readonly loop: KeyedLoop;
  /** Consecutive failures per key (for the backoff); dropped on success. */
  private readonly failures = new Map<string, number>();
  private scanTimer: NodeJS.Timeout | undefined;
  /** The server's cluster set as of the last scan: unchanged, a scan has nothing to do (10,000 clusters every 500 ms cost a few percent of a core). */
  private scannedClusterSet = -1;
  private passCount = 0;

  constructor(
    private readonly server: RunningApiServer,
    options: Partial<KubeletOptions> = {},
    // Unschedulable pods and failures at info and above; attachments and every pass at debug (thousands of clusters).
    private readonly log: Logger = silentLogger,
  ) {
    this.options = { ...defaultKubeletOptions, ...options };
    this.loop = new KeyedLoop((key) => this.reconcile(key), { concurrency: this.options.concurrency, onError: (_k, err) => this.report(err) });
  }

  /** Starts the periodic scan for matching clusters (when `clusters` is set). */
  start(signal?: AbortSignal): void {
    if (this.options.clusters) {
      this.scan();
      this.scanTimer = setInterval(() => this.scan(), this.options.scanIntervalMs);
      this.scanTimer.unref();
    }
    signal?.addEventListener('abort', () => {
      this.stop().catch((err: unknown) => this.report(err));
    }, { once: true });
  }

  /** Starts simulating the cluster's kubelets and workload controllers (idempotent). */
  attach(name: string): void {
    if (this.attached.has(name) || !this.server.hasCluster(name)) return;
    const view = new ClusterView(this.server.cluster(name), this.log.child(undefined, { cluster: name }));
    const unsubscribe = view.cluster.store.onCommit((ev) => this.route(name, view, ev));
    this.attached.set(name, { view, unsubscribe });
    if (this.log.enabled('debug')) this.log.debug('attached', { cluster: name });
    if (this.options.registerNodes?.(name) ?? true) this.loop.enqueue(key(name, 'register', '', ''));
    for (const r of ['deployments', 'replicasets', 'pods', 'statefulsets', 'daemonsets'] as const) {
      const delay = r === 'deployments' ? 0 : this.options.readyDelayMs;
      for (const o of view.cluster.store.list(storeKey(r))) this.loop.enqueueAfter(key(name, r, o.namespace, o.name), delay);
    }
  }

  detach(name: string): void {
    const a = this.attached.get(name);
    if (!a) return;
    a.unsubscribe();
    this.attached.delete(name);
    if (this.log.enabled('debug')) this.log.debug('detached', { cluster: name });
  }

  attachedClusters(): string[] {
    return [...this.attached.keys()];
  }

  /** Passes done so far, over all clusters (tests use it to see that the simulation looked). */
  get passes(): number {
    return this.passCount;
  }

  async stop(): Promise<void> {
    if (this.scanTimer) clearInterval(this.scanTimer);
    this.scanTimer = undefined;
    for (const name of [...this.attached.keys()]) this.detach(name);
    await this.loop.stop();
  }

  private report(err: unknown): void {
    if (this.options.onError) this.options.onError(err);
    else if (this.log !== silentLogger) this.log.error('kubelet simulation failed', { error: err });
    else console.error('kubelet simulation:', err);
  }

  private scan(): void {
    const match = this.options.clusters;
    if (!match || this.server.clusterSetVersion === this.scannedClusterSet) return;
    this.scannedClusterSet = this.server.clusterSetVersion;
    const live = new Set(this.server.clusterNames());
    for (const name of live) if (match(name)) this.attach(name);
    for (const name of [...this.attached.keys()]) if (!live.has(name)) this.detach(name);
  }

  /** Which passes a committed change calls for: the object's own, its controller's, the pods a node change concerns. */
  private route(cluster: string, view: ClusterView, ev: StoreEvent): void {
    const gone = ev.type === 'DELETED';
    const enqueue = (r: Kind, ns: string, name: string, delay = 0) => this.loop.enqueueAfter(key(cluster, r, ns, name), delay);
    switch (ev.resource) {
      case 'apps/deployments':
        if (!gone) enqueue('deployments', ev.namespace, ev.name);
        return;
      case 'apps/replicasets': {
        // The replica set controller's pass is where pods start: it comes `readyDelayMs` after the change.
        if (!gone) enqueue('replicasets', ev.namespace, ev.name, this.options.readyDelayMs);
        const owner = controllerIn(ev.object.json);
        if (owner?.kind === 'Deployment') enqueue('deployments', ev.namespace, owner.name);
        return;
      }
      case '/pods': {
        const json = ev.object.json;
        const owner = controllerIn(json);
        if (owner?.kind === 'ReplicaSet') enqueue('replicasets', ev.namespace, owner.name, this.options.readyDelayMs);
        // A pending pod is scheduled at once, or started after the delay when it is bound.
        if (!gone && json.includes('"phase":"Pending"')) enqueue('pods', ev.namespace, ev.name, json.includes('"nodeName"') ? this.options.readyDelayMs : 0);
        return;
      }
      case '/nodes':
        for (const ds of view.cluster.store.list('apps/daemonsets')) enqueue('daemonsets', ds.namespace, ds.name, this.options.readyDelayMs);
        // Pods waiting for a node or on this one, or whose node went (pod GC), get another look.
        for (const p of view.cluster.store.list('/pods')) {
          const onNode = p.json.includes(`"nodeName":"${ev.name}"`);
          if (gone ? onNode : !p.json.includes('"nodeName"') || (onNode && p.json.includes('"phase":"Pending"'))) enqueue('pods', p.namespace, p.name);
        }
        return;
      case 'apps/statefulsets':
      case 'apps/daemonsets':
        if (!gone) enqueue(ev.resource === 'apps/statefulsets' ? 'statefulsets' : 'daemonsets', ev.namespace, ev.name, this.options.readyDelayMs);
        return;
      default:
    }
  }

  private async reconcile(k: string): Promise<WorkResult> {
    const [cluster, kind, namespace, name] = k.split('|') as [string, Kind, string, string];
    const a = this.attached.get(cluster);
    if (!a || !this.server.hasCluster(cluster)) return undefined;
    this.passCount++;
    try {
      const again = await this.pass(a.view, kind, namespace, name);
      this.failures.delete(k);
      if (this.log.enabled('debug')) this.log.debug('pass', { cluster, kind, object: namespace ? `${namespace}/${name}` : name, ...(again ? { againInMs: again } : {}) });
      return again;
    } catch (err) {
      if (isRaceLost(err)) return undefined;
      // A rejected write (a webhook's no, a namespace being deleted) is tried again, less and less often.
      const n = (this.failures.get(k) ?? 0) + 1;
      this.failures.set(k, n);
      const retryInMs = Math.min(MAX_BACKOFF_MS, 500 * 2 ** (n - 1));
      if (!(err instanceof StatusError)) this.report(err);
      else if (this.log.enabled('debug')) this.log.debug('write rejected; trying again', { cluster, kind, object: namespace ? `${namespace}/${name}` : name, failures: n, retryInMs, error: err });
      return retryInMs;
    }
  }

  private async pass(view: ClusterView, kind: Kind, namespace: string, name: string): Promise<WorkResult> {
    switch (kind) {
      case 'deployments':
        return syncDeployment(view, namespace, name);
      case 'replicasets':
        return syncReplicaSet(view, namespace, name);
      case 'pods':
        return syncPod(view, namespace, name);
      case 'statefulsets':
      case 'daemonsets':
        return this.syncStatusOnly(view, kind, namespace, name);
      case 'register':
        if (view.count('nodes') > 0) return undefined;
        for (const node of plainNodes(this.options.nodes)) await view.create('nodes', node, kubeletOf(node.metadata.name ?? ''));
        return undefined;
      default:
        return undefined;
    }
  }

  /** StatefulSets and DaemonSets: the status of every pod running, without the pods. */
  private async syncStatusOnly(view: ClusterView, kind: 'statefulsets' | 'daemonsets', namespace: string, name: string): Promise<void> {
    const obj = view.get(kind, namespace, name);
    if (!obj || obj.metadata.deletionTimestamp) return;
    const desired = readyStatus(kind, obj, view.count('nodes'));
    if (jsonEqual(obj.status ?? {}, desired)) return;
    // Through admission, as kube-controller-manager's writes are: the runtime watcher's webhook sees them.
    await view.update(kind, { ...obj, status: desired }, CONTROLLER_MANAGER, 'status');
  }
}

/** The kubelet loop's key of one object: logical cluster, kind, namespace, name. */
function key(cluster: string, kind: Kind, namespace: string, name: string): string {
  return `${cluster}|${kind}|${namespace}|${name}`;
}

/**
 * The controller reference in an object's stored JSON, without parsing the whole object (routing
 * looks at every pod and ReplicaSet change). Owner references hold no arrays, so the first `]` ends
 * the list.
 */
function controllerIn(json: string): OwnerReference | undefined {
  const at = json.indexOf('"ownerReferences":[');
  if (at < 0) return undefined;
  const start = at + '"ownerReferences":'.length;
  const refs = JSON.parse(json.slice(start, json.indexOf(']', start) + 1)) as OwnerReference[];
  return refs.find((r) => r.controller === true);
}

function storeKey(r: SimResource): string {
  return r === 'pods' || r === 'nodes' ? `/${r}` : `apps/${r}`;
}

/** The status the StatefulSet or DaemonSet controller writes once every pod is running and ready. */
export function readyStatus(kind: 'statefulsets' | 'daemonsets', obj: ObjectWithMeta, nodes: number): JsonObject {
  const generation = obj.metadata.generation ?? 1;
  if (kind === 'statefulsets') {
    const replicas = replicasOf(obj as { spec?: { replicas?: number } });
    const revision = `${obj.metadata.name ?? ''}-${podTemplateHash((obj.spec as JsonObject | undefined)?.template)}`;
    const s: JsonObject = {
      observedGeneration: generation,
      replicas,
      currentReplicas: replicas,
      updatedReplicas: replicas,
      availableReplicas: replicas,
      currentRevision: revision,
      updateRevision: revision,
      collisionCount: 0,
    };
    if (replicas > 0) s.readyReplicas = replicas;
    return s;
  }
  return {
    observedGeneration: generation,
    currentNumberScheduled: nodes,
    desiredNumberScheduled: nodes,
    numberMisscheduled: 0,
    numberReady: nodes,
    updatedNumberScheduled: nodes,
    numberAvailable: nodes,
  };
}
