// k8s.io/api scheduling/v1: PriorityClass (fields as of Kubernetes 1.32).
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.scheduling;

definePackage(pkg, {
  PriorityClass: `
    metadata 1 meta.ObjectMeta omitempty
    value 2 int32
    globalDefault 3 bool omitempty
    description 4 string omitempty
    preemptionPolicy 5 *string omitempty`,
  PriorityClassList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []PriorityClass`,
});

defineKind('scheduling.k8s.io', 'v1', 'PriorityClass', `${pkg}.PriorityClass`);
