// One runtime cluster as the simulated controllers and kubelets see it: reads straight from the
// logical cluster's store (no cache that could lag) and writes through the cluster's API entry points
// with admission, as the components they stand for would write through kube-apiserver.
import type { DeleteOptions, LogicalCluster, UserInfo } from '../../apiserver/cluster.js';
import { StatusError } from '../../apiserver/errors.js';
import type { ResourceType } from '../../apiserver/resources.js';
import type { ObjectWithMeta, OwnerReference } from '../../kube/object.js';
import { type Logger, silentLogger } from '../../runtime/log.js';

/** The kinds the simulation reads and writes, by resource. */
export const SIM_RESOURCES = {
  deployments: ['apps', 'deployments'],
  replicasets: ['apps', 'replicasets'],
  statefulsets: ['apps', 'statefulsets'],
  daemonsets: ['apps', 'daemonsets'],
  pods: ['', 'pods'],
  nodes: ['', 'nodes'],
} as const;
export type SimResource = keyof typeof SIM_RESOURCES;

/** Who writes: the field manager and the user admission webhooks see. */
export interface Writer {
  fieldManager: string;
  user: UserInfo;
}

/** kube-controller-manager (deployment, replica set, pod GC controllers). */
export const CONTROLLER_MANAGER: Writer = {
  fieldManager: 'kube-controller-manager',
  user: { username: 'system:kube-controller-manager', uid: 'kube-controller-manager', groups: ['system:authenticated'] },
};

/** A node's kubelet (pod status, node registration). */
export function kubeletOf(node: string): Writer {
  return { fieldManager: 'kubelet', user: { username: `system:node:${node}`, uid: `kubelet-${node}`, groups: ['system:nodes', 'system:authenticated'] } };
}

/** kube-scheduler (pod binding). */
export const SCHEDULER: Writer = {
  fieldManager: 'kube-scheduler',
  user: { username: 'system:kube-scheduler', uid: 'kube-scheduler', groups: ['system:authenticated'] },
};

/** A write that lost a race or whose object went meanwhile: the commit that caused it queues the key again. */
export function isRaceLost(err: unknown): boolean {
  return err instanceof StatusError && (err.code === 404 || err.code === 409);
}

export class ClusterView {
  private readonly types = new Map<SimResource, ResourceType | undefined>();

  /** `log` carries the cluster's name: what the simulated controllers and kubelets decide. */
  constructor(
    readonly cluster: LogicalCluster,
    readonly log: Logger = silentLogger,
  ) {}

  type(r: SimResource): ResourceType | undefined {
    if (!this.types.has(r)) {
      const [group, resource] = SIM_RESOURCES[r];
      this.types.set(r, this.cluster.resolve(group, 'v1', resource));
    }
    return this.types.get(r);
  }

  get<T extends ObjectWithMeta = ObjectWithMeta>(r: SimResource, namespace: string, name: string): T | undefined {
    const t = this.type(r);
    return t ? (this.cluster.tryGet(t, namespace, name) as T | undefined) : undefined;
  }

  /**
   * Objects of a resource (in a namespace, or all), parsed. `mention` skips, before parsing, the
   * objects whose text does not contain it (a uid or a node name): lists stay cheap in big namespaces.
   */
  list<T extends ObjectWithMeta = ObjectWithMeta>(r: SimResource, namespace?: string, mention?: string): T[] {
    const [group, resource] = SIM_RESOURCES[r];
    const out: T[] = [];
    for (const o of this.cluster.store.list(`${group}/${resource}`, namespace)) {
      if (mention === undefined || o.json.includes(mention)) out.push(JSON.parse(o.json) as T);
    }
    return out;
  }

  count(r: SimResource): number {
    const [group, resource] = SIM_RESOURCES[r];
    return this.cluster.store.list(`${group}/${resource}`).length;
  }

  /** Objects of `r` in the owner's namespace whose controller reference names the owner. */
  controlledBy<T extends ObjectWithMeta = ObjectWithMeta>(r: SimResource, owner: ObjectWithMeta): T[] {
    const uid = owner.metadata.uid ?? '';
    return this.list<T>(r, owner.metadata.namespace ?? '', uid).filter((o) => controllerOf(o)?.uid === uid);
  }

  async create(r: SimResource, obj: ObjectWithMeta, as: Writer): Promise<ObjectWithMeta> {
    const res = await this.cluster.create(this.must(r), obj.metadata.namespace ?? '', obj, { fieldManager: as.fieldManager, user: as.user });
    return res.object;
  }

  /** PUT of the main resource or of `/status`; the object's resourceVersion guards against lost updates. */
  async update(r: SimResource, obj: ObjectWithMeta, as: Writer, subresource?: 'status'): Promise<ObjectWithMeta> {
    const res = await this.cluster.update(this.must(r), obj.metadata.namespace ?? '', obj.metadata.name ?? '', obj, {
      fieldManager: as.fieldManager,
      user: as.user,
      ...(subresource ? { subresource } : {}),
    });
    return res.object;
  }

  /** DELETE with the object's uid as precondition (the object seen is the one deleted). */
  async delete(r: SimResource, obj: ObjectWithMeta, as: Writer, options: DeleteOptions = {}): Promise<void> {
    await this.cluster.delete(this.must(r), obj.metadata.namespace ?? '', obj.metadata.name ?? '', { ...options, preconditions: { uid: obj.metadata.uid } }, { fieldManager: as.fieldManager, user: as.user });
  }

  private must(r: SimResource): ResourceType {
    const t = this.type(r);
    if (!t) throw new Error(`the cluster ${this.cluster.name} does not serve ${r}`);
    return t;
  }
}

/** The owner reference marked as controller, if any. */
export function controllerOf(obj: ObjectWithMeta): OwnerReference | undefined {
  return (obj.metadata.ownerReferences ?? []).find((r) => r.controller === true);
}

/** metav1.NewControllerRef: how a controller marks what it created. */
export function controllerRef(owner: ObjectWithMeta, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}
