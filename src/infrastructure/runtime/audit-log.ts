// Mandatory audit logging (upstream `--audit-log-mandatory`, sFnCreateShoot and sFnPatchExistingShoot):
// when the audit log configuration has no tenant for the Runtime's provider and region (no
// `auditLogging` section, or no entry for them), the Shoot would be created or patched without the
// audit log extension. With audit logging mandatory the Runtime fails instead, before Gardener is
// asked, and stays Failed until the Runtime or the configuration changes.
import { ConditionReasonAuditLogError, ConditionTypeRuntimeProvisioned, type RuntimeObject } from '../../api/infrastructuremanager/index.js';
import type { Machine } from './machine.js';
import { updateStateFailed } from './status.js';

/** Upstream's condition message. */
export const MsgFailedToConfigureAuditLogs = 'Failed to configure audit logs';

/** Why no audit log tenant is found for the Runtime, or undefined when there is one. */
function missingAuditLogTenant(m: Machine, rt: RuntimeObject): string | undefined {
  const audit = m.converterConfig.auditLogging;
  const provider = rt.spec.shoot.provider.type;
  const region = rt.spec.shoot.region;
  if (!audit) return 'the converter configuration has no auditLogging section';
  if (!audit.tenants[provider]?.[region]) return `no audit log tenant configured for ${provider} in ${region}`;
  return undefined;
}

/**
 * True when the Runtime may go on. Otherwise the Runtime's status says `Failed`, `Provisioned` False
 * with reason `AuditLogErr` (the caller writes it and stops); without mandatory audit logging a
 * missing tenant is only logged.
 */
export function auditLogConfigured(m: Machine, rt: RuntimeObject): boolean {
  const missing = missingAuditLogTenant(m, rt);
  if (!missing) return true;
  if (!m.auditLogMandatory) {
    m.log.debug('no audit logging for this runtime', { why: missing });
    return true;
  }
  m.log.error(MsgFailedToConfigureAuditLogs, { why: missing });
  m.metrics.fsmStopped(ConditionReasonAuditLogError);
  updateStateFailed(rt, ConditionTypeRuntimeProvisioned, ConditionReasonAuditLogError, `${MsgFailedToConfigureAuditLogs}: ${missing}`);
  return false;
}
