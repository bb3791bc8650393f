// OpenStack (SAP Converged Cloud): floating pool, worker network, F5 load balancers.
import type { ConverterConfig } from '../config.js';
import type { RawConfig } from '../types.js';

export const OPENSTACK_API_VERSION = 'openstack.provider.extensions.gardener.cloud/v1alpha1';

export function openstackInfrastructureConfig(nodesCidr: string, config: ConverterConfig, existing: RawConfig | undefined): RawConfig {
  // The floating pool cannot change on a live cluster: keep the one it has.
  const floatingPoolName = typeof existing?.floatingPoolName === 'string' ? existing.floatingPoolName : config.provider.openstack.floatingPoolName;
  return { apiVersion: OPENSTACK_API_VERSION, kind: 'InfrastructureConfig', floatingPoolName, networks: { workers: nodesCidr } };
}

export function openstackControlPlaneConfig(config: ConverterConfig): RawConfig {
  return { apiVersion: OPENSTACK_API_VERSION, kind: 'ControlPlaneConfig', loadBalancerProvider: config.provider.openstack.loadBalancerProvider };
}
