// First step of deletion: the GardenerCluster goes (and with it the kubeconfig Secret), so that
// nobody uses credentials of a cluster about to disappear. Then the Shoot.
import {
  ConditionReasonGardenerCRDeleted,
  ConditionReasonKubernetesAPIErr,
  ConditionTypeRuntimeDeprovisioned,
  GardenerCluster,
  type GardenerClusterObject,
  kubeconfigSecretName,
  LabelKymaRuntimeID,
} from '../../../api/infrastructuremanager/index.js';
import { isNotFound } from '../../../runtime/client/errors.js';
import { type Machine, type SystemState, type Transition, requeueAfter, updateStatusAndRequeueAfter } from '../machine.js';
import { remoteClusterKey } from '../remote-cluster.js';
import { updateStateDeletion } from '../status.js';
import { deleteShoot } from './delete-shoot.js';
import { ensureTerminatingCondition } from './ensure-condition.js';

const SECRET = { apiVersion: 'v1', kind: 'Secret' };

export async function deleteKubeconfig(m: Machine, s: SystemState): Promise<Transition> {
  const rt = s.runtime;
  const namespace = rt.metadata.namespace;
  const runtimeID = rt.metadata.labels?.[LabelKymaRuntimeID];
  if (!runtimeID) return switchToShootDeletion(m, s);

  let cluster: GardenerClusterObject | undefined;
  try {
    cluster = await m.kcp.get<GardenerClusterObject>(GardenerCluster, { namespace, name: runtimeID }, { signal: m.signal });
  } catch (e) {
    if (!isNotFound(e)) {
      updateStateDeletion(rt, ConditionTypeRuntimeDeprovisioned, ConditionReasonKubernetesAPIErr, 'Unknown', `Failed to get GardenerCluster CR: ${e instanceof Error ? e.message : String(e)}`);
      return updateStatusAndRequeueAfter(m.timing.controlPlaneRequeueMs);
    }
  }

  if (cluster) {
    if (cluster.metadata.deletionTimestamp === undefined) {
      m.log.debug('deleting the GardenerCluster', { name: runtimeID });
      await m.kcp.delete(GardenerCluster, { namespace, name: runtimeID }, { signal: m.signal }).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
      updateStateDeletion(rt, ConditionTypeRuntimeDeprovisioned, ConditionReasonGardenerCRDeleted, 'Unknown', 'Deleting the Gardener Cluster CR');
      return updateStatusAndRequeueAfter(m.timing.controlPlaneRequeueMs);
    }
    return requeueAfter(m.timing.controlPlaneRequeueMs);
  }

  // The GardenerCluster controller removes the Secret once the CR is gone; make sure it does not outlive the runtime.
  await m.kcp.delete(SECRET, { namespace, name: kubeconfigSecretName(runtimeID) }, { signal: m.signal }).catch((e: unknown) => {
    if (!isNotFound(e)) throw e;
  });
  m.remoteClusters.invalidate(remoteClusterKey(namespace ?? '', runtimeID));
  return switchToShootDeletion(m, s);
}

function switchToShootDeletion(m: Machine, s: SystemState): Transition {
  return ensureTerminatingCondition(m, s, ConditionTypeRuntimeDeprovisioned, ConditionReasonGardenerCRDeleted, 'Gardener Cluster CR successfully deleted', deleteShoot);
}
