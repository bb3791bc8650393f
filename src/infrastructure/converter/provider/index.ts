// `spec.provider` of the Shoot: type, workers, workers settings, and the provider-specific
// infrastructure and control plane configurations (upstream extender/provider.go).
import { ProviderAlicloud, ProviderAWS, ProviderAzure, ProviderGCP, ProviderOpenStack } from '../../../api/infrastructuremanager/index.js';
import { ConversionError } from '../errors.js';
import { cloneJson, isRecord, type ConversionInput, type RawConfig, type ShootProvider, type ShootWorker } from '../types.js';
import { alicloudControlPlaneConfig, alicloudInfrastructureConfig } from './alicloud.js';
import { awsControlPlaneConfig, awsInfrastructureConfig, infrastructureZoneNames } from './aws.js';
import { azureControlPlaneConfig, azureInfrastructureConfig } from './azure.js';
import { gcpControlPlaneConfig, gcpInfrastructureConfig } from './gcp.js';
import { openstackControlPlaneConfig, openstackInfrastructureConfig } from './openstack.js';
import { convertWorkers } from './workers.js';
import { mergeZoneOrder, networkingZones } from './zones.js';

const FIELD = { nodes: 'spec.shoot.networking.nodes', zones: 'spec.shoot.provider.workers' };

function generatedInfrastructureConfig(input: ConversionInput, workers: ShootWorker[]): RawConfig {
  const shoot = input.runtime.spec.shoot;
  const nodes = shoot.networking.nodes;
  const existing = existingConfig(input, 'infrastructureConfig');
  // Subnets are positional: zones the live config has keep their place, new ones come after.
  const zones = mergeZoneOrder(infrastructureZoneNames(existing), networkingZones(workers), true);
  switch (shoot.provider.type) {
    case ProviderAWS:
      return awsInfrastructureConfig(nodes, zones, existing, FIELD);
    case ProviderAzure:
      return azureInfrastructureConfig(nodes, zones, input.config.provider.azure.natGatewayIdleConnectionTimeoutMinutes, existing, FIELD);
    case ProviderGCP:
      return gcpInfrastructureConfig(nodes);
    case ProviderOpenStack:
      return openstackInfrastructureConfig(nodes, input.config, existing);
    case ProviderAlicloud:
      return alicloudInfrastructureConfig(nodes, zones, existing, FIELD);
  }
}

function generatedControlPlaneConfig(input: ConversionInput, workers: ShootWorker[]): RawConfig {
  switch (input.runtime.spec.shoot.provider.type) {
    case ProviderAWS:
      return awsControlPlaneConfig();
    case ProviderAzure:
      return azureControlPlaneConfig();
    case ProviderGCP:
      return gcpControlPlaneConfig(networkingZones(workers), existingConfig(input, 'controlPlaneConfig'), FIELD.zones);
    case ProviderOpenStack:
      return openstackControlPlaneConfig(input.config);
    case ProviderAlicloud:
      return alicloudControlPlaneConfig();
  }
}

function existingConfig(input: ConversionInput, key: 'infrastructureConfig' | 'controlPlaneConfig'): RawConfig | undefined {
  const live = input.existing?.spec.provider[key];
  // Only a config of the same provider is a base to keep settings from.
  return isRecord(live) && input.existing?.spec.provider.type === input.runtime.spec.shoot.provider.type ? live : undefined;
}

export function checkProviderType(input: ConversionInput): void {
  const type: string = input.runtime.spec.shoot.provider.type;
  if (![ProviderAWS, ProviderAzure, ProviderGCP, ProviderOpenStack, ProviderAlicloud].includes(type)) {
    throw new ConversionError('spec.shoot.provider.type', `provider ${type} is not supported`);
  }
  const existingType = input.existing?.spec.provider.type;
  if (existingType !== undefined && existingType !== type) {
    throw new ConversionError('spec.shoot.provider.type', `the Shoot runs on ${existingType}; the provider cannot change to ${type}`);
  }
}

export function buildProvider(input: ConversionInput): ShootProvider {
  const runtimeProvider = input.runtime.spec.shoot.provider;
  const workers = convertWorkers(input);
  if (workers.length === 0) throw new ConversionError('spec.shoot.provider.workers', 'at least one worker pool is required');
  // A configuration given in the Runtime wins over the generated one (upstream: "provided externally").
  const infrastructureConfig = runtimeProvider.infrastructureConfig ? cloneJson(runtimeProvider.infrastructureConfig) : generatedInfrastructureConfig(input, workers);
  const controlPlaneConfig = runtimeProvider.controlPlaneConfig ? cloneJson(runtimeProvider.controlPlaneConfig) : generatedControlPlaneConfig(input, workers);
  return {
    type: runtimeProvider.type,
    infrastructureConfig,
    controlPlaneConfig,
    workers,
    workersSettings: { sshAccess: { enabled: false } },
  };
}
