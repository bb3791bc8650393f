// k8s.io/api autoscaling/v2: HorizontalPodAutoscaler (fields as of the Kubernetes 1.36 development
// branch: HPAScalingRules.tolerance came in 1.33, HorizontalPodAutoscalerCondition.observedGeneration
// in 1.36; older clients never send them).
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.autoscalingv2;

definePackage(pkg, {
  HorizontalPodAutoscaler: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 HorizontalPodAutoscalerSpec omitempty
    status 3 HorizontalPodAutoscalerStatus omitempty`,
  HorizontalPodAutoscalerSpec: `
    scaleTargetRef 1 CrossVersionObjectReference
    minReplicas 2 *int32 omitempty
    maxReplicas 3 int32
    metrics 4 []MetricSpec omitempty
    behavior 5 *HorizontalPodAutoscalerBehavior omitempty`,
  CrossVersionObjectReference: `
    kind 1 string
    name 2 string
    apiVersion 3 string omitempty`,
  MetricSpec: `
    type 1 string
    object 2 *ObjectMetricSource omitempty
    pods 3 *PodsMetricSource omitempty
    resource 4 *ResourceMetricSource omitempty
    containerResource 7 *ContainerResourceMetricSource omitempty
    external 5 *ExternalMetricSource omitempty`,
  HorizontalPodAutoscalerBehavior: `
    scaleUp 1 *HPAScalingRules omitempty
    scaleDown 2 *HPAScalingRules omitempty`,
  HPAScalingRules: `
    stabilizationWindowSeconds 3 *int32 omitempty
    selectPolicy 1 *string omitempty
    policies 2 []HPAScalingPolicy omitempty
    tolerance 4 *resource.Quantity omitempty`,
  HPAScalingPolicy: `
    type 1 string
    value 2 int32
    periodSeconds 3 int32`,
  ObjectMetricSource: `
    describedObject 1 CrossVersionObjectReference
    target 2 MetricTarget
    metric 3 MetricIdentifier`,
  PodsMetricSource: `
    metric 1 MetricIdentifier
    target 2 MetricTarget`,
  ResourceMetricSource: `
    name 1 string
    target 2 MetricTarget`,
  ContainerResourceMetricSource: `
    name 1 string
    target 2 MetricTarget
    container 3 string`,
  ExternalMetricSource: `
    metric 1 MetricIdentifier
    target 2 MetricTarget`,
  MetricIdentifier: `
    name 1 string
    selector 2 *meta.LabelSelector omitempty`,
  MetricTarget: `
    type 1 string
    value 2 *resource.Quantity omitempty
    averageValue 3 *resource.Quantity omitempty
    averageUtilization 4 *int32 omitempty`,
  // currentMetrics has no omitempty.
  HorizontalPodAutoscalerStatus: `
    observedGeneration 1 *int64 omitempty
    lastScaleTime 2 *meta.Time omitempty
    currentReplicas 3 int32 omitempty
    desiredReplicas 4 int32
    currentMetrics 5 []MetricStatus
    conditions 6 []HorizontalPodAutoscalerCondition omitempty`,
  HorizontalPodAutoscalerCondition: `
    type 1 string
    status 2 string
    lastTransitionTime 3 meta.Time omitempty
    reason 4 string omitempty
    message 5 string omitempty
    observedGeneration 6 *int64 omitempty`,
  MetricStatus: `
    type 1 string
    object 2 *ObjectMetricStatus omitempty
    pods 3 *PodsMetricStatus omitempty
    resource 4 *ResourceMetricStatus omitempty
    containerResource 7 *ContainerResourceMetricStatus omitempty
    external 5 *ExternalMetricStatus omitempty`,
  ObjectMetricStatus: `
    metric 1 MetricIdentifier
    current 2 MetricValueStatus
    describedObject 3 CrossVersionObjectReference`,
  PodsMetricStatus: `
    metric 1 MetricIdentifier
    current 2 MetricValueStatus`,
  ResourceMetricStatus: `
    name 1 string
    current 2 MetricValueStatus`,
  ContainerResourceMetricStatus: `
    name 1 string
    current 2 MetricValueStatus
    container 3 string`,
  ExternalMetricStatus: `
    metric 1 MetricIdentifier
    current 2 MetricValueStatus`,
  MetricValueStatus: `
    value 1 *resource.Quantity omitempty
    averageValue 2 *resource.Quantity omitempty
    averageUtilization 3 *int32 omitempty`,
  HorizontalPodAutoscalerList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []HorizontalPodAutoscaler`,
});

defineKind('autoscaling', 'v2', 'HorizontalPodAutoscaler', `${pkg}.HorizontalPodAutoscaler`);
