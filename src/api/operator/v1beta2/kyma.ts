// Kyma (operator.kyma-project.io/v1beta2): one per runtime; which modules it runs, from which channel.
import { defineKind, type ObjectOf } from '../../crd.js';
import { array, boolean, conditions, type Infer, object, req, string } from '../../schema.js';
import { channel, customResourcePolicy, MODULE_VERSION_PATTERN, trackingObject } from './common.js';
import { GROUP, lastOperation, state, V1BETA2 } from '../shared.js';

export const kymaModule = object(
  {
    name: req(string({ description: 'Name of the module (the `operator.kyma-project.io/module-name` of its templates, e.g. `keda`). Unique in the list.' })),
    controller: string({ description: 'Controller that reconciles this module\'s Manifest, to split work between controllers (upstream field ControllerName, JSON name `controller`).' }),
    channel: channel('Release channel of this module; overrides spec.channel. Must not be `none`.'),
    version: string({
      pattern: MODULE_VERSION_PATTERN,
      minLength: 1,
      maxLength: 32,
      description: 'Project extension: pins the module to this version (the ModuleTemplate `<name>-<version>`) instead of resolving it from a channel. Excludes channel.',
    }),
    remoteModuleTemplateRef: string({ description: 'Deprecated upstream and without effect; kept so that existing objects stay valid.' }),
    customResourcePolicy,
    managed: boolean({ default: true, description: 'Whether the control plane manages the module; when false, the user owns its lifecycle and the module\'s resources are left in place.' }),
  },
  {
    description: 'A module to install in the runtime.',
    validations: [{ rule: '!(has(self.version) && has(self.channel))', message: 'version and channel are mutually exclusive', reason: 'FieldValueForbidden' }],
  },
);
export type KymaModule = Infer<typeof kymaModule>;

export const kymaSpec = object(
  {
    channel: req(channel('Default release channel of the runtime\'s modules, e.g. `regular` or `fast`.')),
    skipMaintenanceWindows: boolean({ description: 'Apply module upgrades that require downtime at once instead of waiting for a maintenance window.' }),
    modules: array(kymaModule, { listType: 'map', listMapKeys: ['name'], description: 'Modules to install, keyed by name.' }),
  },
  { description: 'The desired state of a runtime\'s modules.' },
);

export const moduleStatus = object(
  {
    name: req(string({ description: 'Name of the module, as in spec.modules[].name.' })),
    fqdn: string({ description: 'Deprecated upstream in favour of ocmComponentName: the module\'s fully qualified name.' }),
    ocmComponentName: string({ description: 'OCM component name of the module.' }),
    channel: string({ description: 'Channel the installed version was resolved from.' }),
    version: string({ description: 'Installed version of the module.' }),
    message: string({ description: 'Human-readable details about the state.' }),
    state: req(state('State of the module.')),
    manifest: trackingObject('The Manifest that installs the module.'),
    resource: trackingObject('The module\'s default custom resource in the runtime.'),
    template: trackingObject('The ModuleTemplate the module was last resolved to.'),
    maintenance: boolean({ description: 'Whether an upgrade of the module waits for a maintenance window.' }),
  },
  { description: 'What is installed of one module.' },
);

export const kymaStatus = object(
  {
    state: state('Overall state of the runtime\'s modules: `Ready`, `Processing`, `Error`, `Deleting` or `Warning`.'),
    conditions,
    modules: array(moduleStatus, { description: 'One entry per module installed or being removed.' }),
    activeChannel: string({ description: 'The channel in effect (spec.channel when last reconciled).' }),
    lastOperation,
  },
  { description: 'The observed state of a runtime\'s modules.' },
);

export const Kyma = defineKind({
  group: GROUP,
  version: V1BETA2,
  kind: 'Kyma',
  plural: 'kymas',
  singular: 'kyma',
  scope: 'Namespaced',
  description: 'A runtime\'s module configuration: which modules run in it and from which release channel. One per runtime, in `kcp-system`, named after the runtime; mirrored into the runtime as `kyma-system/default`.',
  spec: kymaSpec,
  status: kymaStatus,
  specRequired: false,
  printerColumns: [
    { name: 'State', type: 'string', jsonPath: '.status.state' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  notes: `
Compatible with upstream \`operator.kyma-project.io/v1beta2\` Kyma (kyma-project/lifecycle-manager, \`api/v1beta2/kyma_types.go\`).

- Required label: \`operator.kyma-project.io/kyma-name\` (checked by \`validateKyma\`, since CEL cannot read labels).
  The broker also sets \`kyma-project.io/runtime-id\`, \`kyma-project.io/global-account-id\`, \`kyma-project.io/region\`, ...
- Module names must be unique (\`modules\` is a list-map keyed by \`name\`); the API rejects duplicates.
- The channel \`none\` is accepted by the schema, as upstream, but \`validateKyma\` reports it and the module is not installed.
- \`spec.modules[].remoteModuleTemplateRef\` is deprecated upstream and ignored.
- **Project extension:** \`spec.modules[].version\` pins a module version. Upstream has the field in Go but does not
  serialise it (\`json:"-"\`); here it is part of the API. It excludes \`channel\` (CEL rule).
`,
});

export type KymaObject = ObjectOf<typeof Kyma>;
export type KymaSpec = Infer<typeof kymaSpec>;
export type KymaStatus = Infer<typeof kymaStatus>;
export type ModuleStatus = Infer<typeof moduleStatus>;
