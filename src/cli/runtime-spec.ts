// What `kcp runtime create` asks the control plane for, the way the environment broker (KEB) would:
// per provider its plan, known regions, zones, default machine type and networks; then the Runtime
// and its Kyma with the broker's labels. Pure functions; validation errors are UsageErrors (one line).
import { randomBytes, randomUUID } from 'node:crypto';
import { type ShootPurpose, shootPurposes } from '../api/gardener/index.js';
import {
  LabelKymaBrokerPlanID,
  LabelKymaBrokerPlanName,
  LabelKymaGlobalAccountID,
  LabelKymaInstanceID,
  LabelKymaName,
  LabelKymaPlatformRegion,
  LabelKymaRegion,
  LabelKymaRuntimeID,
  LabelKymaShootName,
  LabelKymaSubaccountID,
  Runtime,
  type RuntimeObject,
  type RuntimeProviderType,
  runtimeProviderTypes,
  validateRuntime,
} from '../api/infrastructuremanager/index.js';
import { DEFAULT_CHANNEL, Kyma, type KymaObject, LabelValues, Labels } from '../api/operator/index.js';
import { UsageError } from './args.js';

interface ProviderProfile {
  /** Broker plan (name and ID as KEB publishes them). */
  planName: string;
  planID: string;
  /** Regions the plan offers; the first is the default shown in help texts. */
  regions: readonly string[];
  /** Availability zone `i` (0-based) of a region, in the provider's naming scheme. */
  zone(region: string, i: number): string;
  /** The default machine type of the plan. */
  machineType: string;
  /** Machine types the plan offers (KEB's lists, abridged). */
  machineTypes: readonly string[];
}

const letter = (i: number) => String.fromCharCode(97 + i);

/** KEB's plans per provider, with the regions they offer (a representative list, not every region). */
export const providerProfiles: Record<RuntimeProviderType, ProviderProfile> = {
  aws: {
    planName: 'aws',
    planID: '361c511f-f939-4621-b228-d0fb79a1fe15',
    regions: ['eu-central-1', 'eu-west-2', 'eu-north-1', 'ca-central-1', 'sa-east-1', 'us-east-1', 'us-west-2', 'ap-northeast-1', 'ap-northeast-2', 'ap-south-1', 'ap-southeast-1', 'ap-southeast-2'],
    zone: (region, i) => `${region}${letter(i)}`,
    machineType: 'm6i.large',
    machineTypes: ['m6i.large', 'm6i.xlarge', 'm6i.2xlarge', 'm6i.4xlarge', 'm6i.8xlarge', 'm6i.12xlarge', 'm5.large', 'm5.xlarge', 'm5.2xlarge', 'm5.4xlarge', 'm5.8xlarge', 'm5.12xlarge', 'c7i.large', 'c7i.xlarge', 'c7i.2xlarge', 'r7i.large', 'r7i.xlarge', 'r7i.2xlarge'],
  },
  azure: {
    planName: 'azure',
    planID: '4deee563-e5ec-4731-b9b1-53b42d855f0c',
    regions: ['westeurope', 'northeurope', 'switzerlandnorth', 'uksouth', 'eastus', 'centralus', 'westus2', 'canadacentral', 'brazilsouth', 'japaneast', 'southeastasia', 'australiaeast'],
    zone: (_region, i) => String(i + 1),
    machineType: 'Standard_D2s_v5',
    machineTypes: ['Standard_D2s_v5', 'Standard_D4s_v5', 'Standard_D8s_v5', 'Standard_D16s_v5', 'Standard_D32s_v5', 'Standard_D48s_v5', 'Standard_D64s_v5', 'Standard_D4_v3', 'Standard_D8_v3', 'Standard_D16_v3'],
  },
  gcp: {
    planName: 'gcp',
    planID: 'ca6e5357-707f-4565-bbbd-b3ab732597c6',
    regions: ['europe-west3', 'europe-west4', 'us-central1', 'us-east4', 'us-west1', 'southamerica-east1', 'asia-south1', 'asia-northeast1', 'asia-northeast2', 'asia-southeast1', 'australia-southeast1', 'me-central2'],
    zone: (region, i) => `${region}-${letter(i)}`,
    machineType: 'n2-standard-2',
    machineTypes: ['n2-standard-2', 'n2-standard-4', 'n2-standard-8', 'n2-standard-16', 'n2-standard-32', 'n2-standard-48', 'c2d-highcpu-2', 'c2d-highcpu-4', 'c2d-highcpu-8'],
  },
  openstack: {
    planName: 'sap-converged-cloud',
    planID: '03b812ac-c991-4528-b5bd-08b303523a63',
    regions: ['eu-de-1', 'eu-de-2', 'ap-jp-1', 'ap-au-1', 'na-us-1', 'na-ca-1', 'ap-sa-1'],
    zone: (region, i) => `${region}${letter(i)}`,
    machineType: 'g_c2_m8',
    machineTypes: ['g_c2_m8', 'g_c4_m16', 'g_c6_m24', 'g_c8_m32', 'g_c12_m48', 'g_c16_m64', 'g_c32_m128', 'g_c64_m256'],
  },
  alicloud: {
    planName: 'alicloud',
    planID: '9f2c3b4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d',
    regions: ['cn-beijing', 'cn-shanghai', 'eu-central-1', 'ap-southeast-1'],
    zone: (region, i) => `${region}-${letter(i)}`,
    machineType: 'ecs.g8i.large',
    machineTypes: ['ecs.g8i.large', 'ecs.g8i.xlarge', 'ecs.g8i.2xlarge', 'ecs.g8i.4xlarge', 'ecs.g8i.6xlarge', 'ecs.g8i.8xlarge', 'ecs.g8i.16xlarge'],
  },
};

/** Networks of a new runtime (KEB's defaults: nodes 10.250.0.0/16, Gardener's pod and service ranges). */
export const defaultNetworking = { type: 'calico', nodes: '10.250.0.0/16', pods: '100.64.0.0/12', services: '100.104.0.0/13' } as const;

/** Zones a worker pool spreads over at most (KEB's multi-zone clusters use three). */
export const MAX_ZONES = 3;

/** Runtime and Kyma names become Secret names and label values: a DNS label, short enough for both. */
const RUNTIME_NAME = /^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export interface RuntimeRequest {
  name: string;
  provider: string;
  region: string;
  administrators: string[];
  machineType?: string;
  minimum: number;
  maximum: number;
  purpose: string;
  platformRegion: string;
  globalAccountID: string;
  subaccountID: string;
  channel: string;
  kubernetesVersion?: string;
}

export interface ValidRuntimeRequest extends RuntimeRequest {
  provider: RuntimeProviderType;
  purpose: ShootPurpose;
}

function isProvider(p: string): p is RuntimeProviderType {
  return (runtimeProviderTypes as readonly string[]).includes(p);
}

function isPurpose(p: string): p is ShootPurpose {
  return (shootPurposes as readonly string[]).includes(p);
}

function someOf(values: readonly string[], n = 6): string {
  return values.length <= n ? values.join(', ') : `${values.slice(0, n).join(', ')}, ... (${values.length - n} more)`;
}

/** Checks a request before anything is created; throws a one-line UsageError naming what is wrong. */
export function validateRuntimeRequest(req: RuntimeRequest): ValidRuntimeRequest {
  if (!RUNTIME_NAME.test(req.name)) throw new UsageError(`invalid runtime name ${JSON.stringify(req.name)}: use lower-case letters, digits and '-', at most 40 characters`);
  if (!isProvider(req.provider)) throw new UsageError(`unknown provider ${JSON.stringify(req.provider)}: use one of ${runtimeProviderTypes.join(', ')}`);
  const profile = providerProfiles[req.provider];
  if (!profile.regions.includes(req.region)) {
    throw new UsageError(`unknown ${req.provider} region ${JSON.stringify(req.region)}: use one of ${someOf(profile.regions)}`);
  }
  if (!isPurpose(req.purpose)) throw new UsageError(`unknown purpose ${JSON.stringify(req.purpose)}: use one of ${shootPurposes.join(', ')}`);
  if (req.machineType !== undefined) checkMachineType(req.provider, req.machineType);
  if (req.kubernetesVersion !== undefined) checkKubernetesVersion(req.kubernetesVersion);
  if (req.maximum < 1) throw new UsageError(`--max must be at least 1, got ${req.maximum}`);
  if (req.minimum > req.maximum) throw new UsageError(`--min ${req.minimum} is greater than --max ${req.maximum}`);
  checkAdministrators(req.administrators);
  return { ...req, provider: req.provider, purpose: req.purpose };
}

/** `--admin a@x.com,b@x.com`: the list, or a one-line UsageError when it is empty or holds something that is not an e-mail address. */
export function administratorsFrom(text: string): string[] {
  const list = text.split(',').map((a) => a.trim()).filter(Boolean);
  checkAdministrators(list);
  return list;
}

function checkAdministrators(list: readonly string[]): void {
  if (list.length === 0) throw new UsageError('at least one --admin EMAIL is required');
  const bad = list.find((a) => !EMAIL.test(a));
  if (bad !== undefined) throw new UsageError(`invalid administrator ${JSON.stringify(bad)}: expected an e-mail address`);
}

/** A machine type the provider's plan offers; a one-line UsageError listing them otherwise. */
export function checkMachineType(provider: RuntimeProviderType, machineType: string): void {
  const offered = providerProfiles[provider].machineTypes;
  if (!offered.includes(machineType)) throw new UsageError(`unknown ${provider} machine type ${JSON.stringify(machineType)}: use one of ${someOf(offered, 8)}`);
}

/** `X.Y` or `X.Y.Z`, as the Runtime's `spec.shoot.kubernetes.version` takes it. */
export function checkKubernetesVersion(version: string): void {
  if (!/^\d+\.\d+(\.\d+)?$/.test(version)) throw new UsageError(`invalid Kubernetes version ${JSON.stringify(version)}: use X.Y or X.Y.Z, e.g. 1.32`);
}

/** A Shoot name as KEB generates them: `c-` and seven random characters (Gardener allows 21 with the project). */
export function newShootName(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return `c-${[...randomBytes(7)].map((b) => alphabet[b % alphabet.length]).join('')}`;
}

/** The labels the broker puts on both the Runtime and the Kyma of a runtime. */
export function brokerLabels(req: ValidRuntimeRequest, ids: { instanceID: string; shootName: string }): Record<string, string> {
  const profile = providerProfiles[req.provider];
  return {
    [LabelKymaInstanceID]: ids.instanceID,
    [LabelKymaRuntimeID]: req.name,
    [LabelKymaShootName]: ids.shootName,
    [LabelKymaRegion]: req.region,
    [LabelKymaPlatformRegion]: req.platformRegion,
    [LabelKymaName]: req.name,
    [LabelKymaBrokerPlanID]: profile.planID,
    [LabelKymaBrokerPlanName]: profile.planName,
    [LabelKymaGlobalAccountID]: req.globalAccountID,
    [LabelKymaSubaccountID]: req.subaccountID,
  };
}

export interface RuntimeAndKyma {
  runtime: RuntimeObject;
  kyma: KymaObject;
}

/**
 * The Runtime and Kyma the broker would create for the request. As in KEB, the runtime ID is the
 * Runtime's and the Kyma's name; the kubeconfig Secret will be `kubeconfig-<runtime id>`.
 */
export function buildRuntimeAndKyma(req: ValidRuntimeRequest, namespace: string, ids = { instanceID: randomUUID(), shootName: newShootName() }): RuntimeAndKyma {
  const profile = providerProfiles[req.provider];
  const labels = brokerLabels(req, ids);
  // Gardener wants at least as many nodes at most as zones: spread over up to three, never more than --max.
  const zoneCount = Math.min(MAX_ZONES, req.maximum);
  const runtime: RuntimeObject = {
    apiVersion: Runtime.apiVersion,
    kind: Runtime.kind,
    metadata: { name: req.name, namespace, labels },
    spec: {
      shoot: {
        name: ids.shootName,
        purpose: req.purpose,
        platformRegion: req.platformRegion,
        region: req.region,
        secretBindingName: `sb-${req.provider}-${req.region}`,
        provider: {
          type: req.provider,
          workers: [
            {
              name: 'cpu-worker-0',
              machine: { type: req.machineType ?? profile.machineType },
              minimum: req.minimum,
              maximum: req.maximum,
              maxSurge: zoneCount,
              maxUnavailable: 0,
              zones: Array.from({ length: zoneCount }, (_, i) => profile.zone(req.region, i)),
            },
          ],
        },
        networking: { ...defaultNetworking },
        ...(req.kubernetesVersion ? { kubernetes: { version: req.kubernetesVersion } } : {}),
      },
      security: { administrators: req.administrators, networking: { filter: { egress: { enabled: false } } } },
    },
  };
  const issues = validateRuntime(runtime);
  if (issues.length > 0) throw new UsageError(`the runtime would be invalid: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`);
  const kyma: KymaObject = {
    apiVersion: Kyma.apiVersion,
    kind: Kyma.kind,
    metadata: { name: req.name, namespace, labels: { ...labels, [Labels.ManagedBy]: LabelValues.LifecycleManager } },
    spec: { channel: req.channel || DEFAULT_CHANNEL, modules: [] },
  };
  return { runtime, kyma };
}
