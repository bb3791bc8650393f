// SyncResource (operator.kyma-project.io/v1alpha1): objects a module manager wants in one runtime.
import { defineKind, type ObjectOf } from '../../crd.js';
import { array, boolean, conditions, embeddedResource, enumOf, type Infer, integer, object, req, string, unknownValue } from '../../schema.js';
import { GROUP, lastOperation, MODULE_NAME_PATTERN, state, V1ALPHA1 } from '../shared.js';

export const syncStrategyValues = ['CreateAndSync', 'CreateAndIgnore', 'Delete'] as const;
export type SyncStrategy = (typeof syncStrategyValues)[number];

export const feedbackRule = object(
  {
    name: req(string({ minLength: 1, maxLength: 63, description: 'Name of the value in status.items[].feedback.' })),
    jsonPath: req(string({ minLength: 1, description: 'JSONPath into the applied object as the runtime holds it, e.g. `.status.availableReplicas`.' })),
  },
  { description: 'A value of the applied object to report back in the status (after Open Cluster Management\'s feedback rules).' },
);

export const syncedItem = object(
  {
    name: req(string({ minLength: 1, maxLength: 253, description: 'Key of the item in this list (not necessarily the object\'s name).' })),
    strategy: req(
      enumOf(syncStrategyValues, {
        description:
          '`CreateAndSync`: create the object and keep it as written here (server-side apply on every change); `CreateAndIgnore`: create it once, then leave it to the runtime; `Delete`: make sure it does not exist.',
      }),
    ),
    resource: req(
      embeddedResource({
        description: 'The object (apiVersion, kind, metadata with name and, for namespaced kinds, namespace, and its content). Only the object is applied, not its status.',
      }),
    ),
    feedback: array(feedbackRule, {
      listType: 'map',
      listMapKeys: ['name'],
      description: 'Project extension: values of the applied object the lifecycle manager reads back into status.items[].feedback.',
    }),
  },
  { description: 'One object to synchronize, with its strategy.' },
);

export const syncResourceSpec = object(
  {
    kyma: req(string({ minLength: 1, description: 'Name of the Kyma (in the same namespace) whose runtime receives the objects.' })),
    module: string({ pattern: MODULE_NAME_PATTERN, description: 'Project extension: the module the objects belong to (its manager wrote them).' }),
    items: req(array(syncedItem, { listType: 'map', listMapKeys: ['name'], description: 'Objects to synchronize, keyed by name.' })),
  },
  { description: 'The objects to synchronize into one runtime.' },
);

export const syncedItemStatus = object(
  {
    name: req(string({ description: 'Name of the item in spec.items.' })),
    state: req(state('State of the item: `Ready` once applied (or deleted), `Processing`, `Error`, `Deleting`.')),
    message: string({ description: 'Human-readable details, e.g. the apply error.' }),
    lastAppliedGeneration: integer({ format: 'int64', description: 'metadata.generation of the SyncResource when the item was last applied.' }),
    hash: string({ description: 'Hash of the item as last applied, to skip unchanged items.' }),
    lastSyncTime: string({ format: 'date-time', description: 'When the item was last applied or checked.' }),
    strategy: enumOf(syncStrategyValues, { description: 'The strategy the item was last handled with.' }),
    created: boolean({ description: 'Whether the lifecycle manager created the object with CreateAndIgnore (it is then removed with the SyncResource or the module).' }),
    target: object(
      {
        apiVersion: req(string({ description: 'apiVersion of the object.' })),
        kind: req(string({ description: 'Kind of the object.' })),
        namespace: string({ description: 'Namespace of the object (empty for cluster-scoped kinds).' }),
        name: req(string({ description: 'Name of the object.' })),
      },
      { description: 'The object in the runtime the item was last handled on; what is removed when the item goes.' },
    ),
    feedback: array(
      object(
        {
          name: req(string({ description: 'Name of the feedback rule.' })),
          value: unknownValue({ description: 'The value at the rule\'s JSONPath (a list when it matched several); absent when nothing matched.' }),
        },
        { description: 'One value read back from the applied object.' },
      ),
      { listType: 'map', listMapKeys: ['name'], description: 'Values of the item\'s feedback rules, read when the item was last synced.' },
    ),
  },
  { description: 'How far one item got.' },
);

export const syncResourceStatus = object(
  {
    state: state('Overall state: `Ready` when every item is, otherwise the worst item state.'),
    conditions,
    lastOperation,
    items: array(syncedItemStatus, { listType: 'map', listMapKeys: ['name'], description: 'One entry per item of spec.items (and per removed item until it is handled).' }),
  },
  { description: 'The observed state of the synchronization.' },
);

export const SyncResource = defineKind({
  group: GROUP,
  version: V1ALPHA1,
  kind: 'SyncResource',
  plural: 'syncresources',
  singular: 'syncresource',
  scope: 'Namespaced',
  description:
    'Objects a module manager wants in one runtime; the lifecycle manager applies them there, so that module managers need no access to runtimes.',
  spec: syncResourceSpec,
  status: syncResourceStatus,
  printerColumns: [
    { name: 'Kyma', type: 'string', jsonPath: '.spec.kyma' },
    { name: 'State', type: 'string', jsonPath: '.status.state' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  notes: `
From the design "Synchronization of Module Resources" (lifecycle-manager ADR #991, issue #1365). Upstream drafted this kind as
\`operator.kyma-project.io/v1alpha1\` (\`spec.kyma\`, \`spec.items[]\` with \`name\`, \`strategy\` \`CreateAndSync | Delete | CreateAndIgnore\`,
\`resource\`) and later withdrew it; this project serves it at **v1alpha1** to stay on that draft and to say that the API may still change.

- Labelled \`operator.kyma-project.io/kyma-name\` (checked by \`validateSyncResource\`, which also checks each item's object).
- The lifecycle manager treats \`spec\` as read-only and reports per item in \`status.items\`; module managers remove items or the whole object.
- Upstream's draft \`subResource\` (status of synced objects) is not offered; \`feedback\` rules read values of the applied objects back instead.
- **Project extensions:** \`spec.module\` (required for anything to be applied: the module's ModuleTemplate lists the kinds it may sync in
  \`spec.syncResourceKinds\`); per-item \`feedback\` rules; per-item status \`lastAppliedGeneration\`, \`hash\`, \`lastSyncTime\`, \`strategy\`,
  \`target\` and \`feedback\` values.
`,
});

export type SyncResourceObject = ObjectOf<typeof SyncResource>;
export type SyncResourceSpec = Infer<typeof syncResourceSpec>;
export type SyncedItem = Infer<typeof syncedItem>;
export type SyncedItemStatus = Infer<typeof syncedItemStatus>;
