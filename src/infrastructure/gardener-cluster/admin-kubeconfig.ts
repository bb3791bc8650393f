// Fetching a Shoot's admin kubeconfig from Gardener: POST of an AdminKubeconfigRequest to the
// Shoot's `adminkubeconfig` subresource in the garden cluster.
//
// The runtime `Client` has no call for arbitrary subresources, so the request goes through the
// runtime client's own transport (rate limiting aside): credentials from its ClusterConfig, one
// attempt, typed errors from the Status body. A failed attempt is retried by the controller's
// per-key backoff.
import {
  ADMIN_KUBECONFIG_REQUEST_KIND,
  type AdminKubeconfigRequest,
  adminKubeconfigPath,
  newAdminKubeconfigRequest,
} from '../../api/gardener/index.js';
import { ApiError, errorFromResponse, type StatusBody } from '../../runtime/client/errors.js';
import { HttpClient } from '../../runtime/client/http-client.js';
import type { Client } from '../../runtime/client/interface.js';

/** A kubeconfig issued by Gardener and when its credential expires. */
export interface IssuedKubeconfig {
  kubeconfig: string;
  /** RFC 3339; undefined when the issuer did not say. */
  expirationTimestamp?: string;
}

/** Where kubeconfigs come from (upstream: KubeconfigProvider). Tests may pass their own. */
export interface KubeconfigProvider {
  fetch(shootName: string, signal?: AbortSignal): Promise<IssuedKubeconfig>;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * POSTs `body` to `path` with the credentials and TLS settings of a runtime HttpClient.
 * Lead: the runtime `Client` should offer this itself (e.g. `createSubresource(kind, key, subresource, body)`),
 * with its rate limiter and retry policy.
 */
export async function postJson(client: Client, path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
  if (!(client instanceof HttpClient)) {
    throw new Error(`client ${client.cluster} cannot POST to subresources (not an HttpClient); pass a KubeconfigProvider instead`);
  }
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  const authorization = await client.config.auth?.authorization(signal ?? new AbortController().signal);
  if (authorization) headers.Authorization = authorization;
  const res = await client.transport.request({ method: 'POST', path, headers, body: JSON.stringify(body), signal });
  const doc = parseJson(res.body);
  if (res.status >= 400) {
    const status = typeof doc === 'object' && doc !== null && (doc as StatusBody).kind === 'Status' ? (doc as StatusBody) : undefined;
    const retryAfter = res.headers['retry-after'];
    throw errorFromResponse(res.status, status, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
  }
  if (doc === undefined) throw new ApiError('Unknown', `POST ${path}: answer is not JSON`, res.status);
  return doc;
}

/** Upstream's provider: admin kubeconfigs of Shoots in namespace `garden-<project>`, each valid `expirationSeconds`. */
export function gardenerKubeconfigProvider(garden: Client, shootNamespace: string, expirationSeconds: number): KubeconfigProvider {
  return {
    async fetch(shootName, signal) {
      const answer = (await postJson(garden, adminKubeconfigPath(shootNamespace, shootName), newAdminKubeconfigRequest(expirationSeconds), signal)) as AdminKubeconfigRequest;
      if (answer.kind !== undefined && answer.kind !== ADMIN_KUBECONFIG_REQUEST_KIND) {
        throw new ApiError('Unknown', `adminkubeconfig of ${shootNamespace}/${shootName}: unexpected kind ${answer.kind}`, 200);
      }
      const encoded = answer.status?.kubeconfig;
      if (!encoded) throw new ApiError('Unknown', `adminkubeconfig of ${shootNamespace}/${shootName}: no kubeconfig in the answer`, 200);
      return { kubeconfig: Buffer.from(encoded, 'base64').toString('utf8'), expirationTimestamp: answer.status?.expirationTimestamp };
    },
  };
}
