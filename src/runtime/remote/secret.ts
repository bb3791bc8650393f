// Kubeconfig Secrets: where a remote cluster's kubeconfig lives (`data.config`, base64) and the
// fingerprint that tells whether a Secret's content changed (rotation).
import { createHash } from 'node:crypto';
import type { Client } from '../client/interface.js';
import { isNotFound } from '../client/errors.js';
import type { KindRef, KubeObject } from '../../kube/object.js';
import type { ObjectKey } from '../../kube/keys.js';

export const SECRET_KIND: KindRef = { apiVersion: 'v1', kind: 'Secret' };

/** The data key holding the kubeconfig, as Gardener and Kyma's kubeconfig Secrets name it. */
export const DEFAULT_KUBECONFIG_KEY = 'config';

export interface Secret extends KubeObject {
  data?: Record<string, string>;
  type?: string;
}

/** Where a cluster's kubeconfig is: a Secret and the data key (default `config`). */
export interface KubeconfigRef extends ObjectKey {
  key?: string;
}

export type KubeconfigSecretReason = 'SecretNotFound' | 'KeyMissing';

/** The kubeconfig of a remote cluster cannot be had; `reason` says why. */
export class KubeconfigSecretError extends Error {
  constructor(
    readonly reason: KubeconfigSecretReason,
    readonly cluster: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'KubeconfigSecretError';
  }
}

export function refString(ref: KubeconfigRef): string {
  return `${ref.namespace ?? ''}/${ref.name}`;
}

/** A short fingerprint of kubeconfig text: equal content, equal fingerprint. */
export function kubeconfigFingerprint(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The kubeconfig text in a Secret, or undefined when the key is missing. */
export function kubeconfigOf(secret: Secret, key = DEFAULT_KUBECONFIG_KEY): string | undefined {
  const data = secret.data?.[key];
  return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
}

/** Reads a cluster's kubeconfig Secret; KubeconfigSecretError when it or the key is missing. */
export async function readKubeconfig(client: Client, cluster: string, ref: KubeconfigRef, signal?: AbortSignal): Promise<{ text: string; secret: Secret }> {
  let secret: Secret;
  try {
    secret = await client.get<Secret>(SECRET_KIND, { namespace: ref.namespace, name: ref.name }, { signal });
  } catch (e) {
    if (isNotFound(e)) throw new KubeconfigSecretError('SecretNotFound', cluster, `kubeconfig Secret ${refString(ref)} of cluster ${cluster} not found`, { cause: e });
    throw e;
  }
  const text = kubeconfigOf(secret, ref.key);
  if (text === undefined) throw new KubeconfigSecretError('KeyMissing', cluster, `kubeconfig Secret ${refString(ref)} of cluster ${cluster} has no key ${ref.key ?? DEFAULT_KUBECONFIG_KEY}`);
  return { text, secret };
}
