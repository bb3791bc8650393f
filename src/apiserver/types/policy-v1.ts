// k8s.io/api policy/v1: PodDisruptionBudget (fields as of Kubernetes 1.32).
import { PACKAGE_ALIASES, defineKind, definePackage, type PackageTypes } from './catalog.js';

const pkg = PACKAGE_ALIASES.policy;

/** PodDisruptionBudget and its parts, the same in policy/v1beta1 (which kube-apiserver serves until 1.25). */
export const PDB_TYPES: PackageTypes = {
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
};

definePackage(pkg, PDB_TYPES);

defineKind('policy', 'v1', 'PodDisruptionBudget', `${pkg}.PodDisruptionBudget`);
