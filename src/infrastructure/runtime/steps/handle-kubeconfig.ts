// Access to the new cluster: a GardenerCluster CR for the Runtime (named after the runtime id, in the
// Runtime's namespace) asks the GardenerCluster controller to keep the kubeconfig Secret
// `kubeconfig-<runtime id>`. Wait until it reports Ready, then configure the cluster.
import type { ShootObject } from '../../../api/gardener/index.js';
import {
  ConditionReasonGardenerCRCreated,
  ConditionReasonGardenerCRReady,
  ConditionReasonKubernetesAPIErr,
  ConditionTypeKubeconfigManagement,
  ConditionTypeRuntimeKubeconfigReady,
  DefaultKubeconfigSecretKey,
  GardenerCluster,
  type GardenerClusterObject,
  GardenerClusterStateReady,
  kubeconfigSecretName,
  LabelKymaBrokerPlanID,
  LabelKymaBrokerPlanName,
  LabelKymaGlobalAccountID,
  LabelKymaInstanceID,
  LabelKymaInternal,
  LabelKymaManagedBy,
  LabelKymaName,
  LabelKymaPlatformRegion,
  LabelKymaRegion,
  LabelKymaRuntimeID,
  LabelKymaShootName,
  LabelKymaSubaccountID,
  ManagedByInfrastructureManager,
  type RuntimeObject,
} from '../../../api/infrastructuremanager/index.js';
import { isAlreadyExists } from '../../../runtime/client/errors.js';
import { peersOf } from '../runtime-id.js';
import { type Machine, type SystemState, type Transition, requeueAfter, updateStatusAndRequeueAfter, updateStatusAndWaitForChange, waitForChange } from '../machine.js';
import { updateStillPending, updateStatePending } from '../status.js';
import { configureCluster } from './configure-cluster.js';
import { ensurePendingCondition } from './ensure-condition.js';

export async function handleKubeconfig(m: Machine, s: SystemState): Promise<Transition> {
  const rt = s.runtime;
  const shoot = s.shoot;
  if (!shoot) throw new Error('handleKubeconfig needs the shoot');
  const runtimeID = rt.metadata.labels?.[LabelKymaRuntimeID] ?? '';

  let cluster: GardenerClusterObject | undefined;
  try {
    cluster = await m.gardenerClusters.get({ namespace: rt.metadata.namespace, name: runtimeID }, { signal: m.signal });
  } catch (e) {
    updateStillPending(rt, ConditionTypeRuntimeKubeconfigReady, ConditionReasonKubernetesAPIErr, 'False', `GardenerCluster CR read error: ${e instanceof Error ? e.message : String(e)}`);
    return updateStatusAndRequeueAfter(m.timing.controlPlaneRequeueMs);
  }
  if (!cluster) {
    try {
      await m.kcp.create(gardenerClusterFor(rt, shoot), { signal: m.signal });
    } catch (err) {
      // Made by someone else (or by this controller before its cache knew): its watch reports on it.
      if (isAlreadyExists(err)) return waitForChange(m.timing.controlPlaneRequeueMs);
      updateStillPending(rt, ConditionTypeRuntimeKubeconfigReady, ConditionReasonKubernetesAPIErr, 'False', `GardenerCluster CR create error: ${err instanceof Error ? err.message : String(err)}`);
      return updateStatusAndRequeueAfter(m.timing.controlPlaneRequeueMs);
    }
    updateStatePending(rt, ConditionTypeRuntimeKubeconfigReady, ConditionReasonGardenerCRCreated, 'Unknown', 'Gardener Cluster CR created, waiting for readiness');
    return updateStatusAndWaitForChange(m.timing.controlPlaneRequeueMs);
  }

  // A GardenerCluster of this runtime id naming another Shoot was written for another Runtime (one
  // that held the id before): point it at this Runtime's Shoot; its controller then fetches a new
  // kubeconfig, as the Secret was issued for the other Shoot.
  const shootName = shoot.metadata.name ?? '';
  if (cluster.spec.shoot.name !== shootName) {
    // Never take it from a Runtime that still has that Shoot: that one holds the id (initialize
    // blocks this one on its next pass).
    const named = cluster.spec.shoot.name;
    const owner = (m.runtimes ? peersOf(m.runtimes, rt) : []).find((p) => p.spec.shoot.name === named);
    if (owner) return requeueAfter(m.timing.controlPlaneRequeueMs);
    m.log.warn('GardenerCluster names another shoot; pointing it at this runtime\'s shoot', { gardenerCluster: runtimeID, was: cluster.spec.shoot.name, shoot: shootName });
    await m.kcp.patch(GardenerCluster, { namespace: rt.metadata.namespace, name: runtimeID }, 'merge', { metadata: { labels: { [LabelKymaShootName]: shootName }, resourceVersion: cluster.metadata.resourceVersion }, spec: { shoot: { name: shootName } } }, { signal: m.signal });
    return requeueAfter(m.timing.controlPlaneRequeueMs);
  }
  if (!readyForCurrentSpec(cluster)) return waitForChange(m.timing.controlPlaneRequeueMs);
  return ensurePendingCondition(s, ConditionTypeRuntimeKubeconfigReady, ConditionReasonGardenerCRReady, 'Gardener Cluster CR is ready.', configureCluster);
}

/** Ready, and the controller reported it for the current spec (not a Ready left from before a spec change). */
function readyForCurrentSpec(cluster: GardenerClusterObject): boolean {
  if (cluster.status?.state !== GardenerClusterStateReady) return false;
  const observed = cluster.status.conditions?.find((c) => c.type === ConditionTypeKubeconfigManagement)?.observedGeneration;
  return observed === undefined || cluster.metadata.generation === undefined || observed >= cluster.metadata.generation;
}

/** The GardenerCluster of a Runtime, labelled as upstream's makeGardenerClusterForRuntime does. */
export function gardenerClusterFor(rt: RuntimeObject, shoot: ShootObject): GardenerClusterObject {
  const labels = rt.metadata.labels ?? {};
  const runtimeID = labels[LabelKymaRuntimeID] ?? '';
  const copied = [LabelKymaInstanceID, LabelKymaRuntimeID, LabelKymaBrokerPlanID, LabelKymaBrokerPlanName, LabelKymaGlobalAccountID, LabelKymaSubaccountID, LabelKymaName];
  const domain = shoot.spec.dns?.domain;
  return {
    apiVersion: GardenerCluster.apiVersion,
    kind: GardenerCluster.kind,
    metadata: {
      name: runtimeID,
      namespace: rt.metadata.namespace,
      ...(typeof domain === 'string' ? { annotations: { 'skr-domain': domain } } : {}),
      labels: {
        ...Object.fromEntries(copied.filter((k) => labels[k] !== undefined).map((k) => [k, labels[k]])),
        [LabelKymaPlatformRegion]: rt.spec.shoot.platformRegion,
        [LabelKymaRegion]: rt.spec.shoot.region,
        [LabelKymaShootName]: shoot.metadata.name ?? '',
        [LabelKymaManagedBy]: ManagedByInfrastructureManager,
        [LabelKymaInternal]: 'true',
      },
    },
    spec: {
      shoot: { name: shoot.metadata.name ?? '' },
      kubeconfig: { secret: { name: kubeconfigSecretName(runtimeID), namespace: rt.metadata.namespace ?? '', key: DefaultKubeconfigSecretKey } },
    },
  };
}
