// Gardener's Shoot (core.gardener.cloud/v1beta1), as a CustomResourceDefinition for the embedded
// garden cluster. A real Gardener serves Shoots from its own API server; the embedded landscape
// installs this CRD instead. The fields the infrastructure manager writes and reads are typed and
// validated; everything else Gardener defines is kept as it is (preserve-unknown-fields on the
// objects where Gardener has many more fields), so that real Shoot manifests apply unchanged.
import { defineKind, type ObjectOf } from '../../crd.js';
import { array, boolean, enumOf, freeObject, integer, object, req, string } from '../../schema.js';
import {
  cidr,
  controlPlane,
  gardenerConditions,
  KUBERNETES_VERSION_PATTERN,
  lastError,
  lastOperation,
  MAINTENANCE_TIME_PATTERN,
  oidcConfig,
  providerConfig,
  shootPurposes,
  worker,
} from './common.js';

export const GARDENER_CORE_GROUP = 'core.gardener.cloud';
export const GARDENER_CORE_VERSION = 'v1beta1';

// ---------------------------------------------------------------------------------------------
// Names Gardener gives meaning to on Shoots.

/** Annotation that must be `"true"` before Gardener accepts the deletion of a Shoot. */
export const AnnotationConfirmationDeletion = 'confirmation.gardener.cloud/deletion';
/** Annotation asking Gardener for an operation (e.g. `reconcile`, `retry`); Gardener removes it. */
export const AnnotationGardenerOperation = 'gardener.cloud/operation';
export const GardenerOperationReconcile = 'reconcile';
export const GardenerOperationRetry = 'retry';
/** Label Gardener keeps on every Shoot with its overall health. */
export const LabelShootStatus = 'shoot.gardener.cloud/status';
export const shootStatusLabelValues = ['healthy', 'progressing', 'unhealthy', 'unknown'] as const;
/** Finalizer Gardener puts on the resources it manages. */
export const FinalizerGardener = 'gardener';

/** Condition types of `status.conditions`. */
export const ShootAPIServerAvailable = 'APIServerAvailable';
export const ShootControlPlaneHealthy = 'ControlPlaneHealthy';
export const ShootObservabilityComponentsHealthy = 'ObservabilityComponentsHealthy';
export const ShootEveryNodeReady = 'EveryNodeReady';
export const ShootSystemComponentsHealthy = 'SystemComponentsHealthy';
export const shootConditionTypes = [
  ShootAPIServerAvailable,
  ShootControlPlaneHealthy,
  ShootObservabilityComponentsHealthy,
  ShootEveryNodeReady,
  ShootSystemComponentsHealthy,
] as const;

/** Condition types of `status.constraints`. */
export const ShootHibernationPossible = 'HibernationPossible';
export const ShootMaintenancePreconditionsSatisfied = 'MaintenancePreconditionsSatisfied';
export const ShootCACertificateValiditiesAcceptable = 'CACertificateValiditiesAcceptable';
export const ShootCRDsWithProblematicConversionWebhooks = 'CRDsWithProblematicConversionWebhooks';
export const ShootManualInPlaceWorkersUpdated = 'ManualInPlaceWorkersUpdated';

/** Default pod and service networks Gardener assigns when a Shoot does not name them. */
export const DefaultPodNetworkCIDR = '100.96.0.0/11';
export const DefaultServiceNetworkCIDR = '100.64.0.0/13';

// ---------------------------------------------------------------------------------------------
// Spec.

const kubernetes = object(
  {
    version: string({ pattern: KUBERNETES_VERSION_PATTERN, description: 'Kubernetes version, `<major>.<minor>[.<patch>]`; the CloudProfile\'s latest when unset or partial.' }),
    kubeAPIServer: object(
      { oidcConfig },
      { description: 'Settings of the kube-apiserver; only the OIDC settings are typed here.', preserveUnknownFields: true },
    ),
  },
  { description: 'Kubernetes version and the configuration of the control plane components.', preserveUnknownFields: true },
);

const networking = object(
  {
    type: string({ description: 'Network plugin, e.g. `calico` or `cilium`.' }),
    providerConfig: providerConfig('Configuration of the network plugin.'),
    pods: cidr('CIDR of the pod network (immutable).'),
    nodes: cidr('CIDR of the node network.'),
    services: cidr('CIDR of the service network (immutable).'),
    ipFamilies: array(enumOf(['IPv4', 'IPv6'] as const), { description: 'IP families of the cluster network (defaults to IPv4).' }),
  },
  { description: 'Cluster networking: plugin and CIDRs.', preserveUnknownFields: true },
);

const maintenance = object(
  {
    autoUpdate: object(
      {
        kubernetesVersion: req(boolean({ description: 'Whether the Kubernetes patch version is updated automatically.' })),
        machineImageVersion: boolean({ description: 'Whether machine image versions are updated automatically.' }),
      },
      { description: 'What is updated automatically during maintenance.' },
    ),
    timeWindow: object(
      {
        begin: req(string({ pattern: MAINTENANCE_TIME_PATTERN, description: 'Start of the window, HHMMSS+ZONE (e.g. `220000+0100`).' })),
        end: req(string({ pattern: MAINTENANCE_TIME_PATTERN, description: 'End of the window, HHMMSS+ZONE.' })),
      },
      { description: 'Daily maintenance time window.' },
    ),
    confineSpecUpdateRollout: boolean({ description: 'Roll spec changes out only in the maintenance window.' }),
  },
  { description: 'Maintenance time window and automatic updates.', preserveUnknownFields: true },
);

const provider = object(
  {
    type: req(string({ minLength: 1, description: 'Infrastructure provider, e.g. `aws`, `azure`, `gcp`, `openstack` (immutable).' })),
    controlPlaneConfig: providerConfig('Provider-specific configuration of the control plane.'),
    infrastructureConfig: providerConfig('Provider-specific configuration of the infrastructure (networks, zones).'),
    workers: array(worker, { listType: 'map', listMapKeys: ['name'], description: 'Worker pools.' }),
    workersSettings: freeObject({ description: 'Settings for all worker pools (e.g. SSH access).' }),
  },
  { description: 'Infrastructure provider and worker pools.', preserveUnknownFields: true },
);

const extension = object(
  {
    type: req(string({ minLength: 1, description: 'Type of the extension, e.g. `shoot-networking-filter`.' })),
    providerConfig: providerConfig('Configuration of the extension.'),
    disabled: boolean({ description: 'Disables an extension that is enabled by default.' }),
  },
  { description: 'An extension of the Shoot.', preserveUnknownFields: true },
);

const dns = object(
  {
    domain: string({ description: 'External domain of the cluster (immutable), written into handed-out kubeconfigs.' }),
    providers: array(freeObject(), { description: 'DNS providers (deprecated by Gardener).' }),
  },
  { description: 'DNS settings.', preserveUnknownFields: true },
);

const hibernation = object(
  {
    enabled: boolean({ description: 'Whether the cluster should be hibernated (scaled to zero) or awake.' }),
    schedules: array(
      object(
        {
          start: string({ description: 'Cron spec at which the cluster is hibernated.' }),
          end: string({ description: 'Cron spec at which the cluster is woken up.' }),
          location: string({ description: 'Time zone of start and end, e.g. `Europe/Berlin`.' }),
        },
        { description: 'A hibernation schedule.' },
      ),
      { description: 'Regular hibernation schedules.' },
    ),
  },
  { description: 'Hibernation of the cluster.' },
);

export const shootSpec = object(
  {
    addons: freeObject({ description: 'Gardener-managed addons (deprecated).' }),
    cloudProfileName: string({ description: 'Name of the CloudProfile (deprecated in favour of cloudProfile).' }),
    cloudProfile: object(
      {
        kind: enumOf(['CloudProfile', 'NamespacedCloudProfile'] as const, { description: 'Kind of the referenced profile.' }),
        name: req(string({ minLength: 1, description: 'Name of the profile.' })),
      },
      { description: 'Reference to the CloudProfile or NamespacedCloudProfile.' },
    ),
    dns,
    extensions: array(extension, { listType: 'map', listMapKeys: ['type'], description: 'Extensions, one per type.' }),
    hibernation,
    kubernetes,
    networking,
    maintenance,
    monitoring: freeObject({ description: 'Monitoring settings.' }),
    provider: req(provider),
    purpose: enumOf(shootPurposes, { description: 'Purpose of the cluster: evaluation, testing, development, production or infrastructure.' }),
    region: req(string({ minLength: 1, description: 'Region of the infrastructure provider (immutable).' })),
    secretBindingName: string({ description: 'SecretBinding with the infrastructure credentials (immutable; exclusive with credentialsBindingName).' }),
    credentialsBindingName: string({ description: 'CredentialsBinding with the infrastructure credentials (exclusive with secretBindingName).' }),
    seedName: string({ description: 'Seed cluster that runs the control plane.' }),
    seedSelector: freeObject({ description: 'Label selector a seed must match to host the control plane.' }),
    resources: array(freeObject(), { description: 'Named references to resources that extension configurations refer to.' }),
    tolerations: array(object({ key: req(string({ description: 'Taint key of the seed.' })), value: string({ description: 'Taint value.' }) }), { description: 'Tolerations of seed taints.' }),
    exposureClassName: string({ description: 'Exposure class of the control plane endpoint (immutable).' }),
    systemComponents: freeObject({ description: 'Settings of system components (CoreDNS, node-local DNS).' }),
    controlPlane,
    schedulerName: string({ description: 'Scheduler that assigns the shoot to a seed (immutable).' }),
    accessRestrictions: array(freeObject(), { description: 'Access restrictions of the shoot (e.g. `eu-access-only`).' }),
  },
  {
    description: 'Specification of the Shoot cluster.',
    preserveUnknownFields: true,
    validations: [
      { rule: 'has(self.cloudProfileName) || has(self.cloudProfile)', message: 'either cloudProfileName or cloudProfile must be set', fieldPath: '.cloudProfile' },
      {
        rule: '!(has(self.secretBindingName) && has(self.credentialsBindingName))',
        message: 'secretBindingName and credentialsBindingName are mutually exclusive',
        fieldPath: '.credentialsBindingName',
      },
    ],
  },
);

// ---------------------------------------------------------------------------------------------
// Status.

export const shootStatus = object(
  {
    conditions: gardenerConditions,
    constraints: gardenerConditions,
    gardener: object(
      {
        id: string({ description: 'Container id of the Gardener that last acted.' }),
        name: string({ description: 'Host name of the Gardener that last acted.' }),
        version: string({ description: 'Version of the Gardener that last acted.' }),
      },
      { description: 'The Gardener that last acted on the Shoot.' },
    ),
    hibernated: boolean({ description: 'Whether the cluster is hibernated now.' }),
    lastOperation,
    lastErrors: array(lastError, { description: 'Errors of the last operation.' }),
    observedGeneration: integer({ format: 'int64', description: 'The metadata.generation last acted on.' }),
    retryCycleStartTime: string({ format: 'date-time', description: 'Start of the current retry cycle.' }),
    seedName: string({ description: 'Seed that runs the control plane, after a successful reconciliation.' }),
    technicalID: string({ description: 'Technical ID: name of the control plane namespace in the seed, prefix of infrastructure resources.' }),
    uid: string({ description: 'Unique ID of the cluster, used for hashes.' }),
    clusterIdentity: string({ description: 'Identity of the cluster.' }),
    advertisedAddresses: array(
      object({ name: req(string({ description: 'Name, e.g. `external`.' })), url: req(string({ description: 'URL of the kube-apiserver.' })) }, { description: 'An advertised address.' }),
      { description: 'Addresses of the kube-apiserver and the service account issuer.' },
    ),
    credentials: freeObject({ description: 'State of credential rotations.' }),
    lastMaintenance: freeObject({ description: 'Last maintenance operation.' }),
    encryptedResources: array(string(), { description: 'Resources encrypted in etcd besides Secrets.' }),
    networking: object(
      {
        pods: array(string(), { description: 'Pod network CIDRs.' }),
        nodes: array(string(), { description: 'Node network CIDRs.' }),
        services: array(string(), { description: 'Service network CIDRs.' }),
        egressCIDRs: array(string(), { description: 'Source CIDRs of egress traffic.' }),
      },
      { description: 'Observed networks.' },
    ),
  },
  { description: 'Most recently observed status of the Shoot.', preserveUnknownFields: true },
);

export const Shoot = defineKind({
  group: GARDENER_CORE_GROUP,
  version: GARDENER_CORE_VERSION,
  kind: 'Shoot',
  plural: 'shoots',
  singular: 'shoot',
  scope: 'Namespaced',
  description: 'A Kubernetes cluster created and managed by Gardener.',
  spec: shootSpec,
  status: shootStatus,
  validations: [
    {
      rule: '!has(self.metadata.name) || (self.metadata.name.matches(\'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\') && !self.metadata.name.contains(\'--\'))',
      message: 'the shoot name must be a DNS label and must not contain "--"',
      fieldPath: '.metadata.name',
    },
  ],
  printerColumns: [
    { name: 'CloudProfile', type: 'string', jsonPath: '.spec.cloudProfileName' },
    { name: 'Provider', type: 'string', jsonPath: '.spec.provider.type' },
    { name: 'Region', type: 'string', jsonPath: '.spec.region' },
    { name: 'K8S Version', type: 'string', jsonPath: '.spec.kubernetes.version' },
    { name: 'Hibernated', type: 'boolean', jsonPath: '.status.hibernated' },
    { name: 'Operation', type: 'string', jsonPath: '.status.lastOperation.type' },
    { name: 'Progress', type: 'integer', jsonPath: '.status.lastOperation.progress' },
    { name: 'State', type: 'string', jsonPath: '.status.lastOperation.state' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  notes: [
    'Gardener serves Shoots from its own aggregated API server, not as a CRD; this CRD stands in for it in the embedded garden cluster.',
    'Typed and validated: the fields the infrastructure manager sets and reads (cloud profile, region, credentials binding, purpose, Kubernetes version and OIDC, networking, provider with worker pools, maintenance, extensions, DNS, control plane high availability, hibernation; status with last operation, last errors, conditions, constraints, technical ID and UID).',
    'Every other Gardener field is preserved unvalidated (`x-kubernetes-preserve-unknown-fields` on spec, status and the objects where Gardener has many fields), so real Shoot manifests apply unchanged.',
    'Validation taken from Gardener\'s own API validation: worker `maximum >= minimum` and `maximum >=` number of zones, worker names are DNS labels of at most 15 characters, zones unique, extension types unique, cloudProfileName or cloudProfile set, secretBindingName and credentialsBindingName exclusive, shoot name a DNS label without `--`, maintenance window format.',
    'Printer columns approximate Gardener\'s table (which computes its columns); the project prints the last operation as type, progress and state.',
  ].join('\n\n'),
});

export type ShootObject = ObjectOf<typeof Shoot>;
