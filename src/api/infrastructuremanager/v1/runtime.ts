// Runtime (infrastructuremanager.kyma-project.io/v1): the cluster a customer wants. The infrastructure
// manager turns each Runtime into a Gardener Shoot and reports Gardener's progress back in its status.
// Upstream: kyma-project/infrastructure-manager api/v1/runtime_types.go.
import { defineKind, type ObjectOf } from '../../crd.js';
import { array, boolean, conditions, enumOf, freeObject, type Infer, object, req, string } from '../../schema.js';
import {
  cidr,
  controlPlane,
  DNS_LABEL_PATTERN,
  KUBERNETES_VERSION_PATTERN,
  lastError,
  lastOperation,
  oidcConfig,
  oidcConfigProperties,
  providerConfig,
  shootPurposes,
  worker,
} from '../../gardener/v1beta1/common.js';

export const INFRASTRUCTURE_MANAGER_GROUP = 'infrastructuremanager.kyma-project.io';
export const INFRASTRUCTURE_MANAGER_VERSION = 'v1';

// ---------------------------------------------------------------------------------------------
// Finalizer and annotations.

/** Finalizer the infrastructure manager puts on every Runtime until its Shoot is gone. */
export const RuntimeFinalizer = 'runtime-controller.infrastructure-manager.kyma-project.io/deletion-hook';
/** Annotation set on a Shoot before deleting it (Gardener refuses deletion without it). */
export const AnnotationGardenerCloudDelConfirmation = 'confirmation.gardener.cloud/deletion';
/** Runtime annotation: patch the Shoot on the next reconciliation whatever the generation; removed after the attempt. */
export const AnnotationForcePatchReconciliation = 'operator.kyma-project.io/force-patch-reconciliation';
/** Runtime annotation: do not patch the Shoot until removed. */
export const AnnotationSuspendPatchReconciliation = 'operator.kyma-project.io/suspend-patch-reconciliation';

// ---------------------------------------------------------------------------------------------
// Labels.

export const LabelKymaInstanceID = 'kyma-project.io/instance-id';
export const LabelKymaRuntimeID = 'kyma-project.io/runtime-id';
export const LabelKymaShootName = 'kyma-project.io/shoot-name';
export const LabelKymaRegion = 'kyma-project.io/region';
export const LabelKymaName = 'operator.kyma-project.io/kyma-name';
export const LabelKymaBrokerPlanID = 'kyma-project.io/broker-plan-id';
export const LabelKymaBrokerPlanName = 'kyma-project.io/broker-plan-name';
export const LabelKymaGlobalAccountID = 'kyma-project.io/global-account-id';
export const LabelKymaSubaccountID = 'kyma-project.io/subaccount-id';
export const LabelKymaManagedBy = 'operator.kyma-project.io/managed-by';
export const LabelKymaInternal = 'operator.kyma-project.io/internal';
export const LabelKymaPlatformRegion = 'kyma-project.io/platform-region';

/** Labels every Runtime must carry with a non-empty value (upstream ValidateRequiredLabels). */
export const requiredRuntimeLabels = [
  LabelKymaInstanceID,
  LabelKymaRuntimeID,
  LabelKymaRegion,
  LabelKymaName,
  LabelKymaBrokerPlanID,
  LabelKymaBrokerPlanName,
  LabelKymaGlobalAccountID,
  LabelKymaSubaccountID,
] as const;

// ---------------------------------------------------------------------------------------------
// States, condition types and reasons.

export const RuntimeStatePending = 'Pending';
export const RuntimeStateReady = 'Ready';
export const RuntimeStateTerminating = 'Terminating';
export const RuntimeStateFailed = 'Failed';
export const runtimeStates = [RuntimeStatePending, RuntimeStateReady, RuntimeStateTerminating, RuntimeStateFailed] as const;
export type RuntimeState = (typeof runtimeStates)[number];

export const ConditionTypeRuntimeProvisioned = 'Provisioned';
export const ConditionTypeRuntimeKubeconfigReady = 'KubeconfigReady';
export const ConditionTypeOidcAndCMsConfigured = 'OidcAndConfigMapConfigured';
export const ConditionTypeKymaSystemCreated = 'KymaSystemNSCreated';
export const ConditionTypeRuntimeConfigured = 'Configured';
export const ConditionTypeRuntimeDeprovisioned = 'Deprovisioned';
export const ConditionTypeRegistryCacheConfigured = 'RegistryCacheConfigured';
export const ConditionTypeRuntimeBootstrapperReady = 'RuntimeBootstrapperReady';
/** Condition types of a Runtime, in the order the infrastructure manager sets them. */
export const runtimeConditionTypes = [
  ConditionTypeRuntimeProvisioned,
  ConditionTypeRuntimeKubeconfigReady,
  ConditionTypeOidcAndCMsConfigured,
  ConditionTypeKymaSystemCreated,
  ConditionTypeRuntimeConfigured,
  ConditionTypeRuntimeDeprovisioned,
  ConditionTypeRegistryCacheConfigured,
  ConditionTypeRuntimeBootstrapperReady,
] as const;
export type RuntimeConditionType = (typeof runtimeConditionTypes)[number];

export const ConditionReasonProcessing = 'Processing';
export const ConditionReasonProcessingErr = 'ProcessingErr';
export const ConditionReasonInitialized = 'Initialised';
export const ConditionReasonShootCreationPending = 'Pending';
export const ConditionReasonShootCreationCompleted = 'ShootCreationCompleted';
export const ConditionReasonGardenerCRCreated = 'GardenerClusterCRCreated';
export const ConditionReasonGardenerCRReady = 'GardenerClusterCRReady';
export const ConditionReasonConfigurationCompleted = 'ConfigurationCompleted';
export const ConditionReasonConfigurationErr = 'ConfigurationError';
export const ConditionReasonGardenerCRDeleted = 'GardenerClusterCRDeleted';
export const ConditionReasonGardenerShootDeleted = 'GardenerShootDeleted';
export const ConditionReasonStructuredConfigDeleted = 'StructuredConfigDeleted';
export const ConditionReasonConversionError = 'ConversionErr';
export const ConditionReasonCreationError = 'CreationErr';
export const ConditionReasonGardenerError = 'GardenerErr';
export const ConditionReasonKubernetesAPIErr = 'KubernetesErr';
export const ConditionReasonAuditLogError = 'AuditLogErr';
export const ConditionReasonAdministratorsConfigured = 'AdministratorsConfigured';
export const ConditionReasonOidcAndCMsConfigured = 'OidcAndConfigMapsConfigured';
export const ConditionReasonOidcError = 'OidcConfigurationErr';
export const ConditionReasonCMError = 'ConfigMapErr';
export const ConditionReasonKymaSystemNSError = 'KymaSystemNSError';
export const ConditionReasonKymaSystemNSReady = 'KymaSystemNSReady';
export const ConditionReasonSeedNotFound = 'SeedNotFound';
export const ConditionReasonRegistryCacheConfigured = 'RegistryCacheConfigured';
export const ConditionReasonRegistryCacheError = 'RegistryCacheError';
export const ConditionReasonRegistryCacheGardenClusterConfigurationFailed = 'RegistryCacheGardenClusterConfigurationFailed';
export const ConditionReasonRegistryCacheGardenClusterCleanupFailed = 'RegistryCacheGardenClusterCleanupFailed';
export const ConditionReasonRuntimeBootstrapperStatusUnknown = 'RuntimeBootstrapperStatusUnknown';
export const ConditionReasonRuntimeBootstrapperInstallationFailed = 'RuntimeBootstrapperInstallationFailed';
export const ConditionReasonRuntimeBootstrapperInstallationInProgress = 'RuntimeBootstrapperInstallationInProgress';
export const ConditionReasonRuntimeBootstrapperConfigured = 'RuntimeBootstrapperConfigured';
export const ConditionReasonRuntimeBootstrapperUpgradeFailed = 'RuntimeBootstrapperUpgradeFailed';
export const ConditionReasonRuntimeBootstrapperUpgradeInProgress = 'RuntimeBootstrapperUpgradeInProgress';
export const ConditionReasonRuntimeBootstrapperConfigurationFailed = 'RuntimeBootstrapperConfigurationFailed';

/** Every reason upstream uses on Runtime conditions. */
export const runtimeConditionReasons = [
  ConditionReasonProcessing,
  ConditionReasonProcessingErr,
  ConditionReasonInitialized,
  ConditionReasonShootCreationPending,
  ConditionReasonShootCreationCompleted,
  ConditionReasonGardenerCRCreated,
  ConditionReasonGardenerCRReady,
  ConditionReasonConfigurationCompleted,
  ConditionReasonConfigurationErr,
  ConditionReasonGardenerCRDeleted,
  ConditionReasonGardenerShootDeleted,
  ConditionReasonStructuredConfigDeleted,
  ConditionReasonConversionError,
  ConditionReasonCreationError,
  ConditionReasonGardenerError,
  ConditionReasonKubernetesAPIErr,
  ConditionReasonAuditLogError,
  ConditionReasonAdministratorsConfigured,
  ConditionReasonOidcAndCMsConfigured,
  ConditionReasonOidcError,
  ConditionReasonCMError,
  ConditionReasonKymaSystemNSError,
  ConditionReasonKymaSystemNSReady,
  ConditionReasonSeedNotFound,
  ConditionReasonRegistryCacheConfigured,
  ConditionReasonRegistryCacheError,
  ConditionReasonRegistryCacheGardenClusterConfigurationFailed,
  ConditionReasonRegistryCacheGardenClusterCleanupFailed,
  ConditionReasonRuntimeBootstrapperStatusUnknown,
  ConditionReasonRuntimeBootstrapperInstallationFailed,
  ConditionReasonRuntimeBootstrapperInstallationInProgress,
  ConditionReasonRuntimeBootstrapperConfigured,
  ConditionReasonRuntimeBootstrapperUpgradeFailed,
  ConditionReasonRuntimeBootstrapperUpgradeInProgress,
  ConditionReasonRuntimeBootstrapperConfigurationFailed,
] as const;
export type RuntimeConditionReason = (typeof runtimeConditionReasons)[number];

// ---------------------------------------------------------------------------------------------
// Providers.

export const ProviderAWS = 'aws';
export const ProviderAzure = 'azure';
export const ProviderGCP = 'gcp';
export const ProviderOpenStack = 'openstack';
export const ProviderAlicloud = 'alicloud';
export const runtimeProviderTypes = [ProviderAWS, ProviderAzure, ProviderGCP, ProviderOpenStack, ProviderAlicloud] as const;
export type RuntimeProviderType = (typeof runtimeProviderTypes)[number];

// ---------------------------------------------------------------------------------------------
// Spec.

/** An additional OIDC provider: Gardener's OIDCConfig plus an optional JWKS. */
export const additionalOidcConfig = object(
  {
    ...oidcConfigProperties,
    jwks: string({ format: 'byte', description: 'JSON Web Key Set of the issuer, base64-encoded, for issuers the cluster cannot reach.' }),
  },
  { description: 'An additional OpenID Connect provider of the cluster.', preserveUnknownFields: true },
);

export const runtimeShoot = object(
  {
    name: req(string({ pattern: DNS_LABEL_PATTERN, maxLength: 21, description: 'Name of the Gardener Shoot (a DNS label; Gardener limits shoot plus project name to 21 characters).' })),
    purpose: req(enumOf(shootPurposes, { description: 'Gardener purpose of the cluster: evaluation, testing, development, production or infrastructure.' })),
    platformRegion: req(string({ minLength: 1, description: 'Region of the platform (BTP) the runtime was ordered in, e.g. `cf-eu11`; decides EU access restrictions.' })),
    region: req(string({ minLength: 1, description: 'Region of the infrastructure provider, e.g. `eu-central-1`.' })),
    licenceType: string({ description: 'Licence type of the runtime, passed to the Shoot as an annotation.' }),
    secretBindingName: req(string({ minLength: 1, description: 'Gardener SecretBinding with the infrastructure credentials.' })),
    enforceSeedLocation: boolean({ description: 'Place the control plane on a seed in the same region.' }),
    enableNvidiaOpenshell: boolean({ description: 'Enables the NVIDIA OpenShell support of the cluster (recent upstream field).' }),
    kubernetes: object(
      {
        version: string({ pattern: KUBERNETES_VERSION_PATTERN, description: 'Kubernetes version, `<major>.<minor>[.<patch>]`; the manager\'s default when unset.' }),
        kubeAPIServer: object(
          {
            oidcConfig,
            additionalOidcConfig: array(additionalOidcConfig, { description: 'Further OpenID Connect providers.' }),
            acl: object(
              { allowedCIDRs: array(cidr('A CIDR allowed to reach the kube-apiserver.'), { description: 'CIDRs allowed to reach the kube-apiserver.' }) },
              { description: 'Network access control of the kube-apiserver.' },
            ),
          },
          { description: 'Settings of the kube-apiserver.' },
        ),
      },
      { description: 'Kubernetes version and kube-apiserver settings.' },
    ),
    provider: req(
      object(
        {
          type: req(enumOf(runtimeProviderTypes, { description: 'Infrastructure provider: aws, azure, gcp, openstack or alicloud.' })),
          workers: req(array(worker, { minItems: 1, listType: 'map', listMapKeys: ['name'], description: 'Worker pools; the first is the Kyma worker pool.' })),
          additionalWorkers: array(worker, { listType: 'map', listMapKeys: ['name'], description: 'Additional worker pools the customer asked for.' }),
          controlPlaneConfig: providerConfig('Provider-specific configuration of the control plane; generated when unset.'),
          infrastructureConfig: providerConfig('Provider-specific configuration of the infrastructure; generated when unset.'),
        },
        { description: 'Infrastructure provider and worker pools.' },
      ),
    ),
    networking: req(
      object(
        {
          type: string({ description: 'Network plugin, e.g. `calico` or `cilium`.' }),
          pods: req(cidr('CIDR of the pod network.')),
          nodes: req(cidr('CIDR of the node network.')),
          services: req(cidr('CIDR of the service network.')),
          dualStack: boolean({ description: 'IPv4 and IPv6 networking.' }),
          vpcNetwork: string({ description: 'Existing VPC network to place the cluster into.' }),
        },
        { description: 'Networks of the cluster; the three CIDRs must not overlap.' },
      ),
    ),
    controlPlane,
  },
  { description: 'The Gardener Shoot to create for this runtime.' },
);

export const runtimeSecurity = object(
  {
    administrators: req(array(string({ minLength: 1 }), { description: 'Users that get cluster-admin rights in the runtime.' })),
    networking: req(
      object(
        {
          filter: req(
            object(
              {
                ingress: object({ enabled: req(boolean({ description: 'Blackholing of ingress traffic from blocked sources.' })) }, { description: 'Ingress filtering.' }),
                egress: req(object({ enabled: req(boolean({ description: 'Filtering of egress traffic to blocked destinations.' })) }, { description: 'Egress filtering.' })),
              },
              { description: 'Settings of the shoot-networking-filter extension.' },
            ),
          ),
        },
        { description: 'Network security settings.' },
      ),
    ),
  },
  { description: 'Administrators and network filtering of the runtime.' },
);

export const imageRegistryCache = object(
  {
    name: req(string({ minLength: 1, description: 'Name of the registry cache configuration.' })),
    namespace: req(string({ minLength: 1, description: 'Namespace of the registry cache configuration.' })),
    uid: req(string({ minLength: 1, description: 'UID of the registry cache configuration.' })),
    config: req(freeObject({ description: 'The registry cache configuration (cloud-manager RegistryCacheConfigSpec).' })),
  },
  { description: 'An image registry cache of the runtime.' },
);

export const runtimeSpec = object(
  {
    shoot: req(runtimeShoot),
    security: req(runtimeSecurity),
    imageRegistryCache: array(imageRegistryCache, { description: 'Image registry caches to configure in the runtime.' }),
  },
  { description: 'The cluster the customer wants.' },
);

export const runtimeStatus = object(
  {
    state: req(enumOf(runtimeStates, { description: 'Overall state: Pending, Ready, Terminating or Failed.' })),
    conditions,
    provisioningCompleted: boolean({ description: 'Whether the first provisioning of the cluster has completed.' }),
    shootLastOperation: lastOperation,
    shootLastErrors: array(lastError, { description: 'The Shoot\'s last errors, copied from Gardener.' }),
  },
  { description: 'Observed state of the runtime.' },
);

export const Runtime = defineKind({
  group: INFRASTRUCTURE_MANAGER_GROUP,
  version: INFRASTRUCTURE_MANAGER_VERSION,
  kind: 'Runtime',
  plural: 'runtimes',
  singular: 'runtime',
  scope: 'Namespaced',
  description: 'A Kyma runtime: the Kubernetes cluster the infrastructure manager provisions through Gardener.',
  spec: runtimeSpec,
  status: runtimeStatus,
  printerColumns: [
    { name: 'Provider', type: 'string', jsonPath: '.spec.shoot.provider.type' },
    { name: 'Region', type: 'string', jsonPath: '.spec.shoot.region' },
    { name: 'STATE', type: 'string', jsonPath: '.status.state' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  notes: [
    'Compatible with upstream `infrastructuremanager.kyma-project.io/v1` Runtime: same fields, JSON names, required fields, states, printer columns (no short names upstream) and finalizer `runtime-controller.infrastructure-manager.kyma-project.io/deletion-hook`.',
    'Workers, OIDC settings and control plane settings are Gardener\'s own types (`core.gardener.cloud/v1beta1` Worker, OIDCConfig, ControlPlane); worker fields not listed here are kept.',
    'Stricter than upstream (which only enumerates the provider type): purpose is one of Gardener\'s purposes; the Kubernetes version must look like `1.30` or `1.30.2`; CIDRs must be CIDRs; the shoot name must be a DNS label of at most 21 characters; worker `maximum >= minimum` and `maximum >=` the number of zones; worker names unique (list-map); at least one worker; OIDC issuer URLs use https.',
    'What a schema cannot say is checked by `validateRuntime` before the manager acts: the required labels (`kyma-project.io/instance-id`, `runtime-id`, `region`, `operator.kyma-project.io/kyma-name`, `broker-plan-id`, `broker-plan-name`, `global-account-id`, `subaccount-id`), overlapping pod/node/service networks, zones that do not belong to the region, worker names repeated across `workers` and `additionalWorkers`, `maxSurge` and `maxUnavailable` both zero.',
    '`imageRegistryCache` follows the current upstream shape (a list of cache configurations); early upstream versions had an object with `enabled`.',
    'Upstream has no GardenerCluster fields in the Runtime status: the link shows in the `KubeconfigReady` condition (reasons `GardenerClusterCRCreated`, `GardenerClusterCRReady`).',
  ].join('\n\n'),
});

export type RuntimeObject = ObjectOf<typeof Runtime>;
export type RuntimeSpec = Infer<typeof runtimeSpec>;
export type RuntimeStatus = Infer<typeof runtimeStatus>;
export type RuntimeShoot = Infer<typeof runtimeShoot>;
