// Node objects as a kubelet registers them (status included, Ready at once): addresses, capacity and
// allocatable from the machine's size, the usual conditions and node info. The Gardener simulator
// registers the nodes of a shoot's worker pools with these; the kubelet simulation registers a few
// plain ones in clusters that have no Gardener behind them.
//
// Nodes are not kept alive: there are no heartbeats (lastHeartbeatTime stays the registration time)
// and no Lease objects in kube-node-lease.
import { SERVER_VERSION } from '../../apiserver/discovery.js';
import { nowRfc3339 } from '../../apiserver/objects.js';
import { fnv1a32 } from '../../util/fnv.js';
import type { Node, Taint } from './types.js';

export interface NodeShape {
  name: string;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  taints?: Taint[];
  internalIP: string;
  /** An InternalDNS address besides the Hostname one (AWS nodes have one). */
  internalDNS?: string;
  podCIDR: string;
  providerID?: string;
  cpu: number;
  memoryGi: number;
  /** Size of the root volume. */
  diskGi: number;
  /** CPU (millicores) and memory (MiB) kept back for the kubelet and the system. */
  reserved: { cpuMilli: number; memoryMi: number };
  architecture: string;
  kubeletVersion: string;
  osImage: string;
  kernelVersion: string;
  containerRuntimeVersion: string;
}

/** Pods a kubelet accepts by default (maxPods). */
const MAX_PODS = '110';
/** The kubelet's default hard eviction thresholds: memory.available 100Mi, nodefs.available 10%. */
const EVICTION_MEMORY_MI = 100;
const EVICTION_DISK_FRACTION = 0.1;

/** A stable, uuid-shaped identifier derived from a seed (machine ID, system UUID, boot ID). */
function pseudoId(seed: string, dashes: boolean): string {
  let hex = '';
  for (let i = 0; hex.length < 32; i++) hex += fnv1a32(`${seed}#${i}`).toString(16).padStart(8, '0');
  return dashes ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}` : hex;
}

export function nodeObject(s: NodeShape, now = nowRfc3339()): Node {
  const memoryKi = s.memoryGi * 1024 * 1024;
  const diskBytes = s.diskGi * 1024 ** 3;
  const condition = (type: string, status: string, reason: string, message: string) => ({ type, status, lastHeartbeatTime: now, lastTransitionTime: now, reason, message });
  const addresses = [{ type: 'InternalIP', address: s.internalIP }, ...(s.internalDNS ? [{ type: 'InternalDNS', address: s.internalDNS }] : []), { type: 'Hostname', address: s.internalDNS ?? s.name }];
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: s.name,
      labels: s.labels,
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true', ...(s.annotations ?? {}) },
    },
    spec: {
      podCIDR: s.podCIDR,
      podCIDRs: [s.podCIDR],
      ...(s.providerID ? { providerID: s.providerID } : {}),
      ...(s.taints && s.taints.length > 0 ? { taints: s.taints } : {}),
    },
    status: {
      capacity: { cpu: String(s.cpu), 'ephemeral-storage': `${s.diskGi * 1024 * 1024}Ki`, 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: `${memoryKi}Ki`, pods: MAX_PODS },
      allocatable: {
        cpu: `${s.cpu * 1000 - s.reserved.cpuMilli}m`,
        'ephemeral-storage': String(Math.floor(diskBytes * (1 - EVICTION_DISK_FRACTION))),
        'hugepages-1Gi': '0',
        'hugepages-2Mi': '0',
        memory: `${memoryKi - (s.reserved.memoryMi + EVICTION_MEMORY_MI) * 1024}Ki`,
        pods: MAX_PODS,
      },
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses,
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: pseudoId(`${s.name}/machine`, false),
        systemUUID: pseudoId(`${s.name}/system`, true),
        bootID: pseudoId(`${s.name}/boot`, true),
        kernelVersion: s.kernelVersion,
        osImage: s.osImage,
        containerRuntimeVersion: s.containerRuntimeVersion,
        kubeletVersion: s.kubeletVersion,
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: s.architecture,
      },
    },
  };
}

/** The labels every kubelet puts on its node. */
export function kubeletLabels(name: string, architecture: string): Record<string, string> {
  return {
    'beta.kubernetes.io/arch': architecture,
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': architecture,
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
  };
}

/** Nodes the kubelet simulation registers in a cluster without Gardener: `node-1` .. `node-<count>`, 2 CPUs and 8 GiB each. */
export function plainNodes(count: number): Node[] {
  const version = `v${SERVER_VERSION.major}.${SERVER_VERSION.minor}.0`;
  return Array.from({ length: count }, (_, i) => {
    const name = `node-${i + 1}`;
    return nodeObject({
      name,
      labels: kubeletLabels(name, 'amd64'),
      internalIP: `10.250.0.${i + 2}`,
      podCIDR: `100.96.${i}.0/24`,
      cpu: 2,
      memoryGi: 8,
      diskGi: 50,
      reserved: { cpuMilli: 80, memoryMi: 1024 },
      architecture: 'amd64',
      kubeletVersion: version,
      osImage: 'Garden Linux 1592.9',
      kernelVersion: '6.6.84-cloud-amd64',
      containerRuntimeVersion: 'containerd://1.7.24',
    });
  });
}
