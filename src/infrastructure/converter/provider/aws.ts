// AWS: InfrastructureConfig with one workers, public and internal subnet per zone, carved out of the
// node network exactly as upstream (hyperscaler/aws) does; ControlPlaneConfig; IMDSv2 worker config.
import { containsAddress, formatPrefix, parseIpv4Prefix, prefixSize } from '../cidr.js';
import { ConversionError } from '../errors.js';
import { isRecord, type RawConfig } from '../types.js';

export const AWS_API_VERSION = 'aws.provider.extensions.gardener.cloud/v1alpha1';

const ZONE_BITS = 3; // 2^3 slots: at most 8 zones
const MIN_PREFIX = 16;
const MAX_PREFIX = 24;
const MAX_ZONES = 8;
/** The first three zones (the Kyma worker pool's) get large subnets; zones 4 to 8 small ones. */
const LARGE_ZONES = 3;

export interface AwsZone {
  name: string;
  workers: string;
  public: string;
  internal: string;
}

/**
 * Subnets per zone. For a /p node network: zones 1-3 get workers /p+3, public and internal /p+4
 * (together a /p+2 block each); zones 4-8 get three /p+6 subnets each, after the first three blocks.
 * For 10.250.0.0/16: eu-central-1a workers 10.250.0.0/19, public 10.250.32.0/20, internal 10.250.48.0/20.
 */
export function awsZoneSubnets(nodesCidr: string, zoneNames: readonly string[], field: { nodes: string; zones: string }): AwsZone[] {
  if (zoneNames.length < 1 || zoneNames.length > MAX_ZONES) {
    throw new ConversionError(field.zones, `number of networking zones must be between 1 and ${MAX_ZONES}, got ${zoneNames.length}`);
  }
  const prefix = parseIpv4Prefix(nodesCidr);
  if (!prefix) throw new ConversionError(field.nodes, `${nodesCidr} is not an IPv4 CIDR`);
  if (prefix.bits < MIN_PREFIX || prefix.bits > MAX_PREFIX) {
    throw new ConversionError(field.nodes, `CIDR prefix length must be between ${MIN_PREFIX} and ${MAX_PREFIX} to be split into zone subnets, got /${prefix.bits}`);
  }
  const largeBits = prefix.bits + ZONE_BITS;
  const largeStep = prefixSize(largeBits + 1); // a public or internal subnet; the workers subnet is two steps
  const smallBits = largeBits + 3;
  const smallStep = prefixSize(smallBits);

  const subnet = (addr: number, bits: number, zone: string): string => {
    if (!containsAddress(prefix, addr)) throw new ConversionError(field.nodes, `subnet ${formatPrefix(addr, bits)} for zone ${zone} is not inside ${nodesCidr}`);
    return formatPrefix(addr, bits);
  };

  const seen = new Set<string>();
  let base = prefix.base;
  return zoneNames.map((name, i) => {
    if (seen.has(name)) throw new ConversionError(field.zones, `zone ${name} is listed twice`);
    seen.add(name);
    const large = i < LARGE_ZONES;
    const step = large ? largeStep : smallStep;
    const workers = subnet(base, large ? largeBits : smallBits, name);
    base += large ? 2 * step : step;
    const pub = subnet(base, large ? largeBits + 1 : smallBits, name);
    base += step;
    const internal = subnet(base, large ? largeBits + 1 : smallBits, name);
    base += step;
    return { name, workers, public: pub, internal };
  });
}

export function awsInfrastructureConfig(nodesCidr: string, zones: readonly string[], existing: RawConfig | undefined, field: { nodes: string; zones: string }): RawConfig {
  const awsZones: Record<string, unknown>[] = awsZoneSubnets(nodesCidr, zones, field).map((z) => ({ ...z }));
  const config: RawConfig = {
    apiVersion: AWS_API_VERSION,
    kind: 'InfrastructureConfig',
    networks: { vpc: { cidr: nodesCidr }, zones: awsZones },
  };
  if (existing) keepExistingAwsSettings(config, existing);
  return config;
}

/** On a patch, settings Gardener or an operator put into the live config survive (upstream NewInfrastructureConfigForPatch). */
function keepExistingAwsSettings(config: RawConfig, existing: RawConfig): void {
  for (const key of ['ignoreTags', 'enableECRAccess', 'dualStack']) if (existing[key] !== undefined) config[key] = existing[key];
  const oldNetworks = isRecord(existing.networks) ? existing.networks : {};
  const oldVpc = isRecord(oldNetworks.vpc) ? oldNetworks.vpc : {};
  const networks = config.networks as { vpc: RawConfig; zones: RawConfig[] };
  if (oldVpc.id !== undefined) networks.vpc.id = oldVpc.id;
  if (oldVpc.gatewayEndpoints !== undefined) networks.vpc.gatewayEndpoints = oldVpc.gatewayEndpoints;
  const oldZones = Array.isArray(oldNetworks.zones) ? oldNetworks.zones.filter(isRecord) : [];
  for (const zone of networks.zones) {
    const old = oldZones.find((z) => z.name === zone.name);
    if (old?.elasticIPAllocationID !== undefined) zone.elasticIPAllocationID = old.elasticIPAllocationID;
  }
}

export function awsControlPlaneConfig(): RawConfig {
  return { apiVersion: AWS_API_VERSION, kind: 'ControlPlaneConfig' };
}

/** Worker config that requires IMDSv2 (session tokens) with a hop limit of 2, as upstream sets it. */
export function awsImdsV2WorkerConfig(): RawConfig {
  return {
    apiVersion: AWS_API_VERSION,
    kind: 'WorkerConfig',
    instanceMetadataOptions: { httpTokens: 'required', httpPutResponseHopLimit: 2 },
  };
}

/** Zone names of an AWS (or Azure, Alicloud) InfrastructureConfig, in their order. */
export function infrastructureZoneNames(config: RawConfig | undefined): string[] {
  const networks = isRecord(config?.networks) ? config.networks : {};
  const zones = Array.isArray(networks.zones) ? networks.zones : [];
  return zones.filter(isRecord).map((z) => String(z.name));
}
