// API errors as values. Each carries the HTTP code and a Status body shaped like kube-apiserver's,
// so callers branch on `reason` and clients show the same message a real cluster gives.

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout'
  | 'Expired';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'StatusError';
  }

  toStatus(): StatusBody {
    // Key order matches kube-apiserver's JSON: details come before code.
    const body: Omit<StatusBody, 'code'> & { code?: number } = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message };
    // A webhook's denial may carry no reason; the real server then omits the key.
    if (this.reason) body.reason = this.reason;
    if (this.details !== undefined) body.details = this.details;
    body.code = this.code;
    return body as StatusBody;
  }
}

/** Identifies a resource in error messages: `configmaps`, or `widgets.conf.example.com` for non-core groups. */
export interface ResourceRef {
  group: string;
  resource: string;
}

export function qualifiedResource(ref: ResourceRef): string {
  return ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
}

function details(ref: ResourceRef, name: string | undefined): StatusDetails {
  const d: StatusDetails = {};
  if (name !== undefined && name !== '') d.name = name;
  if (ref.group) d.group = ref.group;
  d.kind = ref.resource;
  return d;
}

export function notFound(ref: ResourceRef, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualifiedResource(ref)} "${name}" not found`, details(ref, name));
}

export function alreadyExists(ref: ResourceRef, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualifiedResource(ref)} "${name}" already exists`, details(ref, name));
}

export function conflict(ref: ResourceRef, name: string, why: string): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(ref)} "${name}": ${why}`, details(ref, name));
}

export const MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function forbidden(ref: ResourceRef, name: string, why: string): StatusError {
  const subject = name ? `${qualifiedResource(ref)} "${name}"` : qualifiedResource(ref);
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${why}`, details(ref, name));
}

export function methodNotAllowed(): StatusError {
  return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function resourceNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/** One field error, as k8s.io/apimachinery/pkg/util/validation/field renders it. */
export interface FieldError {
  type: 'FieldValueInvalid' | 'FieldValueRequired' | 'FieldValueNotSupported' | 'FieldValueDuplicate' | 'FieldValueForbidden' | 'FieldValueTooLong' | 'FieldValueTooMany' | 'FieldValueTypeInvalid' | 'InternalError';
  field: string;
  /** Message without the field prefix, e.g. `Invalid value: "x": must be ...` or `Required value`. */
  message: string;
}

const typeWords: Record<FieldError['type'], string> = {
  FieldValueInvalid: 'Invalid value',
  FieldValueRequired: 'Required value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
  InternalError: 'Internal error',
};

/** Renders a Go value the way kube's field errors print it (%#v for strings, plain for numbers). */
export function goValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return 'null';
  return JSON.stringify(v);
}

export const fieldErrors = {
  invalid: (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, message: `${typeWords.FieldValueInvalid}: ${goValue(value)}: ${detail}` }),
  required: (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, message: detail ? `Required value: ${detail}` : 'Required value' }),
  notSupported: (field: string, value: unknown, supported: string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${goValue(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  }),
  forbidden: (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` }),
  duplicate: (field: string, rendered: string): FieldError => ({ type: 'FieldValueDuplicate', field, message: `Duplicate value: ${rendered}` }),
  tooMany: (field: string, actual: number | undefined, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field,
    message: actual === undefined ? `Too many: must have at most ${max} items` : `Too many: ${actual}: must have at most ${max} items`,
  }),
};

/**
 * 422 Invalid, as kube-apiserver words it: `<Kind>[.<group>] "<name>" is invalid: <field>: <message>`,
 * with several errors joined inside brackets.
 */
export function invalid(kind: string, group: string, name: string, errors: FieldError[]): StatusError {
  const qualified = group ? `${kind}.${group}` : kind;
  // The message lists each distinct error once (as Go's aggregate does); causes keep every entry.
  const parts = [...new Set(errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)))];
  const summary = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (group) d.group = group;
  d.kind = kind;
  d.causes = errors.map((e) => {
    const c: StatusCause = { reason: e.type, message: e.message };
    if (e.field) c.field = e.field;
    return c;
  });
  return new StatusError(422, 'Invalid', `${qualified} "${name}" is invalid: ${summary}`, d);
}
