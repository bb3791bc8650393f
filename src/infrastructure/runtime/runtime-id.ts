// One runtime id, one Runtime. The runtime id (label `kyma-project.io/runtime-id`) names the
// GardenerCluster, the kubeconfig Secret `kubeconfig-<runtime id>` and the Kyma of a runtime, so two
// Runtimes carrying the same id in one namespace would share (and, deleting one, remove) the
// other's kubeconfig. The admission webhook refuses the second one (src/controlplane/runtime-admission.ts);
// since a webhook can be down or bypassed, the controller applies the same rule on its own: of the
// Runtimes sharing an id, the one created first (creationTimestamp, then name) holds it, the others
// are blocked (never provisioned, deletion touches nothing shared).
import { LabelKymaRuntimeID, type RuntimeObject } from '../../api/infrastructuremanager/index.js';
import type { Store } from '../../runtime/cache/store.js';

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
 * The Runtime that holds `runtime`'s id before it, or undefined when `runtime` is the holder (or has
 * no id). `peers` are the Runtimes with that id in the same namespace (from the cache index); a
 * Runtime being deleted still holds its id until it is gone.
 */
export function earlierHolder(runtime: RuntimeObject, peers: readonly RuntimeObject[]): RuntimeObject | undefined {
  const id = runtimeIdOf(runtime);
  if (!id) return undefined;
  let holder: RuntimeObject | undefined;
  for (const p of peers) {
    if (p.metadata.uid !== undefined && p.metadata.uid === runtime.metadata.uid) continue;
    if (p.metadata.name === runtime.metadata.name) continue;
    if (p.metadata.namespace !== runtime.metadata.namespace || runtimeIdOf(p) !== id) continue;
    if (holdsBefore(p, runtime) && (!holder || holdsBefore(p, holder))) holder = p;
  }
  return holder;
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
