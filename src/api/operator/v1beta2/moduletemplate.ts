// ModuleTemplate (operator.kyma-project.io/v1beta2): one version of one module, named `<module>-<version>`.
import { defineKind, type ObjectOf } from '../../crd.js';
import { array, boolean, embeddedResource, enumOf, freeObject, type Infer, object, req, string } from '../../schema.js';
import { groupVersionKind, manager, MODULE_VERSION_PATTERN } from './common.js';
import { GROUP, MODULE_NAME_PATTERN, state, V1BETA2 } from '../shared.js';

export const moduleResource = object(
  {
    name: req(string({ description: 'Name of the resource; `rawManifest` names the module\'s manifest (all its Kubernetes objects in one YAML stream).' })),
    link: req(string({ format: 'uri', description: 'Where to fetch the resource: an `https://` (or `http://`) URL, or an `oci://<registry>/<repository>:<tag>` reference.' })),
  },
  { description: 'A named resource of the module that can be fetched.' },
);

export const moduleTemplateSpec = object(
  {
    channel: string({
      pattern: '^$|^[a-z]{3,}$',
      maxLength: 32,
      description: 'Deprecated upstream: the channel this template was assigned to before ModuleReleaseMeta existed. Accepted, not read.',
    }),
    version: string({ pattern: MODULE_VERSION_PATTERN, maxLength: 32, description: 'Version of the module (MAJOR.MINOR.PATCH with an optional pre-release); the template is named `<moduleName>-<version>`.' }),
    moduleName: string({ pattern: MODULE_NAME_PATTERN, maxLength: 64, description: 'Name of the module, e.g. `keda` or `api-gateway`.' }),
    mandatory: boolean({ description: 'Whether the module is installed in every runtime, whatever its Kyma says.' }),
    data: embeddedResource({ description: 'The module\'s default custom resource, created in the runtime when the Kyma\'s customResourcePolicy is CreateAndDelete.' }),
    descriptor: freeObject({ description: 'The module\'s OCM component descriptor, kept as it is. Optional here (required upstream); this control plane does not read it.' }),
    customStateCheck: array(
      object({
        jsonPath: req(string({ description: 'JSON path of the state field in the module\'s custom resource.' })),
        value: req(string({ description: 'Value at jsonPath that maps to mappedState.' })),
        mappedState: req(state('State the module takes when jsonPath holds value.')),
      }),
      { description: 'Deprecated upstream: how to read the module\'s state from its custom resource.' },
    ),
    resources: array(moduleResource, {
      listType: 'map',
      listMapKeys: ['name'],
      description: 'Fetchable resources of the module, keyed by name; the entry `rawManifest` is where the Manifest controller gets the module\'s objects.',
    }),
    info: object(
      {
        repository: req(string({ description: 'Link to the module\'s source repository.' })),
        documentation: req(string({ description: 'Link to the module\'s documentation.' })),
        icons: array(
          object({ name: req(string({ description: 'Name of the icon.' })), link: req(string({ description: 'Link to the icon.' })) }),
          { listType: 'map', listMapKeys: ['name'], description: 'Icons of the module, keyed by name.' },
        ),
      },
      { description: 'Metadata about the module for catalogs and UIs.' },
    ),
    associatedResources: array(groupVersionKind, { description: 'Kinds of resources the module creates that must be cleaned up when it is removed (informational).' }),
    manager,
    enableModuleConfig: boolean({
      description:
        'Upstream\'s proposal: the lifecycle manager keeps a ModuleConfig in the KCP for every runtime with this module, holding the module\'s custom resource (spec.data\'s kind) as it is in the runtime.',
    }),
    syncResourceKinds: array(
      object({
        group: req(string({ description: 'API group of the kind (empty for the core group).' })),
        kind: req(string({ minLength: 1, description: 'The kind, e.g. `ConfigMap`.' })),
        scope: req(enumOf(['Namespaced', 'Cluster'] as const, { description: 'Whether objects of the kind are namespaced or cluster-scoped.' })),
      }),
      {
        description:
          'Project extension: the kinds this module\'s SyncResources may carry into runtimes. The lifecycle manager refuses any other item, so a module manager cannot use it to do more than its module may. Empty: the module syncs nothing.',
      },
    ),
    requiresDowntime: boolean({ description: 'Whether upgrading to this version needs downtime, so that it waits for the runtime\'s maintenance window.' }),
  },
  { description: 'One version of a module: where its manifest is, its default custom resource and metadata.' },
);

export const ModuleTemplate = defineKind({
  group: GROUP,
  version: V1BETA2,
  kind: 'ModuleTemplate',
  plural: 'moduletemplates',
  singular: 'moduletemplate',
  scope: 'Namespaced',
  description: 'One version of a module, as published into the catalog (in `kcp-system`, named `<moduleName>-<version>`).',
  spec: moduleTemplateSpec,
  specRequired: false,
  printerColumns: [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
  notes: `
Compatible with upstream \`operator.kyma-project.io/v1beta2\` ModuleTemplate (\`api/v1beta2/moduletemplate_types.go\`).

- Name: \`<spec.moduleName>-<spec.version>\` (checked by \`validateModuleTemplate\`). Label \`operator.kyma-project.io/module-name\` should equal \`spec.moduleName\`.
- **Manifest source.** This control plane does not read OCM component descriptors. The module's objects come from the
  \`spec.resources\` entry named \`rawManifest\` (as \`modulectl\` writes it upstream): an \`https://\` / \`http://\` URL of a YAML
  stream, or an \`oci://\` reference to an image holding one. \`validateModuleTemplate\` requires it for non-empty templates.
- \`spec.descriptor\` is optional here (required upstream); it is kept unchanged and not read.
- \`spec.channel\` is deprecated upstream: accepted, not read (channels live in ModuleReleaseMeta).
- \`spec.customStateCheck\` is deprecated upstream; kept.
- \`spec.enableModuleConfig\` is upstream's proposal (lifecycle-manager #1104, never served upstream): the lifecycle manager keeps a
  ModuleConfig per runtime with the module's custom resource (docs/module-sync.md).
- **Project extension:** \`spec.syncResourceKinds\`, the kinds the module's SyncResources may carry; every other item is refused.
- Beta and internal templates were marked with the \`operator.kyma-project.io/beta\` / \`internal\` labels (legacy); ModuleReleaseMeta carries the flags now.
`,
});

export type ModuleTemplateObject = ObjectOf<typeof ModuleTemplate>;
export type ModuleTemplateSpec = Infer<typeof moduleTemplateSpec>;
