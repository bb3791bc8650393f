// First step of deletion, when the Kymas are watched: the Kyma of the runtime goes before the
// kubeconfig and the Shoot, so that the lifecycle manager removes the modules while the cluster
// still answers (without it, the Kyma waits out the lifecycle manager's unreachable-runtime bound).
// A Runtime deleted alone (kubectl) deletes its Kyma: only one that carries the Runtime's runtime id.
// The wait ends when the Kyma is gone (its deletion wakes the Runtime through the Kyma watch), when
// the cluster cannot be reached anyway (no Ready GardenerCluster: nothing to clean up there), or
// after `kymaDeletionTimeoutMs` from the Runtime's deletion.
import {
  ConditionReasonKymaDeletionPending,
  ConditionTypeRuntimeDeprovisioned,
  GardenerCluster,
  type GardenerClusterObject,
  GardenerClusterStateReady,
  LabelKymaName,
  LabelKymaRuntimeID,
} from '../../../api/infrastructuremanager/index.js';
import { Kyma, type KymaObject } from '../../../api/operator/index.js';
import { isNotFound } from '../../../runtime/client/errors.js';
import { findObject } from '../../../runtime/client/find.js';
import { rfc3339 } from '../gardener-retry.js';
import { type Machine, type SystemState, type Transition, switchTo, updateStatusAndRequeueAfter } from '../machine.js';
import { updateStateDeletion } from '../status.js';
import { deleteKubeconfig } from './delete-kubeconfig.js';

/** The Kymas of the Runtime: the one named by its kyma-name label (or its name), and any with its runtime id. */
function kymasOf(m: Machine, s: SystemState): KymaObject[] {
  const rt = s.runtime;
  const namespace = rt.metadata.namespace ?? '';
  const runtimeID = rt.metadata.labels?.[LabelKymaRuntimeID];
  const name = rt.metadata.labels?.[LabelKymaName] ?? rt.metadata.name ?? '';
  const found = new Map<string, KymaObject>();
  const byName = m.kymas?.get(`${namespace}/${name}`);
  if (byName) found.set(name, byName);
  if (runtimeID) {
    for (const k of m.kymas?.list({ namespace, labelSelector: `${LabelKymaRuntimeID}=${runtimeID}` }) ?? []) found.set(k.metadata.name ?? '', k);
  }
  return [...found.values()];
}

export async function deleteKyma(m: Machine, s: SystemState): Promise<Transition> {
  if (!m.kymas) return switchTo(deleteKubeconfig);
  const rt = s.runtime;
  const namespace = rt.metadata.namespace ?? '';
  const runtimeID = rt.metadata.labels?.[LabelKymaRuntimeID];
  const kymas = kymasOf(m, s);
  if (kymas.length === 0) return switchTo(deleteKubeconfig);

  for (const kyma of kymas) {
    if (kyma.metadata.deletionTimestamp !== undefined) continue;
    // A Kyma of the same name that names another runtime is not this Runtime's: leave it alone.
    if (!runtimeID || kyma.metadata.labels?.[LabelKymaRuntimeID] !== runtimeID) continue;
    m.log.info('runtime deleted; deleting its Kyma first', { kyma: kyma.metadata.name });
    m.events.event(rt, 'Normal', 'DeletingKyma', `deleting Kyma ${kyma.metadata.name ?? ''} before the cluster, so that its modules are removed first`, 'Delete');
    await m.kcp.delete(Kyma, { namespace, name: kyma.metadata.name ?? '' }, { signal: m.signal }).catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
  }
  // Only what is being deleted holds the cluster back; a Kyma of the runtime kept alive is not waited for.
  const deleting = kymas.filter((k) => k.metadata.deletionTimestamp !== undefined || k.metadata.labels?.[LabelKymaRuntimeID] === runtimeID);
  if (deleting.length === 0) return switchTo(deleteKubeconfig);

  if (!(await reachable(m, s))) return switchTo(deleteKubeconfig);

  const since = Date.parse(rt.metadata.deletionTimestamp ?? '');
  const deadline = (Number.isNaN(since) ? Date.now() : since) + m.timing.kymaDeletionTimeoutMs;
  const names = deleting.map((k) => k.metadata.name ?? '').join(', ');
  const now = Date.now();
  if (now >= deadline) {
    m.log.warn('kyma still being deleted after the bound; deleting the cluster anyway', { kyma: names, waitedMs: m.timing.kymaDeletionTimeoutMs });
    return switchTo(deleteKubeconfig);
  }
  updateStateDeletion(rt, ConditionTypeRuntimeDeprovisioned, ConditionReasonKymaDeletionPending, 'Unknown', `waiting for Kyma ${names} to remove its modules from the cluster (at most until ${rfc3339(deadline)})`);
  // The Kyma's deletion wakes the Runtime; the requeue is only the bound.
  return updateStatusAndRequeueAfter(deadline - now);
}

/** Can the lifecycle manager reach the cluster? Only through the kubeconfig a Ready GardenerCluster keeps. */
async function reachable(m: Machine, s: SystemState): Promise<boolean> {
  const runtimeID = s.runtime.metadata.labels?.[LabelKymaRuntimeID];
  if (!runtimeID) return false;
  const cluster = await findObject<GardenerClusterObject>(m.kcp, GardenerCluster, { namespace: s.runtime.metadata.namespace, name: runtimeID }, { signal: m.signal });
  return cluster?.status?.state === GardenerClusterStateReady && cluster.metadata.deletionTimestamp === undefined;
}
