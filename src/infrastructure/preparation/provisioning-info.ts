// The kyma-system/kyma-provisioning-info ConfigMap: what was ordered (worker pools, accounts,
// infrastructure config, dual stack), as YAML under key `details` with keys in sorted order
// (upstream marshals through JSON with sigs.k8s.io/yaml).
import yaml from 'js-yaml';
import type { ShootObject } from '../../api/gardener/index.js';
import {
  LabelKymaGlobalAccountID,
  LabelKymaInstanceID,
  LabelKymaName,
  LabelKymaSubaccountID,
  type RuntimeObject,
} from '../../api/infrastructuremanager/index.js';
import type { KubeObject } from '../../kube/object.js';
import { KYMA_SYSTEM_NAMESPACE, LabelReconcilerManagedBy, PROVISIONING_INFO_CONFIGMAP, PROVISIONING_INFO_KEY, ReconcilerManagedByInfrastructureManager } from './constants.js';

type RuntimeWorker = RuntimeObject['spec']['shoot']['provider']['workers'][number];

interface WorkerPoolInfo {
  name: string;
  machineType: string;
  haZones: boolean;
  autoScalerMin: number;
  autoScalerMax: number;
}

export interface ProvisioningInfo {
  workerPools: { kyma: WorkerPoolInfo; custom?: WorkerPoolInfo[] };
  globalAccountID?: string;
  subaccountID?: string;
  environmentInstanceID?: string;
  instanceName?: string;
  infrastructureConfig?: unknown;
  networkDetails: { dualStackIPEnabled: boolean };
}

export interface ConfigMapObject extends KubeObject {
  data?: Record<string, string>;
}

function poolInfo(w: RuntimeWorker | undefined): WorkerPoolInfo {
  return {
    name: w?.name ?? '',
    machineType: w?.machine.type ?? '',
    // Upstream: a pool spread over three or more zones is highly available.
    haZones: (w?.zones?.length ?? 0) >= 3,
    autoScalerMin: w?.minimum ?? 0,
    autoScalerMax: w?.maximum ?? 0,
  };
}

function dualStack(runtime: RuntimeObject, shoot: ShootObject | undefined): boolean {
  const families = shoot?.spec.networking?.ipFamilies;
  if (families) return families.includes('IPv4') && families.includes('IPv6');
  return runtime.spec.shoot.networking.dualStack === true;
}

export function provisioningInfo(runtime: RuntimeObject, shoot?: ShootObject): ProvisioningInfo {
  const labels = runtime.metadata.labels ?? {};
  const custom = (runtime.spec.shoot.provider.additionalWorkers ?? []).map(poolInfo);
  const infrastructureConfig = shoot?.spec.provider.infrastructureConfig ?? runtime.spec.shoot.provider.infrastructureConfig;
  const info: ProvisioningInfo = {
    workerPools: { kyma: poolInfo(runtime.spec.shoot.provider.workers[0]), ...(custom.length > 0 ? { custom } : {}) },
    networkDetails: { dualStackIPEnabled: dualStack(runtime, shoot) },
  };
  // Empty values are left out, as upstream's `omitzero`.
  if (labels[LabelKymaGlobalAccountID]) info.globalAccountID = labels[LabelKymaGlobalAccountID];
  if (labels[LabelKymaSubaccountID]) info.subaccountID = labels[LabelKymaSubaccountID];
  if (labels[LabelKymaInstanceID]) info.environmentInstanceID = labels[LabelKymaInstanceID];
  if (labels[LabelKymaName]) info.instanceName = labels[LabelKymaName];
  if (infrastructureConfig !== undefined) info.infrastructureConfig = infrastructureConfig;
  return info;
}

export function provisioningInfoConfigMap(runtime: RuntimeObject, shoot?: ShootObject): ConfigMapObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: PROVISIONING_INFO_CONFIGMAP, namespace: KYMA_SYSTEM_NAMESPACE, labels: { [LabelReconcilerManagedBy]: ReconcilerManagedByInfrastructureManager } },
    data: { [PROVISIONING_INFO_KEY]: yaml.dump(provisioningInfo(runtime, shoot), { sortKeys: true, noRefs: true, lineWidth: -1 }) },
  };
}
