// Names and labels of what the infrastructure manager creates inside a runtime cluster (upstream
// infrastructure-manager). Not part of src/api yet; the lead may move them there.

/** Namespace of Kyma's components in a runtime. */
export const KYMA_SYSTEM_NAMESPACE = 'kyma-system';
/** ConfigMap with the provisioning details of the runtime (key `details`, YAML). */
export const PROVISIONING_INFO_CONFIGMAP = 'kyma-provisioning-info';
export const PROVISIONING_INFO_KEY = 'details';
/** Field manager of the infrastructure manager's server-side applies. */
export const FIELD_MANAGER = 'kim';
/** Label upstream puts on the ConfigMap and the admin ClusterRoleBindings. */
export const LabelReconcilerManagedBy = 'reconciler.kyma-project.io/managed-by';
export const ReconcilerManagedByInfrastructureManager = 'infrastructure-manager';
/** Labels of the admin ClusterRoleBindings: only bindings with all of them are ever removed. */
export const adminBindingLabels: Readonly<Record<string, string>> = { app: 'kyma', [LabelReconcilerManagedBy]: ReconcilerManagedByInfrastructureManager };
/** Admin ClusterRoleBindings get generated names with this prefix. */
export const ADMIN_BINDING_PREFIX = 'admin-';
export const CLUSTER_ADMIN_ROLE = 'cluster-admin';
/** Gardener's OIDC extension and its kind in the runtime cluster. */
export const OIDC_EXTENSION_TYPE = 'shoot-oidc-service';
export const OPENID_CONNECT_KIND = { apiVersion: 'authentication.gardener.cloud/v1alpha1', kind: 'OpenIDConnect' } as const;
/** OpenIDConnect resources are named `kyma-oidc-<index>`. */
export const OIDC_RESOURCE_PREFIX = 'kyma-oidc-';
