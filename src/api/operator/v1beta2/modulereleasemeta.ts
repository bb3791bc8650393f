// ModuleReleaseMeta (operator.kyma-project.io/v1beta2): which version of a module each channel offers.
import { defineKind, type ObjectOf } from '../../crd.js';
import { array, boolean, type Infer, object, req, string } from '../../schema.js';
import { channel, labelSelector, MODULE_VERSION_PATTERN, OCM_COMPONENT_NAME_PATTERN, SEMVER_PATTERN } from './common.js';
import { GROUP, MODULE_NAME_PATTERN, V1BETA2 } from '../shared.js';

export const channelVersionAssignment = object(
  {
    channel: req(channel('The channel, e.g. `regular`, `fast`, `experimental`.')),
    version: req(string({ pattern: MODULE_VERSION_PATTERN, maxLength: 32, description: 'Version of the module offered in this channel.' })),
  },
  { description: 'A channel and the module version it offers.' },
);

export const moduleReleaseMetaSpec = object(
  {
    moduleName: req(string({ pattern: MODULE_NAME_PATTERN, maxLength: 64, description: 'Name of the module.' })),
    ocmComponentName: string({ pattern: OCM_COMPONENT_NAME_PATTERN, maxLength: 255, description: 'OCM component name of the module, e.g. `kyma-project.io/module/keda`.' }),
    channels: array(channelVersionAssignment, { listType: 'map', listMapKeys: ['channel'], description: 'Versions by channel, keyed by channel. Excludes mandatory.' }),
    mandatory: object(
      { version: req(string({ pattern: SEMVER_PATTERN, minLength: 1, description: 'Version installed in every runtime.' })) },
      { description: 'Makes the module mandatory, in this version. Excludes channels.' },
    ),
    beta: boolean({ default: false, description: 'Deprecated upstream: the module is offered only to Kymas labelled `operator.kyma-project.io/beta: "true"`.' }),
    internal: boolean({ default: false, description: 'Deprecated upstream: the module is offered only to Kymas labelled `operator.kyma-project.io/internal: "true"`.' }),
    kymaSelector: labelSelector,
  },
  {
    description: 'Channel-to-version assignments of one module, or the version of a mandatory module.',
    validations: [
      {
        rule: '(has(self.mandatory) && !has(self.channels)) || (!has(self.mandatory) && has(self.channels))',
        message: "exactly one of 'mandatory' or 'channels' must be specified",
      },
    ],
  },
);

export const ModuleReleaseMeta = defineKind({
  group: GROUP,
  version: V1BETA2,
  kind: 'ModuleReleaseMeta',
  plural: 'modulereleasemetas',
  singular: 'modulereleasemeta',
  shortNames: ['mrm'],
  scope: 'Namespaced',
  description: 'Release metadata of one module (in `kcp-system`, named after the module): which version each channel offers, or the version of a mandatory module.',
  spec: moduleReleaseMetaSpec,
  specRequired: false,
  printerColumns: [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
  notes: `
Compatible with upstream \`operator.kyma-project.io/v1beta2\` ModuleReleaseMeta (\`api/v1beta2/modulereleasemeta_types.go\`).

- Exactly one of \`spec.channels\` and \`spec.mandatory\` (CEL rule, as upstream).
- The object is named after \`spec.moduleName\` (checked by \`validateModuleReleaseMeta\`), and a channel's version \`v\`
  resolves to the ModuleTemplate \`<moduleName>-<v>\` in the same namespace.
- \`spec.beta\` and \`spec.internal\` are deprecated upstream but still read: they restrict the module to Kymas with the matching label.
- \`spec.kymaSelector\` (experimental upstream): a module named in \`--restricted-modules\` is offered and installed only for Kymas the selector selects (a missing or empty one selects none) and uninstalled from a Kyma that stops matching; a selector on any other module makes it not allowed anywhere.
`,
});

export type ModuleReleaseMetaObject = ObjectOf<typeof ModuleReleaseMeta>;
export type ModuleReleaseMetaSpec = Infer<typeof moduleReleaseMetaSpec>;
