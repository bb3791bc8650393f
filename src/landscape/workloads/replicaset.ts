// kube-controller-manager's replica set controller, simulated: as many pods as `spec.replicas`
// (named `<replicaset>-<5 random characters>`, labels and annotations from the template, owned by
// the ReplicaSet), the surplus deleted (not ready and newest first), and the status counted from
// the pods. The pass runs `readyDelayMs` after a change (the time the pods take to start): each new
// pod is placed by the scheduler before it is created, so it is created bound (one write instead of
// a create and a binding), and its node's kubelet runs it at once; so the status is written once,
// with the pods running. A pod nobody can place is created unbound and waits for a node.
import { nowRfc3339 } from '../../apiserver/objects.js';
import { StatusError } from '../../apiserver/errors.js';
import { jsonEqual } from '../../kube/json.js';
import { type ClusterView, CONTROLLER_MANAGER, controllerRef, isRaceLost } from './cluster-view.js';
import { pickNode, placementOf, startPod } from './pods.js';
import { byCreation, type Pod, podActive, podReady, replicasOf, type ReplicaSet, type ReplicaSetCondition } from './types.js';

/** What a pass leaves to do later: milliseconds until pods count as available, or a retry after a failed create. */
export type ReplicaSetResult = number | undefined;

export async function syncReplicaSet(view: ClusterView, namespace: string, name: string): Promise<ReplicaSetResult> {
  const rs = view.get<ReplicaSet>('replicasets', namespace, name);
  if (!rs || rs.metadata.deletionTimestamp) return undefined;
  let pods = view.controlledBy<Pod>('pods', rs).filter(podActive);
  const want = replicasOf(rs);
  let failure: string | undefined;
  if (pods.length < want) {
    const placement = placementOf(view);
    for (let i = pods.length; i < want; i++) {
      const node = pickNode(placement, rs.spec.template?.spec ?? {}).node;
      try {
        const pod = (await view.create('pods', newPod(rs, node?.metadata.name), CONTROLLER_MANAGER)) as Pod;
        pods.push(node ? await startPod(view, pod, node) : pod);
      } catch (err) {
        if (!(err instanceof StatusError)) throw err;
        failure = err.message;
        break;
      }
    }
  } else if (pods.length > want) {
    const victims = [...pods].sort(deletionOrder).slice(0, pods.length - want);
    for (const pod of victims) {
      await view.delete('pods', pod, CONTROLLER_MANAGER).catch((err: unknown) => {
        if (!isRaceLost(err)) throw err;
      });
    }
    pods = pods.filter((p) => !victims.includes(p));
  }
  const { status, availableIn } = replicaSetStatus(rs, pods, failure);
  if (!jsonEqual(rs.status ?? {}, status)) {
    try {
      await view.update('replicasets', { ...rs, status }, CONTROLLER_MANAGER, 'status');
    } catch (err) {
      if (!isRaceLost(err)) throw err;
    }
  }
  return failure ? FAILED_CREATE_RETRY_MS : availableIn;
}

/** How soon a ReplicaSet whose pod create failed (a namespace being deleted, a webhook's no) tries again. */
const FAILED_CREATE_RETRY_MS = 5000;

function newPod(rs: ReplicaSet, nodeName: string | undefined): Pod {
  const template = rs.spec.template ?? {};
  const meta = template.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${rs.metadata.name ?? ''}-`,
      namespace: rs.metadata.namespace,
      ...(meta.labels ? { labels: meta.labels } : {}),
      ...(meta.annotations ? { annotations: meta.annotations } : {}),
      ownerReferences: [controllerRef(rs, 'apps/v1', 'ReplicaSet')],
    },
    spec: { ...(template.spec ?? {}), ...(nodeName ? { nodeName } : {}) },
  };
}

/** ActivePodsWithRanks, simplified: unbound before bound, pending before running, not ready before ready, newest first. */
function deletionOrder(a: Pod, b: Pod): number {
  const rank = (p: Pod) => (p.spec.nodeName ? 1 : 0) * 4 + (p.status?.phase === 'Running' ? 1 : 0) * 2 + (podReady(p) ? 1 : 0);
  return rank(a) - rank(b) || -byCreation(a, b);
}

/** calculateStatus of the replica set controller, plus when the next pod turns available (minReadySeconds). */
function replicaSetStatus(rs: ReplicaSet, pods: Pod[], failure: string | undefined): { status: NonNullable<ReplicaSet['status']>; availableIn?: number } {
  const templateLabels = rs.spec.template?.metadata?.labels ?? {};
  const minReadyMs = (rs.spec.minReadySeconds ?? 0) * 1000;
  const now = Date.now();
  let ready = 0;
  let available = 0;
  let availableIn: number | undefined;
  for (const p of pods) {
    if (!podReady(p)) continue;
    ready++;
    const since = Date.parse((p.status?.conditions ?? []).find((c) => c.type === 'Ready')?.lastTransitionTime ?? '') || 0;
    const wait = since + minReadyMs - now;
    if (minReadyMs === 0 || wait <= 0) available++;
    else availableIn = Math.min(availableIn ?? wait, wait);
  }
  const fullyLabeled = pods.filter((p) => Object.entries(templateLabels).every(([k, v]) => p.metadata.labels?.[k] === v)).length;
  // Go's omitempty: replicas is always written, the other counts only when not zero.
  const status: NonNullable<ReplicaSet['status']> = { replicas: pods.length };
  if (fullyLabeled) status.fullyLabeledReplicas = fullyLabeled;
  if (ready) status.readyReplicas = ready;
  if (available) status.availableReplicas = available;
  status.observedGeneration = rs.metadata.generation ?? 1;
  const conditions = (rs.status?.conditions ?? []).filter((c) => c.type !== 'ReplicaFailure');
  if (failure) {
    const previous = (rs.status?.conditions ?? []).find((c) => c.type === 'ReplicaFailure');
    const c: ReplicaSetCondition = { type: 'ReplicaFailure', status: 'True', lastTransitionTime: previous?.lastTransitionTime ?? nowRfc3339(), reason: 'FailedCreate', message: failure };
    conditions.push(c);
  }
  if (conditions.length > 0) status.conditions = conditions;
  return { status, availableIn };
}
