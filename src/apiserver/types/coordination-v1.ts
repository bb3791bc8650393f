// k8s.io/api coordination/v1: Lease (fields as of Kubernetes 1.32).
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.coordination;

definePackage(pkg, {
  Lease: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 LeaseSpec omitempty`,
  LeaseSpec: `
    holderIdentity 1 *string omitempty
    leaseDurationSeconds 2 *int32 omitempty
    acquireTime 3 *meta.MicroTime omitempty
    renewTime 4 *meta.MicroTime omitempty
    leaseTransitions 5 *int32 omitempty
    strategy 6 *string omitempty
    preferredHolder 7 *string omitempty`,
  LeaseList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Lease`,
});

defineKind('coordination.k8s.io', 'v1', 'Lease', `${pkg}.Lease`);
