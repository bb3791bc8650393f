// The runtime image-pull Secret (upstream `--skr-image-pull-secret`): a Secret of the control plane's
// namespace copied into every runtime's `kyma-system` under the same name, so that module
// Deployments and StatefulSets (which the Manifest controller points at it) can pull their images.
// Written with server-side apply only when the runtime's copy differs by value.
import { Namespaces } from '../../api/operator/index.js';
import { jsonEqual } from '../../kube/json.js';
import type { Client } from '../../runtime/client/interface.js';
import { isNotFound } from '../../runtime/client/errors.js';
import { SECRET_KIND, type Secret } from '../../runtime/remote/secret.js';
import { FIELD_MANAGER } from './crds.js';

export class ImagePullSecretError extends Error {
  override name = 'ImagePullSecretError';
}

/** The runtime's copy of the KCP Secret: its type, data, labels and annotations, nothing cluster-specific. */
export function runtimeCopy(source: Secret): Secret {
  const copy: Secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: source.metadata.name, namespace: Namespaces.Remote },
    ...(source.type ? { type: source.type } : {}),
    data: { ...(source.data as Record<string, string> | undefined) },
  };
  if (source.metadata.labels) copy.metadata.labels = { ...source.metadata.labels };
  if (source.metadata.annotations) copy.metadata.annotations = { ...source.metadata.annotations };
  return copy;
}

/** Copies `namespace/name` of the KCP into the runtime; true when it wrote. */
export async function syncImagePullSecret(kcp: Client, remote: Client, secret: { namespace: string; name: string }, signal: AbortSignal): Promise<boolean> {
  let source: Secret;
  try {
    source = await kcp.get<Secret>(SECRET_KIND, secret, { signal });
  } catch (e) {
    if (isNotFound(e)) throw new ImagePullSecretError(`image pull secret not found: secrets "${secret.name}" not found in ${secret.namespace}`);
    throw e;
  }
  const desired = runtimeCopy(source);
  let current: Secret | undefined;
  try {
    current = await remote.get<Secret>(SECRET_KIND, { namespace: Namespaces.Remote, name: secret.name }, { signal });
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  if (current && upToDate(current, desired)) return false;
  await remote.apply(desired, { fieldManager: FIELD_MANAGER, force: true, signal });
  return true;
}

function upToDate(current: Secret, desired: Secret): boolean {
  const subset = (have: Record<string, string> | undefined, want: Record<string, string> | undefined) => Object.entries(want ?? {}).every(([k, v]) => have?.[k] === v);
  return (
    (current.type ?? 'Opaque') === (desired.type ?? 'Opaque') &&
    jsonEqual(current.data ?? {}, desired.data ?? {}) &&
    subset(current.metadata.labels, desired.metadata.labels) &&
    subset(current.metadata.annotations, desired.metadata.annotations)
  );
}
