// Pods from scheduling to Running: kube-scheduler's choice of a node (Ready, schedulable, node
// selector matched, NoSchedule/NoExecute taints tolerated, fewest pods first), the binding, the
// status a node's kubelet writes once every container runs (phase Running, Ready, container
// statuses, IPs from the node's pod network), and the pod GC of pods whose node is gone.
//
// Containers run as soon as the kubelet looks at the pod (the callers delay that look): images are
// not pulled, probes, resources and restarts are not simulated; a container's image ID and container
// ID are derived from the image reference and the pod's uid.
import { createHash } from 'node:crypto';
import { nowRfc3339 } from '../../apiserver/objects.js';
import { formatIpv4, parseIpv4Prefix, prefixSize } from '../../infrastructure/converter/cidr.js';
import { type ClusterView, CONTROLLER_MANAGER, isRaceLost, kubeletOf, SCHEDULER } from './cluster-view.js';
import { type Container, type Node, nodeReady, type Pod, type PodCondition, type PodSpec, type Taint, type Toleration } from './types.js';

/** Nodes of a cluster and how many pods each runs: what a scheduling pass decides on. */
export interface Placement {
  nodes: Node[];
  podsOn: Map<string, number>;
}

export function placementOf(view: ClusterView): Placement {
  const nodes = view.list<Node>('nodes').sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const podsOn = new Map<string, number>();
  for (const pod of view.list<Pod>('pods')) {
    const n = pod.spec.nodeName;
    if (n) podsOn.set(n, (podsOn.get(n) ?? 0) + 1);
  }
  return { nodes, podsOn };
}

function tolerates(tolerations: Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

/** Why a node does not fit the pod (kube-scheduler's filter messages), or undefined when it fits. */
function unfit(node: Node, spec: PodSpec): string | undefined {
  if (!nodeReady(node)) return "node(s) had untolerated taint {node.kubernetes.io/not-ready: }";
  if (node.spec?.unschedulable) return 'node(s) were unschedulable';
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) if (labels[k] !== v) return "node(s) didn't match Pod's node affinity/selector";
  for (const taint of node.spec?.taints ?? []) {
    if (taint.effect === 'PreferNoSchedule') continue;
    if (!tolerates(spec.tolerations ?? [], taint)) return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
  }
  return undefined;
}

/**
 * The node for a pod: among those it fits, the one running the fewest pods (then by name). The
 * choice is counted in the placement, so a pass that places several pods spreads them.
 */
export function pickNode(p: Placement, spec: PodSpec): { node?: Node; reason?: string } {
  const reasons = new Map<string, number>();
  let best: Node | undefined;
  for (const node of p.nodes) {
    const why = unfit(node, spec);
    if (why) {
      reasons.set(why, (reasons.get(why) ?? 0) + 1);
      continue;
    }
    if (!best || (p.podsOn.get(node.metadata.name ?? '') ?? 0) < (p.podsOn.get(best.metadata.name ?? '') ?? 0)) best = node;
  }
  if (best) {
    const name = best.metadata.name ?? '';
    p.podsOn.set(name, (p.podsOn.get(name) ?? 0) + 1);
    return { node: best };
  }
  if (p.nodes.length === 0) return { reason: 'no nodes available to schedule pods' };
  const n = p.nodes.length;
  const detail = [...reasons.entries()].map(([why, count]) => `${count} ${why}`).sort().join(', ');
  return { reason: `0/${n} nodes are available: ${detail}. preemption: 0/${n} nodes are available: ${n} Preemption is not helpful for scheduling.` };
}

/** A pending pod nobody could place: PodScheduled False, Unschedulable (written once per reason). */
async function markUnschedulable(view: ClusterView, pod: Pod, reason: string): Promise<void> {
  const conditions = pod.status?.conditions ?? [];
  const current = conditions.find((c) => c.type === 'PodScheduled');
  if (current?.status === 'False' && current.message === reason) return;
  const scheduled: PodCondition = { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: nowRfc3339(), reason: 'Unschedulable', message: reason };
  const status = { ...(pod.status ?? {}), conditions: [...conditions.filter((c) => c.type !== 'PodScheduled'), scheduled] };
  await view.update('pods', { ...pod, status }, SCHEDULER, 'status');
  // Why a module's pods do not run: worth seeing without debug, and written once per reason.
  view.log.info('pod unschedulable', { pod: `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`, reason });
}

/**
 * One look of the scheduler and the kubelet at a pod: an unbound pod is bound (or marked
 * unschedulable), a bound one whose node is gone is deleted (pod GC), a bound pending one is
 * started.
 */
export async function syncPod(view: ClusterView, namespace: string, name: string): Promise<void> {
  const pod = view.get<Pod>('pods', namespace, name);
  if (!pod || pod.metadata.deletionTimestamp) return;
  const nodeName = pod.spec.nodeName;
  try {
    if (!nodeName) {
      const { node, reason } = pickNode(placementOf(view), pod.spec);
      if (node) {
        view.cluster.bindPod(namespace, name, node.metadata.name ?? '');
        if (view.log.enabled('debug')) view.log.debug('pod bound', { pod: `${namespace}/${name}`, node: node.metadata.name });
      } else await markUnschedulable(view, pod, reason ?? '');
      return;
    }
    const node = view.get<Node>('nodes', '', nodeName);
    if (!node) {
      await view.delete('pods', pod, CONTROLLER_MANAGER, { gracePeriodSeconds: 0 });
      if (view.log.enabled('debug')) view.log.debug('pod deleted: its node is gone', { pod: `${namespace}/${name}`, node: nodeName });
      return;
    }
    await startPod(view, pod, node);
  } catch (err) {
    if (!isRaceLost(err)) throw err;
  }
}

/** The node's kubelet runs a pending pod bound to it (when the node is Ready); returns the pod as it is then. */
export async function startPod(view: ClusterView, pod: Pod, node: Node): Promise<Pod> {
  if (pod.status?.phase !== 'Pending' || (pod.status.containerStatuses ?? []).length > 0 || !nodeReady(node)) return pod;
  return (await view.update('pods', { ...pod, status: runningStatus(view, pod, node) }, kubeletOf(node.metadata.name ?? ''), 'status')) as Pod;
}

/** The lowest address of the node's pod network (after the network and gateway addresses) not used by another pod on it. */
function freePodIP(view: ClusterView, node: Node): string | undefined {
  const nodeName = node.metadata.name ?? '';
  const net = parseIpv4Prefix(node.spec?.podCIDR ?? '');
  if (!net) return undefined;
  const used = new Set<string>();
  for (const p of view.list<Pod>('pods', undefined, `"nodeName":"${nodeName}"`)) if (p.spec.nodeName === nodeName && p.status?.podIP) used.add(p.status.podIP);
  for (let i = 2; i < prefixSize(net.bits) - 1; i++) {
    const ip = formatIpv4(net.base + i);
    if (!used.has(ip)) return ip;
  }
  return undefined;
}

/** The image as the container runtime reports it: registry and tag filled in (`nginx` -> `docker.io/library/nginx:latest`). */
export function normalizedImage(image: string): string {
  const slash = image.indexOf('/');
  const first = slash < 0 ? '' : image.slice(0, slash);
  let ref = image;
  if (!(first.includes('.') || first.includes(':') || first === 'localhost')) ref = `docker.io/${slash < 0 ? 'library/' : ''}${image}`;
  const last = ref.slice(ref.lastIndexOf('/') + 1);
  if (!ref.includes('@') && !last.includes(':')) ref += ':latest';
  return ref;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function containerStatus(pod: Pod, c: Container, startedAt: string, init: boolean): Record<string, unknown> {
  const image = normalizedImage(c.image ?? '');
  const repository = image.replace(/@.*$/, '').replace(/:[^:/]*$/, '');
  const containerID = `containerd://${sha256(`${pod.metadata.uid ?? ''}/${c.name}`)}`;
  const state = init ? { terminated: { exitCode: 0, reason: 'Completed', startedAt, finishedAt: startedAt, containerID } } : { running: { startedAt } };
  return {
    name: c.name,
    state,
    lastState: {},
    ready: !init,
    restartCount: 0,
    image,
    imageID: `${repository}@sha256:${sha256(image)}`,
    containerID,
    started: !init,
  };
}

/** The status a kubelet writes once the pod's init containers completed and its containers run. */
export function runningStatus(view: ClusterView, pod: Pod, node: Node): Record<string, unknown> {
  const now = nowRfc3339();
  const hostIP = (node.status?.addresses ?? []).find((a) => a.type === 'InternalIP')?.address ?? '';
  const podIP = pod.spec.hostNetwork ? hostIP : (freePodIP(view, node) ?? hostIP);
  const previous = pod.status ?? {};
  const scheduled = (previous.conditions ?? []).find((c) => c.type === 'PodScheduled' && c.status === 'True');
  const cond = (type: string): PodCondition => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now });
  const status: Record<string, unknown> = {
    phase: 'Running',
    conditions: [cond('PodReadyToStartContainers'), cond('Initialized'), cond('Ready'), cond('ContainersReady'), scheduled ?? { ...cond('PodScheduled'), lastTransitionTime: pod.metadata.creationTimestamp ?? now }],
    hostIP,
    hostIPs: [{ ip: hostIP }],
    podIP,
    podIPs: [{ ip: podIP }],
    startTime: now,
  };
  const inits = pod.spec.initContainers ?? [];
  if (inits.length > 0) status.initContainerStatuses = inits.map((c) => containerStatus(pod, c, now, true));
  status.containerStatuses = (pod.spec.containers ?? []).map((c) => containerStatus(pod, c, now, false));
  if (previous.qosClass !== undefined) status.qosClass = previous.qosClass;
  return status;
}
