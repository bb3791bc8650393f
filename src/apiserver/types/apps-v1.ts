// k8s.io/api apps/v1 (fields as of Kubernetes 1.33).
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.apps;

definePackage(pkg, {
  StatefulSet: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 StatefulSetSpec omitempty
    status 3 StatefulSetStatus omitempty`,
  StatefulSetUpdateStrategy: `
    type 1 string omitempty
    rollingUpdate 2 *RollingUpdateStatefulSetStrategy omitempty`,
  RollingUpdateStatefulSetStrategy: `
    partition 1 *int32 omitempty
    maxUnavailable 2 *intstr.IntOrString omitempty`,
  StatefulSetPersistentVolumeClaimRetentionPolicy: `
    whenDeleted 1 string omitempty
    whenScaled 2 string omitempty`,
  StatefulSetOrdinals: `
    start 1 int32`,
  StatefulSetSpec: `
    replicas 1 *int32 omitempty
    selector 2 *meta.LabelSelector
    template 3 core.PodTemplateSpec
    volumeClaimTemplates 4 []core.PersistentVolumeClaim omitempty
    serviceName 5 string
    podManagementPolicy 6 string omitempty
    updateStrategy 7 StatefulSetUpdateStrategy omitempty
    revisionHistoryLimit 8 *int32 omitempty
    minReadySeconds 9 int32 omitempty
    persistentVolumeClaimRetentionPolicy 10 *StatefulSetPersistentVolumeClaimRetentionPolicy omitempty
    ordinals 11 *StatefulSetOrdinals omitempty`,
  StatefulSetStatus: `
    observedGeneration 1 int64 omitempty
    replicas 2 int32
    readyReplicas 3 int32 omitempty
    currentReplicas 4 int32 omitempty
    updatedReplicas 5 int32 omitempty
    currentRevision 6 string omitempty
    updateRevision 7 string omitempty
    collisionCount 9 *int32 omitempty
    conditions 10 []StatefulSetCondition omitempty
    availableReplicas 11 int32`,
  StatefulSetCondition: `
    type 1 string
    status 2 string
    lastTransitionTime 3 meta.Time omitempty
    reason 4 string omitempty
    message 5 string omitempty`,
  StatefulSetList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []StatefulSet`,

  Deployment: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 DeploymentSpec omitempty
    status 3 DeploymentStatus omitempty`,
  DeploymentSpec: `
    replicas 1 *int32 omitempty
    selector 2 *meta.LabelSelector
    template 3 core.PodTemplateSpec
    strategy 4 DeploymentStrategy omitempty
    minReadySeconds 5 int32 omitempty
    revisionHistoryLimit 6 *int32 omitempty
    paused 7 bool omitempty
    progressDeadlineSeconds 9 *int32 omitempty`,
  DeploymentStrategy: `
    type 1 string omitempty
    rollingUpdate 2 *RollingUpdateDeployment omitempty`,
  RollingUpdateDeployment: `
    maxUnavailable 1 *intstr.IntOrString omitempty
    maxSurge 2 *intstr.IntOrString omitempty`,
  DeploymentStatus: `
    observedGeneration 1 int64 omitempty
    replicas 2 int32 omitempty
    updatedReplicas 3 int32 omitempty
    readyReplicas 7 int32 omitempty
    availableReplicas 4 int32 omitempty
    unavailableReplicas 5 int32 omitempty
    terminatingReplicas 9 *int32 omitempty
    conditions 6 []DeploymentCondition omitempty
    collisionCount 8 *int32 omitempty`,
  DeploymentCondition: `
    type 1 string
    status 2 string
    lastUpdateTime 6 meta.Time omitempty
    lastTransitionTime 7 meta.Time omitempty
    reason 4 string omitempty
    message 5 string omitempty`,
  DeploymentList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Deployment`,

  DaemonSetUpdateStrategy: `
    type 1 string omitempty
    rollingUpdate 2 *RollingUpdateDaemonSet omitempty`,
  RollingUpdateDaemonSet: `
    maxUnavailable 1 *intstr.IntOrString omitempty
    maxSurge 2 *intstr.IntOrString omitempty`,
  DaemonSetSpec: `
    selector 1 *meta.LabelSelector
    template 2 core.PodTemplateSpec
    updateStrategy 3 DaemonSetUpdateStrategy omitempty
    minReadySeconds 4 int32 omitempty
    revisionHistoryLimit 6 *int32 omitempty`,
  DaemonSetStatus: `
    currentNumberScheduled 1 int32
    numberMisscheduled 2 int32
    desiredNumberScheduled 3 int32
    numberReady 4 int32
    observedGeneration 5 int64 omitempty
    updatedNumberScheduled 6 int32 omitempty
    numberAvailable 7 int32 omitempty
    numberUnavailable 8 int32 omitempty
    collisionCount 9 *int32 omitempty
    conditions 10 []DaemonSetCondition omitempty`,
  DaemonSetCondition: `
    type 1 string
    status 2 string
    lastTransitionTime 3 meta.Time omitempty
    reason 4 string omitempty
    message 5 string omitempty`,
  DaemonSet: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 DaemonSetSpec omitempty
    status 3 DaemonSetStatus omitempty`,
  DaemonSetList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []DaemonSet`,

  ReplicaSet: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 ReplicaSetSpec omitempty
    status 3 ReplicaSetStatus omitempty`,
  ReplicaSetList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []ReplicaSet`,
  ReplicaSetSpec: `
    replicas 1 *int32 omitempty
    minReadySeconds 4 int32 omitempty
    selector 2 *meta.LabelSelector
    template 3 core.PodTemplateSpec omitempty`,
  ReplicaSetStatus: `
    replicas 1 int32
    fullyLabeledReplicas 2 int32 omitempty
    readyReplicas 4 int32 omitempty
    availableReplicas 5 int32 omitempty
    terminatingReplicas 7 *int32 omitempty
    observedGeneration 3 int64 omitempty
    conditions 6 []ReplicaSetCondition omitempty`,
  ReplicaSetCondition: `
    type 1 string
    status 2 string
    lastTransitionTime 3 meta.Time omitempty
    reason 4 string omitempty
    message 5 string omitempty`,

  // Not served (yet): described so that rollout history of StatefulSets and DaemonSets can use it.
  ControllerRevision: `
    metadata 1 meta.ObjectMeta omitempty
    data 2 runtime.RawExtension omitempty
    revision 3 int64`,
  ControllerRevisionList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []ControllerRevision`,
});

for (const kind of ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']) defineKind('apps', 'v1', kind, `${pkg}.${kind}`);
