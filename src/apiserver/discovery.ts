// Discovery documents: /api, /apis, /apis/<group>, and the resource list of a group version.
import type { LogicalCluster } from './cluster.js';
import { groupVersion, type ResourceType } from './resources.js';
import { scaleSubresourceOf } from './scale.js';

export const SERVER_VERSION = {
  major: '1',
  minor: '24',
  gitVersion: 'v1.24.0-kcp',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.18',
  compiler: 'gc',
  platform: 'linux/amd64',
};

export function apiVersions(): unknown {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] };
}

interface GroupInfo {
  group: { kind: 'APIGroup'; apiVersion: 'v1'; name: string; versions: { groupVersion: string; version: string }[]; preferredVersion: { groupVersion: string; version: string } };
  versions: string[];
}

/** Each cluster's groups as last built, kept until its served types change (every request to `/apis/...` asks). */
const groupsByCluster = new WeakMap<LogicalCluster, { generation: number; groups: ReadonlyMap<string, GroupInfo> }>();

/** Non-core groups with their versions, the preferred (first registered) version first; shared, not to be changed. */
export function groupDiscovery(c: LogicalCluster): ReadonlyMap<string, GroupInfo> {
  const cached = groupsByCluster.get(c);
  if (cached?.generation === c.typesGeneration) return cached.groups;
  const groups = buildGroups(c);
  groupsByCluster.set(c, { generation: c.typesGeneration, groups });
  return groups;
}

function buildGroups(c: LogicalCluster): Map<string, GroupInfo> {
  const out = new Map<string, GroupInfo>();
  for (const t of c.servedTypes()) {
    if (t.group === '') continue;
    let g = out.get(t.group);
    if (!g) {
      const pv = { groupVersion: groupVersion(t), version: t.version };
      g = { group: { kind: 'APIGroup', apiVersion: 'v1', name: t.group, versions: [], preferredVersion: pv }, versions: [] };
      out.set(t.group, g);
    }
    if (!g.versions.includes(t.version)) {
      g.versions.push(t.version);
      g.group.versions.push({ groupVersion: groupVersion(t), version: t.version });
    }
  }
  for (const g of out.values()) {
    // Custom resource groups prefer the highest-priority version as kube sorts them (v2 > v1 > v1beta1 ...).
    const sorted = [...g.group.versions].sort((a, b) => compareKubeVersions(a.version, b.version));
    if (c.customTypeList().some((t) => t.group === g.group.name)) {
      g.group.versions = sorted;
      g.versions = sorted.map((v) => v.version);
    }
    g.group.preferredVersion = g.group.versions[0];
  }
  return out;
}

/** Kubernetes version priority: GA > beta > alpha, then higher numbers first; others alphabetical. */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return { kind: 3, major: 0, minor: 0 };
    return { kind: m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2, major: Number(m[1]), minor: Number(m[3] ?? 0) };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa.kind !== pb.kind) return pa.kind - pb.kind;
  if (pa.kind === 3) return a < b ? -1 : a > b ? 1 : 0;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}

export function apiGroupList(c: LogicalCluster): unknown {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: [...groupDiscovery(c).values()].map((g) => ({ name: g.group.name, versions: g.group.versions, preferredVersion: g.group.preferredVersion })) };
}

/** Verbs of extension subresources by `group/resource` (set by the server), and the kind they take if not the resource's. */
export type ExtensionVerbs = ReadonlyMap<string, { subresource: string; verbs: string[]; kind?: { group: string; version: string; kind: string } }[]>;

function resourceEntries(t: ResourceType, extensions?: ExtensionVerbs): Record<string, unknown>[] {
  const main: Record<string, unknown> = { name: t.resource, singularName: t.crd ? t.singular : '', namespaced: t.namespaced, kind: t.kind, verbs: t.verbs };
  if (t.shortNames.length > 0) main.shortNames = t.shortNames;
  if (t.categories.length > 0) main.categories = t.categories;
  const out = [main];
  // A scale subresource is an autoscaling/v1 Scale; built-in groups list it before status (sorted), CRDs after.
  const scale = scaleSubresourceOf(t) ? { name: `${t.resource}/scale`, singularName: '', namespaced: t.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] } : undefined;
  if (scale && !t.crd) out.push(scale);
  if (t.status) out.push({ name: `${t.resource}/status`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'patch', 'update'] });
  if (scale && t.crd) out.push(scale);
  if (t.kind === 'Namespace' && t.group === '') out.push({ name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] });
  for (const e of extensions?.get(`${t.group}/${t.resource}`) ?? []) {
    const kind = e.kind ? { group: e.kind.group, version: e.kind.version, kind: e.kind.kind } : { kind: t.kind };
    out.push({ name: `${t.resource}/${e.subresource}`, singularName: '', namespaced: t.namespaced, ...kind, verbs: e.verbs });
  }
  return out;
}

export function apiResourceList(c: LogicalCluster, group: string, version: string, extensions?: ExtensionVerbs): unknown {
  const types = c.servedTypes().filter((t) => t.group === group && t.version === version);
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources: types.flatMap((t) => resourceEntries(t, extensions)) };
}
