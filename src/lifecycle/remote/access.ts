// Access to runtime clusters: a runtime's kubeconfig lives in a KCP Secret labelled
// `operator.kyma-project.io/kyma-name=<kyma>` (data key `config`), as the infrastructure manager
// writes it. Clients come from the control plane's one cache of runtime clients, keyed by the Secret
// (shared with the infrastructure manager); a Secret that changes (rotation) or disappears replaces
// or drops the cached client at once.
import { LabelValues, Labels } from '../../api/operator/index.js';
import type { Store } from '../../runtime/cache/store.js';
import type { Client } from '../../runtime/client/interface.js';
import { ApiError, type ApiErrorReason, isUnreachable } from '../../runtime/client/errors.js';
import { isCredentialError, KubeconfigSecretError, type RemoteClusterCache, secretClusterKey } from '../../runtime/remote/cache.js';
import { SECRET_KIND, kubeconfigOf, type Secret } from '../../runtime/remote/secret.js';

/** Answers that mean the runtime's API server answers but does not serve (after the client's retries). */
const SERVER_ERRORS = new Set<ApiErrorReason>(['ServiceUnavailable', 'InternalError', 'ServerTimeout']);

export { SECRET_KIND, type Secret };

/** Label selector of the informer that keeps kubeconfig Secrets (a Secret with a Kyma name that is not a watcher certificate). */
// The watcher's certificate Secrets (`<kyma>-webhook-tls`) carry the Kyma name too; they are not kubeconfigs.
export const KUBECONFIG_SECRET_SELECTOR = `${Labels.KymaName},${Labels.Purpose}!=${LabelValues.CertManager}`;

/**
 * Why a runtime cannot be used: no kubeconfig Secret, an unusable one, no answer (connection refused,
 * reset, timeout), answers that are server errors (5xx) or throttling (429) after the client's
 * retries, or credentials the runtime rejects.
 */
export type RuntimeAccessReason = 'SecretNotFound' | 'SecretInvalid' | 'Unreachable' | 'ServerError' | 'Throttled' | 'Unauthorized';

/** The runtime cluster of a Kyma cannot be used; `reason` says why, `message` is for the Kyma status. */
export class RuntimeAccessError extends Error {
  constructor(
    readonly reason: RuntimeAccessReason,
    readonly kyma: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RuntimeAccessError';
  }
}

export function isRuntimeAccessError(e: unknown): e is RuntimeAccessError {
  return e instanceof RuntimeAccessError;
}

/** Translates errors of calls to a runtime into RuntimeAccessError where they mean "no access". */
export function accessErrorOf(kyma: string, e: unknown): RuntimeAccessError | undefined {
  if (e instanceof RuntimeAccessError) return e;
  if (e instanceof KubeconfigSecretError) {
    return new RuntimeAccessError(e.reason === 'SecretNotFound' ? 'SecretNotFound' : 'SecretInvalid', kyma, e.message, { cause: e });
  }
  if (isUnreachable(e)) return new RuntimeAccessError('Unreachable', kyma, `runtime cluster of Kyma ${kyma} is unreachable: ${e.message}`, { cause: e });
  if (e instanceof ApiError && SERVER_ERRORS.has(e.reason)) {
    return new RuntimeAccessError('ServerError', kyma, `runtime cluster of Kyma ${kyma} answers with server errors (${e.code} ${e.reason}): ${e.message}`, { cause: e });
  }
  if (e instanceof ApiError && e.reason === 'TooManyRequests') {
    return new RuntimeAccessError('Throttled', kyma, `runtime cluster of Kyma ${kyma} keeps throttling requests (429 TooManyRequests) beyond the client's retries: ${e.message}`, { cause: e });
  }
  if (isCredentialError(e)) return new RuntimeAccessError('Unauthorized', kyma, `runtime cluster of Kyma ${kyma} rejected the credentials of its kubeconfig Secret: ${(e as Error).message}`, { cause: e });
  return undefined;
}

export interface RuntimeAccessOptions {
  /** Namespace of the Kymas and the kubeconfig Secrets. */
  namespace: string;
  /** The informer store of kubeconfig Secrets (namespace, selector KUBECONFIG_SECRET_SELECTOR). */
  secrets: Store<Secret>;
  /**
   * The control plane's cache of runtime clients, keyed by kubeconfig Secret (`secretClusterKey`),
   * fed with Secret changes by its owner: a rotated Secret replaces the client at once.
   */
  remoteClients: RemoteClusterCache;
}

export class RuntimeAccess {
  readonly clients: RemoteClusterCache;

  constructor(private readonly opts: RuntimeAccessOptions) {
    this.clients = opts.remoteClients;
  }

  /** The kubeconfig Secret of a Kyma, from the informer cache. */
  secretOf(kyma: string): Secret | undefined {
    const found = this.opts.secrets.list({ namespace: this.opts.namespace, labelSelector: `${Labels.KymaName}=${kyma}` });
    return found[0];
  }

  /** The client of a Kyma's runtime; RuntimeAccessError when its Secret is missing or unusable. */
  client(kyma: string): Client {
    const secret = this.secretOf(kyma);
    if (!secret) throw new RuntimeAccessError('SecretNotFound', kyma, this.secretNotFound(kyma));
    if (kubeconfigOf(secret) === undefined) {
      throw new RuntimeAccessError('SecretInvalid', kyma, `kubeconfig Secret ${this.opts.namespace}/${secret.metadata.name ?? ''} of Kyma ${kyma} has no key config`);
    }
    return this.clients.client(this.clusterKey(secret));
  }

  /**
   * A handle on a Kyma's runtime for controllers that tell a missing Secret from other failures by
   * KubeconfigSecretError (reason SecretNotFound): thrown here when no Secret is labelled with the
   * Kyma's name; a Secret without the `config` key fails the first request (reason KeyMissing).
   */
  lazyClient(kyma: string): Client {
    const secret = this.secretOf(kyma);
    if (!secret) throw new KubeconfigSecretError('SecretNotFound', kyma, this.secretNotFound(kyma));
    return this.clients.client(this.clusterKey(secret));
  }

  /** Drops a Kyma's cached client (after auth or connection errors, or when the Kyma is gone). */
  evict(kyma: string): void {
    const secret = this.secretOf(kyma);
    if (secret) this.clients.invalidate(this.clusterKey(secret));
  }

  /** The cache key of a runtime's client: its kubeconfig Secret. */
  private clusterKey(secret: Secret): string {
    return secretClusterKey({ namespace: this.opts.namespace, name: secret.metadata.name ?? '' });
  }

  private secretNotFound(kyma: string): string {
    return `kubeconfig Secret of Kyma ${kyma} not found (label ${Labels.KymaName}=${kyma} in namespace ${this.opts.namespace})`;
  }
}
