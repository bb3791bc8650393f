// `spec.extensions` (upstream extender/extensions): networking filter, certificates, DNS, OIDC, ACL,
// audit log and registry cache on create; on a patch the Shoot's extensions stay and only the
// networking filter, the ACL, the audit log and the registry cache are recomputed, as upstream does
// (ACL: see aclExtension; registry cache: registry-cache.ts).
import type { ConversionInput, RawConfig, ShootExtension, ShootSpec } from '../types.js';
import { cloneJson } from '../types.js';
import { auditLogExtension, type AuditLogSetup } from './auditlog.js';
import { dnsExtension } from './dns.js';
import { registryCacheExtension } from './registry-cache.js';

export const NetworkFilterExtensionType = 'shoot-networking-filter';
export const CertExtensionType = 'shoot-cert-service';
export const OidcExtensionType = 'shoot-oidc-service';
/** Gardener's ACL extension: restricts who reaches the kube-apiserver. */
export const AclExtensionType = 'acl';
/** Runtime label set by the migrator; such runtimes do not get the OIDC extension (upstream CanEnableExtension). */
export const LabelCreatedByMigrator = 'operator.kyma-project.io/created-by-migrator';

/**
 * The networking filter is on when egress filtering is enabled; ingress filtering adds blackholing
 * of blocked sources (the extension's `egressFilter.blackholingEnabled`).
 */
export function networkFilterExtension({ runtime }: ConversionInput): ShootExtension {
  const filter = runtime.spec.security.networking.filter;
  const disabled = !filter.egress.enabled;
  const ext: ShootExtension = { type: NetworkFilterExtensionType, disabled };
  if (!disabled && filter.ingress?.enabled === true) {
    const providerConfig: RawConfig = { egressFilter: { blackholingEnabled: true } };
    ext.providerConfig = providerConfig;
  }
  return ext;
}

export function certExtension(): ShootExtension {
  return {
    type: CertExtensionType,
    providerConfig: { apiVersion: 'service.cert.extensions.gardener.cloud/v1alpha1', kind: 'CertConfig', shootIssuers: { enabled: true } },
  };
}

export function oidcExtension({ runtime }: ConversionInput): ShootExtension | undefined {
  if (runtime.metadata.labels?.[LabelCreatedByMigrator] === 'true') return undefined;
  return { type: OidcExtensionType, disabled: false };
}

/**
 * The ACL extension when the Runtime restricts the kube-apiserver to CIDRs; on a patch an ACL the
 * Runtime no longer asks for is disabled rather than dropped (so that Gardener removes its rules).
 */
export function aclExtension({ runtime, existing }: ConversionInput): ShootExtension | undefined {
  const cidrs = runtime.spec.shoot.kubernetes?.kubeAPIServer?.acl?.allowedCIDRs;
  if (cidrs && cidrs.length > 0) {
    return { type: AclExtensionType, disabled: false, providerConfig: { rule: { action: 'ALLOW', type: 'remote_ip', cidrs: [...cidrs] } } };
  }
  const live = existing?.spec.extensions?.find((e) => e.type === AclExtensionType);
  return live ? { ...cloneJson(live), disabled: true } : undefined;
}

function upsert(list: ShootExtension[], ext: ShootExtension | undefined): void {
  if (!ext) return;
  const i = list.findIndex((e) => e.type === ext.type);
  if (i < 0) list.push(ext);
  else list[i] = ext;
}

export function extensions(input: ConversionInput, audit: AuditLogSetup | undefined): NonNullable<ShootSpec['extensions']> {
  const current = input.existing?.spec.extensions;
  if (input.existing) {
    const out = cloneJson(current ?? []);
    upsert(out, networkFilterExtension(input));
    upsert(out, aclExtension(input));
    upsert(out, audit ? auditLogExtension(audit) : undefined);
    upsert(out, registryCacheExtension(input));
    return out;
  }
  const out: ShootExtension[] = [];
  for (const ext of [networkFilterExtension(input), certExtension(), dnsExtension(input), oidcExtension(input), aclExtension(input), audit ? auditLogExtension(audit) : undefined, registryCacheExtension(input)]) upsert(out, ext);
  return out;
}
