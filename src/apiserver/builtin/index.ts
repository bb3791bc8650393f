// Entry points the API server core calls for built-in kinds: defaulting, create/update
// strategies, validation and omitempty cleanup, dispatched by group and kind.
import type { FieldError } from '../errors.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { mutatingWebhookConfiguration, validatingWebhookConfiguration } from './admission.js';
import { configMap, endpoints, namespace, persistentVolumeClaim, pod, secret, serviceAccount } from './core.js';
import { dropEmptyFor } from './empty.js';
import { coreEvent, eventsV1Event, lease } from './events.js';
import { NAMESPACED_SUBDOMAIN, type CreateContext, type KindBehaviour } from './kinds.js';
import { checkName } from './names.js';
import { horizontalPodAutoscaler, ingress, networkPolicy, podDisruptionBudget, priorityClass } from './policy.js';
import { clusterRole, clusterRoleBinding, role, roleBinding } from './rbac.js';
import { service } from './service.js';
import { cronJob, daemonSet, deployment, job, replicaSet, statefulSet } from './workloads.js';

export type { CreateContext } from './kinds.js';
export { eventFromCore, eventToCore } from './events.js';
export { generationMetadata, statusMetadataResets } from './metadata-rules.js';

const KINDS = new Map<string, KindBehaviour>([
  ['/Namespace', namespace],
  ['/ConfigMap', configMap],
  ['/Secret', secret],
  ['/ServiceAccount', serviceAccount],
  ['/Service', service],
  ['/Endpoints', endpoints],
  ['/Event', coreEvent],
  ['/Pod', pod],
  ['/PersistentVolumeClaim', persistentVolumeClaim],
  ['events.k8s.io/Event', eventsV1Event],
  ['coordination.k8s.io/Lease', lease],
  ['apps/Deployment', deployment],
  ['apps/StatefulSet', statefulSet],
  ['apps/DaemonSet', daemonSet],
  ['apps/ReplicaSet', replicaSet],
  ['batch/Job', job],
  ['batch/CronJob', cronJob],
  ['networking.k8s.io/NetworkPolicy', networkPolicy],
  ['networking.k8s.io/Ingress', ingress],
  ['policy/PodDisruptionBudget', podDisruptionBudget],
  ['scheduling.k8s.io/PriorityClass', priorityClass],
  ['autoscaling/HorizontalPodAutoscaler', horizontalPodAutoscaler],
  ['rbac.authorization.k8s.io/Role', role],
  ['rbac.authorization.k8s.io/ClusterRole', clusterRole],
  ['rbac.authorization.k8s.io/RoleBinding', roleBinding],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', clusterRoleBinding],
  ['admissionregistration.k8s.io/ValidatingWebhookConfiguration', validatingWebhookConfiguration],
  ['admissionregistration.k8s.io/MutatingWebhookConfiguration', mutatingWebhookConfiguration],
]);

function behaviourOf(group: string, kind: string): KindBehaviour | undefined {
  return KINDS.get(`${group}/${kind}`);
}

/** kube-apiserver's defaulting (SetDefaults_*) for the kind, plus fields Go always serializes. Mutates obj. */
export function applyBuiltinDefaults(group: string, kind: string, obj: ObjectWithMeta): void {
  behaviourOf(group, kind)?.defaults?.(obj);
}

/** The kind's strategy on create (status reset, server-owned fields, allocations). Mutates obj. */
export function prepareForCreate(group: string, kind: string, obj: ObjectWithMeta, ctx: CreateContext): void {
  behaviourOf(group, kind)?.prepareCreate?.(obj, ctx);
}

/** The kind's strategy on update of the main resource: keeps what is immutable or server-owned. Mutates obj. */
export function prepareForUpdate(group: string, kind: string, obj: ObjectWithMeta, old: ObjectWithMeta): void {
  behaviourOf(group, kind)?.prepareUpdate?.(obj, old);
}

/**
 * The kind's validation, as kube-apiserver v1.24 words it. The metadata.name format is left to
 * validateName(), which the core runs first on create (the name cannot change on update).
 */
export function validateBuiltin(group: string, kind: string, obj: ObjectWithMeta, old?: ObjectWithMeta): FieldError[] {
  const b = behaviourOf(group, kind);
  if (!b?.validate) return [];
  return b.validate(obj, old);
}

/** Drops empty maps and slices that Go's omitempty would not serialize. Mutates obj. */
/** An object of a served version (batch/v1beta1) as the stable version it is stored in (batch/v1) has it, apiVersion aside. */
export function toStorageVersion(group: string, version: string, kind: string, obj: ObjectWithMeta): ObjectWithMeta {
  return behaviourOf(group, kind)?.versions?.[version]?.toStorage(obj) ?? obj;
}

/** A stored object as a served older version (batch/v1beta1) has it, apiVersion aside. */
export function fromStorageVersion(group: string, version: string, kind: string, obj: ObjectWithMeta): ObjectWithMeta {
  return behaviourOf(group, kind)?.versions?.[version]?.fromStorage(obj) ?? obj;
}

export function dropEmptyFields(group: string, kind: string, obj: ObjectWithMeta): void {
  dropEmptyFor(group, kind, obj);
}

/** metadata.name format messages for the kind (DNS subdomain for custom resources and unknown kinds). */
export function validateName(group: string, kind: string, name: string): string[] {
  if (name === '') return [];
  const b = behaviourOf(group, kind);
  const rules = b?.meta ?? NAMESPACED_SUBDOMAIN;
  return [...checkName(rules.name, name), ...(b?.extraName?.(name) ?? [])];
}
