// Go's `omitempty`: empty maps and slices that a real server would not write back.
import type { ObjectWithMeta } from '../../kube/object.js';
import { asObj, isEmptyValue, objItems, type Obj } from './json.js';

function dropEmpty(o: Obj | undefined, keys: readonly string[]): void {
  if (!o) return;
  for (const k of keys) if (k in o && isEmptyValue(o[k]) && o[k] !== null) delete o[k];
}

const META_KEYS = ['labels', 'annotations', 'finalizers', 'ownerReferences'];
const CONTAINER_KEYS = ['command', 'args', 'ports', 'env', 'envFrom', 'volumeMounts', 'volumeDevices'];
const POD_SPEC_KEYS = ['volumes', 'initContainers', 'ephemeralContainers', 'tolerations', 'imagePullSecrets', 'nodeSelector', 'hostAliases', 'readinessGates', 'topologySpreadConstraints'];

export function dropEmptyMeta(meta: unknown): void {
  dropEmpty(asObj(meta), META_KEYS);
}

export function dropEmptyPodSpec(spec: unknown): void {
  const s = asObj(spec);
  if (!s) return;
  dropEmpty(s, POD_SPEC_KEYS);
  for (const key of ['containers', 'initContainers']) for (const c of objItems(s[key])) dropEmpty(c, CONTAINER_KEYS);
}

function dropEmptyTemplate(template: unknown): void {
  const t = asObj(template);
  if (!t) return;
  dropEmptyMeta(t.metadata);
  dropEmptyPodSpec(t.spec);
}

/** Kind-specific top-level and nested keys, by `group/kind`. */
const BY_KIND: Record<string, (obj: ObjectWithMeta) => void> = {
  '/ConfigMap': (o) => dropEmpty(o, ['data', 'binaryData']),
  '/Secret': (o) => dropEmpty(o, ['data', 'stringData']),
  '/ServiceAccount': (o) => dropEmpty(o, ['secrets', 'imagePullSecrets']),
  '/Namespace': (o) => dropEmpty(asObj(o.spec), ['finalizers']),
  '/Service': (o) => dropEmpty(asObj(o.spec), ['ports', 'selector', 'externalIPs', 'loadBalancerSourceRanges']),
  '/Endpoints': (o) => dropEmpty(o, ['subsets']),
  '/Pod': (o) => dropEmptyPodSpec(o.spec),
  'apps/Deployment': (o) => dropEmptyTemplate(asObj(o.spec)?.template),
  'apps/ReplicaSet': (o) => dropEmptyTemplate(asObj(o.spec)?.template),
  'apps/DaemonSet': (o) => dropEmptyTemplate(asObj(o.spec)?.template),
  'apps/StatefulSet': (o) => {
    dropEmptyTemplate(asObj(o.spec)?.template);
    dropEmpty(asObj(o.spec), ['volumeClaimTemplates']);
  },
  'batch/Job': (o) => dropEmptyTemplate(asObj(o.spec)?.template),
  'batch/CronJob': (o) => dropEmptyTemplate(asObj(asObj(asObj(o.spec)?.jobTemplate)?.spec)?.template),
  'rbac.authorization.k8s.io/RoleBinding': (o) => dropEmpty(o, ['subjects']),
  'rbac.authorization.k8s.io/ClusterRoleBinding': (o) => dropEmpty(o, ['subjects']),
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': (o) => dropEmpty(o, ['webhooks']),
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': (o) => dropEmpty(o, ['webhooks']),
};

export function dropEmptyFor(group: string, kind: string, obj: ObjectWithMeta): void {
  dropEmptyMeta(obj.metadata);
  BY_KIND[`${group}/${kind}`]?.(obj);
}
