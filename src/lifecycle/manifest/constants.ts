// Names the Manifest controller writes into runtime clusters that are not part of the shared API
// constants (upstream keeps them in internal/declarative/v2 and internal/manifest).
import { Finalizers, LabelValues, Labels } from '../../api/operator/constants.js';

/** The finalizers the Manifest controller puts on a Manifest (and takes off when its part of a deletion is done). */
export const MANIFEST_FINALIZERS: readonly string[] = [Finalizers.Manifest, Finalizers.LabelRemoval, Finalizers.CustomResourceManager];

/** The one field manager of every server-side apply into a runtime (upstream's applier). */
export const MANIFEST_FIELD_MANAGER = 'declarative.kyma-project.io/applier';
/** Value of the `operator.kyma-project.io/managed-by` label on module resources (upstream's `kyma`; `declarative-v2` before). */
export const MODULE_RESOURCE_MANAGED_BY = LabelValues.Kyma;
/** Annotation warning users that edits are reverted. */
export const DISCLAIMER_ANNOTATION = 'operator.kyma-project.io/managed-by-reconciler-disclaimer';
export const DISCLAIMER_TEXT = 'DO NOT EDIT - This resource is managed by Kyma.\nAny modifications are discarded and the resource is reverted to the original state.';
/** Labels upstream's component transform adds to every module resource. */
export const COMPONENT_LABEL = Labels.Component;
export const PART_OF_LABEL = Labels.PartOf;
export const PART_OF_KYMA = LabelValues.PartOfKyma;
/** Namespace a module removal never deletes, though a module may list it. */
export const PROTECTED_NAMESPACE = 'kyma-system';
/** Namespace of namespaced objects that name none (kubectl's and upstream's default). */
export const DEFAULT_NAMESPACE = 'default';
/** Annotation with custom `status` paths to read the module CR's state from (upstream shared.CustomStateCheckAnnotation). */
export const CUSTOM_STATE_CHECK_ANNOTATION = 'operator.kyma-project.io/custom-state-check';
/** A module CR that reports no state for this long turns the Manifest to Warning (upstream: 5 minutes). */
export const MISSING_STATE_WARNING_MS = 5 * 60_000;

export { CRD_KIND } from '../crd-established.js';

/** Messages upstream writes on Manifest conditions and into lastOperation (internal/manifest/status). */
export const Messages = {
  ResourcesParsed: 'resources are parsed and ready for use',
  ResourcesNotParsed: 'resources not parsed',
  InstallationReady: 'installation is ready and resources can be used',
  InstallationNotReady: 'installation is not ready',
  ResourcesReady: 'resources are ready',
  WaitingForResources: 'waiting for resources to become ready',
  WaitingForModuleCRs: 'waiting for module crs deletion',
  /** Upstream's operation while finalizers of others hold a Manifest whose module is removed. */
  WaitingForOtherFinalizers: 'waiting as other finalizers are present',
  ModuleCRCreated: 'module CR was created',
  ModuleCRNotCreated: 'module CR has not been created to SKR',
  ModuleCRStateMissing: 'module CR state not found',
  ModuleCRStateUnsupported: 'module CR state not support',
  ManagerNotReady: 'module operator deployment is not ready',
  Orphaned: 'manifest is orphaned: its Kyma does not exist',
} as const;
