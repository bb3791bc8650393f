// Reading Gardener's errors on a Shoot the way the infrastructure manager does: which failures are
// worth waiting for, and a message a person can act on.
import { ErrorInfraQuotaExceeded, ErrorInfraRateLimitsExceeded, hasErrorCode, isRetryable, type LastError } from '../../api/gardener/index.js';

/**
 * Is a Failed operation worth waiting for? There are errors and none of them has a code after which
 * Gardener gives up - except rate limits and exhausted quotas: those pass by themselves or when the
 * platform team raises the quota, so the runtime waits instead of failing (project decision; upstream
 * fails on quota). `ERR_INFRA_UNAUTHORIZED` and the other final codes end in Failed.
 */
export function isRetryableShootFailure(lastErrors: readonly LastError[]): boolean {
  return isRetryable(lastErrors) || hasErrorCode(lastErrors, ErrorInfraRateLimitsExceeded) || hasErrorCode(lastErrors, ErrorInfraQuotaExceeded);
}

/** The error codes of all errors, comma separated (upstream ToErrReason). */
export function errorCodesOf(lastErrors: readonly LastError[]): string {
  return lastErrors.flatMap((e) => e.codes ?? []).join(', ');
}

/** `ERR_X: description; ...` for condition messages. */
export function describeErrors(lastErrors: readonly LastError[]): string {
  return lastErrors.map((e) => ((e.codes ?? []).length > 0 ? `${(e.codes ?? []).join(', ')}: ${e.description}` : e.description)).join('; ');
}
