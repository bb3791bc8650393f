// Parts of Gardener's core.gardener.cloud/v1beta1 API that both the Shoot kind and the
// infrastructure manager's Runtime embed (upstream: gardener/gardener pkg/apis/core/v1beta1,
// types_shoot.go and types_common.go). Written once here with the schema builders; Runtime reuses
// them so that a Runtime's workers, OIDC settings and control plane settings are exactly Gardener's.
import {
  array,
  boolean,
  enumOf,
  freeObject,
  type Infer,
  integer,
  intOrString,
  map,
  object,
  req,
  string,
} from '../../schema.js';

// ---------------------------------------------------------------------------------------------
// Patterns shared by Gardener-shaped fields.

/** A DNS-1123 label (lower-case alphanumerics and '-', starting and ending alphanumeric). */
export const DNS_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/** A Kubernetes version as Gardener accepts it: `<major>.<minor>` or `<major>.<minor>.<patch>`. */
export const KUBERNETES_VERSION_PATTERN = '^[0-9]+\\.[0-9]+(\\.[0-9]+)?$';

/** A resource.Quantity in its canonical string forms (the pattern kube uses for quantities). */
export const QUANTITY_PATTERN = '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

const IPV4_OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
/**
 * A CIDR: IPv4 (`a.b.c.d/n`, octets 0-255, prefix 0-32) or IPv6 (hex groups with `::`, prefix 0-128).
 * The IPv6 branch checks the shape; exact IPv6 parsing is done by `parseCidr` in the validators.
 */
export const CIDR_PATTERN =
  `^((${IPV4_OCTET}\\.){3}${IPV4_OCTET}/(3[0-2]|[12]?[0-9])|[0-9a-fA-F]{0,4}(:[0-9a-fA-F]{0,4}){2,7}/(12[0-8]|1[01][0-9]|[1-9]?[0-9]))$`;

/** A maintenance time window bound, HHMMSS+ZONE (e.g. `220000+0100`), Gardener's pattern. */
export const MAINTENANCE_TIME_PATTERN = '([0-1][0-9]|2[0-3])[0-5][0-9][0-5][0-9]\\+[0-1][0-4]00';

/** A CIDR-valued string field. */
export function cidr(description: string) {
  return string({ pattern: CIDR_PATTERN, description });
}

/** A provider-specific configuration blob (runtime.RawExtension): any JSON object, kept as it is. */
export function providerConfig(description: string) {
  return freeObject({ description });
}

// ---------------------------------------------------------------------------------------------
// Shoot purposes.

export const ShootPurposeEvaluation = 'evaluation';
export const ShootPurposeTesting = 'testing';
export const ShootPurposeDevelopment = 'development';
export const ShootPurposeProduction = 'production';
export const ShootPurposeInfrastructure = 'infrastructure';
export const shootPurposes = [
  ShootPurposeEvaluation,
  ShootPurposeTesting,
  ShootPurposeDevelopment,
  ShootPurposeProduction,
  ShootPurposeInfrastructure,
] as const;
export type ShootPurpose = (typeof shootPurposes)[number];

// ---------------------------------------------------------------------------------------------
// OIDC settings of the kube-apiserver (OIDCConfig).

/** JOSE signing algorithms Gardener accepts in `signingAlgs`. */
export const oidcSigningAlgorithms = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'] as const;

/** The properties of Gardener's OIDCConfig, exported so that extended variants can add to them. */
export const oidcConfigProperties = {
  caBundle: string({ description: 'PEM bundle of the CAs that sign the OpenID provider\'s serving certificate; the host\'s roots are used when unset.' }),
  clientAuthentication: object(
    {
      extraConfig: map(string(), { description: 'Extra settings for the kubeconfig auth-provider section.' }),
      secret: string({ description: 'Client secret of the OpenID Connect client.' }),
    },
    { description: 'Client settings for kubeconfig generation (deprecated by Gardener, unused).' },
  ),
  clientID: string({ description: 'Client ID the ID tokens must be issued for.' }),
  groupsClaim: string({ description: 'Claim that carries the user\'s groups (a string or a list of strings).' }),
  groupsPrefix: string({ description: 'Prefix added to every group name, to avoid clashes with other authenticators.' }),
  issuerURL: string({ pattern: '^https://', description: 'URL of the OpenID issuer; must use https.' }),
  requiredClaims: map(string(), { description: 'Claims that must be present in the ID token with exactly these values.' }),
  signingAlgs: array(enumOf(oidcSigningAlgorithms), { description: 'Accepted JOSE signing algorithms of the ID tokens.' }),
  usernameClaim: string({ description: 'Claim used as the user name (Gardener\'s default: `sub`).' }),
  usernamePrefix: string({ description: 'Prefix added to every user name; `-` disables prefixing.' }),
};

export const oidcConfig = object(oidcConfigProperties, {
  description: 'OpenID Connect settings of the kube-apiserver (Gardener OIDCConfig).',
  preserveUnknownFields: true,
});
export type OIDCConfig = Infer<typeof oidcConfig>;

// ---------------------------------------------------------------------------------------------
// Control plane high availability.

export const FailureToleranceTypeNode = 'node';
export const FailureToleranceTypeZone = 'zone';
export const failureToleranceTypes = [FailureToleranceTypeNode, FailureToleranceTypeZone] as const;

export const controlPlane = object(
  {
    highAvailability: object(
      {
        failureTolerance: req(
          object(
            { type: req(enumOf(failureToleranceTypes, { description: 'Failure the control plane tolerates: `node` (single zone) or `zone` (multi zone).' })) },
            { description: 'Failure tolerance of the highly available control plane.' },
          ),
        ),
      },
      { description: 'High availability of the control plane; unset means a single replica.' },
    ),
  },
  { description: 'General settings of the shoot\'s control plane (Gardener ControlPlane).' },
);
export type ControlPlane = Infer<typeof controlPlane>;

// ---------------------------------------------------------------------------------------------
// Worker pools.

export const machineArchitectures = ['amd64', 'arm64'] as const;

export const machineImage = object(
  {
    name: req(string({ minLength: 1, description: 'Name of the machine image (as listed in the CloudProfile), e.g. `gardenlinux`.' })),
    version: string({ description: 'Version of the machine image; the CloudProfile\'s latest when unset.' }),
    providerConfig: providerConfig('Provider-specific configuration of the image.'),
  },
  { description: 'Machine image of the pool\'s nodes.', preserveUnknownFields: true },
);

export const machine = object(
  {
    type: req(string({ minLength: 1, description: 'Machine type of the pool, e.g. `m6i.large`.' })),
    image: machineImage,
    architecture: enumOf(machineArchitectures, { description: 'CPU architecture of the machines.' }),
  },
  { description: 'Machine type and image of the pool.', preserveUnknownFields: true },
);

export const volume = object(
  {
    name: string({ description: 'Name of the volume, to refer to it.' }),
    type: string({ description: 'Provider-specific volume type, e.g. `gp3`.' }),
    size: req(string({ pattern: QUANTITY_PATTERN, description: 'Size of the volume, a quantity such as `80Gi`.' })),
    encrypted: boolean({ description: 'Whether the volume is encrypted.' }),
  },
  { description: 'Root volume of the pool\'s machines.' },
);

export const taint = object(
  {
    key: req(string({ minLength: 1, description: 'Taint key.' })),
    value: string({ description: 'Taint value.' }),
    effect: req(enumOf(['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const, { description: 'Effect on pods that do not tolerate the taint.' })),
    timeAdded: string({ format: 'date-time', description: 'When a NoExecute taint was added.' }),
  },
  { description: 'A node taint.' },
);

/** Longest worker pool name Gardener accepts. */
export const WORKER_NAME_MAX_LENGTH = 15;

export const worker = object(
  {
    name: req(string({ pattern: DNS_LABEL_PATTERN, maxLength: WORKER_NAME_MAX_LENGTH, description: 'Name of the worker pool (a DNS label of at most 15 characters).' })),
    machine: req(machine),
    minimum: req(integer({ format: 'int32', minimum: 0, description: 'Least number of machines, spread evenly over the zones.' })),
    maximum: req(integer({ format: 'int32', minimum: 0, description: 'Largest number of machines, spread evenly over the zones.' })),
    maxSurge: intOrString({ description: 'Machines created above the desired count during a rolling update (number or percentage).' }),
    maxUnavailable: intOrString({ description: 'Machines that may be unavailable during a rolling update (number or percentage).' }),
    zones: array(string({ minLength: 1 }), { listType: 'set', description: 'Availability zones the pool is spread over.' }),
    volume,
    labels: map(string(), { description: 'Labels for every node of the pool.' }),
    annotations: map(string(), { description: 'Annotations for every node of the pool.' }),
    taints: array(taint, { description: 'Taints for every node of the pool.' }),
    providerConfig: providerConfig('Provider-specific configuration of the pool.'),
    kubernetes: freeObject({ description: 'Kubernetes settings of the pool (kubelet configuration, kubelet version).' }),
    cri: freeObject({ description: 'Container runtime of the pool\'s machines (defaults to containerd).' }),
    systemComponents: object({ allow: req(boolean({ description: 'Whether system components may run in this pool.' })) }, { description: 'System component placement.' }),
    priority: integer({ format: 'int32', description: 'Weight of the pool for the cluster autoscaler\'s priority expander.' }),
    updateStrategy: enumOf(['AutoRollingUpdate', 'AutoInPlaceUpdate', 'ManualInPlaceUpdate'] as const, { description: 'How machines are updated.' }),
  },
  {
    description: 'A worker pool (Gardener Worker). Fields Gardener defines and this schema does not list are kept as they are.',
    preserveUnknownFields: true,
    validations: [
      { rule: 'self.maximum >= self.minimum', message: 'maximum must not be less than minimum', fieldPath: '.maximum' },
      {
        rule: '!has(self.zones) || self.maximum == 0 || self.maximum >= size(self.zones)',
        message: 'maximum must not be less than the number of zones',
        fieldPath: '.maximum',
      },
    ],
  },
);
export type Worker = Infer<typeof worker>;

// ---------------------------------------------------------------------------------------------
// Last operation, last errors, conditions.

export const LastOperationTypeCreate = 'Create';
export const LastOperationTypeReconcile = 'Reconcile';
export const LastOperationTypeDelete = 'Delete';
export const LastOperationTypeMigrate = 'Migrate';
export const LastOperationTypeRestore = 'Restore';
export const LastOperationTypeLiveMigrate = 'LiveMigrate';
export const lastOperationTypes = [
  LastOperationTypeCreate,
  LastOperationTypeReconcile,
  LastOperationTypeDelete,
  LastOperationTypeMigrate,
  LastOperationTypeRestore,
  LastOperationTypeLiveMigrate,
] as const;
export type LastOperationType = (typeof lastOperationTypes)[number];

export const LastOperationStateProcessing = 'Processing';
export const LastOperationStateSucceeded = 'Succeeded';
export const LastOperationStateError = 'Error';
export const LastOperationStateFailed = 'Failed';
export const LastOperationStatePending = 'Pending';
export const LastOperationStateAborted = 'Aborted';
export const lastOperationStates = [
  LastOperationStateProcessing,
  LastOperationStateSucceeded,
  LastOperationStateError,
  LastOperationStateFailed,
  LastOperationStatePending,
  LastOperationStateAborted,
] as const;
export type LastOperationState = (typeof lastOperationStates)[number];

export const lastOperation = object(
  {
    description: req(string({ description: 'What the operation is doing or did, for people.' })),
    lastUpdateTime: req(string({ format: 'date-time', description: 'When the operation\'s state last changed.' })),
    progress: req(integer({ format: 'int32', minimum: 0, maximum: 100, description: 'Progress in percent.' })),
    state: req(enumOf(lastOperationStates, { description: 'State: Processing, Succeeded, Error (will be retried), Failed (will not), Pending, Aborted.' })),
    type: req(enumOf(lastOperationTypes, { description: 'Kind of operation: Create, Reconcile, Delete, Migrate, Restore, LiveMigrate.' })),
  },
  { description: 'Type, state and progress of the last operation on a Gardener resource (Gardener LastOperation).' },
);
export type LastOperation = Infer<typeof lastOperation>;

export const lastError = object(
  {
    description: req(string({ description: 'What went wrong, for people.' })),
    taskID: string({ description: 'ID of the flow task that failed.' }),
    codes: array(string(), { description: 'Well-defined error codes (ERR_...) classifying the error; see the exported ErrorCode constants.' }),
    lastUpdateTime: string({ format: 'date-time', description: 'When the error was last reported.' }),
  },
  { description: 'An error of the last operation on a Gardener resource (Gardener LastError).' },
);
export type LastError = Infer<typeof lastError>;

export const gardenerConditionStatuses = ['True', 'False', 'Unknown', 'Progressing'] as const;

export const gardenerCondition = object(
  {
    type: req(string({ minLength: 1, description: 'Type of the condition, e.g. `APIServerAvailable`.' })),
    status: req(enumOf(gardenerConditionStatuses, { description: 'True, False, Unknown or Progressing.' })),
    lastTransitionTime: string({ format: 'date-time', description: 'When the status last changed.' }),
    lastUpdateTime: string({ format: 'date-time', description: 'When reason or message last changed.' }),
    reason: string({ description: 'Machine-readable reason, UpperCamelCase.' }),
    message: string({ description: 'Details for people.' }),
    codes: array(string(), { description: 'Error codes when the condition reports a problem.' }),
  },
  { description: 'A Gardener condition (gardencorev1beta1.Condition: has lastUpdateTime and codes, and the Progressing status).' },
);
export type GardenerCondition = Infer<typeof gardenerCondition>;

export const gardenerConditions = array(gardenerCondition, { listType: 'map', listMapKeys: ['type'], description: 'Conditions, one per type.' });
