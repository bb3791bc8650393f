// Schema pieces several v1beta2 kinds of operator.kyma-project.io share (upstream's v1beta2 and metav1
// types); those the v1alpha1 kinds use too are in ../shared.ts.
import { array, enumOf, integer, map, object, req, string } from '../../schema.js';

/** Channel names: lower-case letters, 3 to 32 (Kyma, Kyma modules, ModuleReleaseMeta). */
export const CHANNEL_PATTERN = '^[a-z]+$';
/** Module versions of ModuleTemplates and ModuleReleaseMeta channels: MAJOR.MINOR.PATCH with an optional letter-led pre-release. */
export const MODULE_VERSION_PATTERN = '^((0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-[a-zA-Z-][0-9a-zA-Z-]*)?)?$';
/** Full semantic version (semver.org's suggested expression), used for mandatory module versions. */
export const SEMVER_PATTERN =
  '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$';
/** OCM component names, e.g. `kyma-project.io/module/keda`. */
export const OCM_COMPONENT_NAME_PATTERN = '^[a-z][-a-z0-9]*([.][a-z][-a-z0-9]*)*[.][a-z]{2,}(/[a-z][-a-z0-9_]*([.][a-z][-a-z0-9_]*)*)+$';

export function channel(description: string) {
  return string({ description, pattern: CHANNEL_PATTERN, minLength: 3, maxLength: 32 });
}

export const customResourcePolicy = enumOf(['CreateAndDelete', 'Ignore'] as const, {
  default: 'CreateAndDelete',
  description:
    'What happens to the module\'s default custom resource (ModuleTemplate.spec.data): `CreateAndDelete` creates it on installation and deletes it when the module is removed; `Ignore` leaves it to the user.',
});

/** metav1.GroupVersionKind. */
export const groupVersionKind = object(
  {
    group: req(string({ description: 'API group (empty for the core group).' })),
    version: req(string({ description: 'API version.' })),
    kind: req(string({ description: 'Kind.' })),
  },
  { description: 'A group, version and kind.' },
);

/** v1beta2.Manager: the resource whose readiness tells that the module is installed. */
export const manager = object(
  {
    group: req(string({ description: 'API group of the manager resource (empty for the core group).' })),
    version: req(string({ description: 'API version of the manager resource.' })),
    kind: req(string({ description: 'Kind of the manager resource, typically `Deployment`.' })),
    namespace: string({ description: 'Namespace of the manager resource; empty for cluster-scoped ones.' }),
    name: req(string({ description: 'Name of the manager resource.' })),
  },
  { description: 'The module resource (usually its manager Deployment) whose readiness shows that the module is installed.' },
);

/** metav1.LabelSelector (atomic, as upstream). */
export const labelSelector = object(
  {
    matchLabels: map(string(), { description: 'Labels that must all match exactly.' }),
    matchExpressions: array(
      object({
        key: req(string({ description: 'Label key.' })),
        operator: req(string({ description: 'One of `In`, `NotIn`, `Exists`, `DoesNotExist`.' })),
        values: array(string(), { listType: 'atomic', description: 'Values for `In` and `NotIn`; empty for the others.' }),
      }),
      { listType: 'atomic', description: 'Requirements on labels, all of which must hold.' },
    ),
  },
  { mapType: 'atomic', description: 'A label selector.' },
);

/** shared.TrackingObject: enough of an object to find it again and to notice a new generation. */
export const trackingObject = (description: string) =>
  object(
    {
      apiVersion: string({ description: 'API version of the tracked object.' }),
      kind: string({ description: 'Kind of the tracked object.' }),
      metadata: object(
        {
          name: string({ description: 'Name of the tracked object.' }),
          namespace: string({ description: 'Namespace of the tracked object.' }),
          generation: integer({ format: 'int64', description: 'Generation of the tracked object when it was last seen.' }),
        },
        { description: 'Identity and generation of the tracked object.' },
      ),
    },
    { description },
  );

/** shared.Resource: one object identified by group, version, kind, namespace and name. */
export const resourceRef = object(
  {
    group: req(string({ description: 'API group (empty for the core group).' })),
    version: req(string({ description: 'API version.' })),
    kind: req(string({ description: 'Kind.' })),
    namespace: req(string({ description: 'Namespace; empty for cluster-scoped objects.' })),
    name: req(string({ description: 'Name.' })),
  },
  { description: 'An object identified by group, version, kind, namespace and name.' },
);
