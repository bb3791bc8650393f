// Gardener's well-defined error codes (core.gardener.cloud/v1beta1 ErrorCode, types_common.go) as they
// appear in a Shoot's `status.lastErrors[].codes` and conditions, and which of them make Gardener give
// up retrying (the classification of Gardener's helper `HasNonRetryableErrorCode`).
import type { LastError } from './common.js';

/** The request lacks valid infrastructure credentials. Not retryable. */
export const ErrorInfraUnauthenticated = 'ERR_INFRA_UNAUTHENTICATED';
/** The infrastructure understood the request but refused to authorize it. Not retryable. */
export const ErrorInfraUnauthorized = 'ERR_INFRA_UNAUTHORIZED';
/** An infrastructure quota is exhausted. Not retryable. */
export const ErrorInfraQuotaExceeded = 'ERR_INFRA_QUOTA_EXCEEDED';
/** The infrastructure's request rate limits were exceeded (Gardener's helper treats it as not retryable). */
export const ErrorInfraRateLimitsExceeded = 'ERR_INFRA_RATE_LIMITS_EXCEEDED';
/** Dependent objects on the infrastructure level block the operation. Not retryable. */
export const ErrorInfraDependencies = 'ERR_INFRA_DEPENDENCIES';
/** Dependent objects on the infrastructure level block the operation, but it should be retried. */
export const ErrorRetryableInfraDependencies = 'ERR_RETRYABLE_INFRA_DEPENDENCIES';
/** A resource of the infrastructure is depleted (e.g. no capacity for a machine type in a zone). Retryable. */
export const ErrorInfraResourcesDepleted = 'ERR_INFRA_RESOURCES_DEPLETED';
/** Resources in the cluster are stuck in deletion. Retryable. */
export const ErrorCleanupClusterResources = 'ERR_CLEANUP_CLUSTER_RESOURCES';
/** The shoot's configuration is wrong. Not retryable. */
export const ErrorConfigurationProblem = 'ERR_CONFIGURATION_PROBLEM';
/** A configuration problem that is likely to resolve itself after some time. Retryable. */
export const ErrorRetryableConfigurationProblem = 'ERR_RETRYABLE_CONFIGURATION_PROBLEM';
/** A webhook in the shoot does not follow Kubernetes' best practices. Not retryable. */
export const ErrorProblematicWebhook = 'ERR_PROBLEMATIC_WEBHOOK';

/** Every error code Gardener defines, in upstream order. */
export const errorCodes = [
  ErrorInfraUnauthenticated,
  ErrorInfraUnauthorized,
  ErrorInfraQuotaExceeded,
  ErrorInfraRateLimitsExceeded,
  ErrorInfraDependencies,
  ErrorRetryableInfraDependencies,
  ErrorInfraResourcesDepleted,
  ErrorCleanupClusterResources,
  ErrorConfigurationProblem,
  ErrorRetryableConfigurationProblem,
  ErrorProblematicWebhook,
] as const;
export type ErrorCode = (typeof errorCodes)[number];

/**
 * Codes after which Gardener does not retry the operation (its last operation goes to `Failed`
 * at once). The set of Gardener's `HasNonRetryableErrorCode`.
 */
export const nonRetryableErrorCodes: ReadonlySet<string> = new Set<ErrorCode>([
  ErrorInfraUnauthenticated,
  ErrorInfraUnauthorized,
  ErrorInfraDependencies,
  ErrorInfraQuotaExceeded,
  ErrorInfraRateLimitsExceeded,
  ErrorConfigurationProblem,
  ErrorProblematicWebhook,
]);

/** Codes that users can fix themselves (Gardener's "user error" column); the others need the provider or an operator. */
export const userErrorCodes: ReadonlySet<string> = new Set<ErrorCode>([
  ErrorInfraUnauthenticated,
  ErrorInfraUnauthorized,
  ErrorInfraQuotaExceeded,
  ErrorInfraDependencies,
  ErrorInfraResourcesDepleted,
  ErrorCleanupClusterResources,
  ErrorConfigurationProblem,
  ErrorRetryableConfigurationProblem,
  ErrorProblematicWebhook,
]);

export function isErrorCode(code: string): code is ErrorCode {
  return (errorCodes as readonly string[]).includes(code);
}

/** Is a single code retryable? Unknown codes are retryable, as in Gardener. */
export function isRetryableErrorCode(code: string): boolean {
  return !nonRetryableErrorCodes.has(code);
}

/** Does any of the errors carry a code after which Gardener gives up (Gardener's HasNonRetryableErrorCode)? */
export function hasNonRetryableErrorCode(lastErrors: readonly Pick<LastError, 'codes'>[]): boolean {
  return lastErrors.some((e) => (e.codes ?? []).some((c) => nonRetryableErrorCodes.has(c)));
}

/**
 * Are the errors worth waiting for (the infrastructure manager's reading): there is at least one error
 * and none of them carries a non-retryable code.
 */
export function isRetryable(lastErrors: readonly Pick<LastError, 'codes'>[]): boolean {
  return lastErrors.length > 0 && !hasNonRetryableErrorCode(lastErrors);
}

/** Does any of the errors carry the given code (Gardener's HasErrorCode)? */
export function hasErrorCode(lastErrors: readonly Pick<LastError, 'codes'>[], code: string): boolean {
  return lastErrors.some((e) => (e.codes ?? []).includes(code));
}
