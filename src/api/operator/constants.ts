// Names the lifecycle manager shares with everyone who reads or writes its resources: labels,
// annotations, finalizers, states, condition types and reasons. The values are upstream's
// (kyma-project/lifecycle-manager, package api/shared and the v1beta2 API), so that Kyma
// resources created by existing tools (the environment broker, the CLI, busola) work unchanged.

export const OPERATOR_GROUP = 'operator.kyma-project.io';
export const KYMA_GROUP = 'kyma-project.io';

/** Name of the operator, used as the value of managed-by labels on control-plane objects. */
export const OPERATOR_NAME = 'lifecycle-manager';

/** Labels (metadata.labels keys) and their well-known values. */
export const Labels = {
  /** Name of the Kyma a Manifest, Secret, SyncResource, ModuleConfig or Runtime belongs to (required on Kyma itself). */
  KymaName: `${OPERATOR_GROUP}/kyma-name`,
  /** Who manages the object: `lifecycle-manager` on KCP Kymas, `kyma` on runtime Kymas and on module resources. Deprecated upstream for Watchers. */
  ManagedBy: `${OPERATOR_GROUP}/managed-by`,
  /** `true` makes every controller skip the object. */
  SkipReconciliation: `${OPERATOR_GROUP}/skip-reconciliation`,
  /** `true` on a Kyma admits beta modules (and on a ModuleTemplate marks it beta, legacy). */
  Beta: `${OPERATOR_GROUP}/beta`,
  /** `true` on a Kyma admits internal modules (and on a ModuleTemplate marks it internal, legacy). */
  Internal: `${OPERATOR_GROUP}/internal`,
  /** Name of the module a ModuleTemplate, Manifest or module resource belongs to. */
  ModuleName: `${OPERATOR_GROUP}/module-name`,
  /** Release channel a Manifest was resolved from. */
  Channel: `${OPERATOR_GROUP}/channel`,
  /** Controller that reconciles the object (Kyma.spec.modules[].controller ends up here). */
  ControllerName: `${OPERATOR_GROUP}/controller-name`,
  /** `true` on Manifests of mandatory modules. */
  IsMandatoryModule: `${OPERATOR_GROUP}/mandatory-module`,
  /** On runtime resources: which KCP controller the runtime watcher notifies (value `kyma`). */
  WatchedBy: `${OPERATOR_GROUP}/watched-by`,
  /** Purpose of a Secret, e.g. `klm-watcher-cert-manager` for watcher certificates. */
  Purpose: `${OPERATOR_GROUP}/purpose`,
  /** `false` on a Kyma disables the catalog sync for it; on a ModuleTemplate, for that template (legacy). */
  Sync: `${OPERATOR_GROUP}/sync`,
  /** Label selecting the Istio gateway for Watcher VirtualServices (value `default`). */
  WatcherGateway: `${OPERATOR_GROUP}/watcher-gateway`,
  /** On every resource a module installs into a runtime: the Manifest's name (upstream's component transform). */
  Component: 'app.kubernetes.io/component',
  /** On every resource a module installs into a runtime, value `Kyma` (upstream's component transform). */
  PartOf: 'app.kubernetes.io/part-of',
  /** Runtime identity labels set by the environment broker. */
  RuntimeID: `${KYMA_GROUP}/runtime-id`,
  InstanceID: `${KYMA_GROUP}/instance-id`,
  GlobalAccountID: `${KYMA_GROUP}/global-account-id`,
  SubAccountID: `${KYMA_GROUP}/subaccount-id`,
  Region: `${KYMA_GROUP}/region`,
  PlatformRegion: `${KYMA_GROUP}/platform-region`,
  /** Name of the broker plan (the label upstream reads as the plan). */
  Plan: `${KYMA_GROUP}/broker-plan-name`,
  /** Not in upstream api/shared: set by the environment broker on Kymas and Runtimes. */
  ShootName: `${KYMA_GROUP}/shoot-name`,
  /** Label of the namespace the lifecycle manager creates in a runtime. */
  IstioInjection: 'istio-injection',
  Warden: 'namespaces.warden.kyma-project.io/validate',
  /** Label of OCI registry credential Secrets. */
  OCIRegistryCred: 'oci-registry-cred',
} as const;

/** Well-known label values. */
export const LabelValues = {
  Enable: 'true',
  Disable: 'false',
  /** Value of Labels.ManagedBy on runtime Kymas and on every resource a module installed into a runtime (upstream's shared.ManagedByLabelValue), and of Labels.WatchedBy. */
  Kyma: 'kyma',
  /** Value of Labels.PartOf on module resources. */
  PartOfKyma: 'Kyma',
  /** Value of Labels.ManagedBy on KCP Kymas. */
  LifecycleManager: OPERATOR_NAME,
  /** Value of Labels.IstioInjection and Labels.Warden. */
  Enabled: 'enabled',
  /** Value of Labels.Purpose on watcher certificate Secrets. */
  CertManager: 'klm-watcher-cert-manager',
  /** Value of Labels.WatcherGateway on the default gateway. */
  DefaultGateway: 'default',
  /** Value of Labels.ManagedBy on a runtime Kyma the KCP no longer manages. */
  UnmanagedKyma: 'unmanaged-kyma',
} as const;

/** Annotations (metadata.annotations keys). */
export const Annotations = {
  /** Deprecated upstream in favour of OCMComponentName. */
  FQDN: `${OPERATOR_GROUP}/fqdn`,
  OCMComponentName: `${OPERATOR_GROUP}/ocm-component-name`,
  /** `<namespace>/<name>` of the KCP object that owns a runtime object (upstream prefixes it with `deprecated-`). */
  OwnedBy: `deprecated-${OPERATOR_GROUP}/owned-by`,
  /** `true` on a ModuleTemplate whose default CR is cluster-scoped. */
  IsClusterScoped: `${OPERATOR_GROUP}/is-cluster-scoped`,
  /** `true` on a Manifest whose module is no longer managed (Kyma.spec.modules[].managed false). */
  Unmanaged: `${OPERATOR_GROUP}/is-unmanaged`,
  /** Domain of the runtime cluster, set by the broker on Kymas. */
  SkrDomain: 'skr-domain',
  /** How to reach a runtime: `local-secret` (default, kubeconfig Secret) or `local-client` (same cluster, tests). */
  SyncStrategy: 'sync-strategy',
  /**
   * The project's own (upstream keeps the time as `caAddedToBundleAt` on its cert-manager objects):
   * on the watcher's CA Secret, the RFC 3339 time at which its newest CA joined the trusted bundle;
   * the previous CA stays trusted and serving for a grace period after it (src/watcher/certificates.ts).
   */
  CaAddedToBundleAt: `${OPERATOR_GROUP}/ca-added-to-bundle-at`,
  /** The project's own: on the control plane's Lease (src/controlplane/announce.ts), the version of the controllers that started last. */
  ControlPlaneVersion: `${OPERATOR_GROUP}/control-plane-version`,
} as const;

export const SyncStrategies = { LocalSecret: 'local-secret', LocalClient: 'local-client' } as const;

/** Finalizers. */
export const Finalizers = {
  /** The Kyma controller's finalizer (`operator.kyma-project.io/Kyma`, capital K as upstream). */
  Kyma: `${OPERATOR_GROUP}/Kyma`,
  /** Blocks Kyma deletion while module resources remain. */
  BlockingKymaDeletion: `${OPERATOR_GROUP}/blocking-deletion`,
  /** The purge controller's finalizer. */
  Purge: `${OPERATOR_GROUP}/purge-finalizer`,
  /** The Watcher controller's finalizer. */
  Watcher: `${OPERATOR_GROUP}/watcher`,
  /** On mandatory ModuleReleaseMetas: kept until the Manifests of the module are gone from every Kyma. */
  MandatoryModule: `${OPERATOR_GROUP}/mandatory-module`,
  /** The Manifest controller's finalizer (upstream internal/declarative, not api/shared). */
  Manifest: 'declarative.kyma-project.io/finalizer',
  /** Kept on a Manifest until its default custom resource is gone (upstream internal). */
  CustomResourceManager: 'resource.kyma-project.io/finalizer',
  /** Kept on a Manifest until managed-by labels are removed from unmanaged resources (upstream internal). */
  LabelRemoval: 'label-removal-finalizer',
  /** Kept on a SyncResource until the objects the lifecycle manager created for it are removed from the runtime (project's own). */
  SyncResource: `${OPERATOR_GROUP}/sync-resource`,
} as const;

/** Namespaces. */
export const Namespaces = { ControlPlane: 'kcp-system', Remote: 'kyma-system' } as const;
/** Name of the Kyma mirrored into every runtime (`kyma-system/default`). */
export const DEFAULT_REMOTE_KYMA_NAME = 'default';
/** Channel used when neither the Kyma nor the module names one. */
export const DEFAULT_CHANNEL = 'regular';
/** Channel value a ModuleTemplate may carry but a Kyma may not request. */
export const NONE_CHANNEL = 'none';

/** States of Kymas, Manifests, Watchers and modules (shared.State). */
export const States = {
  Ready: 'Ready',
  Processing: 'Processing',
  Error: 'Error',
  Deleting: 'Deleting',
  Warning: 'Warning',
  Unmanaged: 'Unmanaged',
} as const;
/** Every value the State enum of the CRDs accepts (upstream includes the empty string). */
export const stateValues = ['Processing', 'Deleting', 'Ready', 'Error', '', 'Warning', 'Unmanaged'] as const;
export type State = (typeof stateValues)[number];

/** Condition types of Kyma.status.conditions. */
export const KymaConditionTypes = {
  Modules: 'Modules',
  ModuleCatalog: 'ModuleCatalog',
  /** The operator CRDs (Kyma, ModuleTemplate, ModuleReleaseMeta) are in the runtime and current. */
  CRDsSync: 'CRDsSync',
  SKRWebhook: 'SKRWebhook',
  SKRImagePullSecretSync: 'SKRImagePullSecretSync',
  /** Introduced by a bug upstream; removed from Kymas when found. */
  DeprecatedReady: 'Ready',
} as const;
/** Upstream sets this reason on every Kyma condition; the status tells whether it holds. */
export const KYMA_CONDITION_REASON = 'Ready';
/** Messages upstream writes on Kyma conditions. */
export const KymaConditionMessages = {
  ModulesReady: 'all modules are in ready state',
  ModulesNotReady: 'not all modules are in ready state',
  ModulesUnknown: 'modules state is unknown',
  CatalogSynced: 'module templates are synchronized',
  CatalogOutOfSync: 'module templates are out of sync and need to be resynchronized',
  CatalogUnknown: 'module templates synchronization state is unknown',
  CRDsSynced: 'CRDs are synchronized to the SKR',
  CRDsNotSynced: 'CRDs are not synchronized to the SKR',
  CRDsUnknown: 'CRDs synchronization state is unknown',
  WebhookSynced: 'skrwebhook is synchronized',
  WebhookOutOfSync: 'skrwebhook is out of sync and needs to be resynchronized',
  PullSecretSynced: 'skr image pull secret is synchronized',
  PullSecretOutOfSync: 'skr image pull secret is out of sync and needs to be resynchronized',
} as const;

/** Condition types and reasons of Manifest.status.conditions (upstream internal/manifest/status). */
export const ManifestConditionTypes = { Resources: 'Resources', Installation: 'Installation', ModuleCR: 'ModuleCR' } as const;
export const ManifestConditionReasons = { ResourcesAvailable: 'ResourcesAvailable', Ready: 'Ready', ModuleCRCreated: 'ModuleCRCreated', ModuleCRWarning: 'Warning' } as const;

/** Condition type and reason of Watcher.status.conditions. */
export const WatcherConditionTypes = { VirtualService: 'VirtualService' } as const;
export const WATCHER_CONDITION_REASON = 'Ready';

/** Condition types of the synchronization kinds (project's own). */
export const SyncConditionTypes = { Synced: 'Synced' } as const;

/** Kinds of the group, as upstream's shared.Kind. */
export const OperatorKindNames = {
  Kyma: 'Kyma',
  ModuleTemplate: 'ModuleTemplate',
  ModuleReleaseMeta: 'ModuleReleaseMeta',
  Manifest: 'Manifest',
  Watcher: 'Watcher',
  ModuleConfig: 'ModuleConfig',
  SyncResource: 'SyncResource',
} as const;

/** Name of the ModuleTemplate.spec.resources entry that links the module's raw manifest. */
export const RAW_MANIFEST_RESOURCE = 'rawManifest';

/** Reads a boolean label as upstream does (case-insensitive `true`). */
export function isEnabled(value: string | undefined): boolean {
  return value !== undefined && value.toLowerCase() === LabelValues.Enable;
}
