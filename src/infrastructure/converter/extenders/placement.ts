// Where and how the cluster is placed: cloud profile, seed selector, seed tolerations, exposure class
// (upstream extender/cloudprofile.go, seedselector.go, tolerations.go, exposureclass.go).
import type { RuntimeProviderType } from '../../../api/infrastructuremanager/index.js';
import type { ConversionInput, ShootSpec } from '../types.js';

/** Cloud profile per provider, as upstream names them. */
export const cloudProfileNames: Record<RuntimeProviderType, string> = {
  aws: 'aws',
  azure: 'az',
  gcp: 'gcp',
  openstack: 'converged-cloud-kyma',
  alicloud: 'alicloud',
};

/** Seed label with the seed's region, matched when the Runtime enforces the seed location. */
export const SeedRegionLabel = 'seed.gardener.cloud/region';
/** Exposure class of SAP Converged Cloud shoots (their API server is reached through the internet). */
export const OpenStackExposureClassName = 'converged-cloud-internet';

type Placement = Pick<ShootSpec, 'cloudProfileName' | 'cloudProfile' | 'seedSelector' | 'tolerations' | 'exposureClassName'>;

export function placement({ runtime, config }: ConversionInput): Placement {
  const shoot = runtime.spec.shoot;
  const profile = cloudProfileNames[shoot.provider.type];
  const out: Placement = { cloudProfileName: profile, cloudProfile: { kind: 'CloudProfile', name: profile } };
  if (shoot.enforceSeedLocation === true) out.seedSelector = { matchLabels: { [SeedRegionLabel]: shoot.region } };
  const tolerations = config.tolerations[shoot.region];
  if (tolerations && tolerations.length > 0) out.tolerations = tolerations.map((t) => ({ ...t }));
  if (shoot.provider.type === 'openstack') out.exposureClassName = OpenStackExposureClassName;
  return out;
}
