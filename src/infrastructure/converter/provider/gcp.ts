// GCP: one worker subnet (the node network) and the control plane's zone.
import { ConversionError } from '../errors.js';
import { isRecord, type RawConfig } from '../types.js';

export const GCP_API_VERSION = 'gcp.provider.extensions.gardener.cloud/v1alpha1';

export function gcpInfrastructureConfig(nodesCidr: string): RawConfig {
  // Upstream (like the provisioner before it) also sets the deprecated `worker` field.
  return { apiVersion: GCP_API_VERSION, kind: 'InfrastructureConfig', networks: { worker: nodesCidr, workers: nodesCidr } };
}

/** The control plane lives in the first zone; on a patch the zone already chosen is kept (it cannot move). */
export function gcpControlPlaneConfig(zones: readonly string[], existing: RawConfig | undefined, zonesField: string): RawConfig {
  const existingZone = isRecord(existing) && typeof existing.zone === 'string' && existing.zone !== '' ? existing.zone : undefined;
  const zone = existingZone ?? zones[0];
  if (zone === undefined) throw new ConversionError(zonesField, 'GCP needs at least one zone for the control plane');
  return { apiVersion: GCP_API_VERSION, kind: 'ControlPlaneConfig', zone };
}
