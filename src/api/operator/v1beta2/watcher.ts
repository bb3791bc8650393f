// Watcher (operator.kyma-project.io/v1beta2): which runtime resources the runtime watcher reports, and to whom.
import { defineKind, type ObjectOf } from '../../crd.js';
import { conditions, enumOf, type Infer, integer, map, object, req, string } from '../../schema.js';
import { labelSelector } from './common.js';
import { GROUP, state, V1BETA2 } from '../shared.js';

export const watcherSpec = object(
  {
    serviceInfo: req(
      object(
        {
          port: req(integer({ format: 'int64', description: 'Port of the listener.' })),
          name: req(string({ description: 'Name of the listener\'s Service.' })),
          namespace: req(string({ description: 'Namespace of the listener\'s Service.' })),
        },
        { description: 'The KCP Service that receives the watch events.' },
      ),
    ),
    manager: string({ description: 'Component that handles the webhook requests (replaces the deprecated `operator.kyma-project.io/managed-by` label).' }),
    labelsToWatch: req(map(string(), { description: 'Only resources with all these labels are watched.' })),
    resourceToWatch: req(
      object(
        {
          group: req(string({ description: 'API group of the watched resource.' })),
          version: req(string({ description: 'API version of the watched resource.' })),
          resource: req(string({ description: 'Resource (plural) of the watched resource, e.g. `kymas`.' })),
        },
        { description: 'Group, version and resource to watch in every runtime.' },
      ),
    ),
    field: req(enumOf(['spec', 'status'] as const, { description: 'Which part of the resource to watch for changes: `spec` or `status`.' })),
    gateway: req(
      object(
        { selector: req({ ...labelSelector, openapi: { ...labelSelector.openapi, description: 'Labels of the Istio Gateway, e.g. `operator.kyma-project.io/watcher-gateway: default`.' } }) },
        { description: 'The Istio Gateway the watcher\'s VirtualService binds to.' },
      ),
    ),
  },
  { description: 'What the runtime watcher reports, and where it sends the events.' },
);

export const watcherStatus = object(
  {
    state: req(state('State of the Watcher.')),
    conditions,
    observedGeneration: integer({ format: 'int64', description: 'The generation last reconciled.' }),
  },
  { description: 'The observed state of the Watcher.' },
);

export const Watcher = defineKind({
  group: GROUP,
  version: V1BETA2,
  kind: 'Watcher',
  plural: 'watchers',
  singular: 'watcher',
  scope: 'Namespaced',
  description: 'A subscription of a KCP component to changes of a resource in every runtime, delivered by the runtime watcher webhook.',
  spec: watcherSpec,
  status: watcherStatus,
  specRequired: false,
  printerColumns: [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
  notes: `
Compatible with upstream \`operator.kyma-project.io/v1beta2\` Watcher (\`api/v1beta2/watcher_types.go\`).

- Condition type \`VirtualService\` with reason \`Ready\`; finalizer \`operator.kyma-project.io/watcher\`.
- \`spec.manager\` is recent upstream and replaces the \`operator.kyma-project.io/managed-by\` label, which is still read when \`manager\` is empty.
`,
});

export type WatcherObject = ObjectOf<typeof Watcher>;
export type WatcherSpec = Infer<typeof watcherSpec>;
