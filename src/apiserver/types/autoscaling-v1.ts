// k8s.io/api autoscaling/v1: HorizontalPodAutoscaler and Scale (fields as of Kubernetes 1.32).
// The v1 metric source types, used only by an alpha annotation, are left out.
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.autoscalingv1;

definePackage(pkg, {
  CrossVersionObjectReference: `
    kind 1 string
    name 2 string
    apiVersion 3 string omitempty`,
  HorizontalPodAutoscalerSpec: `
    scaleTargetRef 1 CrossVersionObjectReference
    minReplicas 2 *int32 omitempty
    maxReplicas 3 int32
    targetCPUUtilizationPercentage 4 *int32 omitempty`,
  HorizontalPodAutoscalerStatus: `
    observedGeneration 1 *int64 omitempty
    lastScaleTime 2 *meta.Time omitempty
    currentReplicas 3 int32
    desiredReplicas 4 int32
    currentCPUUtilizationPercentage 5 *int32 omitempty`,
  HorizontalPodAutoscaler: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 HorizontalPodAutoscalerSpec omitempty
    status 3 HorizontalPodAutoscalerStatus omitempty`,
  HorizontalPodAutoscalerList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []HorizontalPodAutoscaler`,
  // The body of the scale subresource (deployments/scale, ...): no list, so no defineKind.
  Scale: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 ScaleSpec omitempty
    status 3 ScaleStatus omitempty`,
  ScaleSpec: `
    replicas 1 int32 omitempty`,
  ScaleStatus: `
    replicas 1 int32
    selector 2 string omitempty`,
});

defineKind('autoscaling', 'v1', 'HorizontalPodAutoscaler', `${pkg}.HorizontalPodAutoscaler`);
