// kube-controller-manager's deployment controller, simulated: a ReplicaSet per pod template (named
// `<deployment>-<pod-template-hash>`, the hash as label and in the selector, owned by the
// Deployment), revisions in `deployment.kubernetes.io/revision`, old ReplicaSets scaled to 0 and
// kept up to `revisionHistoryLimit`, and the Deployment's status and conditions computed from its
// ReplicaSets with kube's rules (calculateStatus, syncRolloutStatus), written once the ReplicaSets'
// controller has reported (see dueNow).
//
// Differences from kube, for a simulation whose pods start at once: a rolling update scales the new
// ReplicaSet to the full count in one step and the old ones to 0 once it is available (as with
// maxSurge 100%, maxUnavailable 0); Recreate scales the old ones to 0 first, then creates the new
// one. No Events are recorded, orphaned ReplicaSets are not adopted, and ProgressDeadlineExceeded is
// never reported (there is no timer). The Deployment's own revision annotation is written with its
// status through `/status`, as kube's controller does (SetDeploymentRevision, then UpdateStatus), in
// the pass that writes the status; `kubectl rollout undo` needs it (its JSON patch replaces
// /metadata/annotations, which must exist).
import { nowRfc3339 } from '../../apiserver/objects.js';
import { StatusError } from '../../apiserver/errors.js';
import { jsonEqual } from '../../kube/json.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { ClusterView, CONTROLLER_MANAGER, controllerOf, controllerRef, isRaceLost } from './cluster-view.js';
import { podTemplateHash } from './hash.js';
import { byCreation, type Deployment, type DeploymentCondition, type PodTemplate, replicasOf, type ReplicaSet } from './types.js';

export const POD_TEMPLATE_HASH = 'pod-template-hash';
export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
/** Annotations a Deployment does not copy to its ReplicaSets (annotationsToSkip). */
const NOT_COPIED = new Set(['kubectl.kubernetes.io/last-applied-configuration', REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, 'deprecated.deployment.rollback.to']);
/** Longest revision-history annotation (maxRevHistoryLengthInChars). */
const MAX_REVISION_HISTORY_CHARS = 2000;
/** progressDeadlineSeconds meaning "no deadline" (math.MaxInt32). */
const NO_DEADLINE = 2147483647;

/** One pass of the deployment controller over a Deployment; returns nothing (every change comes back as an event). */
export async function syncDeployment(view: ClusterView, namespace: string, name: string): Promise<void> {
  const d = view.get<Deployment>('deployments', namespace, name);
  if (!d) return;
  const all = view.controlledBy<ReplicaSet>('replicasets', d).sort(byCreation);
  let newRS = all.find((rs) => equalIgnoreHash(rs.spec.template, d.spec.template));
  let old = all.filter((rs) => rs !== newRS);
  const status = { ...(d.status ?? {}), conditions: [...(d.status?.conditions ?? [])] };
  if (d.metadata.deletionTimestamp) {
    await writeStatus(view, d, calculateStatus(d, status, all, newRS), newRS);
    return;
  }
  pausedCondition(d, status);
  if (d.spec.paused) {
    // Paused: scale what runs, start no rollout.
    if (newRS) newRS = await syncNewReplicaSet(view, d, newRS, old);
    const active = newRS ?? [...old].reverse().find((rs) => replicasOf(rs) > 0) ?? old[old.length - 1];
    if (active) await scale(view, d, active, replicasOf(d));
    await cleanup(view, d, old);
    const rss = refreshed(view, all);
    const current = newRS && rss.find((rs) => rs.metadata.uid === newRS!.metadata.uid);
    if (dueNow(d, status, rss)) await writeStatus(view, d, calculateStatus(d, status, rss, current), newRS);
    return;
  }
  const recreate = d.spec.strategy?.type === 'Recreate';
  if (recreate) {
    for (const rs of old) await scale(view, d, rs, 0);
  }
  const oldPodsLeft = old.some((rs) => (rs.status?.replicas ?? 0) > 0 || replicasOf(rs) > 0);
  if (!newRS && !(recreate && oldPodsLeft)) {
    const created = await createNewReplicaSet(view, d, old, status);
    if (!created) return;
    newRS = created;
    setCondition(status, condition('Progressing', 'True', 'NewReplicaSetCreated', `Created new replica set "${created.metadata.name ?? ''}"`));
  } else if (newRS) {
    newRS = await syncNewReplicaSet(view, d, newRS, old);
  }
  if (newRS && !(recreate && oldPodsLeft)) newRS = await scale(view, d, newRS, replicasOf(d));
  if (!recreate && newRS && newReplicaSetAvailable(d, newRS)) {
    for (const rs of old) await scale(view, d, rs, 0);
  }
  if (deploymentComplete(d, d.status ?? {})) await cleanup(view, d, old);
  old = refreshed(view, old);
  const current = newRS && view.get<ReplicaSet>('replicasets', namespace, newRS.metadata.name ?? '');
  const rss = current ? [...old, current] : old;
  if (!dueNow(d, status, rss)) return;
  const next = calculateStatus(d, status, rss, current);
  rolloutProgress(d, next, current);
  await writeStatus(view, d, next, newRS);
}

/**
 * Is the status to be written in this pass? Not while a ReplicaSet has a change its controller has
 * not observed yet (it reports within `readyDelayMs`, and its report brings the Deployment back): the
 * counts would be stale at once. Except when the pass moved on a condition the Deployment already
 * showed (a new rollout's NewReplicaSetCreated, a pause), which the next status builds on. So a new
 * Deployment gets one status write, with its pods running, where kube-controller-manager writes
 * three or four that the pods' start up makes outdated within a second.
 */
function dueNow(d: Deployment, status: Status, rss: ReplicaSet[]): boolean {
  const observed = rss.every((rs) => (rs.status?.observedGeneration ?? 0) >= (rs.metadata.generation ?? 1));
  const before = d.status?.conditions ?? [];
  return observed || (before.length > 0 && !jsonEqual(before, status.conditions));
}

// ---- ReplicaSets ---------------------------------------------------------------------------

/** EqualIgnoreHash: the templates are equal once the pod-template-hash label is dropped from both. */
export function equalIgnoreHash(a: PodTemplate | undefined, b: PodTemplate | undefined): boolean {
  return jsonEqual(withoutHash(a), withoutHash(b));
}

function withoutHash(t: PodTemplate | undefined): PodTemplate {
  const copy: PodTemplate = { ...(t ?? {}), metadata: { ...(t?.metadata ?? {}) } };
  const labels = { ...(copy.metadata!.labels ?? {}) };
  delete labels[POD_TEMPLATE_HASH];
  if (Object.keys(labels).length > 0) copy.metadata!.labels = labels;
  else delete copy.metadata!.labels;
  return copy;
}

function revisionOf(o: ObjectWithMeta): number {
  const v = Number.parseInt(o.metadata.annotations?.[REVISION] ?? '', 10);
  return Number.isNaN(v) ? 0 : v;
}

function maxRevision(rss: ReplicaSet[]): number {
  return rss.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
}

/** The new ReplicaSet for the Deployment's template (getNewReplicaSet with createIfNotExisted). */
async function createNewReplicaSet(view: ClusterView, d: Deployment, old: ReplicaSet[], status: NonNullable<Deployment['status']>): Promise<ReplicaSet | undefined> {
  const template = d.spec.template ?? {};
  const hash = podTemplateHash(template, d.status?.collisionCount);
  const labels = { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH]: hash };
  const selector = { ...(d.spec.selector ?? {}), matchLabels: { ...(d.spec.selector?.matchLabels ?? {}), [POD_TEMPLATE_HASH]: hash } };
  const rs: ReplicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata.name ?? ''}-${hash}`,
      namespace: d.metadata.namespace,
      labels,
      annotations: { ...copiedAnnotations(d), [REVISION]: String(maxRevision(old) + 1), ...replicasAnnotations(d) },
      ownerReferences: [controllerRef(d, 'apps/v1', 'Deployment')],
    },
    spec: {
      replicas: replicasOf(d),
      ...(d.spec.minReadySeconds ? { minReadySeconds: d.spec.minReadySeconds } : {}),
      selector,
      template: { ...template, metadata: { ...(template.metadata ?? {}), labels } },
    },
  };
  try {
    return (await view.create('replicasets', rs, CONTROLLER_MANAGER)) as ReplicaSet;
  } catch (err) {
    if (!(err instanceof StatusError) || err.code !== 409) throw err;
    const existing = view.get<ReplicaSet>('replicasets', d.metadata.namespace ?? '', rs.metadata.name ?? '');
    if (existing && controllerOf(existing)?.uid === d.metadata.uid && equalIgnoreHash(existing.spec.template, template)) return existing;
    // A hash collision with a ReplicaSet that is not this template's: count it, the next pass hashes again.
    status.collisionCount = (d.status?.collisionCount ?? 0) + 1;
    await writeStatus(view, d, status);
    return undefined;
  }
}

/** The existing new ReplicaSet: the Deployment's annotations copied, its revision moved past the old ones, minReadySeconds. */
async function syncNewReplicaSet(view: ClusterView, d: Deployment, rs: ReplicaSet, old: ReplicaSet[]): Promise<ReplicaSet> {
  const annotations = { ...(rs.metadata.annotations ?? {}) };
  for (const [k, v] of Object.entries(copiedAnnotations(d))) annotations[k] = v;
  const oldRevision = revisionOf(rs);
  const newRevision = maxRevision(old) + 1;
  if (oldRevision < newRevision) {
    annotations[REVISION] = String(newRevision);
    // Rolled back to this template: the revisions it served before are kept.
    if (rs.metadata.annotations?.[REVISION] !== undefined) annotations[REVISION_HISTORY] = appendHistory(annotations[REVISION_HISTORY], String(oldRevision));
  }
  const minReady = d.spec.minReadySeconds ?? 0;
  if (jsonEqual(annotations, rs.metadata.annotations ?? {}) && (rs.spec.minReadySeconds ?? 0) === minReady) return rs;
  const next: ReplicaSet = { ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...rs.spec, minReadySeconds: minReady } };
  if (!minReady) delete next.spec.minReadySeconds;
  return (await view.update('replicasets', next, CONTROLLER_MANAGER)) as ReplicaSet;
}

function appendHistory(history: string | undefined, revision: string): string {
  if (!history) return revision;
  const parts = history.split(',');
  let total = history.length + revision.length + 1;
  let start = 0;
  while (total > MAX_REVISION_HISTORY_CHARS && start < parts.length) total -= parts[start++].length + 1;
  return total <= MAX_REVISION_HISTORY_CHARS ? [...parts.slice(start), revision].join(',') : history;
}

function copiedAnnotations(d: Deployment): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) if (!NOT_COPIED.has(k)) out[k] = v;
  return out;
}

function replicasAnnotations(d: Deployment): Record<string, string> {
  return { [DESIRED_REPLICAS]: String(replicasOf(d)), [MAX_REPLICAS]: String(replicasOf(d) + maxSurge(d)) };
}

/** scaleReplicaSet: the size and the desired/max-replicas annotations, in one update when either is off. */
async function scale(view: ClusterView, d: Deployment, rs: ReplicaSet, replicas: number): Promise<ReplicaSet> {
  const fresh = view.get<ReplicaSet>('replicasets', rs.metadata.namespace ?? '', rs.metadata.name ?? '') ?? rs;
  const wanted = replicasAnnotations(d);
  const annotationsOff = Object.entries(wanted).some(([k, v]) => fresh.metadata.annotations?.[k] !== v);
  if (replicasOf(fresh) === replicas && !(annotationsOff && (replicas > 0 || replicasOf(fresh) > 0))) return fresh;
  const next: ReplicaSet = { ...fresh, metadata: { ...fresh.metadata, annotations: { ...(fresh.metadata.annotations ?? {}), ...wanted } }, spec: { ...fresh.spec, replicas } };
  return (await view.update('replicasets', next, CONTROLLER_MANAGER)) as ReplicaSet;
}

/** cleanupDeployment: old ReplicaSets beyond revisionHistoryLimit, oldest revisions first, once they run nothing. */
async function cleanup(view: ClusterView, d: Deployment, old: ReplicaSet[]): Promise<void> {
  const limit = d.spec.revisionHistoryLimit;
  if (typeof limit !== 'number') return;
  const alive = old.filter((rs) => !rs.metadata.deletionTimestamp);
  const excess = alive.length - limit;
  if (excess <= 0) return;
  alive.sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
  for (const rs of alive.slice(0, excess)) {
    const fresh = view.get<ReplicaSet>('replicasets', rs.metadata.namespace ?? '', rs.metadata.name ?? '');
    if (!fresh || (fresh.status?.replicas ?? 0) !== 0 || replicasOf(fresh) !== 0 || (fresh.metadata.generation ?? 0) > (fresh.status?.observedGeneration ?? 0)) continue;
    await view.delete('replicasets', fresh, CONTROLLER_MANAGER).catch((err: unknown) => {
      if (!isRaceLost(err)) throw err;
    });
  }
}

function refreshed(view: ClusterView, rss: ReplicaSet[]): ReplicaSet[] {
  return rss.map((rs) => view.get<ReplicaSet>('replicasets', rs.metadata.namespace ?? '', rs.metadata.name ?? '')).filter((rs): rs is ReplicaSet => rs !== undefined);
}

/** The new ReplicaSet has its full count available, as its controller last observed it. */
function newReplicaSetAvailable(d: Deployment, rs: ReplicaSet): boolean {
  const fresh = rs.status ?? {};
  return replicasOf(rs) === replicasOf(d) && (fresh.observedGeneration ?? 0) >= (rs.metadata.generation ?? 1) && (fresh.availableReplicas ?? 0) >= replicasOf(d);
}

// ---- status --------------------------------------------------------------------------------

/** An int-or-percent of the replica count, rounded up or down (intstr.GetScaledValueFromIntOrPercent). */
function scaled(v: number | string | undefined, fallback: string, total: number, roundUp: boolean): number {
  const value = v ?? fallback;
  if (typeof value === 'number') return value;
  const pct = Number.parseInt(value, 10);
  if (Number.isNaN(pct)) return 0;
  const exact = (pct * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** ResolveFenceposts: maxSurge rounded up, maxUnavailable rounded down, never both 0. */
function fenceposts(d: Deployment): { surge: number; unavailable: number } {
  if (d.spec.strategy?.type === 'Recreate') return { surge: 0, unavailable: 0 };
  const ru = d.spec.strategy?.rollingUpdate ?? {};
  const replicas = replicasOf(d);
  const surge = scaled(ru.maxSurge, '25%', replicas, true);
  let unavailable = scaled(ru.maxUnavailable, '25%', replicas, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

function maxSurge(d: Deployment): number {
  return fenceposts(d).surge;
}

function maxUnavailable(d: Deployment): number {
  if (replicasOf(d) === 0) return 0;
  return Math.min(fenceposts(d).unavailable, replicasOf(d));
}

function condition(type: string, status: string, reason: string, message: string): DeploymentCondition {
  const now = nowRfc3339();
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

type Status = NonNullable<Deployment['status']>;

/** SetDeploymentCondition: unchanged when status and reason are; the transition time kept when the status is. */
function setCondition(status: Status, c: DeploymentCondition): void {
  const list = status.conditions ?? [];
  const current = list.find((x) => x.type === c.type);
  if (current && current.status === c.status && current.reason === c.reason) return;
  if (current && current.status === c.status) c.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...list.filter((x) => x.type !== c.type), c];
}

function removeCondition(status: Status, type: string): void {
  status.conditions = (status.conditions ?? []).filter((c) => c.type !== type);
}

/** checkPausedConditions: Progressing Unknown DeploymentPaused while paused, DeploymentResumed after. */
function pausedCondition(d: Deployment, status: Status): void {
  if (!hasProgressDeadline(d)) return;
  const cond = (status.conditions ?? []).find((c) => c.type === 'Progressing');
  if (cond?.reason === 'ProgressDeadlineExceeded') return;
  const pausedNow = cond?.reason === 'DeploymentPaused';
  if (d.spec.paused && !pausedNow) setCondition(status, condition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused'));
  else if (!d.spec.paused && pausedNow) setCondition(status, condition('Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed'));
}

function hasProgressDeadline(d: Deployment): boolean {
  return typeof d.spec.progressDeadlineSeconds === 'number' && d.spec.progressDeadlineSeconds !== NO_DEADLINE;
}

/** calculateStatus: counts summed over the ReplicaSets, the Available condition from maxUnavailable. */
function calculateStatus(d: Deployment, base: Status, rss: ReplicaSet[], newRS: ReplicaSet | undefined): Status {
  const sum = (f: (rs: ReplicaSet) => number) => rss.reduce((n, rs) => n + f(rs), 0);
  const available = sum((rs) => rs.status?.availableReplicas ?? 0);
  const unavailable = Math.max(0, sum(replicasOf) - available);
  const counts: Record<string, number> = {
    observedGeneration: d.metadata.generation ?? 1,
    replicas: sum((rs) => rs.status?.replicas ?? 0),
    updatedReplicas: newRS?.status?.replicas ?? 0,
    readyReplicas: sum((rs) => rs.status?.readyReplicas ?? 0),
    availableReplicas: available,
    unavailableReplicas: unavailable,
  };
  // Go's omitempty: zero counts are not written.
  const status: Status = {};
  for (const [k, v] of Object.entries(counts)) if (v !== 0) (status as Record<string, number>)[k] = v;
  status.conditions = [...(base.conditions ?? [])];
  if (base.collisionCount !== undefined) status.collisionCount = base.collisionCount;
  if (available >= replicasOf(d) - maxUnavailable(d)) setCondition(status, condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'));
  else setCondition(status, condition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'));
  return status;
}

function deploymentComplete(d: Deployment, s: Status): boolean {
  const want = replicasOf(d);
  return (s.updatedReplicas ?? 0) === want && (s.replicas ?? 0) === want && (s.availableReplicas ?? 0) === want && (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 1);
}

/** The old status to the new one shows progress (DeploymentProgressing). */
function progressed(old: Status, next: Status): boolean {
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (next.replicas ?? 0) - (next.updatedReplicas ?? 0);
  return (next.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || (next.readyReplicas ?? 0) > (old.readyReplicas ?? 0) || (next.availableReplicas ?? 0) > (old.availableReplicas ?? 0) || newOld < oldOld;
}

/** syncRolloutStatus's Progressing condition: NewReplicaSetAvailable once complete, ReplicaSetUpdated on progress. */
function rolloutProgress(d: Deployment, next: Status, newRS: ReplicaSet | undefined): void {
  if (!hasProgressDeadline(d)) {
    removeCondition(next, 'Progressing');
    return;
  }
  const old = d.status ?? {};
  const current = (old.conditions ?? []).find((c) => c.type === 'Progressing');
  const complete = (next.replicas ?? 0) === (next.updatedReplicas ?? 0) && current?.reason === 'NewReplicaSetAvailable';
  if (complete) return;
  const what = newRS ? `ReplicaSet "${newRS.metadata.name ?? ''}"` : `Deployment "${d.metadata.name ?? ''}"`;
  if (deploymentComplete(d, next)) {
    setCondition(next, condition('Progressing', 'True', 'NewReplicaSetAvailable', `${what} has successfully progressed.`));
  } else if (progressed(old, next)) {
    const c = condition('Progressing', 'True', 'ReplicaSetUpdated', `${what} is progressing.`);
    const present = (next.conditions ?? []).find((x) => x.type === 'Progressing');
    if (present?.status === 'True') c.lastTransitionTime = present.lastTransitionTime;
    removeCondition(next, 'Progressing');
    setCondition(next, c);
  }
}

/**
 * Writes the status, and with it the new ReplicaSet's revision on the Deployment (SetDeploymentRevision),
 * when either differs by value from the stored one: one write through `/status`, which keeps the
 * annotations sent.
 */
async function writeStatus(view: ClusterView, d: Deployment, status: Status, newRS?: ReplicaSet): Promise<void> {
  const next = { ...status };
  if ((next.conditions ?? []).length === 0) delete next.conditions;
  const revision = newRS?.metadata.annotations?.[REVISION];
  const revised = revision !== undefined && d.metadata.annotations?.[REVISION] !== revision;
  if (jsonEqual(d.status ?? {}, next) && !revised) return;
  const metadata = revised ? { ...d.metadata, annotations: { ...(d.metadata.annotations ?? {}), [REVISION]: revision } } : d.metadata;
  await view.update('deployments', { ...d, metadata, status: next }, CONTROLLER_MANAGER, 'status');
}
