// k8s.io/apimachinery: meta/v1, resource, intstr, runtime. Fields as of Kubernetes 1.35 (meta/v1 from
// kubernetes/apimachinery 048d7833 without the alpha ListMeta.shardInfo; the other packages' protos
// from kubernetes/kubernetes master).
import { PACKAGE_ALIASES, definePackage } from './catalog.js';

definePackage(PACKAGE_ALIASES.meta, {
  Time: { special: 'time', fields: 'seconds 1 int64\nnanos 2 int32' },
  MicroTime: { special: 'microTime', fields: 'seconds 1 int64\nnanos 2 int32' },
  Duration: { special: 'duration', fields: 'duration 1 int64' },
  FieldsV1: { special: 'fieldsV1', fields: 'Raw 1 []byte' },
  // Inline in every kind's JSON; on the protobuf wire it is not a field of the kind but the
  // runtime.Unknown envelope's typeMeta (runtime.TypeMeta, whose numbers are the other way round).
  TypeMeta: `
    kind 1 string omitempty
    apiVersion 2 string omitempty`,
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
  LabelSelector: `
    matchLabels 1 map[string]string omitempty
    matchExpressions 2 []LabelSelectorRequirement omitempty`,
  LabelSelectorRequirement: `
    key 1 string
    operator 2 string
    values 3 []string omitempty`,
  FieldSelectorRequirement: `
    key 1 string
    operator 2 string
    values 3 []string omitempty`,
  // lastTransitionTime, reason and message have no omitempty.
  Condition: `
    type 1 string
    status 2 string
    observedGeneration 3 int64 omitempty
    lastTransitionTime 4 Time
    reason 5 string
    message 6 string`,
  Status: `
    metadata 1 ListMeta omitempty
    status 2 string omitempty
    message 3 string omitempty
    reason 4 string omitempty
    details 5 *StatusDetails omitempty
    code 6 int32 omitempty`,
  StatusDetails: `
    name 1 string omitempty
    group 2 string omitempty
    kind 3 string omitempty
    uid 6 string omitempty
    causes 4 []StatusCause omitempty
    retryAfterSeconds 5 int32 omitempty`,
  // The Go field is Type; its JSON and protobuf name is reason.
  StatusCause: `
    reason 1 string omitempty
    message 2 string omitempty
    field 3 string omitempty`,
  DeleteOptions: `
    gracePeriodSeconds 1 *int64 omitempty
    preconditions 2 *Preconditions omitempty
    orphanDependents 3 *bool omitempty
    propagationPolicy 4 *string omitempty
    dryRun 5 []string omitempty
    ignoreStoreReadErrorWithClusterBreakingPotential 6 *bool omitempty`,
  Preconditions: `
    uid 1 *string omitempty
    resourceVersion 2 *string omitempty`,
  WatchEvent: `
    type 1 string
    object 2 runtime.RawExtension`,
  PartialObjectMetadata: `
    metadata 1 ObjectMeta omitempty`,
  PartialObjectMetadataList: `
    metadata 1 ListMeta omitempty
    items 2 []PartialObjectMetadata`,
});

definePackage(PACKAGE_ALIASES.resource, {
  Quantity: { special: 'quantity', fields: 'string 1 string' },
});

definePackage(PACKAGE_ALIASES.intstr, {
  IntOrString: { special: 'intOrString', fields: 'type 1 int64\nintVal 2 int32\nstrVal 3 string' },
});

definePackage(PACKAGE_ALIASES.runtime, {
  RawExtension: { special: 'rawExtension', fields: 'raw 1 []byte' },
  TypeMeta: `
    apiVersion 1 string omitempty
    kind 2 string omitempty`,
  // The envelope of every protobuf body (after the 4-byte magic "k8s\0"). A protobuf-only type, so
  // its names are the protobuf ones: in Go, typeMeta is inline JSON, raw is not in JSON, and
  // contentEncoding and contentType have no JSON tags.
  Unknown: `
    typeMeta 1 TypeMeta
    raw 2 []byte
    contentEncoding 3 string
    contentType 4 string`,
});

/**
 * meta/v1 types that are kinds of their own but not served resources (no list, so no defineKind):
 * their JSON carries kind and apiVersion like any kind's. kube-apiserver writes Status as kind Status,
 * apiVersion v1; DeleteOptions and WatchEvent are registered in every group version.
 */
export const META_KINDS: Readonly<Record<string, string>> = {
  Status: `${PACKAGE_ALIASES.meta}.Status`,
  DeleteOptions: `${PACKAGE_ALIASES.meta}.DeleteOptions`,
  WatchEvent: `${PACKAGE_ALIASES.meta}.WatchEvent`,
};
