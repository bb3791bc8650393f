// One runtime id, one Runtime. The runtime id (label `kyma-project.io/runtime-id`) names the
// GardenerCluster, the kubeconfig Secret `kubeconfig-<runtime id>` and the Kyma of a runtime, so two
// Runtimes carrying the same id in one namespace would share (and, deleting one, remove) the
// other's kubeconfig. The admission webhook refuses the second one (src/controlplane/runtime-admission.ts);
// since a webhook can be down or bypassed, the controller applies the same rule on its own: of the
// Runtimes sharing an id, the one whose Shoot the id's GardenerCluster names holds it (it was
// provisioned with that id: an older Runtime relabelled onto the id must not take it over); when no
// GardenerCluster says so, the one created first (creationTimestamp, then name). The others are
// blocked (never provisioned, deletion touches nothing shared).
import { GardenerCluster, type GardenerClusterObject, LabelKymaRuntimeID, type RuntimeObject } from '../../api/infrastructuremanager/index.js';
import type { Store } from '../../runtime/cache/store.js';
import { findObject } from '../../runtime/client/index.js';
import type { Machine } from './machine.js';

/** The runtime id of a Runtime (its label), or undefined when it has none. */
export function runtimeIdOf(runtime: RuntimeObject): string | undefined {
  return runtime.metadata.labels?.[LabelKymaRuntimeID] || undefined;
}

/** Whether `a` holds a runtime id before `b`: created earlier, or in the same second with a name that sorts first. */
function holdsBefore(a: RuntimeObject, b: RuntimeObject): boolean {
  const ta = Date.parse(a.metadata.creationTimestamp ?? '');
  const tb = Date.parse(b.metadata.creationTimestamp ?? '');
  if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return ta < tb;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '');
}

/**
 * The Runtime that holds `runtime`'s id instead of it, or undefined when `runtime` is the holder (or
 * has no id). `peers` are the Runtimes with that id in the same namespace (from the cache index); a
 * Runtime being deleted still holds its id until it is gone. `claimedShoot` is the Shoot the id's
 * GardenerCluster names, when there is one: the Runtime with that Shoot holds the id.
 */
export function otherHolder(runtime: RuntimeObject, peers: readonly RuntimeObject[], claimedShoot?: string): RuntimeObject | undefined {
  const id = runtimeIdOf(runtime);
  if (!id) return undefined;
  const others = peers.filter(
    (p) => !(p.metadata.uid !== undefined && p.metadata.uid === runtime.metadata.uid) && p.metadata.name !== runtime.metadata.name && p.metadata.namespace === runtime.metadata.namespace && runtimeIdOf(p) === id,
  );
  // The Runtimes the GardenerCluster could have been made for (more than one only if they name the
  // same Shoot); none left: any of them.
  const claimants = claimedShoot ? [runtime, ...others].filter((p) => p.spec.shoot.name === claimedShoot) : [];
  const candidates = claimants.length > 0 ? claimants : [runtime, ...others];
  let holder = candidates[0];
  for (const p of candidates) if (holdsBefore(p, holder)) holder = p;
  return holder === runtime ? undefined : holder;
}

/** The Runtimes of the cache that share `runtime`'s id (in its namespace), itself excluded. */
export function peersOf(runtimes: Pick<Store<RuntimeObject>, 'list'>, runtime: RuntimeObject): RuntimeObject[] {
  const id = runtimeIdOf(runtime);
  if (!id) return [];
  return runtimes.list({ namespace: runtime.metadata.namespace, labelSelector: `${LabelKymaRuntimeID}=${id}` }).filter((p) => p.metadata.name !== runtime.metadata.name);
}

/** The message naming the holder, for the Runtime's condition and the admission webhook's denial. */
export function duplicateMessage(id: string, holder: RuntimeObject): string {
  return `runtime id ${id} is already used by Runtime ${holder.metadata.namespace ?? ''}/${holder.metadata.name ?? ''}`;
}

/** The Shoot the GardenerCluster of `runtime`'s id names (the Runtime provisioned with that id), if there is one. */
export async function claimedShoot(m: Pick<Machine, 'kcp' | 'signal'>, runtime: RuntimeObject): Promise<string | undefined> {
  const id = runtimeIdOf(runtime);
  if (!id) return undefined;
  const cluster = await findObject<GardenerClusterObject>(m.kcp, GardenerCluster, { namespace: runtime.metadata.namespace, name: id }, { signal: m.signal });
  return cluster?.spec.shoot.name || undefined;
}
