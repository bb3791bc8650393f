// k8s.io/api policy/v1: PodDisruptionBudget (fields as of Kubernetes 1.32).
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.policy;

definePackage(pkg, {
  PodDisruptionBudgetSpec: `
    minAvailable 1 *intstr.IntOrString omitempty
    selector 2 *meta.LabelSelector omitempty
    maxUnavailable 3 *intstr.IntOrString omitempty
    unhealthyPodEvictionPolicy 4 *string omitempty`,
  PodDisruptionBudgetStatus: `
    observedGeneration 1 int64 omitempty
    disruptedPods 2 map[string]meta.Time omitempty
    disruptionsAllowed 3 int32
    currentHealthy 4 int32
    desiredHealthy 5 int32
    expectedPods 6 int32
    conditions 7 []meta.Condition omitempty`,
  PodDisruptionBudget: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 PodDisruptionBudgetSpec omitempty
    status 3 PodDisruptionBudgetStatus omitempty`,
  PodDisruptionBudgetList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []PodDisruptionBudget`,
});

defineKind('policy', 'v1', 'PodDisruptionBudget', `${pkg}.PodDisruptionBudget`);
