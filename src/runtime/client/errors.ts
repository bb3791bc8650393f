// API errors as values: callers branch on `reason`, never on message text.

export type ApiErrorReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'ServerTimeout'
  /** No answer: connection refused or reset, DNS, TLS handshake failure, timeout. */
  | 'Unreachable'
  | 'Unknown';

/** The Status object a Kubernetes API server answers errors with. */
export interface StatusBody {
  kind?: string;
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; group?: string; kind?: string; causes?: { reason?: string; message?: string; field?: string }[]; retryAfterSeconds?: number };
}

export class ApiError extends Error {
  constructor(
    readonly reason: ApiErrorReason,
    message: string,
    readonly code: number,
    readonly status?: StatusBody,
    readonly retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ApiError';
  }
}

const byCode: Record<number, ApiErrorReason> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Gone',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'ServerTimeout',
};

/** The error for an HTTP answer; the Status body's reason wins where it is more precise (AlreadyExists, Expired). */
export function errorFromResponse(code: number, body: StatusBody | undefined, retryAfterHeader?: string): ApiError {
  let reason: ApiErrorReason = byCode[code] ?? (code >= 500 ? 'InternalError' : 'Unknown');
  if (body?.reason === 'AlreadyExists') reason = 'AlreadyExists';
  if (body?.reason === 'Expired' || body?.reason === 'Gone') reason = 'Gone';
  if (body?.reason === 'Timeout' || body?.reason === 'ServerTimeout') reason = 'ServerTimeout';
  const header = retryAfterHeader !== undefined ? Number(retryAfterHeader) : undefined;
  const retryAfter = header !== undefined && Number.isFinite(header) ? header : body?.details?.retryAfterSeconds;
  return new ApiError(reason, body?.message ?? `HTTP ${code}`, code, body, retryAfter);
}

const is = (reason: ApiErrorReason) => (e: unknown): e is ApiError => e instanceof ApiError && e.reason === reason;
export const isNotFound = is('NotFound');
export const isConflict = is('Conflict');
export const isAlreadyExists = is('AlreadyExists');
export const isInvalid = is('Invalid');
export const isForbidden = is('Forbidden');
export const isUnauthorized = is('Unauthorized');
export const isGone = is('Gone');
export const isTooManyRequests = is('TooManyRequests');
export const isUnreachable = is('Unreachable');

/** Errors worth retrying later: throttling, server trouble, no answer. */
export function isRetryable(e: unknown): boolean {
  return e instanceof ApiError && ['TooManyRequests', 'InternalError', 'ServiceUnavailable', 'ServerTimeout', 'Unreachable'].includes(e.reason);
}
