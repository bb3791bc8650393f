// Manifest (operator.kyma-project.io/v1beta2): one module installed into one runtime.
import { defineKind, type ObjectOf } from '../../crd.js';
import { array, boolean, conditions, embeddedResource, enumOf, freeObject, type Infer, object, req, string } from '../../schema.js';
import { customResourcePolicy, labelSelector, manager, resourceRef } from './common.js';
import { GROUP, lastOperation, state, V1BETA2 } from '../shared.js';

export const imageSpec = object(
  {
    repo: string({ description: 'OCI repository, e.g. `europe-docker.pkg.dev/kyma-project/prod/unsigned/component-descriptors`.' }),
    name: string({ description: 'Name of the image in the repository.' }),
    ref: string({ description: 'Tag, version or digest.' }),
    type: enumOf(['helm-chart', 'oci-ref', 'kustomize', ''] as const, { description: 'How to read the layer.' }),
    credSecretSelector: { ...labelSelector, openapi: { ...labelSelector.openapi, description: 'Deprecated upstream and not read: selected the pull Secret.' } },
  },
  { description: 'An OCI image layer.' },
);

export const manifestSpec = object(
  {
    customResourcePolicy,
    remote: req(boolean({ description: 'Whether to install into the runtime cluster (true) or into the control-plane cluster itself (false).' })),
    version: string({ description: 'Version of the module being installed.' }),
    config: imageSpec,
    install: req(
      object(
        {
          source: req(
            freeObject({
              description:
                'Where the module\'s objects come from. Upstream: an image spec (`repo`, `name`, `ref`, `type: oci-ref`). Here also `{ url: <link> }` with the ModuleTemplate\'s `rawManifest` link.',
            }),
          ),
          name: req(string({ description: 'Name of the installation, unique in the Manifest (upstream writes `raw-manifest`).' })),
        },
        { description: 'The module\'s objects to install.' },
      ),
    ),
    resource: embeddedResource({ nullable: true, description: 'The module\'s default custom resource to create in the target cluster (from ModuleTemplate.spec.data); absent with customResourcePolicy Ignore.' }),
    localizedImages: array(string(), { description: 'Image references valid where the module runs; they replace the module\'s images with the same repository path.' }),
    manager,
  },
  { description: 'What to install for one module in one runtime.' },
);

export const manifestStatus = object(
  {
    state: req(state('State of the installation: `Ready`, `Processing`, `Error`, `Deleting`, `Warning` or `Unmanaged`.')),
    conditions,
    synced: array(resourceRef, { listType: 'atomic', description: 'Every object the Manifest applied; objects that leave this list are removed from the target cluster.' }),
    lastOperation,
  },
  { description: 'The observed state of the installation.' },
);

export const Manifest = defineKind({
  group: GROUP,
  version: V1BETA2,
  kind: 'Manifest',
  plural: 'manifests',
  singular: 'manifest',
  scope: 'Namespaced',
  description: 'One module installed into one runtime: the objects to apply with server-side apply, the default custom resource, and the inventory of what was applied.',
  spec: manifestSpec,
  status: manifestStatus,
  specRequired: false,
  printerColumns: [
    { name: 'State', type: 'string', jsonPath: '.status.state' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  notes: `
Compatible with upstream \`operator.kyma-project.io/v1beta2\` Manifest (\`api/v1beta2/manifest_types.go\`, status \`api/shared/status.go\`).

- Required labels: \`operator.kyma-project.io/kyma-name\` and \`operator.kyma-project.io/module-name\` (checked by \`validateManifest\`).
  The Manifest is owned by its Kyma and carries the finalizer \`declarative.kyma-project.io/finalizer\`.
- **Project extension:** \`spec.install.source\` may be \`{ url: "<https or oci link>" }\`, the \`rawManifest\` link of the ModuleTemplate,
  since OCM descriptors are not read. The upstream image-spec form is accepted too.
- \`spec.config.credSecretSelector\` is deprecated upstream and not read.
- The annotation \`operator.kyma-project.io/is-unmanaged: "true"\` marks a module the user took over (state \`Unmanaged\`).
`,
});

export type ManifestObject = ObjectOf<typeof Manifest>;
export type ManifestSpec = Infer<typeof manifestSpec>;
export type ManifestStatus = Infer<typeof manifestStatus>;
