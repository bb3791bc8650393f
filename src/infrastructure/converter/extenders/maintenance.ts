// `spec.maintenance`: automatic updates from the configuration and, for production clusters, the
// time window the maintenance policy gives the region (upstream extender/maintenance).
import { ShootPurposeProduction } from '../../../api/gardener/index.js';
import type { MaintenanceTimeWindow, MaintenanceWindowPolicy } from '../config.js';
import type { ConversionInput, ShootSpec } from '../types.js';

/** The window for a region: the first rule whose region pattern matches, else the policy's default. */
export function maintenanceWindowFor(policy: MaintenanceWindowPolicy | undefined, region: string): MaintenanceTimeWindow | undefined {
  if (!policy) return undefined;
  const rule = policy.rules.find((r) => new RegExp(r.match.region).test(region));
  const window = rule?.windows[0] ?? policy.default;
  return window ? { ...window } : undefined;
}

export function maintenance({ runtime, config }: ConversionInput): NonNullable<ShootSpec['maintenance']> {
  const out: NonNullable<ShootSpec['maintenance']> = {
    autoUpdate: {
      kubernetesVersion: config.kubernetes.enableKubernetesVersionAutoUpdate,
      machineImageVersion: config.kubernetes.enableMachineImageVersionAutoUpdate,
    },
  };
  if (runtime.spec.shoot.purpose === ShootPurposeProduction) {
    const window = maintenanceWindowFor(config.maintenanceWindow.policy, runtime.spec.shoot.region);
    if (window) out.timeWindow = window;
  }
  return out;
}
