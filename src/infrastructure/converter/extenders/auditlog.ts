// Audit logging (upstream extender/auditlogs): the shoot-auditlog-service extension with the tenant of
// the Runtime's provider and region, the credentials Secret as a named resource, and the audit policy
// ConfigMap of the kube-apiserver.
import type { AuditLogTenant } from '../config.js';
import { cloneJson, type ConversionInput, type ShootExtension, type ShootSpec } from '../types.js';

export const AuditlogExtensionType = 'shoot-auditlog-service';
/** Name of the resource reference the extension finds its credentials under. */
export const AuditlogSecretReferenceName = 'auditlog-credentials';

export interface AuditLogSetup {
  tenant: AuditLogTenant;
  policyConfigMapName: string;
}

/** The audit log setup for the Runtime, or undefined when none is configured for its provider and region. */
export function auditLogSetup({ runtime, config }: ConversionInput): AuditLogSetup | undefined {
  const audit = config.auditLogging;
  const tenant = audit?.tenants[runtime.spec.shoot.provider.type]?.[runtime.spec.shoot.region];
  return audit && tenant ? { tenant, policyConfigMapName: audit.policyConfigMapName } : undefined;
}

export function auditLogExtension(setup: AuditLogSetup): ShootExtension {
  return {
    type: AuditlogExtensionType,
    providerConfig: {
      apiVersion: 'service.auditlog.extensions.gardener.cloud/v1alpha1',
      kind: 'AuditlogConfig',
      type: 'standard',
      tenantID: setup.tenant.tenantID,
      serviceURL: setup.tenant.serviceURL,
      secretReferenceName: AuditlogSecretReferenceName,
    },
  };
}

/** `spec.resources`: the Shoot's own (kept on a patch) plus the audit log credentials. */
export function resources(input: ConversionInput, setup: AuditLogSetup | undefined): ShootSpec['resources'] {
  const out = cloneJson(input.existing?.spec.resources ?? []).filter((r) => r.name !== AuditlogSecretReferenceName || !setup);
  if (setup) out.push({ name: AuditlogSecretReferenceName, resourceRef: { apiVersion: 'v1', kind: 'Secret', name: setup.tenant.secretName } });
  return out.length > 0 ? out : undefined;
}
