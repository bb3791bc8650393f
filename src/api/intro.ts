// The hand-written opening of docs/api.md; the rest of that page is generated from the schemas.
export const API_INTRO = `# API reference

The control plane keeps the API groups, kinds and field names of Kyma's control plane
(kyma-project/infrastructure-manager and kyma-project/lifecycle-manager), so existing Kyma resources,
brokers and tools work against it. Every kind is defined once in \`src/api/\`: its TypeScript type is
inferred from the schema, and its CustomResourceDefinition (\`config/crd/\`) and this page are generated
from the same schema (\`npm run generate\`; a test fails when they are stale).

Validation happens in three places, in this order of preference:
1. the OpenAPI schema of the CRD (types, required fields, enums, patterns, list keys, defaults);
2. CEL rules (\`x-kubernetes-validations\`) for rules across fields, in the subset the embedded API
   server supports (\`docs/crd-cel.md\`);
3. a validation step the controllers run before acting (\`validate.ts\` of each group), for what CEL
   cannot see (labels) or express; its findings end in a Failed/Error state whose condition message
   names the field.

Examples of every kind are in \`config/samples/\`; \`kubectl apply -f config/samples/\` into the embedded
server succeeds once the CRDs are installed.

## Names

Every label, annotation, finalizer and API group name the project writes follows one rule:
- **Upstream's name where upstream has one** (kyma-project/infrastructure-manager,
  kyma-project/lifecycle-manager, Gardener), so existing tools keep working.
- **The project's own extensions of a Kyma API group live under that group's domain**, and are
  defined in the group's one constants file (\`src/api/<group>/constants.ts\`):
  \`infrastructuremanager.kyma-project.io/kubeconfig-expiration\` (on kubeconfig Secrets, when the issued
  credential expires), \`infrastructuremanager.kyma-project.io/retry\` (on a Failed Runtime: a person
  asks for Gardener's retry, \`kcp runtime retry\`; the manager removes it), the Runtime condition
  reason \`KymaDeletionPending\` (a deleted Runtime waits for its Kyma's modules to be removed),
  the Runtime condition reason \`DuplicateRuntimeID\` (another Runtime holds the runtime id; this one is
  not provisioned), \`infrastructuremanager.kyma-project.io/kubeconfig-shoot\` and
  \`infrastructuremanager.kyma-project.io/kubeconfig-sha256\` (on kubeconfig Secrets, the Shoot the
  kubeconfig was issued for and its digest as written: a Secret that no longer matches is fetched again),
  \`operator.kyma-project.io/ca-added-to-bundle-at\` (on the watcher's CA Secret \`klm-watcher\`, when
  its newest CA joined the trusted bundle; upstream keeps this time as \`caAddedToBundleAt\`) and
  \`operator.kyma-project.io/control-plane-version\` (on the Lease \`kcp-control-plane\`, the version of
  the controllers that started last, for \`kcp version\`).
- **Names of the development-only embedded landscape** (the Gardener simulator's failure-injection
  annotations \`simulator.example/fail-*\` and webhook \`validate.shoots.simulator.example\`, the demo
  modules' API groups \`<module>.demo.example\` and OCM names \`demo.example/module/<module>\`) never
  reach a real cluster and live under the reserved top-level domain \`.example\` (RFC 2606), in
  \`src/landscape/constants.ts\`.
- No name uses a domain the project does not own.
`;
