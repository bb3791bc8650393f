// `spec.kubernetes`: version (never below what Gardener already runs), kube-apiserver OIDC settings,
// settings from the configuration, and the audit policy (upstream kubernetes.go, oidc.go, auditlogs).
import type { OIDCConfig } from '../../../api/gardener/index.js';
import { neverDowngrade } from '../version.js';
import { cloneJson, type ConversionInput, type ShootSpec } from '../types.js';

type Kubernetes = NonNullable<ShootSpec['kubernetes']>;
type KubeAPIServer = NonNullable<Kubernetes['kubeAPIServer']> & {
  maxTokenExpiration?: string;
  runtimeConfig?: Record<string, boolean>;
  featureGates?: Record<string, boolean>;
  auditConfig?: { auditPolicy: { configMapRef: { name: string } } };
};

/** The Runtime's OIDC settings, or the operator default when it names neither client nor issuer. */
export function oidcConfig({ runtime, config }: ConversionInput): OIDCConfig | undefined {
  const own = runtime.spec.shoot.kubernetes?.kubeAPIServer?.oidcConfig;
  if (own && (own.clientID !== undefined || own.issuerURL !== undefined)) return cloneJson(own);
  const d = config.kubernetes.defaultOperatorOidc;
  if (!d) return own ? cloneJson(own) : undefined;
  return {
    clientID: d.clientID,
    groupsClaim: d.groupsClaim,
    issuerURL: d.issuerURL,
    signingAlgs: [...d.signingAlgs] as OIDCConfig['signingAlgs'],
    usernameClaim: d.usernameClaim,
    usernamePrefix: d.usernamePrefix,
  };
}

export function kubernetesVersion({ runtime, config, existing }: ConversionInput): string {
  const wanted = runtime.spec.shoot.kubernetes?.version || config.kubernetes.defaultVersion;
  return neverDowngrade(wanted, existing?.spec.kubernetes?.version);
}

export function kubernetes(input: ConversionInput, auditPolicyConfigMap: string | undefined): Kubernetes {
  const settings = input.config.kubernetes.kubeApiServer;
  const apiServer: KubeAPIServer = {};
  const oidc = oidcConfig(input);
  if (oidc) apiServer.oidcConfig = oidc;
  if (settings.maxTokenExpiration) apiServer.maxTokenExpiration = settings.maxTokenExpiration;
  if (settings.runtimeConfig) apiServer.runtimeConfig = { ...settings.runtimeConfig };
  if (settings.featureGates) apiServer.featureGates = { ...settings.featureGates };
  if (auditPolicyConfigMap) apiServer.auditConfig = { auditPolicy: { configMapRef: { name: auditPolicyConfigMap } } };
  return { version: kubernetesVersion(input), kubeAPIServer: apiServer };
}
