// The work kube-controller-manager does that control planes rely on: garbage collection by
// ownerReferences (background, foreground, orphan), namespace deletion, and each namespace's
// `default` ServiceAccount and `kube-root-ca.crt` (namespace-defaults.ts). Runs in-process per
// logical cluster, reacting to committed changes on the next tick.
import { aggregateClusterRoles, CLUSTER_ROLE } from './auth/aggregation.js';
import type { LogicalCluster } from './cluster.js';
import { StatusError } from './errors.js';
import { NamespaceDefaults, type NamespaceDefaultsOptions } from './namespace-defaults.js';
import { nowRfc3339 } from './objects.js';
import { BUILTIN_TYPES, type ResourceType } from './resources.js';
import { deepClone, jsonEqual, type JsonObject } from '../kube/json.js';
import type { ObjectWithMeta, OwnerReference } from '../kube/object.js';
import { sleep } from '../util/sleep.js';

const NAMESPACE = BUILTIN_TYPES.find((t) => t.kind === 'Namespace')!;
const GC_MANAGER = 'kube-controller-manager';
const CRD_CLEANUP = 'customresourcecleanup.apiextensions.k8s.io';

type Job = () => Promise<void>;

export class ClusterControllers {
  private readonly queue: Job[] = [];
  private running = false;
  private readonly pendingNamespaces = new Set<string>();
  private stopped = false;
  private readonly defaults: NamespaceDefaults | undefined;
  /** A ClusterRole aggregation pass is queued (one pass covers every change before it runs). */
  private aggregationQueued = false;

  constructor(
    private readonly cluster: LogicalCluster,
    opts: { namespaceDefaults?: NamespaceDefaultsOptions } = {},
  ) {
    cluster.afterCommit = (t, obj, old) => this.observe(t, obj, old);
    if (opts.namespaceDefaults) this.defaults = new NamespaceDefaults(cluster, opts.namespaceDefaults);
  }

  /** Looks at every namespace's defaults once (after a restore from disk, as upstream's informers list at start). */
  resyncNamespaceDefaults(): void {
    const defaults = this.defaults;
    if (!defaults) return;
    for (const ns of defaults.namespaces()) this.enqueue(() => defaults.sync(ns));
  }

  stop(): void {
    this.stopped = true;
    this.cluster.afterCommit = undefined;
  }

  /** Resolves once every queued job (and what they queued) ran: for tests and orderly shutdown. */
  async idle(): Promise<void> {
    while (this.running || this.queue.length > 0) await sleep(5);
  }

  private enqueue(job: Job): void {
    if (this.stopped) return;
    this.queue.push(job);
    if (!this.running) {
      this.running = true;
      // drain() catches each job's error; this only reports a failure of the loop itself.
      setImmediate(() => {
        this.drain().catch((err: unknown) => console.error('controller queue failed:', err));
      });
    }
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 && !this.stopped) {
      const job = this.queue.shift()!;
      try {
        await job();
      } catch (err) {
        // Conflicts and races resolve on the next change; anything else is a bug worth seeing.
        if (!(err instanceof StatusError)) console.error('controller job failed:', err);
      }
    }
    this.running = false;
  }

  /** Queues one ClusterRole aggregation pass (after a ClusterRole changed, and after a restore). */
  aggregateClusterRoles(): void {
    if (this.aggregationQueued) return;
    this.aggregationQueued = true;
    this.enqueue(() => {
      this.aggregationQueued = false;
      return aggregateClusterRoles(this.cluster);
    });
  }

  private observe(t: ResourceType, obj: ObjectWithMeta | undefined, old: ObjectWithMeta | undefined): void {
    if (t.group === CLUSTER_ROLE.group && t.kind === CLUSTER_ROLE.kind) this.aggregateClusterRoles();
    const defaultsOf = this.defaults?.affected(t, obj, old);
    if (defaultsOf) this.enqueue(() => this.defaults!.sync(defaultsOf));
    if (t.kind === 'Namespace' && t.group === '') {
      const ns = obj ?? old;
      if (obj?.metadata.deletionTimestamp) this.scheduleNamespace(obj.metadata.name ?? '');
      else if (!obj && ns) this.pendingNamespaces.delete(ns.metadata.name ?? '');
    }
    const current = obj ?? old;
    if (!current) return;
    const ns = current.metadata.namespace;
    if (ns && this.pendingNamespaces.has(ns)) this.scheduleNamespace(ns);
    if (!obj && old) {
      // Gone for good: dependents lose this owner.
      const uid = old.metadata.uid ?? '';
      this.enqueue(() => this.collectDependents(uid, old.metadata.namespace));
    } else if (obj?.metadata.deletionTimestamp) {
      const fins = obj.metadata.finalizers ?? [];
      if (fins.includes('foregroundDeletion')) this.enqueue(() => this.foreground(t, obj));
      if (fins.includes('orphan')) this.enqueue(() => this.orphan(t, obj));
    }
    // An object's owners are checked when it names them (created, or its references changed); an
    // owner that goes later is handled by collectDependents above, and after a restore by
    // collectOrphans.
    const refs = obj?.metadata.ownerReferences ?? [];
    if (obj && refs.length > 0 && !(old && jsonEqual(old.metadata.ownerReferences ?? [], refs))) this.enqueue(() => this.checkOwners(t, obj));
    if (obj?.metadata.deletionTimestamp && t.kind === 'CustomResourceDefinition' && (obj.metadata.finalizers ?? []).includes(CRD_CLEANUP)) {
      this.enqueue(() => this.cleanupCrd(t, obj));
    }
    // A custom resource of a deleting CRD went away: the CRD may be free now.
    const crdName = t.crd?.name;
    if (!obj && crdName) {
      const crdType = BUILTIN_TYPES.find((x) => x.kind === 'CustomResourceDefinition')!;
      const crd = this.cluster.tryGet(crdType, '', crdName);
      if (crd?.metadata.deletionTimestamp) this.enqueue(() => this.cleanupCrd(crdType, crd));
    }
    // A dependent of a foreground deletion went away or changed: its owner may now be free.
    for (const ref of current.metadata.ownerReferences ?? []) {
      if (!obj || obj.metadata.deletionTimestamp) this.enqueue(() => this.releaseForegroundOwner(ref, current.metadata.namespace));
    }
  }

  // ---- garbage collection ------------------------------------------------------------------

  private ownerExists(ref: OwnerReference, namespace: string | undefined): ObjectWithMeta | undefined {
    const t = this.cluster.typeForKind(ref.apiVersion, ref.kind);
    if (!t) return undefined;
    const o = this.cluster.tryGet(t, t.namespaced ? (namespace ?? '') : '', ref.name);
    return o && o.metadata.uid === ref.uid ? o : undefined;
  }

  /** Every stored object whose JSON has `needle` (of a served type; in `namespace` for namespaced types when given), decoded. */
  private *storedWith(needle: string, namespace?: string): Generator<{ t: ResourceType; obj: ObjectWithMeta }> {
    for (const key of this.cluster.store.resources()) {
      const [group, resource] = key.split('/');
      const t = this.cluster.typesOfResource(group, resource)[0];
      if (!t) continue;
      for (const o of this.cluster.store.list(key, t.namespaced && namespace ? namespace : undefined)) {
        if (o.json.includes(needle)) yield { t, obj: JSON.parse(o.json) as ObjectWithMeta };
      }
    }
  }

  /** Every stored object that names `uid` as an owner. */
  private dependentsOf(uid: string, namespace: string | undefined): { t: ResourceType; obj: ObjectWithMeta }[] {
    return [...this.storedWith(`"uid":"${uid}"`, namespace)].filter(({ obj }) => (obj.metadata.ownerReferences ?? []).some((r) => r.uid === uid));
  }

  private async collectDependents(uid: string, namespace: string | undefined): Promise<void> {
    for (const { t, obj } of this.dependentsOf(uid, namespace)) await this.collectIfOrphaned(t, obj);
  }

  /** Deletes a dependent whose owners are all gone; drops references to gone owners otherwise. */
  private async collectIfOrphaned(t: ResourceType, obj: ObjectWithMeta): Promise<void> {
    const refs = obj.metadata.ownerReferences ?? [];
    // A reference to a kind this cluster does not serve cannot be resolved: kube's collector leaves it be.
    const alive = refs.filter((r) => !this.cluster.typeForKind(r.apiVersion, r.kind) || this.ownerExists(r, obj.metadata.namespace));
    if (alive.length === refs.length) return;
    const ns = obj.metadata.namespace ?? '';
    if (alive.length === 0) {
      if (obj.metadata.deletionTimestamp) return;
      await this.cluster.delete(t, ns, obj.metadata.name ?? '', { propagationPolicy: 'Background', preconditions: { uid: obj.metadata.uid } }, { internal: true });
      return;
    }
    const next = deepClone(obj);
    next.metadata.ownerReferences = alive;
    try {
      await this.cluster.update(t, ns, obj.metadata.name ?? '', next, { internal: true, fieldManager: GC_MANAGER });
    } catch (e) {
      // Written meanwhile (that write's own check may have run before the owner went): look again.
      if (e instanceof StatusError && e.reason === 'Conflict') this.enqueue(() => this.checkOwners(t, obj));
      else throw e;
    }
  }

  /**
   * Checks the owners of every stored object that names some, once (after a restore from disk, as
   * kube-controller-manager's garbage collector builds its graph at start): an owner deleted just
   * before a stop or crash leaves dependents whose collection was still queued, and nothing else
   * looks at them again unless their ownerReferences change.
   */
  collectOrphans(): void {
    this.enqueue(async () => {
      for (const { t, obj } of this.storedWith('"ownerReferences"')) {
        if ((obj.metadata.ownerReferences ?? []).some((r) => this.cluster.typeForKind(r.apiVersion, r.kind) && !this.ownerExists(r, obj.metadata.namespace))) this.enqueue(() => this.checkOwners(t, obj));
      }
    });
  }

  private async checkOwners(t: ResourceType, obj: ObjectWithMeta): Promise<void> {
    const fresh = this.cluster.tryGet(t, obj.metadata.namespace ?? '', obj.metadata.name ?? '');
    if (fresh && fresh.metadata.uid === obj.metadata.uid) await this.collectIfOrphaned(t, fresh);
  }

  /** Foreground: delete the dependents; once none that blocks is left, drop the finalizer. */
  private async foreground(t: ResourceType, owner: ObjectWithMeta): Promise<void> {
    const uid = owner.metadata.uid ?? '';
    const deps = this.dependentsOf(uid, owner.metadata.namespace);
    for (const { t: dt, obj } of deps) {
      if (obj.metadata.deletionTimestamp) continue;
      await this.cluster.delete(dt, obj.metadata.namespace ?? '', obj.metadata.name ?? '', { propagationPolicy: 'Background', preconditions: { uid: obj.metadata.uid } }, { internal: true });
    }
    await this.finishForeground(t, owner);
  }

  private async finishForeground(t: ResourceType, owner: ObjectWithMeta): Promise<void> {
    const uid = owner.metadata.uid ?? '';
    const blocking = this.dependentsOf(uid, owner.metadata.namespace).filter(({ obj }) =>
      (obj.metadata.ownerReferences ?? []).some((r) => r.uid === uid && r.blockOwnerDeletion === true),
    );
    if (blocking.length > 0) return;
    const fresh = this.cluster.tryGet(t, owner.metadata.namespace ?? '', owner.metadata.name ?? '');
    if (!fresh || fresh.metadata.uid !== uid) return;
    await this.removeFinalizer(t, fresh, 'foregroundDeletion');
  }

  private async releaseForegroundOwner(ref: OwnerReference, namespace: string | undefined): Promise<void> {
    const owner = this.ownerExists(ref, namespace);
    if (!owner || !(owner.metadata.finalizers ?? []).includes('foregroundDeletion')) return;
    const t = this.cluster.typeForKind(ref.apiVersion, ref.kind);
    if (t) await this.finishForeground(t, owner);
  }

  private async orphan(t: ResourceType, owner: ObjectWithMeta): Promise<void> {
    const uid = owner.metadata.uid ?? '';
    for (const { t: dt, obj } of this.dependentsOf(uid, owner.metadata.namespace)) {
      const next = deepClone(obj);
      next.metadata.ownerReferences = (obj.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
      if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
      await this.cluster.update(dt, obj.metadata.namespace ?? '', obj.metadata.name ?? '', next, { internal: true, fieldManager: GC_MANAGER });
    }
    const fresh = this.cluster.tryGet(t, owner.metadata.namespace ?? '', owner.metadata.name ?? '');
    if (fresh && fresh.metadata.uid === uid) await this.removeFinalizer(t, fresh, 'orphan');
  }

  private async removeFinalizer(t: ResourceType, obj: ObjectWithMeta, finalizer: string): Promise<void> {
    const fins = obj.metadata.finalizers ?? [];
    if (!fins.includes(finalizer)) return;
    const next = deepClone(obj);
    next.metadata.finalizers = fins.filter((f) => f !== finalizer);
    if (next.metadata.finalizers.length === 0) delete next.metadata.finalizers;
    await this.cluster.update(t, obj.metadata.namespace ?? '', obj.metadata.name ?? '', next, { internal: true, fieldManager: GC_MANAGER });
  }

  // ---- CRD cleanup -------------------------------------------------------------------------

  /** Deletes every custom resource of a deleting CRD; when none is left, the CRD goes. */
  private async cleanupCrd(crdType: ResourceType, crd: ObjectWithMeta): Promise<void> {
    const spec = crd.spec as { group?: string; names?: { plural?: string } } | undefined;
    const key = `${spec?.group ?? ''}/${spec?.names?.plural ?? ''}`;
    const t = this.cluster.typesOfResource(spec?.group ?? '', spec?.names?.plural ?? '')[0];
    let left = 0;
    for (const o of this.cluster.store.list(key)) {
      left++;
      if (!t || o.json.includes('"deletionTimestamp"')) continue;
      await this.cluster.delete(t, o.namespace, o.name, { propagationPolicy: 'Background' }, { internal: true }).catch(() => undefined);
    }
    if (left > 0 && this.cluster.store.list(key).length > 0) return;
    const fresh = this.cluster.tryGet(crdType, '', crd.metadata.name ?? '');
    if (fresh && fresh.metadata.uid === crd.metadata.uid) await this.removeFinalizer(crdType, fresh, CRD_CLEANUP);
  }

  // ---- namespace deletion ------------------------------------------------------------------

  private scheduleNamespace(name: string): void {
    if (this.pendingNamespaces.has(name) && this.queue.length > 0) {
      this.enqueue(() => this.syncNamespace(name));
      return;
    }
    this.pendingNamespaces.add(name);
    this.enqueue(() => this.syncNamespace(name));
  }

  private async syncNamespace(name: string): Promise<void> {
    const ns = this.cluster.tryGet(NAMESPACE, '', name);
    if (!ns || !ns.metadata.deletionTimestamp) {
      this.pendingNamespaces.delete(name);
      return;
    }
    const remaining = new Map<string, number>();
    const finalizers = new Map<string, number>();
    for (const key of this.cluster.store.resources()) {
      const [group, resource] = key.split('/');
      const t = this.cluster.typesOfResource(group, resource)[0];
      if (!t || !t.namespaced) continue;
      for (const o of this.cluster.store.list(key, name)) {
        let obj = JSON.parse(o.json) as ObjectWithMeta;
        if (!obj.metadata.deletionTimestamp) {
          const r = await this.cluster.delete(t, name, o.name, { propagationPolicy: 'Background' }, { internal: true }).catch(() => undefined);
          if (!r || !r.exists) continue;
          obj = r.object;
        }
        const label = t.group ? `${t.resource}.${t.group}` : t.resource;
        remaining.set(label, (remaining.get(label) ?? 0) + 1);
        for (const f of obj.metadata.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
      }
    }
    if (remaining.size === 0) {
      this.pendingNamespaces.delete(name);
      this.cluster.finalizeNamespace(name);
      return;
    }
    this.cluster.setNamespaceStatus(name, namespaceStatus(ns, remaining, finalizers));
  }
}

function condition(prev: JsonObject[], type: string, status: string, reason: string, message: string): JsonObject {
  const old = prev.find((c) => c.type === type);
  const lastTransitionTime = old && old.status === status ? (old.lastTransitionTime as string) : nowRfc3339();
  return { type, status, lastTransitionTime, reason, message };
}

function namespaceStatus(ns: ObjectWithMeta, remaining: Map<string, number>, finalizers: Map<string, number>): JsonObject {
  const prev = (((ns.status as JsonObject | undefined)?.conditions as JsonObject[] | undefined) ?? []);
  const sortedRemaining = [...remaining.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  const sortedFinalizers = [...finalizers.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  const conditions: JsonObject[] = [
    condition(prev, 'NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'),
    condition(prev, 'NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'),
    condition(prev, 'NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'),
    condition(prev, 'NamespaceContentRemaining', 'True', 'SomeResourcesRemain', `Some resources are remaining: ${sortedRemaining.map(([r, n]) => `${r} has ${n} resource instances`).join(', ')}`),
  ];
  if (sortedFinalizers.length > 0) {
    conditions.push(condition(prev, 'NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain', `Some content in the namespace has finalizers remaining: ${sortedFinalizers.map(([f, n]) => `${f} in ${n} resource instances`).join(', ')}`));
  } else {
    conditions.push(condition(prev, 'NamespaceFinalizersRemaining', 'False', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'));
  }
  return { phase: 'Terminating', conditions };
}
