// GardenerCluster (infrastructuremanager.kyma-project.io/v1): asks the infrastructure manager to keep
// a kubeconfig Secret of a Shoot in the KCP and to rotate it before it expires.
// Upstream: kyma-project/infrastructure-manager api/v1/gardenercluster_types.go.
import { defineKind, type ObjectOf } from '../../crd.js';
import { conditions, enumOf, type Infer, object, req, string } from '../../schema.js';
import { DNS_LABEL_PATTERN } from '../../gardener/v1beta1/common.js';
import { INFRASTRUCTURE_MANAGER_GROUP, INFRASTRUCTURE_MANAGER_VERSION } from './runtime.js';

// ---------------------------------------------------------------------------------------------
// Annotations and labels.

/** GardenerCluster annotation: rotate the kubeconfig now; the manager removes it after the rotation. */
export const AnnotationForceKubeconfigRotation = 'operator.kyma-project.io/force-kubeconfig-rotation';
/** Kubeconfig Secret annotation: when the kubeconfig was last fetched (RFC 3339, UTC); drives time-based rotation. */
export const AnnotationLastKubeconfigSync = 'operator.kyma-project.io/last-sync';
/** Kubeconfig Secret label: name of the GardenerCluster the Secret belongs to. */
export const LabelClusterCRName = 'operator.kyma-project.io/cluster-name';
/** Kubeconfig Secret label `operator.kyma-project.io/managed-by` has this value. */
export const ManagedByInfrastructureManager = 'infrastructure-manager';
/** Key of the kubeconfig in the Secret, as the infrastructure manager and the broker use it. */
export const DefaultKubeconfigSecretKey = 'config';
/** Name of the kubeconfig Secret of a runtime: `kubeconfig-<runtime id>`. */
export function kubeconfigSecretName(runtimeID: string): string {
  return `kubeconfig-${runtimeID}`;
}

// ---------------------------------------------------------------------------------------------
// States, condition type and reasons.

export const GardenerClusterStateReady = 'Ready';
export const GardenerClusterStateProcessing = 'Processing';
export const GardenerClusterStateError = 'Error';
export const GardenerClusterStateDeleting = 'Deleting';
export const gardenerClusterStates = [GardenerClusterStateReady, GardenerClusterStateProcessing, GardenerClusterStateError, GardenerClusterStateDeleting] as const;
export type GardenerClusterState = (typeof gardenerClusterStates)[number];

export const ConditionTypeKubeconfigManagement = 'KubeconfigManagement';

export const ConditionReasonKubeconfigSecretCreated = 'KubeconfigSecretCreated';
export const ConditionReasonKubeconfigSecretRotated = 'KubeconfigSecretRotated';
export const ConditionReasonFailedToGetSecret = 'FailedToCheckSecret';
export const ConditionReasonFailedToCreateSecret = 'ConditionReasonFailedToCreateSecret';
export const ConditionReasonFailedToDeleteSecret = 'ConditionReasonFailedToDeleteSecret';
export const ConditionReasonFailedToUpdateSecret = 'FailedToUpdateSecret';
export const ConditionReasonFailedToGetKubeconfig = 'FailedToGetKubeconfig';
export const gardenerClusterConditionReasons = [
  ConditionReasonKubeconfigSecretCreated,
  ConditionReasonKubeconfigSecretRotated,
  ConditionReasonFailedToGetSecret,
  ConditionReasonFailedToCreateSecret,
  ConditionReasonFailedToDeleteSecret,
  ConditionReasonFailedToUpdateSecret,
  ConditionReasonFailedToGetKubeconfig,
] as const;
export type GardenerClusterConditionReason = (typeof gardenerClusterConditionReasons)[number];

/** The condition messages upstream writes for each reason. */
export const gardenerClusterConditionMessages: Record<GardenerClusterConditionReason, string> = {
  [ConditionReasonKubeconfigSecretCreated]: 'Secret created successfully.',
  [ConditionReasonKubeconfigSecretRotated]: 'Secret rotated successfully.',
  [ConditionReasonFailedToCreateSecret]: 'Failed to create secret.',
  [ConditionReasonFailedToUpdateSecret]: 'Failed to rotate secret.',
  [ConditionReasonFailedToGetSecret]: 'Failed to get secret.',
  [ConditionReasonFailedToGetKubeconfig]: 'Failed to get kubeconfig.',
  [ConditionReasonFailedToDeleteSecret]: 'Unknown condition',
};

// ---------------------------------------------------------------------------------------------
// Schema.

/** A Secret name (DNS subdomain). */
const DNS_SUBDOMAIN_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
/** A key of a Secret's data. */
const SECRET_KEY_PATTERN = '^[-._a-zA-Z0-9]+$';

export const gardenerClusterSpec = object(
  {
    kubeconfig: req(
      object(
        {
          secret: req(
            object(
              {
                name: req(string({ pattern: DNS_SUBDOMAIN_PATTERN, maxLength: 253, description: 'Name of the Secret, by convention `kubeconfig-<runtime id>`.' })),
                namespace: req(string({ pattern: DNS_LABEL_PATTERN, maxLength: 63, description: 'Namespace of the Secret.' })),
                key: req(string({ pattern: SECRET_KEY_PATTERN, maxLength: 253, description: 'Key of the kubeconfig in the Secret\'s data, by convention `config`.' })),
              },
              { description: 'The Secret that holds the kubeconfig.' },
            ),
          ),
        },
        { description: 'Where the kubeconfig is kept.' },
      ),
    ),
    shoot: req(
      object(
        { name: req(string({ pattern: DNS_LABEL_PATTERN, maxLength: 63, description: 'Name of the Gardener Shoot.' })) },
        { description: 'The Shoot whose kubeconfig is kept.' },
      ),
    ),
  },
  { description: 'Which Shoot, and where its kubeconfig goes.' },
);

export const gardenerClusterStatus = object(
  {
    state: enumOf(gardenerClusterStates, { description: 'Overall state: Ready or Error (upstream also names Processing and Deleting).' }),
    conditions,
  },
  { description: 'Observed state of the kubeconfig management.' },
);

export const GardenerCluster = defineKind({
  group: INFRASTRUCTURE_MANAGER_GROUP,
  version: INFRASTRUCTURE_MANAGER_VERSION,
  kind: 'GardenerCluster',
  plural: 'gardenerclusters',
  singular: 'gardenercluster',
  scope: 'Namespaced',
  description: 'A Shoot whose kubeconfig the infrastructure manager keeps in a Secret and rotates.',
  spec: gardenerClusterSpec,
  status: gardenerClusterStatus,
  printerColumns: [
    { name: 'STATE', type: 'string', jsonPath: '.status.state' },
    { name: 'RUNTIME-ID', type: 'string', jsonPath: '.metadata.labels.kyma-project\\.io/runtime-id' },
    { name: 'SHOOT-NAME', type: 'string', jsonPath: '.metadata.labels.kyma-project\\.io/shoot-name' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  notes: [
    'Compatible with upstream `infrastructuremanager.kyma-project.io/v1` GardenerCluster: same fields, printer columns, condition type `KubeconfigManagement` and reasons (including upstream\'s literal `ConditionReasonFailedToCreateSecret` and `ConditionReasonFailedToDeleteSecret` reason strings).',
    'Annotations: `operator.kyma-project.io/force-kubeconfig-rotation` on the GardenerCluster forces a rotation; `operator.kyma-project.io/last-sync` on the Secret records the last fetch (and the project\'s `infrastructuremanager.kyma-project.io/kubeconfig-shoot` and `-sha256` what was written: a Secret that no longer matches is fetched again at once). The Secret carries the GardenerCluster\'s labels plus `operator.kyma-project.io/managed-by: infrastructure-manager` and `operator.kyma-project.io/cluster-name`.',
    'Upstream uses no finalizer on GardenerCluster: the Secret is deleted when the GardenerCluster is found gone.',
    'Stricter than upstream: the Secret name, namespace and key and the shoot name must be valid Kubernetes names; `status.state` is one of the states upstream names.',
  ].join('\n\n'),
});

export type GardenerClusterObject = ObjectOf<typeof GardenerCluster>;
export type GardenerClusterSpec = Infer<typeof gardenerClusterSpec>;
export type GardenerClusterStatus = Infer<typeof gardenerClusterStatus>;
