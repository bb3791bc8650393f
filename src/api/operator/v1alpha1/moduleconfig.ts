// ModuleConfig (operator.kyma-project.io/v1alpha1): a runtime's module configuration, copied into the KCP.
import { defineKind, type ObjectOf } from '../../crd.js';
import { conditions, embeddedResource, type Infer, integer, object, req, string } from '../../schema.js';
import { GROUP, lastOperation, MODULE_NAME_PATTERN, state, V1ALPHA1 } from '../shared.js';

export const moduleConfigSpec = object(
  {
    kyma: req(string({ minLength: 1, description: 'Name of the Kyma (in the same namespace) of the runtime the configuration was copied from.' })),
    module: req(string({ minLength: 1, pattern: MODULE_NAME_PATTERN, description: 'Name of the module whose configuration this is.' })),
    resource: embeddedResource({ description: 'Copy of the module\'s custom resource in the runtime (apiVersion, kind, metadata without managedFields, spec and status).' }),
  },
  { description: 'Which runtime and module the configuration belongs to, and the copied resource.' },
);

export const moduleConfigStatus = object(
  {
    state: state('State of the copy: `Ready` when it matches the runtime, `Processing` while syncing, `Error` when the runtime could not be read.'),
    conditions,
    lastOperation,
    resourceGeneration: integer({ format: 'int64', description: 'Project extension: metadata.generation of the module resource in the runtime when it was copied.' }),
    lastSyncTime: string({ format: 'date-time', description: 'Project extension: when the copy last changed (the runtime\'s resource changed).' }),
  },
  { description: 'The state of the copy.' },
);

export const ModuleConfig = defineKind({
  group: GROUP,
  version: V1ALPHA1,
  kind: 'ModuleConfig',
  plural: 'moduleconfigs',
  singular: 'moduleconfig',
  scope: 'Namespaced',
  description:
    'A copy of a module\'s configuration (its custom resource) from a runtime, kept in the KCP by the lifecycle manager so that module managers read it without access to the runtime. Read-only for module managers.',
  spec: moduleConfigSpec,
  status: moduleConfigStatus,
  printerColumns: [
    { name: 'Kyma', type: 'string', jsonPath: '.spec.kyma' },
    { name: 'Module', type: 'string', jsonPath: '.spec.module' },
    { name: 'State', type: 'string', jsonPath: '.status.state' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  notes: `
From the design "Synchronization of Module Resources" (lifecycle-manager ADR #1104). Upstream drafted this kind as
\`operator.kyma-project.io/v1alpha1\` (\`api/v1alpha1/moduleconfig_types.go\`, with \`spec.kyma\`, \`spec.module\`, \`spec.resource\`)
but never served it; this project serves it at **v1alpha1** to stay on upstream's draft and to say that the API may still change.

- Written by the lifecycle manager only; named \`<kyma>-<module>\` in the Kyma's namespace, labelled
  \`operator.kyma-project.io/kyma-name\` and \`operator.kyma-project.io/module-name\` (checked by \`validateModuleConfig\`).
- **Project extensions:** \`status.resourceGeneration\` and \`status.lastSyncTime\`, so module managers can tell how fresh the copy is.
`,
});

export type ModuleConfigObject = ObjectOf<typeof ModuleConfig>;
export type ModuleConfigSpec = Infer<typeof moduleConfigSpec>;
