// Purge: a Kyma deleting for longer than a grace period (default 5 minutes) is stuck on resources
// in its runtime whose finalizers nobody removes (a module operator that is gone, a user's
// finalizer). The purge strips the finalizers of what the control plane put into the runtime:
// the objects in its Manifests' `status.synced` inventories, their default custom resources, and
// every custom resource of the module CRDs among them. What was purged is logged and evented.
import { Kyma, Labels, Manifest, type KymaObject, type ManifestObject } from '../../api/operator/index.js';
import type { Client } from '../../runtime/client/interface.js';
import { isNotFound } from '../../runtime/client/errors.js';
import { findObject } from '../../runtime/client/find.js';
import { namespacedName } from '../../kube/keys.js';
import { type Controller, newControllerManagedBy } from '../../runtime/controller.js';
import type { Manager } from '../../runtime/manager.js';
import type { Counter, Gauge, Labels as MetricLabels, Registry } from '../../runtime/metrics.js';
import type { KindRef, KubeObject } from '../../kube/object.js';
import { accessErrorOf, type RuntimeAccess } from '../remote/access.js';
import { CRD_KIND } from '../remote/crds.js';

export const PURGE_CONTROLLER_NAME = 'purge';
export const DEFAULT_PURGE_GRACE_MS = 5 * 60_000;

export interface PurgeOptions {
  namespace: string;
  access: RuntimeAccess;
  graceMs?: number;
  /** How often a still-deleting Kyma is purged again after the first purge (default 10 s). */
  repeatMs?: number;
}

interface Ref {
  kind: KindRef;
  namespace?: string;
  name: string;
}

function kindRef(group: string, version: string, kind: string): KindRef {
  return { apiVersion: group ? `${group}/${version}` : version, kind };
}

function refsOf(manifest: ManifestObject): Ref[] {
  const refs: Ref[] = (manifest.status?.synced ?? []).map((r) => ({ kind: kindRef(r.group, r.version, r.kind), namespace: r.namespace || undefined, name: r.name }));
  const cr = manifest.spec.resource as { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string } } | undefined;
  if (cr?.apiVersion && cr.kind && cr.metadata?.name) refs.push({ kind: { apiVersion: cr.apiVersion, kind: cr.kind }, namespace: cr.metadata.namespace, name: cr.metadata.name });
  return refs;
}

/** Removes an object's finalizers; true when it had any. */
async function stripFinalizers(remote: Client, obj: KubeObject, signal: AbortSignal): Promise<boolean> {
  if ((obj.metadata.finalizers ?? []).length === 0) return false;
  try {
    await remote.patch({ apiVersion: obj.apiVersion, kind: obj.kind }, { namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' }, 'merge', { metadata: { finalizers: null } }, { signal });
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}

/** Custom resources of a CRD, in every namespace. */
async function customResourcesOf(remote: Client, crd: KubeObject, signal: AbortSignal): Promise<KubeObject[]> {
  const spec = crd.spec as { group?: string; names?: { kind?: string }; versions?: { name: string; storage?: boolean; served?: boolean }[] } | undefined;
  const version = spec?.versions?.find((v) => v.storage)?.name ?? spec?.versions?.[0]?.name;
  if (!spec?.group || !spec.names?.kind || !version) return [];
  try {
    return (await remote.list(kindRef(spec.group, version, spec.names.kind), { signal })).items;
  } catch (e) {
    if (isNotFound(e)) return [];
    throw e;
  }
}

/** Strips finalizers in a runtime from everything its Manifests installed; returns `kind/ns/name` of what was purged. */
export async function purgeRuntime(remote: Client, manifests: ManifestObject[], signal: AbortSignal): Promise<string[]> {
  const purged: string[] = [];
  const seen = new Set<string>();
  const visit = async (obj: KubeObject): Promise<void> => {
    const id = `${obj.kind}/${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
    if (seen.has(id)) return;
    seen.add(id);
    if (await stripFinalizers(remote, obj, signal)) purged.push(id);
  };
  for (const m of manifests) {
    for (const ref of refsOf(m)) {
      let obj: KubeObject;
      try {
        obj = await remote.get(ref.kind, { namespace: ref.namespace, name: ref.name }, { signal });
      } catch (e) {
        if (isNotFound(e)) continue;
        throw e;
      }
      if (ref.kind.kind === CRD_KIND.kind && ref.kind.apiVersion.startsWith('apiextensions.k8s.io/')) {
        for (const cr of await customResourcesOf(remote, obj, signal)) await visit(cr);
      }
      await visit(obj);
    }
  }
  return purged;
}

/**
 * Upstream's purge metrics (internal/pkg/metrics/purge.go): the duration of the last purge in
 * seconds, the number of purges, and 1 per Kyma whose purge failed (`err_reason` CleanupError),
 * dropped when the Kyma is gone.
 */
class PurgeMetrics {
  private readonly time: Gauge;
  private readonly requests: Counter;
  private readonly errors: Gauge;
  private readonly failed = new Map<string, MetricLabels>();

  constructor(registry: Registry) {
    this.time = registry.gauge({ name: 'lifecycle_mgr_purgectrl_time', help: 'The duration of the last purge in seconds.' });
    this.requests = registry.counter({ name: 'lifecycle_mgr_purgectrl_requests_total', help: 'The number of purges (passes that removed runtime finalizers of a Kyma deleting longer than the grace period).' });
    this.errors = registry.gauge({ name: 'lifecycle_mgr_purgectrl_error', help: 'Purges that failed, per Kyma and reason.', labelNames: ['kyma_name', 'shoot', 'instance_id', 'err_reason'] });
    // The counter is shown from the start, as a Prometheus client shows an unlabelled counter.
    this.requests.inc(undefined, 0);
  }

  purged(seconds: number): void {
    this.requests.inc();
    this.time.set(undefined, seconds);
  }

  failedCleanup(kyma: KymaObject): void {
    const labels = { kyma_name: kyma.metadata.name ?? '', shoot: kyma.metadata.labels?.[Labels.ShootName] ?? '', instance_id: kyma.metadata.labels?.[Labels.InstanceID] ?? '', err_reason: 'CleanupError' };
    this.failed.set(labels.kyma_name, labels);
    this.errors.set(labels, 1);
  }

  forget(kymaName: string): void {
    const labels = this.failed.get(kymaName);
    if (labels) this.errors.remove(labels);
    this.failed.delete(kymaName);
  }
}

export function setupPurgeController(manager: Manager, opts: PurgeOptions): Controller {
  const kcp = manager.client;
  const log = manager.logger.child('purge');
  const graceMs = opts.graceMs ?? DEFAULT_PURGE_GRACE_MS;
  const metrics = new PurgeMetrics(manager.registry);

  const kymas = manager.cache<KymaObject>(Kyma, { namespace: opts.namespace });

  async function reconcile(req: { namespace?: string; name: string }, signal: AbortSignal): Promise<{ requeueAfterMs?: number } | void> {
    // From the cache (read-only): this controller writes no Kyma, and the deletion timestamp it
    // waits for brings a pass when the cache receives it.
    const kyma = kymas.get(namespacedName({ namespace: req.namespace ?? opts.namespace, name: req.name }));
    if (!kyma) {
      metrics.forget(req.name);
      return;
    }
    if (!kyma.metadata.deletionTimestamp) return;
    const elapsed = Date.now() - Date.parse(kyma.metadata.deletionTimestamp);
    if (elapsed < graceMs) return { requeueAfterMs: Math.max(1, graceMs - elapsed) };
    // About to purge: the API server confirms it is this Kyma, still being deleted (its deletion may
    // have just finished, and another of that name may have been created since).
    const fresh = await findObject<KymaObject>(kcp, Kyma, req, { signal });
    if (!fresh || fresh.metadata.uid !== kyma.metadata.uid || !fresh.metadata.deletionTimestamp) {
      if (!fresh) metrics.forget(req.name);
      return;
    }
    const started = performance.now();
    const manifests = (await kcp.list<ManifestObject>(Manifest, { namespace: kyma.metadata.namespace, labelSelector: `${Labels.KymaName}=${req.name}`, signal })).items;
    let purged: string[];
    try {
      purged = await purgeRuntime(opts.access.client(req.name), manifests, signal);
    } catch (e) {
      const accessError = accessErrorOf(req.name, e);
      if (!signal.aborted) metrics.failedCleanup(kyma);
      if (!accessError) throw e;
      // The Kyma controller skips the cleanup of unreachable runtimes; nothing to purge here.
      log.warn('runtime unreachable; nothing purged', { kyma: req.name, reason: accessError.reason });
      return { requeueAfterMs: opts.repeatMs ?? 10_000 };
    }
    metrics.purged((performance.now() - started) / 1000);
    metrics.forget(req.name);
    if (purged.length > 0) {
      log.warn('purged finalizers in the runtime', { kyma: req.name, count: purged.length, objects: purged });
      manager.events.event(kyma as KubeObject, 'Warning', 'Purged', `removed finalizers of ${purged.length} runtime object(s) after ${Math.round(elapsed / 1000)} s of deletion: ${purged.slice(0, 20).join(', ')}${purged.length > 20 ? ', ...' : ''}`, 'Purge');
    }
    return { requeueAfterMs: opts.repeatMs ?? 10_000 };
  }

  return newControllerManagedBy(manager)
    .named(PURGE_CONTROLLER_NAME)
    .for(Kyma, { namespace: opts.namespace, predicates: [{ update: (o, n) => !o.metadata.deletionTimestamp && !!n.metadata.deletionTimestamp, delete: () => false }] })
    .complete(reconcile);
}
