// Names the project adds to the infrastructure manager's API group, beyond upstream's
// (kyma-project/infrastructure-manager, whose names stay next to their kinds in v1/). Like every
// extension of a Kyma API group, they live under the group's domain (docs/api.md, "Names").

/**
 * Kubeconfig Secret annotation (written next to upstream's `operator.kyma-project.io/last-sync`): when
 * the issued credential expires (RFC 3339). Gardener may grant less validity than asked; rotation then
 * follows the granted validity, with the same ratios.
 */
export const AnnotationKubeconfigExpiration = 'infrastructuremanager.kyma-project.io/kubeconfig-expiration';

/**
 * Runtime annotation: a person (`kcp runtime retry`) asks the infrastructure manager to retry a Runtime
 * whose Shoot operation Gardener gave up on. The value is when it was asked (RFC 3339). The manager asks
 * Gardener to retry the Shoot (`gardener.cloud/operation: retry`), follows the operation again and
 * removes the annotation.
 */
export const AnnotationRetryRequested = 'infrastructuremanager.kyma-project.io/retry';

/**
 * Runtime condition reason (condition `Deprovisioned`, status Unknown): the Runtime is being deleted
 * and waits for the Kyma of the same runtime to remove its modules from the cluster before the
 * kubeconfig and the Shoot go. Not an upstream reason (upstream leaves the order to the broker).
 */
export const ConditionReasonKymaDeletionPending = 'KymaDeletionPending';

/**
 * Runtime condition reason (condition `Provisioned`, status False, state Failed): another Runtime in the
 * same namespace carries the same `kyma-project.io/runtime-id` and holds it (it was created earlier, or
 * at the same second with a name that sorts first). This Runtime is not provisioned, gets no
 * GardenerCluster and no kubeconfig, and its deletion touches nothing of the other one; it is
 * provisioned once the other Runtime is gone or relabelled. Not an upstream reason (upstream lets
 * both Runtimes share one GardenerCluster and kubeconfig Secret).
 */
export const ConditionReasonDuplicateRuntimeID = 'DuplicateRuntimeID';

/** The reasons this project adds to upstream's `runtimeConditionReasons`. */
export type ProjectRuntimeConditionReason = typeof ConditionReasonKymaDeletionPending | typeof ConditionReasonDuplicateRuntimeID;

/**
 * Kubeconfig Secret annotations (next to `last-sync`): the Shoot the kubeconfig was issued for, and the
 * SHA-256 (hex) of the kubeconfig as written. A Secret whose kubeconfig no longer matches them
 * (overwritten, or issued for another Shoot) is fetched again from Gardener on the controller's next pass.
 */
export const AnnotationKubeconfigShoot = 'infrastructuremanager.kyma-project.io/kubeconfig-shoot';
export const AnnotationKubeconfigSha256 = 'infrastructuremanager.kyma-project.io/kubeconfig-sha256';
