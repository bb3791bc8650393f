// Azure: a VNet with the node network and one /p+3 subnet per (numbered) zone, each with a NAT
// gateway, as upstream (hyperscaler/azure) computes them.
import { containsAddress, formatPrefix, parseIpv4Prefix, prefixSize } from '../cidr.js';
import { ConversionError } from '../errors.js';
import type { RawConfig } from '../types.js';

export const AZURE_API_VERSION = 'azure.provider.extensions.gardener.cloud/v1alpha1';

const ZONE_BITS = 3;
const MAX_ZONES = 8;

export interface AzureZone {
  name: number;
  cidr: string;
  natGateway: { enabled: boolean; idleConnectionTimeoutMinutes: number };
}

/** For 10.250.0.0/16 and zones 1, 2, 3: 10.250.0.0/19, 10.250.32.0/19, 10.250.64.0/19. */
export function azureZoneSubnets(nodesCidr: string, zoneNames: readonly string[], idleTimeoutMinutes: number, field: { nodes: string; zones: string }): AzureZone[] {
  // Old Azure lite clusters have no zones; zero is allowed.
  if (zoneNames.length > MAX_ZONES) throw new ConversionError(field.zones, `number of networking zones must be between 0 and ${MAX_ZONES}, got ${zoneNames.length}`);
  const prefix = parseIpv4Prefix(nodesCidr);
  if (!prefix) throw new ConversionError(field.nodes, `${nodesCidr} is not an IPv4 CIDR`);
  if (prefix.bits < 16 || prefix.bits > 24) throw new ConversionError(field.nodes, `CIDR prefix length must be between 16 and 24 to be split into zone subnets, got /${prefix.bits}`);
  const bits = prefix.bits + ZONE_BITS;
  const step = prefixSize(bits);
  const seen = new Set<number>();
  return zoneNames.map((zone, i) => {
    if (!/^[1-8]$/.test(zone)) throw new ConversionError(field.zones, `Azure zone ${zone} is not valid, must be a number between 1 and ${MAX_ZONES}`);
    const name = Number(zone);
    if (seen.has(name)) throw new ConversionError(field.zones, `zone ${zone} is listed twice`);
    seen.add(name);
    const addr = prefix.base + i * step;
    if (!containsAddress(prefix, addr)) throw new ConversionError(field.nodes, `subnet ${formatPrefix(addr, bits)} for zone ${zone} is not inside ${nodesCidr}`);
    // New runtimes always get a NAT gateway per zone (only old migrated clusters run without).
    return { name, cidr: formatPrefix(addr, bits), natGateway: { enabled: true, idleConnectionTimeoutMinutes: idleTimeoutMinutes } };
  });
}

export function azureInfrastructureConfig(nodesCidr: string, zones: readonly string[], idleTimeoutMinutes: number, existing: RawConfig | undefined, field: { nodes: string; zones: string }): RawConfig {
  const config: RawConfig = {
    apiVersion: AZURE_API_VERSION,
    kind: 'InfrastructureConfig',
    networks: { vnet: { cidr: nodesCidr }, zones: azureZoneSubnets(nodesCidr, zones, idleTimeoutMinutes, field).map((z) => ({ ...z })) },
    zoned: zones.length > 0,
  };
  // Settings of the live config the converter does not generate survive a patch.
  if (existing?.identity !== undefined) config.identity = existing.identity;
  return config;
}

export function azureControlPlaneConfig(): RawConfig {
  return { apiVersion: AZURE_API_VERSION, kind: 'ControlPlaneConfig' };
}
