// The kubelet and workload controllers of runtime clusters, simulated: Deployments, StatefulSets and
// DaemonSets of the attached logical clusters get the status their controllers would write once all
// pods run (replicas ready, observedGeneration, Deployment conditions), a short delay after every
// change. No Pods or ReplicaSets are created.
//
// Cost: one in-process commit listener per attached cluster (no sockets, no HTTP watches) and one
// shared, bounded work loop; a status write per workload change. Thousands of clusters are cheap.
import { createHash } from 'node:crypto';
import type { LogicalCluster, UserInfo } from '../apiserver/cluster.js';
import { StatusError } from '../apiserver/errors.js';
import { nowRfc3339 } from '../apiserver/objects.js';
import type { ResourceType } from '../apiserver/resources.js';
import type { RunningApiServer } from '../apiserver/server.js';
import { canonicalJson, type JsonObject, jsonEqual } from '../kube/json.js';
import type { ObjectWithMeta } from '../kube/object.js';
import { KeyedLoop } from './keyed-loop.js';

export interface KubeletOptions {
  /** Delay between a workload change and its ready status. */
  readyDelayMs: number;
  /** Nodes per cluster: what DaemonSets count as desired pods. */
  nodes: number;
  /** Attach to every cluster whose name matches (checked every `scanIntervalMs`); none by default. */
  clusters?: (name: string) => boolean;
  scanIntervalMs: number;
  /** Status writes at once, over all clusters. */
  concurrency: number;
  onError?: (err: unknown) => void;
}

export const defaultKubeletOptions: KubeletOptions = { readyDelayMs: 200, nodes: 1, scanIntervalMs: 500, concurrency: 8 };

const WORKLOADS = ['deployments', 'statefulsets', 'daemonsets'] as const;
type Workload = (typeof WORKLOADS)[number];
const KUBELET_FIELD_MANAGER = 'kube-controller-manager';
/** Who the status writes come from in admission reviews (kube-controller-manager's own identity). */
const KUBELET_USER: UserInfo = { username: 'system:kube-controller-manager', uid: 'kube-controller-manager', groups: ['system:authenticated'] };

interface Attached {
  cluster: LogicalCluster;
  types: Map<Workload, ResourceType>;
  unsubscribe: () => void;
}

export class KubeletSimulator {
  readonly options: KubeletOptions;
  private readonly attached = new Map<string, Attached>();
  private readonly loop: KeyedLoop;
  private scanTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly server: RunningApiServer,
    options: Partial<KubeletOptions> = {},
  ) {
    this.options = { ...defaultKubeletOptions, ...options };
    this.loop = new KeyedLoop((key) => this.reconcile(key), {
      concurrency: this.options.concurrency,
      onError: (_k, err) => (this.options.onError ?? ((e) => console.error('kubelet simulation:', e)))(err),
    });
  }

  /** Starts the periodic scan for matching clusters (when `clusters` is set). */
  start(signal?: AbortSignal): void {
    if (this.options.clusters) {
      this.scan();
      this.scanTimer = setInterval(() => this.scan(), this.options.scanIntervalMs);
      this.scanTimer.unref();
    }
    signal?.addEventListener('abort', () => {
      this.stop().catch((err: unknown) => (this.options.onError ?? ((e) => console.error('kubelet simulation:', e)))(err));
    }, { once: true });
  }

  /** Starts marking the cluster's workloads ready (idempotent). */
  attach(name: string): void {
    if (this.attached.has(name) || !this.server.hasCluster(name)) return;
    const cluster = this.server.cluster(name);
    const types = new Map<Workload, ResourceType>();
    for (const w of WORKLOADS) {
      const t = cluster.resolve('apps', 'v1', w);
      if (t) types.set(w, t);
    }
    const unsubscribe = cluster.store.onCommit((ev) => {
      const w = workloadOf(ev.resource);
      if (w && ev.type !== 'DELETED') this.loop.enqueueAfter(workloadKey(name, w, ev.namespace, ev.name), this.options.readyDelayMs);
    });
    this.attached.set(name, { cluster, types, unsubscribe });
    for (const w of WORKLOADS) {
      for (const o of cluster.store.list(`apps/${w}`)) this.loop.enqueueAfter(workloadKey(name, w, o.namespace, o.name), this.options.readyDelayMs);
    }
  }

  detach(name: string): void {
    const a = this.attached.get(name);
    if (!a) return;
    a.unsubscribe();
    this.attached.delete(name);
  }

  attachedClusters(): string[] {
    return [...this.attached.keys()];
  }

  async stop(): Promise<void> {
    if (this.scanTimer) clearInterval(this.scanTimer);
    this.scanTimer = undefined;
    for (const name of [...this.attached.keys()]) this.detach(name);
    await this.loop.stop();
  }

  private scan(): void {
    const match = this.options.clusters;
    if (!match) return;
    const live = new Set(this.server.clusterNames());
    for (const name of live) if (match(name)) this.attach(name);
    for (const name of [...this.attached.keys()]) if (!live.has(name)) this.detach(name);
  }

  private async reconcile(key: string): Promise<number | undefined> {
    const [clusterName, workload, namespace, name] = key.split('|') as [string, Workload, string, string];
    const a = this.attached.get(clusterName);
    if (!a || !this.server.hasCluster(clusterName)) return undefined;
    const t = a.types.get(workload);
    if (!t) return undefined;
    const obj = a.cluster.tryGet(t, namespace, name);
    if (!obj || obj.metadata.deletionTimestamp) return undefined;
    const desired = readyStatus(workload, obj, this.options.nodes);
    if (sameStatus(obj.status as JsonObject | undefined, desired)) return undefined;
    try {
      // Through admission, as kube-controller-manager's writes are: the runtime watcher's webhook sees them.
      await a.cluster.update(t, namespace, name, { ...obj, status: desired }, { subresource: 'status', fieldManager: KUBELET_FIELD_MANAGER, user: KUBELET_USER });
    } catch (err) {
      // Changed or gone meanwhile: the commit listener has queued it again, or there is nothing to do.
      if (err instanceof StatusError && (err.code === 409 || err.code === 404)) return undefined;
      throw err;
    }
    return undefined;
  }
}

/** The kubelet loop's key of one workload: logical cluster, workload resource, namespace, name. */
function workloadKey(cluster: string, w: Workload, namespace: string, name: string): string {
  return `${cluster}|${w}|${namespace}|${name}`;
}

function workloadOf(resourceKey: string): Workload | undefined {
  if (!resourceKey.startsWith('apps/')) return undefined;
  const r = resourceKey.slice(5);
  return (WORKLOADS as readonly string[]).includes(r) ? (r as Workload) : undefined;
}

/** A short, stable hash of the pod template (as the pod-template-hash / controller revision). */
function templateHash(obj: ObjectWithMeta): string {
  const spec = (obj.spec ?? {}) as JsonObject;
  return createHash('sha256').update(canonicalJson(spec.template ?? {})).digest('hex').slice(0, 10);
}

function replicasOf(obj: ObjectWithMeta): number {
  const r = ((obj.spec ?? {}) as JsonObject).replicas;
  return typeof r === 'number' ? r : 1;
}

/** The status the workload's controller writes once every pod is running and ready. */
export function readyStatus(workload: Workload, obj: ObjectWithMeta, nodes: number): JsonObject {
  const generation = obj.metadata.generation ?? 1;
  const previous = (obj.status ?? {}) as JsonObject;
  if (workload === 'deployments') {
    const replicas = replicasOf(obj);
    const counts: JsonObject = { observedGeneration: generation, replicas, updatedReplicas: replicas };
    if (replicas > 0) Object.assign(counts, { readyReplicas: replicas, availableReplicas: replicas });
    const rsName = `${obj.metadata.name ?? ''}-${templateHash(obj)}`;
    return {
      ...counts,
      conditions: [
        condition(previous, 'Available', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'),
        condition(previous, 'Progressing', 'NewReplicaSetAvailable', `ReplicaSet "${rsName}" has successfully progressed.`),
      ],
    };
  }
  if (workload === 'statefulsets') {
    const replicas = replicasOf(obj);
    const revision = `${obj.metadata.name ?? ''}-${templateHash(obj)}`;
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

/** A Deployment condition with status True; times carried over while reason and message stay. */
function condition(previous: JsonObject, type: string, reason: string, message: string): JsonObject {
  const list = Array.isArray(previous.conditions) ? (previous.conditions as JsonObject[]) : [];
  const old = list.find((c) => c.type === type);
  const now = nowRfc3339();
  if (old && old.status === 'True' && old.reason === reason && old.message === message) return old;
  return { type, status: 'True', lastUpdateTime: now, lastTransitionTime: old?.status === 'True' ? (old.lastTransitionTime ?? now) : now, reason, message };
}

function sameStatus(current: JsonObject | undefined, desired: JsonObject): boolean {
  return jsonEqual(current ?? {}, desired);
}
