// k8s.io/apimachinery: meta/v1, resource, intstr, runtime.
import { PACKAGE_ALIASES, definePackage } from './catalog.js';

definePackage(PACKAGE_ALIASES.meta, {
  Time: { special: 'time', fields: 'seconds 1 int64\nnanos 2 int32' },
  FieldsV1: { special: 'fieldsV1', fields: 'Raw 1 []byte' },
  ObjectMeta: `
    name 1 string omitempty
    generateName 2 string omitempty
    namespace 3 string omitempty
    selfLink 4 string omitempty
    uid 5 string omitempty
    resourceVersion 6 string omitempty
    generation 7 int64 omitempty
    creationTimestamp 8 Time omitempty
    deletionTimestamp 9 *Time omitempty
    deletionGracePeriodSeconds 10 *int64 omitempty
    labels 11 map[string]string omitempty
    annotations 12 map[string]string omitempty
    ownerReferences 13 []OwnerReference omitempty
    finalizers 14 []string omitempty
    managedFields 17 []ManagedFieldsEntry omitempty`,
  OwnerReference: `
    apiVersion 5 string
    kind 1 string
    name 3 string
    uid 4 string
    controller 6 *bool omitempty
    blockOwnerDeletion 7 *bool omitempty`,
  ManagedFieldsEntry: `
    manager 1 string omitempty
    operation 2 string omitempty
    apiVersion 3 string omitempty
    time 4 *Time omitempty
    fieldsType 6 string omitempty
    fieldsV1 7 *FieldsV1 omitempty
    subresource 8 string omitempty`,
  ListMeta: `
    selfLink 1 string omitempty
    resourceVersion 2 string omitempty
    continue 3 string omitempty
    remainingItemCount 4 *int64 omitempty`,
});
