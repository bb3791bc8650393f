// The machines of a shoot's worker pools, as Gardener's machine-controller-manager would create them:
// for each pool its `minimum` machines spread evenly over the pool's zones (the first zones get one
// more when it does not divide), named `<technical id>-<pool>-z<zone index>-<class hash>-<suffix>`
// (machine deployment, machine class, machine). Each registers a Node of that name whose size follows
// the machine type.
import { createHash } from 'node:crypto';
import type { ShootObject, Worker } from '../../api/gardener/index.js';
import type { LogicalCluster } from '../../apiserver/cluster.js';
import { formatIpv4, formatPrefix, parseIpv4Prefix, prefixSize } from '../../infrastructure/converter/cidr.js';
import { ClusterView, isRaceLost, kubeletOf, type Writer } from '../workloads/cluster-view.js';
import { stableSuffix } from '../workloads/hash.js';
import { kubeletLabels, nodeObject } from '../workloads/nodes.js';
import type { Node } from '../workloads/types.js';

/** Label Gardener puts on every node of a worker pool. */
export const LabelWorkerPool = 'worker.gardener.cloud/pool';

/** Gardener's defaults when the Shoot leaves them out. */
const DEFAULT_NODES_CIDR = '10.250.0.0/16';
const DEFAULT_PODS_CIDR = '100.96.0.0/11';
const DEFAULT_VOLUME_GI = 50;
/** Gardener's static kubeReserved (cpu 80m, memory 1Gi). */
const KUBE_RESERVED = { cpuMilli: 80, memoryMi: 1024 };

export interface Machine {
  name: string;
  pool: Worker;
  zone: string;
}

/** Gardener's DistributeOverZones: `count` machines over `zones`, the remainder to the first ones. */
function perZone(count: number, zones: number, zoneIndex: number): number {
  return Math.floor(count / zones) + (zoneIndex < count % zones ? 1 : 0);
}

function kubernetesVersion(shoot: ShootObject, pool: Worker): string {
  const v = String((pool.kubernetes as { version?: string } | undefined)?.version ?? shoot.spec.kubernetes?.version ?? '1.31.0');
  return v.split('.').length === 2 ? `${v}.0` : v;
}

/** The machines the Shoot's workers ask for (their `minimum`; no autoscaling). */
export function machinesOf(shoot: ShootObject, technicalID: string): Machine[] {
  const out: Machine[] = [];
  for (const pool of shoot.spec.provider.workers ?? []) {
    const zones = pool.zones && pool.zones.length > 0 ? pool.zones : [`${shoot.spec.region}a`];
    const classHash = stableSuffix(`${pool.machine.type}/${pool.machine.image?.name ?? ''}/${pool.machine.image?.version ?? ''}/${kubernetesVersion(shoot, pool)}`);
    zones.forEach((zone, z) => {
      const deployment = `${technicalID}-${pool.name}-z${z + 1}`;
      for (let i = 0; i < perZone(pool.minimum, zones.length, z); i++) out.push({ name: `${deployment}-${classHash}-${stableSuffix(`${deployment}-${classHash}/${i}`)}`, pool, zone });
    });
  }
  return out;
}

/** vCPUs of the sizes AWS and Alibaba Cloud name (`large`, `2xlarge`, ...). */
const SIZE_CPUS: Record<string, number> = { medium: 1, large: 2, xlarge: 4, '2xlarge': 8, '3xlarge': 12, '4xlarge': 16, '6xlarge': 24, '8xlarge': 32, '12xlarge': 48, '16xlarge': 64, '24xlarge': 96, '32xlarge': 128, '48xlarge': 192 };
/** GiB per vCPU of a family letter (general purpose 4, compute 2, memory 8). */
const FAMILY_GIB_PER_CPU: Record<string, number> = { m: 4, t: 4, g: 4, c: 2, f: 2, r: 8, e: 8, x: 16, d: 4, b: 4 };

/**
 * vCPUs and memory of a machine type, read from the providers' naming schemes: AWS `m6i.large`,
 * Alibaba Cloud `ecs.g7.xlarge`, GCP `n2-standard-4` / `highmem` / `highcpu`, Azure `Standard_D4s_v5`,
 * SAP's OpenStack `g_c4_m16`. An unknown name gets 2 vCPUs and 8 GiB.
 */
export function machineSize(type: string): { cpu: number; memoryGi: number } {
  const openstack = /^[a-z]+_c(\d+)_m(\d+)/.exec(type);
  if (openstack) return { cpu: Number(openstack[1]), memoryGi: Number(openstack[2]) };
  const gcp = /^[a-z]\w*-(standard|highmem|highcpu)-(\d+)$/.exec(type);
  if (gcp) {
    const cpu = Number(gcp[2]);
    return { cpu, memoryGi: cpu * (gcp[1] === 'highmem' ? 8 : gcp[1] === 'highcpu' ? 1 : 4) };
  }
  const azure = /^Standard_([A-Z]+)(\d+)/.exec(type);
  if (azure) {
    const cpu = Number(azure[2]);
    return { cpu, memoryGi: cpu * (FAMILY_GIB_PER_CPU[azure[1][0].toLowerCase()] ?? 4) };
  }
  const sized = /^(?:ecs\.)?([a-z])[a-z0-9-]*\.(\w+)$/.exec(type);
  if (sized && SIZE_CPUS[sized[2]]) {
    const cpu = SIZE_CPUS[sized[2]];
    return { cpu, memoryGi: cpu * (FAMILY_GIB_PER_CPU[sized[1]] ?? 4) };
  }
  return { cpu: 2, memoryGi: 8 };
}

/** The zone as the cloud reports it in topology labels (Azure numbers its zones within the region). */
function topologyZone(shoot: ShootObject, zone: string): string {
  return shoot.spec.provider.type === 'azure' && /^\d+$/.test(zone) ? `${shoot.spec.region}-${zone}` : zone;
}

function providerID(shoot: ShootObject, technicalID: string, m: Machine): string {
  const hex = createHash('sha256').update(m.name).digest('hex').slice(0, 17);
  switch (shoot.spec.provider.type) {
    case 'aws':
      return `aws:///${m.zone}/i-${hex}`;
    case 'gcp':
      return `gce://${technicalID}/${m.zone}/${m.name}`;
    case 'azure':
      return `azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/${technicalID}/providers/Microsoft.Compute/virtualMachines/${m.name}`;
    case 'alicloud':
      return `${shoot.spec.region}.i-${hex}`;
    default:
      return `${shoot.spec.provider.type}:///${hex}`;
  }
}

/** The Node a machine registers; `index` picks its address in the nodes network and its /24 of the pods network. */
export function machineNode(shoot: ShootObject, technicalID: string, m: Machine, index: number): Node {
  const nodes = parseIpv4Prefix(shoot.spec.networking?.nodes ?? DEFAULT_NODES_CIDR) ?? parseIpv4Prefix(DEFAULT_NODES_CIDR)!;
  const pods = parseIpv4Prefix(shoot.spec.networking?.pods ?? DEFAULT_PODS_CIDR) ?? parseIpv4Prefix(DEFAULT_PODS_CIDR)!;
  const pool = m.pool;
  const type = pool.machine.type;
  const arch = pool.machine.architecture ?? 'amd64';
  const version = kubernetesVersion(shoot, pool);
  const zone = topologyZone(shoot, m.zone);
  const region = shoot.spec.region;
  const image = pool.machine.image?.name ?? 'gardenlinux';
  const imageVersion = pool.machine.image?.version ?? '1592.9';
  const size = machineSize(type);
  return nodeObject({
    name: m.name,
    labels: {
      ...kubeletLabels(m.name, arch),
      'beta.kubernetes.io/instance-type': type,
      'failure-domain.beta.kubernetes.io/region': region,
      'failure-domain.beta.kubernetes.io/zone': zone,
      'node.kubernetes.io/instance-type': type,
      'node.kubernetes.io/role': 'node',
      'topology.kubernetes.io/region': region,
      'topology.kubernetes.io/zone': zone,
      'worker.garden.sapcloud.io/group': pool.name,
      'worker.gardener.cloud/cri-name': 'containerd',
      'worker.gardener.cloud/kubernetes-version': version,
      [LabelWorkerPool]: pool.name,
      'worker.gardener.cloud/system-components': String(pool.systemComponents?.allow ?? true),
      ...(pool.labels ?? {}),
    },
    annotations: pool.annotations,
    taints: pool.taints?.map((t) => ({ key: t.key, ...(t.value !== undefined ? { value: t.value } : {}), effect: t.effect })),
    internalIP: formatIpv4(nodes.base + ((10 + index) % prefixSize(nodes.bits))),
    podCIDR: pods.bits <= 24 ? formatPrefix(pods.base + ((index * prefixSize(24)) % prefixSize(pods.bits)), 24) : formatPrefix(pods.base, pods.bits),
    providerID: providerID(shoot, technicalID, m),
    cpu: size.cpu,
    memoryGi: size.memoryGi,
    diskGi: Number.parseInt(pool.volume?.size ?? '', 10) || DEFAULT_VOLUME_GI,
    reserved: KUBE_RESERVED,
    architecture: arch,
    kubeletVersion: `v${version}`,
    osImage: image === 'gardenlinux' ? `Garden Linux ${imageVersion}` : `${image} ${imageVersion}`,
    kernelVersion: `6.6.84-cloud-${arch}`,
    containerRuntimeVersion: 'containerd://1.7.24',
  });
}

/** Who removes the Node of a machine that is no longer wanted. */
const MACHINE_CONTROLLER_MANAGER: Writer = {
  fieldManager: 'machine-controller-manager',
  user: { username: 'system:serviceaccount:kube-system:machine-controller-manager', uid: 'machine-controller-manager', groups: ['system:serviceaccounts', 'system:authenticated'] },
};

function internalIP(n: Node): string | undefined {
  return (n.status?.addresses ?? []).find((a) => a.type === 'InternalIP')?.address;
}

/**
 * Makes the cluster's pool nodes those of the Shoot's workers: the Node of every wanted machine
 * registered (at the lowest free address), the Nodes of machines no longer wanted removed. Nodes
 * without the pool label are not Gardener's and stay.
 */
export async function syncShootNodes(cluster: LogicalCluster, shoot: ShootObject, technicalID: string): Promise<void> {
  const view = new ClusterView(cluster);
  const machines = machinesOf(shoot, technicalID);
  const wanted = new Set(machines.map((m) => m.name));
  const present = view.list<Node>('nodes');
  const usedIPs = new Set(present.map(internalIP));
  for (const n of present) {
    if (n.metadata.labels?.[LabelWorkerPool] === undefined || wanted.has(n.metadata.name ?? '')) continue;
    await view.delete('nodes', n, MACHINE_CONTROLLER_MANAGER).catch((err: unknown) => {
      if (!isRaceLost(err)) throw err;
    });
    usedIPs.delete(internalIP(n));
  }
  const registered = new Set(present.map((n) => n.metadata.name));
  let index = 0;
  for (const m of machines) {
    if (registered.has(m.name)) continue;
    let node = machineNode(shoot, technicalID, m, index);
    while (usedIPs.has(internalIP(node))) node = machineNode(shoot, technicalID, m, ++index);
    usedIPs.add(internalIP(node));
    await view.create('nodes', node, kubeletOf(m.name)).catch((err: unknown) => {
      if (!isRaceLost(err)) throw err;
    });
  }
}
