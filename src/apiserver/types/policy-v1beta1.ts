// k8s.io/api policy/v1beta1: PodDisruptionBudget, which kube-apiserver serves until 1.25 (kubectl
// 1.20's `create poddisruptionbudget` writes it), with policy/v1's fields.
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';
import { PDB_TYPES } from './policy-v1.js';

const pkg = PACKAGE_ALIASES.policyv1beta1;

definePackage(pkg, PDB_TYPES);

defineKind('policy', 'v1beta1', 'PodDisruptionBudget', `${pkg}.PodDisruptionBudget`);
