// k8s.io/api core/v1, fields as of Kubernetes 1.35 (kubernetes/kubernetes 0032f46b, master after 1.35):
// the served kinds except the Pod spec tree.
// Referenced here, described in core-v1-pod.ts (the Pod spec tree): PodSpec, Pod, PodList.
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.core;

definePackage(pkg, {
  // Object references shared by many kinds.
  ObjectReference: `
    kind 1 string omitempty
    namespace 2 string omitempty
    name 3 string omitempty
    uid 4 string omitempty
    apiVersion 5 string omitempty
    resourceVersion 6 string omitempty
    fieldPath 7 string omitempty`,
  LocalObjectReference: `
    name 1 string omitempty`,
  // apiGroup is a pointer without omitempty: a nil apiGroup is written as null.
  TypedLocalObjectReference: `
    apiGroup 1 *string
    kind 2 string
    name 3 string`,
  TypedObjectReference: `
    apiGroup 1 *string
    kind 2 string
    name 3 string
    namespace 4 *string omitempty`,

  Namespace: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 NamespaceSpec omitempty
    status 3 NamespaceStatus omitempty`,
  NamespaceSpec: `
    finalizers 1 []string omitempty`,
  NamespaceStatus: `
    phase 1 string omitempty
    conditions 2 []NamespaceCondition omitempty`,
  NamespaceCondition: `
    type 1 string
    status 2 string
    lastTransitionTime 4 meta.Time omitempty
    reason 5 string omitempty
    message 6 string omitempty`,
  NamespaceList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Namespace`,

  ConfigMap: `
    metadata 1 meta.ObjectMeta omitempty
    immutable 4 *bool omitempty
    data 2 map[string]string omitempty
    binaryData 3 map[string][]byte omitempty`,
  ConfigMapList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []ConfigMap`,

  Secret: `
    metadata 1 meta.ObjectMeta omitempty
    immutable 5 *bool omitempty
    data 2 map[string][]byte omitempty
    stringData 4 map[string]string omitempty
    type 3 string omitempty`,
  SecretList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Secret`,

  ServiceAccount: `
    metadata 1 meta.ObjectMeta omitempty
    secrets 2 []ObjectReference omitempty
    imagePullSecrets 3 []LocalObjectReference omitempty
    automountServiceAccountToken 4 *bool omitempty`,
  ServiceAccountList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []ServiceAccount`,

  Service: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 ServiceSpec omitempty
    status 3 ServiceStatus omitempty`,
  ServiceSpec: `
    ports 1 []ServicePort omitempty
    selector 2 map[string]string omitempty
    clusterIP 3 string omitempty
    clusterIPs 18 []string omitempty
    type 4 string omitempty
    externalIPs 5 []string omitempty
    sessionAffinity 7 string omitempty
    loadBalancerIP 8 string omitempty
    loadBalancerSourceRanges 9 []string omitempty
    externalName 10 string omitempty
    externalTrafficPolicy 11 string omitempty
    healthCheckNodePort 12 int32 omitempty
    publishNotReadyAddresses 13 bool omitempty
    sessionAffinityConfig 14 *SessionAffinityConfig omitempty
    ipFamilies 19 []string omitempty
    ipFamilyPolicy 17 *string omitempty
    allocateLoadBalancerNodePorts 20 *bool omitempty
    loadBalancerClass 21 *string omitempty
    internalTrafficPolicy 22 *string omitempty
    trafficDistribution 23 *string omitempty`,
  ServicePort: `
    name 1 string omitempty
    protocol 2 string omitempty
    appProtocol 6 *string omitempty
    port 3 int32
    targetPort 4 intstr.IntOrString omitempty
    nodePort 5 int32 omitempty`,
  SessionAffinityConfig: `
    clientIP 1 *ClientIPConfig omitempty`,
  ClientIPConfig: `
    timeoutSeconds 1 *int32 omitempty`,
  ServiceStatus: `
    loadBalancer 1 LoadBalancerStatus omitempty
    conditions 2 []meta.Condition omitempty`,
  LoadBalancerStatus: `
    ingress 1 []LoadBalancerIngress omitempty`,
  LoadBalancerIngress: `
    ip 1 string omitempty
    hostname 2 string omitempty
    ipMode 3 *string omitempty
    ports 4 []PortStatus omitempty`,
  PortStatus: `
    port 1 int32
    protocol 2 string
    error 3 *string omitempty`,
  ServiceList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Service`,

  Endpoints: `
    metadata 1 meta.ObjectMeta omitempty
    subsets 2 []EndpointSubset omitempty`,
  EndpointSubset: `
    addresses 1 []EndpointAddress omitempty
    notReadyAddresses 2 []EndpointAddress omitempty
    ports 3 []EndpointPort omitempty`,
  EndpointAddress: `
    ip 1 string
    hostname 3 string omitempty
    nodeName 4 *string omitempty
    targetRef 2 *ObjectReference omitempty`,
  EndpointPort: `
    name 1 string omitempty
    port 2 int32
    protocol 3 string omitempty
    appProtocol 4 *string omitempty`,
  EndpointsList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Endpoints`,

  // Event's metadata, involvedObject, reportingComponent and reportingInstance have no omitempty.
  Event: `
    metadata 1 meta.ObjectMeta
    involvedObject 2 ObjectReference
    reason 3 string omitempty
    message 4 string omitempty
    source 5 EventSource omitempty
    firstTimestamp 6 meta.Time omitempty
    lastTimestamp 7 meta.Time omitempty
    count 8 int32 omitempty
    type 9 string omitempty
    eventTime 10 meta.MicroTime omitempty
    series 11 *EventSeries omitempty
    action 12 string omitempty
    related 13 *ObjectReference omitempty
    reportingComponent 14 string
    reportingInstance 15 string`,
  EventSource: `
    component 1 string omitempty
    host 2 string omitempty`,
  EventSeries: `
    count 1 int32 omitempty
    lastObservedTime 2 meta.MicroTime omitempty`,
  EventList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Event`,

  PersistentVolumeClaim: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 PersistentVolumeClaimSpec omitempty
    status 3 PersistentVolumeClaimStatus omitempty`,
  PersistentVolumeClaimSpec: `
    accessModes 1 []string omitempty
    selector 4 *meta.LabelSelector omitempty
    resources 2 VolumeResourceRequirements omitempty
    volumeName 3 string omitempty
    storageClassName 5 *string omitempty
    volumeMode 6 *string omitempty
    dataSource 7 *TypedLocalObjectReference omitempty
    dataSourceRef 8 *TypedObjectReference omitempty
    volumeAttributesClassName 9 *string omitempty`,
  VolumeResourceRequirements: `
    limits 1 map[string]resource.Quantity omitempty
    requests 2 map[string]resource.Quantity omitempty`,
  PersistentVolumeClaimStatus: `
    phase 1 string omitempty
    accessModes 2 []string omitempty
    capacity 3 map[string]resource.Quantity omitempty
    conditions 4 []PersistentVolumeClaimCondition omitempty
    allocatedResources 5 map[string]resource.Quantity omitempty
    allocatedResourceStatuses 7 map[string]string omitempty
    currentVolumeAttributesClassName 8 *string omitempty
    modifyVolumeStatus 9 *ModifyVolumeStatus omitempty`,
  PersistentVolumeClaimCondition: `
    type 1 string
    status 2 string
    lastProbeTime 3 meta.Time omitempty
    lastTransitionTime 4 meta.Time omitempty
    reason 5 string omitempty
    message 6 string omitempty`,
  ModifyVolumeStatus: `
    targetVolumeAttributesClassName 1 string omitempty
    status 2 string`,
  PersistentVolumeClaimList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []PersistentVolumeClaim`,

  PodTemplateSpec: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 PodSpec omitempty`,

  Node: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 NodeSpec omitempty
    status 3 NodeStatus omitempty`,
  NodeSpec: `
    podCIDR 1 string omitempty
    podCIDRs 7 []string omitempty
    providerID 3 string omitempty
    unschedulable 4 bool omitempty
    taints 5 []Taint omitempty
    configSource 6 *NodeConfigSource omitempty
    externalID 2 string omitempty`,
  Taint: `
    key 1 string
    value 2 string omitempty
    effect 3 string
    timeAdded 4 *meta.Time omitempty`,
  NodeConfigSource: `
    configMap 2 *ConfigMapNodeConfigSource omitempty`,
  ConfigMapNodeConfigSource: `
    namespace 1 string
    name 2 string
    uid 3 string omitempty
    resourceVersion 4 string omitempty
    kubeletConfigKey 5 string`,
  NodeStatus: `
    capacity 1 map[string]resource.Quantity omitempty
    allocatable 2 map[string]resource.Quantity omitempty
    phase 3 string omitempty
    conditions 4 []NodeCondition omitempty
    addresses 5 []NodeAddress omitempty
    daemonEndpoints 6 NodeDaemonEndpoints omitempty
    nodeInfo 7 NodeSystemInfo omitempty
    images 8 []ContainerImage omitempty
    volumesInUse 9 []string omitempty
    volumesAttached 10 []AttachedVolume omitempty
    config 11 *NodeConfigStatus omitempty
    runtimeHandlers 12 []NodeRuntimeHandler omitempty
    features 13 *NodeFeatures omitempty
    declaredFeatures 14 []string omitempty`,
  NodeCondition: `
    type 1 string
    status 2 string
    lastHeartbeatTime 3 meta.Time omitempty
    lastTransitionTime 4 meta.Time omitempty
    reason 5 string omitempty
    message 6 string omitempty`,
  NodeAddress: `
    type 1 string
    address 2 string`,
  NodeDaemonEndpoints: `
    kubeletEndpoint 1 DaemonEndpoint omitempty`,
  // Capitalized in JSON and protobuf alike.
  DaemonEndpoint: `
    Port 1 int32`,
  NodeSystemInfo: `
    machineID 1 string
    systemUUID 2 string
    bootID 3 string
    kernelVersion 4 string
    osImage 5 string
    containerRuntimeVersion 6 string
    kubeletVersion 7 string
    kubeProxyVersion 8 string
    operatingSystem 9 string
    architecture 10 string
    swap 11 *NodeSwapStatus omitempty`,
  NodeSwapStatus: `
    capacity 1 *int64 omitempty`,
  ContainerImage: `
    names 1 []string
    sizeBytes 2 int64 omitempty`,
  AttachedVolume: `
    name 1 string
    devicePath 2 string`,
  NodeConfigStatus: `
    assigned 1 *NodeConfigSource omitempty
    active 2 *NodeConfigSource omitempty
    lastKnownGood 3 *NodeConfigSource omitempty
    error 4 string omitempty`,
  NodeRuntimeHandler: `
    name 1 string
    features 2 *NodeRuntimeHandlerFeatures omitempty`,
  NodeRuntimeHandlerFeatures: `
    recursiveReadOnlyMounts 1 *bool omitempty
    userNamespaces 2 *bool omitempty`,
  NodeFeatures: `
    supplementalGroupsPolicy 1 *bool omitempty
    containerUlimits 2 *bool omitempty`,
  NodeList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Node`,
});

for (const kind of ['Namespace', 'ConfigMap', 'Secret', 'ServiceAccount', 'Service', 'Endpoints', 'Event', 'Pod', 'PersistentVolumeClaim', 'Node']) {
  defineKind('', 'v1', kind, `${pkg}.${kind}`);
}
