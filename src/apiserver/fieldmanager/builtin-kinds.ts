// Structure of the built-in kinds the server serves, as far as field ownership and strategic merge
// patch need it: list semantics (keys, sets, atomic), atomic structs, and which fields a zero Go object
// already carries. Fields not listed are handled generically (granular maps, atomic lists).
import type { SchemaNode } from './schema.js';

export const str: SchemaNode = { type: 'string' };
export const stringMap: SchemaNode = { type: 'object', additionalProperties: str };
const atomicList: SchemaNode = { type: 'array', listType: 'atomic' };
const atomicStruct: SchemaNode = { type: 'object', mapType: 'atomic' };
const atomicStringMap: SchemaNode = { type: 'object', additionalProperties: str, mapType: 'atomic' };

function obj(properties: Record<string, SchemaNode>, extra: Partial<SchemaNode> = {}): SchemaNode {
  return { type: 'object', properties, ...extra };
}

/** A struct that a zero Go object carries as `{}` (non-pointer struct field). */
function zeroStruct(properties: Record<string, SchemaNode>, extra: Partial<SchemaNode> = {}): SchemaNode {
  return obj(properties, { ...extra, inZeroObject: true });
}

/** A list merged by key in both strategic merge patch and server-side apply. */
function keyedList(mergeKey: string, items: SchemaNode, ssaKeys: string[] = [mergeKey], extra: Partial<SchemaNode> = {}): SchemaNode {
  return { type: 'array', items, patchStrategy: 'merge', patchMergeKey: mergeKey, listType: 'map', listMapKeys: ssaKeys, ...extra };
}

const stringSet: SchemaNode = { type: 'array', items: str, patchStrategy: 'merge', listType: 'set' };

export const objectMetaSchema: SchemaNode = zeroStruct({
  creationTimestamp: { type: 'string', inZeroObject: true },
  labels: stringMap,
  annotations: stringMap,
  finalizers: stringSet,
  ownerReferences: keyedList('uid', atomicStruct),
  managedFields: atomicList,
});

const labelSelector = atomicStruct;
const conditions = keyedList('type', obj({}));

// ---- pods ----

const resources = zeroStruct({ limits: stringMap, requests: stringMap });

const container = obj({
  command: atomicList,
  args: atomicList,
  ports: keyedList('containerPort', obj({}), ['containerPort', 'protocol'], { listMapKeyDefaults: { protocol: 'TCP' } }),
  envFrom: atomicList,
  env: keyedList('name', obj({ valueFrom: obj({}) })),
  resources,
  volumeMounts: keyedList('mountPath', obj({})),
  volumeDevices: keyedList('devicePath', obj({})),
});

const podSpec = zeroStruct({
  volumes: keyedList('name', obj({}), ['name'], { patchStrategy: 'merge,retainKeys' }),
  initContainers: keyedList('name', container),
  containers: keyedList('name', container, ['name'], { inZeroObject: true }),
  ephemeralContainers: keyedList('name', container),
  nodeSelector: atomicStringMap,
  imagePullSecrets: keyedList('name', obj({})),
  tolerations: atomicList,
  hostAliases: keyedList('ip', obj({ hostnames: atomicList })),
  topologySpreadConstraints: keyedList('topologyKey', obj({}), ['topologyKey', 'whenUnsatisfiable']),
  readinessGates: atomicList,
  overhead: stringMap,
});

const podTemplate = zeroStruct({ metadata: objectMetaSchema, spec: podSpec });

const workloadStatus = zeroStruct({ conditions });

// ---- table ----

type KindTable = Record<string, Record<string, Record<string, SchemaNode>>>;

const serviceStatus = zeroStruct({ loadBalancer: zeroStruct({ ingress: atomicList }), conditions });

const jobSpec = zeroStruct({ template: podTemplate, selector: labelSelector });

const webhook = obj({ clientConfig: zeroStruct({}), rules: atomicList, admissionReviewVersions: atomicList, namespaceSelector: labelSelector, objectSelector: labelSelector, matchConditions: keyedList('name', obj({})) });

/** Top-level fields per group and kind ('' is the core group). */
const kinds: KindTable = {
  '': {
    Namespace: { spec: zeroStruct({ finalizers: atomicList }), status: zeroStruct({ conditions }) },
    ConfigMap: { data: stringMap, binaryData: stringMap },
    Secret: { data: stringMap, stringData: stringMap },
    ServiceAccount: { secrets: keyedList('name', obj({})), imagePullSecrets: atomicList },
    Service: {
      spec: zeroStruct({
        ports: keyedList('port', obj({}), ['port', 'protocol'], { listMapKeyDefaults: { protocol: 'TCP' } }),
        selector: atomicStringMap,
        clusterIPs: atomicList,
        externalIPs: atomicList,
        ipFamilies: atomicList,
        loadBalancerSourceRanges: atomicList,
      }),
      status: serviceStatus,
    },
    Endpoints: { subsets: atomicList },
    Event: { involvedObject: { ...atomicStruct, inZeroObject: true }, source: zeroStruct({}), related: atomicStruct, series: obj({}) },
    Pod: { spec: podSpec, status: zeroStruct({ conditions, containerStatuses: atomicList, initContainerStatuses: atomicList, podIPs: keyedList('ip', obj({})) }) },
    PersistentVolumeClaim: {
      spec: zeroStruct({ accessModes: atomicList, selector: labelSelector, resources, dataSource: atomicStruct, dataSourceRef: atomicStruct }),
      status: zeroStruct({ accessModes: atomicList, capacity: stringMap, conditions }),
    },
  },
  'events.k8s.io': {
    Event: { regarding: { ...atomicStruct, inZeroObject: true }, related: atomicStruct, series: obj({}), deprecatedSource: zeroStruct({}) },
  },
  'coordination.k8s.io': { Lease: { spec: zeroStruct({}) } },
  apps: {
    Deployment: {
      spec: zeroStruct({ selector: labelSelector, template: podTemplate, strategy: zeroStruct({ rollingUpdate: obj({}) }) }),
      status: workloadStatus,
    },
    StatefulSet: {
      spec: zeroStruct({
        selector: labelSelector,
        template: podTemplate,
        volumeClaimTemplates: atomicList,
        updateStrategy: zeroStruct({ rollingUpdate: obj({}) }),
      }),
      status: workloadStatus,
    },
    DaemonSet: {
      spec: zeroStruct({ selector: labelSelector, template: podTemplate, updateStrategy: zeroStruct({ rollingUpdate: obj({}) }) }),
      status: workloadStatus,
    },
    ReplicaSet: { spec: zeroStruct({ selector: labelSelector, template: podTemplate }), status: workloadStatus },
  },
  batch: {
    Job: { spec: jobSpec, status: zeroStruct({ conditions: { type: 'array', listType: 'atomic', patchStrategy: 'merge', patchMergeKey: 'type' } }) },
    CronJob: {
      spec: zeroStruct({ jobTemplate: zeroStruct({ metadata: objectMetaSchema, spec: jobSpec }) }),
      status: zeroStruct({ active: atomicList }),
    },
  },
  'networking.k8s.io': {
    NetworkPolicy: { spec: zeroStruct({ podSelector: { ...labelSelector, inZeroObject: true }, ingress: atomicList, egress: atomicList, policyTypes: atomicList }) },
    Ingress: { spec: zeroStruct({ tls: atomicList, rules: atomicList }), status: zeroStruct({ loadBalancer: zeroStruct({ ingress: atomicList }) }) },
  },
  policy: {
    PodDisruptionBudget: { spec: zeroStruct({ selector: labelSelector }), status: zeroStruct({ conditions, disruptedPods: stringMap }) },
  },
  'scheduling.k8s.io': { PriorityClass: {} },
  autoscaling: {
    HorizontalPodAutoscaler: {
      spec: zeroStruct({ scaleTargetRef: zeroStruct({}), metrics: atomicList, behavior: obj({}) }),
      status: zeroStruct({ currentMetrics: atomicList, conditions }),
    },
    // autoscaling/v1 Scale, what the scale subresource of workloads and custom resources reads and writes.
    Scale: { spec: zeroStruct({}), status: zeroStruct({}) },
  },
  'rbac.authorization.k8s.io': {
    Role: { rules: { ...atomicList, inZeroObject: true } },
    ClusterRole: { rules: { ...atomicList, inZeroObject: true }, aggregationRule: obj({ clusterRoleSelectors: atomicList }) },
    RoleBinding: { subjects: atomicList, roleRef: { ...atomicStruct, inZeroObject: true } },
    ClusterRoleBinding: { subjects: atomicList, roleRef: { ...atomicStruct, inZeroObject: true } },
  },
  'apiextensions.k8s.io': {
    CustomResourceDefinition: {
      spec: zeroStruct({ names: zeroStruct({ shortNames: atomicList, categories: atomicList }), versions: atomicList, conversion: obj({}) }),
      status: zeroStruct({ conditions, acceptedNames: zeroStruct({ shortNames: atomicList, categories: atomicList }), storedVersions: atomicList }),
    },
  },
  'admissionregistration.k8s.io': {
    ValidatingWebhookConfiguration: { webhooks: keyedList('name', webhook) },
    MutatingWebhookConfiguration: { webhooks: keyedList('name', webhook) },
  },
};

const cache = new Map<string, SchemaNode>();

/** Structure of a built-in kind (group '' for core). Unknown kinds get a permissive default (granular maps, atomic lists). */
export function builtinKindSchema(group: string, kind: string): SchemaNode {
  const id = `${group}/${kind}`;
  let node = cache.get(id);
  if (node === undefined) {
    node = obj({ metadata: objectMetaSchema, ...(kinds[group]?.[kind] ?? {}) });
    cache.set(id, node);
  }
  return node;
}
