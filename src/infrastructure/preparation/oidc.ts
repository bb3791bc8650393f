// OpenID Connect providers of a runtime as OpenIDConnect resources of Gardener's OIDC extension
// (upstream sFnConfigureSKR): one `kyma-oidc-<i>` per additional OIDC config of the Runtime, or the
// default (shared IAS tenant) when none is given. Upstream deletes all of its resources and creates
// them again; here the desired ones are applied and only the surplus is deleted (same end state,
// no window without authentication).
import type { OIDCConfig, ShootObject } from '../../api/gardener/index.js';
import { LabelKymaManagedBy, ManagedByInfrastructureManager, type RuntimeObject } from '../../api/infrastructuremanager/index.js';
import { isNoKindMatch } from '../../runtime/client/discovery.js';
import { isNotFound } from '../../runtime/client/errors.js';
import type { Client } from '../../runtime/client/interface.js';
import type { KubeObject } from '../../kube/object.js';
import { FIELD_MANAGER, OIDC_EXTENSION_TYPE, OIDC_RESOURCE_PREFIX, OPENID_CONNECT_KIND } from './constants.js';

type AdditionalOidcConfig = NonNullable<NonNullable<NonNullable<RuntimeObject['spec']['shoot']['kubernetes']>['kubeAPIServer']>['additionalOidcConfig']>[number];

export interface OidcOutcome {
  /** Whether OpenIDConnect resources were reconciled. */
  configured: boolean;
  /** Why not, or what was done (for the condition message). */
  message: string;
  applied: string[];
  deleted: string[];
}

/** Upstream: the extension counts as enabled when listed and not disabled. */
export function oidcExtensionEnabled(shoot: ShootObject): boolean {
  const ext = shoot.spec.extensions?.find((e) => e.type === OIDC_EXTENSION_TYPE);
  return ext !== undefined && ext.disabled !== true;
}

/** The OIDC configs to install: the Runtime's, or the default when they are missing or incomplete; none for an empty list. */
export function desiredOidcConfigs(runtime: RuntimeObject, defaultOidc: OIDCConfig | undefined): AdditionalOidcConfig[] {
  const configs = runtime.spec.shoot.kubernetes?.kubeAPIServer?.additionalOidcConfig;
  const incomplete = configs === undefined || configs.some((c) => !c.clientID || !c.issuerURL);
  if (incomplete) return defaultOidc ? [defaultOidc] : [];
  return configs;
}

export function openIDConnectResource(config: AdditionalOidcConfig, index: number): KubeObject {
  const spec: Record<string, unknown> = { issuerURL: config.issuerURL, clientID: config.clientID };
  if (config.usernameClaim !== undefined) spec.usernameClaim = config.usernameClaim;
  if (config.usernamePrefix !== undefined) spec.usernamePrefix = config.usernamePrefix;
  if (config.groupsClaim !== undefined) spec.groupsClaim = config.groupsClaim;
  if (config.groupsPrefix !== undefined) spec.groupsPrefix = config.groupsPrefix;
  if (config.requiredClaims !== undefined) spec.requiredClaims = config.requiredClaims;
  if (config.signingAlgs !== undefined) spec.supportedSigningAlgs = config.signingAlgs;
  const jwks = (config as { jwks?: string }).jwks;
  if (jwks) spec.jwks = { keys: jwks };
  return {
    ...OPENID_CONNECT_KIND,
    metadata: { name: `${OIDC_RESOURCE_PREFIX}${index}`, labels: { [LabelKymaManagedBy]: ManagedByInfrastructureManager } },
    spec,
  };
}

export async function reconcileOidc(remote: Client, runtime: RuntimeObject, defaultOidc: OIDCConfig | undefined, signal?: AbortSignal): Promise<OidcOutcome> {
  const desired = desiredOidcConfigs(runtime, defaultOidc).map(openIDConnectResource);
  let existing: KubeObject[];
  try {
    existing = (await remote.list(OPENID_CONNECT_KIND, { labelSelector: `${LabelKymaManagedBy}=${ManagedByInfrastructureManager}`, signal })).items;
  } catch (e) {
    // The extension installs the kind; without it there is nothing to configure.
    if (isNoKindMatch(e) || isNotFound(e)) return { configured: false, message: 'OpenIDConnect is not served in the runtime (OIDC extension not installed)', applied: [], deleted: [] };
    throw e;
  }
  const applied: string[] = [];
  for (const obj of desired) {
    await remote.apply(obj, { fieldManager: FIELD_MANAGER, force: true, signal });
    applied.push(obj.metadata.name ?? '');
  }
  const deleted: string[] = [];
  for (const obj of existing) {
    const name = obj.metadata.name ?? '';
    if (applied.includes(name)) continue;
    try {
      await remote.delete(OPENID_CONNECT_KIND, { name }, { signal });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    deleted.push(name);
  }
  return { configured: true, message: 'OIDC and kyma-provisioning-info configuration completed', applied, deleted };
}
