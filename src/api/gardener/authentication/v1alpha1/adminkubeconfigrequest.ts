// Gardener's AdminKubeconfigRequest (authentication.gardener.cloud/v1alpha1): the body POSTed to a
// Shoot's `adminkubeconfig` subresource, answered with a short-lived cluster-admin kubeconfig.
// It is a subresource request, not a stored kind, so it has no CRD: the schema here gives the type
// (inferred) and is what the embedded Gardener simulator validates requests against.
import type { ObjectMeta } from '../../../../kube/object.js';
import { type Infer, integer, object, string } from '../../../schema.js';

export const AUTHENTICATION_GROUP = 'authentication.gardener.cloud';
export const AUTHENTICATION_VERSION = 'v1alpha1';
export const ADMIN_KUBECONFIG_REQUEST_API_VERSION = `${AUTHENTICATION_GROUP}/${AUTHENTICATION_VERSION}`;
export const ADMIN_KUBECONFIG_REQUEST_KIND = 'AdminKubeconfigRequest';
/** Name of the Shoot subresource the request is POSTed to. */
export const ADMIN_KUBECONFIG_SUBRESOURCE = 'adminkubeconfig';
/** Validity Gardener grants when the request names none (1 hour). */
export const DEFAULT_ADMIN_KUBECONFIG_EXPIRATION_SECONDS = 3600;
/** Shortest validity accepted (10 minutes). */
export const MIN_ADMIN_KUBECONFIG_EXPIRATION_SECONDS = 600;
/** Longest validity accepted (2^32 seconds). */
export const MAX_ADMIN_KUBECONFIG_EXPIRATION_SECONDS = 2 ** 32;

export const adminKubeconfigRequestSpec = object(
  {
    expirationSeconds: integer({
      format: 'int64',
      minimum: MIN_ADMIN_KUBECONFIG_EXPIRATION_SECONDS,
      maximum: MAX_ADMIN_KUBECONFIG_EXPIRATION_SECONDS,
      description: 'Requested validity of the credential in seconds (default 1 hour). The issuer may grant a different one; read status.expirationTimestamp.',
    }),
  },
  { description: 'What is requested: the validity of the kubeconfig.' },
);

export const adminKubeconfigRequestStatus = object(
  {
    kubeconfig: string({ format: 'byte', description: 'The kubeconfig with cluster-admin rights, base64-encoded (Go []byte).' }),
    expirationTimestamp: string({ format: 'date-time', description: 'When the returned credential expires.' }),
  },
  { description: 'The issued kubeconfig and its expiry.' },
);

export const adminKubeconfigRequest = object(
  {
    apiVersion: string({ description: `Always ${ADMIN_KUBECONFIG_REQUEST_API_VERSION}.` }),
    kind: string({ description: `Always ${ADMIN_KUBECONFIG_REQUEST_KIND}.` }),
    spec: adminKubeconfigRequestSpec,
    status: adminKubeconfigRequestStatus,
  },
  { description: 'A request for a short-lived cluster-admin kubeconfig of a Shoot (POST shoots/<name>/adminkubeconfig).' },
);

export type AdminKubeconfigRequestSpec = Infer<typeof adminKubeconfigRequestSpec>;
export type AdminKubeconfigRequestStatus = Infer<typeof adminKubeconfigRequestStatus>;
export type AdminKubeconfigRequest = Infer<typeof adminKubeconfigRequest> & { metadata?: ObjectMeta };

/** The request body a client POSTs to `.../shoots/<name>/adminkubeconfig`. */
export function newAdminKubeconfigRequest(expirationSeconds: number = DEFAULT_ADMIN_KUBECONFIG_EXPIRATION_SECONDS): AdminKubeconfigRequest {
  return { apiVersion: ADMIN_KUBECONFIG_REQUEST_API_VERSION, kind: ADMIN_KUBECONFIG_REQUEST_KIND, spec: { expirationSeconds } };
}

/** The path of a Shoot's adminkubeconfig subresource in the garden cluster. */
export function adminKubeconfigPath(namespace: string, shootName: string): string {
  return `/apis/core.gardener.cloud/v1beta1/namespaces/${encodeURIComponent(namespace)}/shoots/${encodeURIComponent(shootName)}/${ADMIN_KUBECONFIG_SUBRESOURCE}`;
}

/**
 * Checks a request body as the server side (the embedded Gardener simulator) receives it.
 * Returns one entry per problem, naming the field.
 */
export function validateAdminKubeconfigRequest(obj: unknown): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return [{ field: '<root>', message: 'must be an object' }];
  const o = obj as Record<string, unknown>;
  if (o.apiVersion !== undefined && o.apiVersion !== ADMIN_KUBECONFIG_REQUEST_API_VERSION) {
    out.push({ field: 'apiVersion', message: `must be ${ADMIN_KUBECONFIG_REQUEST_API_VERSION}` });
  }
  if (o.kind !== undefined && o.kind !== ADMIN_KUBECONFIG_REQUEST_KIND) out.push({ field: 'kind', message: `must be ${ADMIN_KUBECONFIG_REQUEST_KIND}` });
  const spec = o.spec;
  if (spec === undefined || spec === null) return out;
  if (typeof spec !== 'object' || Array.isArray(spec)) return [...out, { field: 'spec', message: 'must be an object' }];
  const seconds = (spec as Record<string, unknown>).expirationSeconds;
  if (seconds === undefined || seconds === null) return out;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds)) out.push({ field: 'spec.expirationSeconds', message: 'must be an integer' });
  else if (seconds < MIN_ADMIN_KUBECONFIG_EXPIRATION_SECONDS) out.push({ field: 'spec.expirationSeconds', message: 'may not specify a duration less than 10 minutes' });
  else if (seconds > MAX_ADMIN_KUBECONFIG_EXPIRATION_SECONDS) out.push({ field: 'spec.expirationSeconds', message: 'may not specify a duration larger than 2^32 seconds' });
  return out;
}
