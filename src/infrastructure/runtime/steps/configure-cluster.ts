// The last step of provisioning and of every update: prepare the cluster through its kubeconfig
// (namespace kyma-system, provisioning-info ConfigMap, OIDC, admin ClusterRoleBindings), then the
// Runtime is Ready. A failure keeps the Runtime Pending, with the failed part's condition False,
// and is retried.
import {
  ConditionReasonAdministratorsConfigured,
  ConditionReasonConfigurationErr,
  ConditionTypeRuntimeConfigured,
  LabelKymaRuntimeID,
} from '../../../api/infrastructuremanager/index.js';
import { PreparationError } from '../../preparation/index.js';
import { type Machine, type SystemState, type Transition, updateStatusAndRequeueAfter, updateStatusAndStop } from '../machine.js';
import { remoteClusterKey } from '../remote-cluster.js';
import { setCondition, updateStateReady, updateStillPending } from '../status.js';

export async function configureCluster(m: Machine, s: SystemState): Promise<Transition> {
  const rt = s.runtime;
  const runtimeID = rt.metadata.labels?.[LabelKymaRuntimeID] ?? '';
  const remote = m.remoteClusters.client(remoteClusterKey(rt.metadata.namespace ?? '', runtimeID));
  let conditions;
  try {
    ({ conditions } = await m.prepareCluster(remote, rt, { shoot: s.shoot, signal: m.signal }));
  } catch (e) {
    if (m.signal.aborted) throw e;
    m.log.warn('configuring the cluster failed; retrying', { error: e });
    const message = e instanceof Error ? e.message : String(e);
    if (e instanceof PreparationError) updateStillPending(rt, e.condition.type, e.condition.reason, 'False', message);
    else updateStillPending(rt, ConditionTypeRuntimeConfigured, ConditionReasonConfigurationErr, 'False', `Failed to configure the cluster: ${message}`);
    return updateStatusAndRequeueAfter(m.timing.controlPlaneRequeueMs);
  }
  for (const c of conditions) if (c.type !== ConditionTypeRuntimeConfigured) setCondition(rt, c.type, c.reason, c.status, c.message);
  const configured = conditions.find((c) => c.type === ConditionTypeRuntimeConfigured);
  updateStateReady(rt, ConditionTypeRuntimeConfigured, configured?.reason ?? ConditionReasonAdministratorsConfigured, configured?.message ?? 'Cluster admin configuration complete');
  if (rt.status) rt.status.provisioningCompleted = true;
  return updateStatusAndStop();
}
