// Preparing a runtime cluster for Kyma once its Shoot is ready (upstream sFnConfigureSKR and
// sFnApplyClusterRoleBindings): namespace kyma-system, the kyma-provisioning-info ConfigMap, the
// OpenIDConnect resources, and the administrators' cluster-admin bindings. Idempotent: call it on
// every reconcile of the Runtime with a client of the runtime cluster.
//
//   const result = await prepareCluster(remote, runtime, { shoot, signal });
//   for (const c of result.conditions) setCondition(runtime, c);
//
// A failure throws a PreparationError naming the Runtime condition type and reason to report.
import type { OIDCConfig, ShootObject } from '../../api/gardener/index.js';
import {
  ConditionReasonAdministratorsConfigured,
  ConditionReasonCMError,
  ConditionReasonConfigurationErr,
  ConditionReasonKymaSystemNSError,
  ConditionReasonOidcAndCMsConfigured,
  ConditionReasonOidcError,
  ConditionTypeOidcAndCMsConfigured,
  ConditionTypeRuntimeConfigured,
  type RuntimeConditionReason,
  type RuntimeConditionType,
  type RuntimeObject,
} from '../../api/infrastructuremanager/index.js';
import type { Client } from '../../runtime/client/interface.js';
import { type AdministratorsOutcome, reconcileAdministrators } from './administrators.js';
import { FIELD_MANAGER, KYMA_SYSTEM_NAMESPACE } from './constants.js';
import { oidcExtensionEnabled, type OidcOutcome, reconcileOidc } from './oidc.js';
import { provisioningInfoConfigMap } from './provisioning-info.js';

export * from './constants.js';
export { adminBinding, CLUSTER_ROLE_BINDING_KIND, reconcileAdministrators, type AdministratorsOutcome, type ClusterRoleBindingObject } from './administrators.js';
export { desiredOidcConfigs, oidcExtensionEnabled, openIDConnectResource, reconcileOidc, type OidcOutcome } from './oidc.js';
export { provisioningInfo, provisioningInfoConfigMap, type ProvisioningInfo } from './provisioning-info.js';

export interface PreparationOptions {
  /** The Runtime's Shoot: infrastructure config, dual stack and whether the OIDC extension is on. */
  shoot?: ShootObject;
  /** Whether to reconcile OpenIDConnect resources; default: the Shoot's OIDC extension state, or true without a Shoot. */
  oidcExtensionEnabled?: boolean;
  /** The default OIDC provider (upstream: the shared IAS tenant), used when the Runtime names none. */
  defaultOidc?: OIDCConfig;
  /** Field manager of the server-side applies (default `kim`, as upstream). */
  fieldManager?: string;
  signal?: AbortSignal;
}

/** A Runtime condition to report (status True when prepared). */
export interface PreparationCondition {
  type: RuntimeConditionType;
  status: 'True' | 'False';
  reason: RuntimeConditionReason;
  message: string;
}

export interface PreparationResult {
  namespace: string;
  configMap: string;
  oidc: OidcOutcome;
  administrators: AdministratorsOutcome;
  /** Conditions for the Runtime, as upstream sets them after these steps. */
  conditions: PreparationCondition[];
}

/** A failed step, with the Runtime condition (status False) upstream reports for it. */
export class PreparationError extends Error {
  readonly condition: PreparationCondition;
  constructor(type: RuntimeConditionType, reason: RuntimeConditionReason, message: string, cause: unknown) {
    super(`${message}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'PreparationError';
    this.condition = { type, status: 'False', reason, message };
  }
}

async function step<T>(run: () => Promise<T>, type: RuntimeConditionType, reason: RuntimeConditionReason, message: string): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof Error && e.name === 'AbortError') throw e;
    throw new PreparationError(type, reason, message, e);
  }
}

export async function prepareCluster(remote: Client, runtime: RuntimeObject, opts: PreparationOptions = {}): Promise<PreparationResult> {
  const { signal } = opts;
  const fieldManager = opts.fieldManager ?? FIELD_MANAGER;

  await step(
    () => remote.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: KYMA_SYSTEM_NAMESPACE } }, { fieldManager, force: true, signal }),
    ConditionTypeOidcAndCMsConfigured,
    ConditionReasonKymaSystemNSError,
    'Failed to create kyma-system namespace. Scheduling for retry',
  );

  const configMap = provisioningInfoConfigMap(runtime, opts.shoot);
  await step(
    () => remote.apply(configMap, { fieldManager, force: true, signal }),
    ConditionTypeOidcAndCMsConfigured,
    ConditionReasonCMError,
    'Failed to apply kyma-provisioning-info config map, scheduling for retry',
  );

  const oidcEnabled = opts.oidcExtensionEnabled ?? (opts.shoot ? oidcExtensionEnabled(opts.shoot) : true);
  const oidc: OidcOutcome = oidcEnabled
    ? await step(
        () => reconcileOidc(remote, runtime, opts.defaultOidc, signal),
        ConditionTypeOidcAndCMsConfigured,
        ConditionReasonOidcError,
        'Failed to create OpenIDConnect resource. Scheduling for retry',
      )
    : { configured: false, message: 'OIDC extension disabled', applied: [], deleted: [] };

  const administrators = await step(
    () => reconcileAdministrators(remote, runtime.spec.security.administrators, signal),
    ConditionTypeRuntimeConfigured,
    ConditionReasonConfigurationErr,
    'failed to update kubeconfig admin access',
  );

  return {
    namespace: KYMA_SYSTEM_NAMESPACE,
    configMap: `${KYMA_SYSTEM_NAMESPACE}/${configMap.metadata.name ?? ''}`,
    oidc,
    administrators,
    conditions: [
      { type: ConditionTypeOidcAndCMsConfigured, status: 'True', reason: ConditionReasonOidcAndCMsConfigured, message: oidc.message },
      { type: ConditionTypeRuntimeConfigured, status: 'True', reason: ConditionReasonAdministratorsConfigured, message: 'Cluster admin configuration complete' },
    ],
  };
}
