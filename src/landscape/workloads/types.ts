// The fields of Deployments, ReplicaSets, Pods and Nodes the simulated controllers read and write
// (apps/v1 and core/v1 names), and small helpers shared by them.
import type { ObjectWithMeta } from '../../kube/object.js';

export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; [k: string]: unknown };
  spec?: PodSpec;
}

export interface Container {
  name: string;
  image?: string;
  [k: string]: unknown;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  hostNetwork?: boolean;
  [k: string]: unknown;
}

export interface DeploymentCondition {
  type: string;
  status: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface Deployment extends ObjectWithMeta {
  spec: {
    replicas?: number;
    selector?: LabelSelectorObject;
    template?: PodTemplate;
    strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    progressDeadlineSeconds?: number;
    paused?: boolean;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    conditions?: DeploymentCondition[];
    collisionCount?: number;
  };
}

export interface ReplicaSetCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface ReplicaSet extends ObjectWithMeta {
  spec: { replicas?: number; minReadySeconds?: number; selector?: LabelSelectorObject; template?: PodTemplate };
  status?: {
    replicas?: number;
    fullyLabeledReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    observedGeneration?: number;
    conditions?: ReplicaSetCondition[];
  };
}

export interface PodCondition {
  type: string;
  status: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface Pod extends ObjectWithMeta {
  spec: PodSpec;
  status?: {
    phase?: string;
    conditions?: PodCondition[];
    podIP?: string;
    containerStatuses?: unknown[];
    [k: string]: unknown;
  };
}

export interface NodeCondition {
  type: string;
  status: string;
  [k: string]: unknown;
}

export interface Node extends ObjectWithMeta {
  spec?: { podCIDR?: string; podCIDRs?: string[]; unschedulable?: boolean; taints?: Taint[]; providerID?: string };
  status?: {
    conditions?: NodeCondition[];
    addresses?: { type: string; address: string }[];
    [k: string]: unknown;
  };
}

/** `spec.replicas` with its default of 1. */
export function replicasOf(o: { spec?: { replicas?: number } }): number {
  const r = o.spec?.replicas;
  return typeof r === 'number' ? r : 1;
}

/** Is the pod Ready (its Ready condition True)? */
export function podReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Still counted by its ReplicaSet: not being deleted, not Succeeded or Failed. */
export function podActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return !pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed';
}

/** Is the node Ready? */
export function nodeReady(node: Node): boolean {
  return (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Orders objects as kube's ByCreationTimestamp sorters do: creation time, then name. */
export function byCreation(a: ObjectWithMeta, b: ObjectWithMeta): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}
