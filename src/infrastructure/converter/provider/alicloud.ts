// Alibaba Cloud: a VPC with the node network and one /p+3 vSwitch network per zone.
import { containsAddress, formatPrefix, parseIpv4Prefix, prefixSize } from '../cidr.js';
import { ConversionError } from '../errors.js';
import { isRecord, type RawConfig } from '../types.js';

export const ALICLOUD_API_VERSION = 'alicloud.provider.extensions.gardener.cloud/v1alpha1';

const ZONE_BITS = 3;
const MAX_ZONES = 8;

/** For 10.250.0.0/16 and two zones: 10.250.0.0/19 and 10.250.32.0/19. */
export function alicloudZoneSubnets(nodesCidr: string, zoneNames: readonly string[], field: { nodes: string; zones: string }): { name: string; workers: string }[] {
  if (zoneNames.length < 1 || zoneNames.length > MAX_ZONES) throw new ConversionError(field.zones, `number of networking zones must be between 1 and ${MAX_ZONES}, got ${zoneNames.length}`);
  const prefix = parseIpv4Prefix(nodesCidr);
  if (!prefix) throw new ConversionError(field.nodes, `${nodesCidr} is not an IPv4 CIDR`);
  if (prefix.bits < 16 || prefix.bits > 24) throw new ConversionError(field.nodes, `CIDR prefix length must be between 16 and 24 to be split into zone subnets, got /${prefix.bits}`);
  const bits = prefix.bits + ZONE_BITS;
  const seen = new Set<string>();
  return zoneNames.map((name, i) => {
    if (seen.has(name)) throw new ConversionError(field.zones, `zone ${name} is listed twice`);
    seen.add(name);
    const addr = prefix.base + i * prefixSize(bits);
    if (!containsAddress(prefix, addr)) throw new ConversionError(field.nodes, `subnet ${formatPrefix(addr, bits)} for zone ${name} is not inside ${nodesCidr}`);
    return { name, workers: formatPrefix(addr, bits) };
  });
}

export function alicloudInfrastructureConfig(nodesCidr: string, zones: readonly string[], existing: RawConfig | undefined, field: { nodes: string; zones: string }): RawConfig {
  const config: RawConfig = {
    apiVersion: ALICLOUD_API_VERSION,
    kind: 'InfrastructureConfig',
    networks: { vpc: { cidr: nodesCidr }, zones: alicloudZoneSubnets(nodesCidr, zones, field).map((z) => ({ ...z })) },
  };
  // An existing VPC the live config names stays.
  const oldNetworks = isRecord(existing?.networks) ? existing.networks : {};
  const oldVpc = isRecord(oldNetworks.vpc) ? oldNetworks.vpc : {};
  const networks = config.networks as { vpc: RawConfig };
  if (oldVpc.id !== undefined) networks.vpc.id = oldVpc.id;
  return config;
}

export function alicloudControlPlaneConfig(): RawConfig {
  return { apiVersion: ALICLOUD_API_VERSION, kind: 'ControlPlaneConfig' };
}
