// Readiness of an installed module: its manager (Deployment or StatefulSet) and the state its
// operator reports in the default custom resource (upstream internal/manifest/statecheck and
// CustomResourceReadyCheck).
import { type ManifestObject, type State, States } from '../../api/operator/index.js';
import { findObject } from '../../runtime/client/find.js';
import type { Client } from '../../runtime/client/interface.js';
import { type KubeObject, splitApiVersion } from '../../kube/object.js';
import { CUSTOM_STATE_CHECK_ANNOTATION, Messages, MISSING_STATE_WARNING_MS } from './constants.js';
import { refKey, refOf } from './inventory.js';

export interface StateInfo {
  state: State;
  /** Why the state is not Ready, for lastOperation and conditions. */
  info?: string;
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
}

/** The manager of the module: `spec.manager`, else the first Deployment or StatefulSet of the manifest (as upstream). */
export function findManager(manifest: ManifestObject, objects: readonly KubeObject[]): KubeObject | undefined {
  const m = manifest.spec.manager;
  if (m) {
    return objects.find((o) => {
      const { group, version } = splitApiVersion(o.apiVersion);
      return group === m.group && (version === m.version || !m.version) && o.kind === m.kind && o.metadata.name === m.name && (o.metadata.namespace ?? '') === (m.namespace ?? o.metadata.namespace ?? '');
    });
  }
  return objects.find((o) => o.apiVersion === 'apps/v1' && (o.kind === 'Deployment' || o.kind === 'StatefulSet'));
}

const PROGRESSING_REASONS = new Set(['NewReplicaSetAvailable', 'FoundNewReplicaSet', 'NewReplicaSetCreated', 'ReplicaSetUpdated']);

/**
 * Whether the workload's controller has not yet seen its latest spec (as `kubectl rollout status`
 * checks): its status, conditions included, still describes the generation before. The answer to
 * an apply that changed the spec is such a copy.
 */
function specNotObserved(workload: KubeObject): boolean {
  const observed = (workload.status as { observedGeneration?: number } | undefined)?.observedGeneration;
  const generation = workload.metadata.generation;
  return observed !== undefined && generation !== undefined && observed < generation;
}

/** Deployment state from its Progressing and Available conditions (upstream DeploymentStateCheck). */
export function deploymentState(deploy: KubeObject): StateInfo {
  if (specNotObserved(deploy)) return { state: States.Processing, info: Messages.ManagerNotReady };
  const status = (deploy.status ?? {}) as { conditions?: Condition[]; readyReplicas?: number; observedGeneration?: number };
  const conds = status.conditions ?? [];
  const progressing = conds.find((c) => c.type === 'Progressing');
  const available = conds.find((c) => c.type === 'Available');
  if (!progressing && !available) {
    // Not yet seen by a deployment controller: still coming up, not failed (upstream never meets
    // this window because kube's controller sets the conditions at once).
    const replicas = (deploy.spec as { replicas?: number } | undefined)?.replicas ?? 1;
    if (status.observedGeneration !== undefined && (status.readyReplicas ?? 0) >= replicas) return { state: States.Ready };
    return { state: States.Processing, info: Messages.ManagerNotReady };
  }
  const isAvailable = available?.status === 'True';
  if (progressing?.status === 'True' && progressing.reason && PROGRESSING_REASONS.has(progressing.reason)) {
    if (isAvailable && progressing.reason === 'NewReplicaSetAvailable') return { state: States.Ready };
    return { state: States.Processing, info: Messages.ManagerNotReady };
  }
  return { state: States.Error, info: `deployment ${deploy.metadata.name ?? ''} is not progressing${progressing?.reason ? `: ${progressing.reason}` : ''}` };
}

/** StatefulSet state: Ready when all replicas are ready (upstream StatefulSetStateCheck, without the pod inspection). */
export function statefulSetState(sts: KubeObject): StateInfo {
  if (specNotObserved(sts)) return { state: States.Processing, info: `statefulset ${sts.metadata.name ?? ''} is not ready` };
  const replicas = (sts.spec as { replicas?: number } | undefined)?.replicas ?? 1;
  const ready = (sts.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0;
  return ready >= replicas ? { state: States.Ready } : { state: States.Processing, info: `statefulset ${sts.metadata.name ?? ''} is not ready` };
}

/** The manager as the cluster has it: from `live` (objects just read back or applied) or a GET; undefined when it is not there. */
export async function readManager(client: Client, manager: KubeObject, live: ReadonlyMap<string, KubeObject>, signal: AbortSignal): Promise<KubeObject | undefined> {
  return live.get(refKey(refOf(manager))) ?? findObject(client, manager, { namespace: manager.metadata.namespace, name: manager.metadata.name ?? '' }, { signal });
}

/** State of the manager as read (undefined: not there yet). */
export function managerStateOf(current: KubeObject | undefined): StateInfo {
  if (!current) return { state: States.Processing, info: Messages.ManagerNotReady };
  return current.kind === 'StatefulSet' ? statefulSetState(current) : deploymentState(current);
}

/**
 * Whether status changes of the custom resource `cr` come as their own watcher events: the module
 * installs its CRD, and the CR's version has the status subresource (the status Watcher sees
 * writes of `/status` only).
 */
export function statusSubresourceOf(cr: KubeObject, objects: readonly KubeObject[]): boolean {
  const { group, version } = splitApiVersion(cr.apiVersion);
  return objects.some((o) => {
    if (o.kind !== 'CustomResourceDefinition') return false;
    const spec = (o as KubeObject & { spec?: { group?: string; names?: { kind?: string }; versions?: { name?: string; subresources?: { status?: unknown } }[] } }).spec;
    if (spec?.group !== group || spec.names?.kind !== cr.kind) return false;
    return (spec.versions ?? []).some((v) => v.name === version && v.subresources?.status !== undefined);
  });
}

interface CustomStateCheck {
  jsonPath: string;
  value: string;
  mappedState: State;
}

const DEFAULT_CHECKS: CustomStateCheck[] = [States.Ready, States.Error, States.Deleting, States.Warning].map((s) => ({ jsonPath: 'status.state', value: s, mappedState: s }));
const SUPPORTED = new Set<string>([States.Ready, States.Processing, States.Error, States.Deleting, States.Warning]);

function readPath(obj: unknown, path: string): string | undefined {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return typeof cur === 'string' ? cur : undefined;
}

/** The module state its custom resource reports (upstream HandleState with the custom-state-check annotation). */
export function moduleCRState(manifest: ManifestObject, cr: KubeObject, now = Date.now()): StateInfo {
  const custom = manifest.metadata.annotations?.[CUSTOM_STATE_CHECK_ANNOTATION];
  let checks = DEFAULT_CHECKS;
  if (custom !== undefined) {
    try {
      checks = JSON.parse(custom) as CustomStateCheck[];
    } catch {
      return { state: States.Error, info: `invalid ${CUSTOM_STATE_CHECK_ANNOTATION} annotation` };
    }
    if (!checks.some((c) => c.mappedState === States.Ready) || !checks.some((c) => c.mappedState === States.Error)) {
      return { state: States.Error, info: 'required Ready and Error state mapping are missing' };
    }
  }
  const results = new Map<State, boolean>();
  let found = false;
  for (const c of checks) {
    const value = readPath(cr, c.jsonPath);
    if (value === undefined) continue;
    if (custom === undefined && !SUPPORTED.has(value)) return { state: States.Warning, info: Messages.ModuleCRStateUnsupported };
    found = true;
    results.set(c.mappedState, (results.get(c.mappedState) ?? true) && value === c.value);
  }
  if (!found) {
    // Without a state for 5 minutes since the module began installing: the later of the Manifest's and
    // the CR's creation (a fleet's Manifests may wait in the queue longer than that before their CR exists).
    const created = Math.max(Date.parse(manifest.metadata.creationTimestamp ?? ''), Date.parse(cr.metadata.creationTimestamp ?? ''));
    const late = Number.isFinite(created) && now - created > MISSING_STATE_WARNING_MS;
    return { state: late ? States.Warning : States.Processing, info: Messages.ModuleCRStateMissing };
  }
  for (const s of [States.Error, States.Ready, States.Warning, States.Deleting] as const) if (results.get(s)) return s === States.Ready ? { state: s } : { state: s, info: `module CR ${cr.metadata.name ?? ''} reports ${s}` };
  return { state: States.Processing, info: `module CR ${cr.metadata.name ?? ''} is processing` };
}
