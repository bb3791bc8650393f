// Checks of Runtime and GardenerCluster objects that their CRD schemas cannot express (labels are out
// of CEL's reach; network overlap and zone names need more than CEL offers). The controllers run these
// before acting on an object; an empty list means the object is fine.
import { isIP } from 'node:net';
import { LabelKymaRuntimeID, LabelKymaShootName, requiredRuntimeLabels } from './runtime.js';

export interface FieldIssue {
  /** Path of the offending field, e.g. `spec.shoot.networking.pods` or `metadata.labels[kyma-project.io/runtime-id]`. */
  field: string;
  message: string;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function obj(v: unknown): Obj {
  return isObj(v) ? v : {};
}
function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

// ---------------------------------------------------------------------------------------------
// CIDRs.

export interface CidrRange {
  family: 4 | 6;
  /** First and last address of the network, as integers. */
  first: bigint;
  last: bigint;
}

function ipv4ToBigInt(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function ipv6ToBigInt(ip: string): bigint {
  let text = ip;
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hex groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = ipv4ToBigInt(v4[1]);
    text = text.slice(0, -v4[1].length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** Parses `a.b.c.d/n` or an IPv6 CIDR into its address range; undefined when it is not a CIDR. */
export function parseCidr(text: string): CidrRange | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = text.slice(0, slash);
  const bitsText = text.slice(slash + 1);
  const family = isIP(ip);
  if ((family !== 4 && family !== 6) || !/^\d{1,3}$/.test(bitsText)) return undefined;
  const width = family === 4 ? 32 : 128;
  const bits = Number(bitsText);
  if (bits > width) return undefined;
  const addr = family === 4 ? ipv4ToBigInt(ip) : ipv6ToBigInt(ip);
  const hostBits = BigInt(width - bits);
  const first = (addr >> hostBits) << hostBits;
  const last = first | ((1n << hostBits) - 1n);
  return { family, first, last };
}

/** Do two CIDRs share an address? (Different IP families never overlap.) */
export function cidrsOverlap(a: CidrRange, b: CidrRange): boolean {
  return a.family === b.family && a.first <= b.last && b.first <= a.last;
}

// ---------------------------------------------------------------------------------------------
// Zones.

/**
 * Does `zone` name an availability zone of `region` for the provider? AWS and OpenStack append a
 * letter to the region (`eu-central-1a`), GCP a dash and a letter (`europe-west3-a`), Azure numbers
 * its zones (`1`, `2`, `3`), Alibaba Cloud does either of the first two (`eu-central-1a`, `cn-beijing-a`).
 */
export function zoneBelongsToRegion(provider: string, region: string, zone: string): boolean {
  const rest = zone.startsWith(region) ? zone.slice(region.length) : undefined;
  switch (provider) {
    case 'aws':
    case 'openstack':
      return rest !== undefined && /^[a-z]$/.test(rest);
    case 'gcp':
      return rest !== undefined && /^-[a-z]$/.test(rest);
    case 'azure':
      return /^[1-9]$/.test(zone);
    case 'alicloud':
      return rest !== undefined && /^-?[a-z]$/.test(rest);
    default:
      return true;
  }
}

function zoneHint(provider: string, region: string): string {
  switch (provider) {
    case 'aws':
    case 'openstack':
      return `${region}a`;
    case 'gcp':
      return `${region}-a`;
    case 'azure':
      return '1';
    default:
      return `${region}a`;
  }
}

function isZeroIntOrString(v: unknown): boolean {
  return v === 0 || v === '0' || v === '0%';
}

// ---------------------------------------------------------------------------------------------
// Runtime.

/** Problems of a Runtime that its CRD schema cannot catch. */
export function validateRuntime(runtime: unknown): FieldIssue[] {
  const out: FieldIssue[] = [];
  const root = obj(runtime);
  const labels = obj(obj(root.metadata).labels);

  for (const key of requiredRuntimeLabels) {
    const value = labels[key];
    if (typeof value !== 'string' || value === '') out.push({ field: `metadata.labels[${key}]`, message: `missing required label ${key}` });
  }

  const shoot = obj(obj(root.spec).shoot);
  const shootName = str(shoot.name);
  const shootLabel = str(labels[LabelKymaShootName]);
  if (shootLabel !== undefined && shootName !== undefined && shootLabel !== shootName) {
    out.push({ field: `metadata.labels[${LabelKymaShootName}]`, message: `label ${LabelKymaShootName} is ${shootLabel} but spec.shoot.name is ${shootName}` });
  }

  // Networks must not overlap.
  const networking = obj(shoot.networking);
  const nets = (['pods', 'nodes', 'services'] as const)
    .map((name) => ({ name, text: str(networking[name]) }))
    .filter((n): n is { name: 'pods' | 'nodes' | 'services'; text: string } => n.text !== undefined)
    .map((n) => ({ ...n, range: parseCidr(n.text) }));
  for (const n of nets) {
    if (n.range === undefined) out.push({ field: `spec.shoot.networking.${n.name}`, message: `${n.text} is not a valid CIDR` });
  }
  for (let i = 0; i < nets.length; i++) {
    for (let j = i + 1; j < nets.length; j++) {
      const a = nets[i];
      const b = nets[j];
      if (a.range && b.range && cidrsOverlap(a.range, b.range)) {
        out.push({ field: `spec.shoot.networking.${b.name}`, message: `${b.name} network ${b.text} overlaps with the ${a.name} network ${a.text} (spec.shoot.networking.${a.name})` });
      }
    }
  }

  // Worker pools: names unique across both lists, zones in the region, not both surge and unavailability zero.
  const provider = obj(shoot.provider);
  const providerType = str(provider.type) ?? '';
  const region = str(shoot.region) ?? '';
  const seen = new Map<string, string>();
  for (const listName of ['workers', 'additionalWorkers'] as const) {
    list(provider[listName]).forEach((w, i) => {
      const worker = obj(w);
      const path = `spec.shoot.provider.${listName}[${i}]`;
      const name = str(worker.name);
      if (name !== undefined) {
        const first = seen.get(name);
        if (first !== undefined) out.push({ field: `${path}.name`, message: `worker pool name ${name} is already used by ${first}` });
        else seen.set(name, path);
      }
      if (region !== '') {
        list(worker.zones).forEach((z, k) => {
          if (typeof z === 'string' && !zoneBelongsToRegion(providerType, region, z)) {
            out.push({ field: `${path}.zones[${k}]`, message: `zone ${z} is not a ${providerType} zone of region ${region} (expected e.g. ${zoneHint(providerType, region)})` });
          }
        });
      }
      if (worker.maxSurge !== undefined && worker.maxUnavailable !== undefined && isZeroIntOrString(worker.maxSurge) && isZeroIntOrString(worker.maxUnavailable)) {
        out.push({ field: `${path}.maxUnavailable`, message: 'maxSurge and maxUnavailable must not both be 0' });
      }
    });
  }

  // The kube-apiserver ACL's CIDRs must parse exactly (the schema checks their shape only).
  const acl = obj(obj(obj(shoot.kubernetes).kubeAPIServer).acl);
  list(acl.allowedCIDRs).forEach((c, i) => {
    if (typeof c === 'string' && parseCidr(c) === undefined) out.push({ field: `spec.shoot.kubernetes.kubeAPIServer.acl.allowedCIDRs[${i}]`, message: `${c} is not a valid CIDR` });
  });

  return out;
}

// ---------------------------------------------------------------------------------------------
// GardenerCluster.

/** Problems of a GardenerCluster that its CRD schema cannot catch. */
export function validateGardenerCluster(cluster: unknown): FieldIssue[] {
  const out: FieldIssue[] = [];
  const root = obj(cluster);
  const metadata = obj(root.metadata);
  const labels = obj(metadata.labels);
  const spec = obj(root.spec);

  const runtimeID = labels[LabelKymaRuntimeID];
  if (runtimeID !== undefined && (typeof runtimeID !== 'string' || runtimeID === '')) {
    out.push({ field: `metadata.labels[${LabelKymaRuntimeID}]`, message: `label ${LabelKymaRuntimeID} must not be empty` });
  }
  const shootName = str(obj(spec.shoot).name);
  const shootLabel = str(labels[LabelKymaShootName]);
  if (shootLabel !== undefined && shootName !== undefined && shootLabel !== shootName) {
    out.push({ field: `metadata.labels[${LabelKymaShootName}]`, message: `label ${LabelKymaShootName} is ${shootLabel} but spec.shoot.name is ${shootName}` });
  }
  return out;
}
