// Credentials for pulling module artifacts from a private OCI registry (upstream
// `--oci-registry-cred-secret`): one `kubernetes.io/dockerconfigjson` Secret in the control plane's
// namespace, read when an `oci://` artifact must actually be fetched (not on cached passes), its
// entry for the artifact's registry used for the registry's Basic or Bearer challenge.
import { isNotFound } from '../../runtime/client/errors.js';
import type { Client } from '../../runtime/client/interface.js';
import { SECRET_KIND, type Secret } from '../../runtime/remote/secret.js';
import { CredentialsError, credentialsFromSecret } from '../artifacts/credentials.js';
import { parseOciReference } from '../artifacts/reference.js';
import { ArtifactError, type RegistryCredentials } from '../artifacts/types.js';

/** The credentials to fetch `link` with (undefined: anonymously). */
export type CredentialsFor = (link: string, signal: AbortSignal) => Promise<RegistryCredentials | undefined>;

/** Credentials from the Secret `namespace/name` of the KCP, for `oci://` links; https links go without. */
export function credentialsFromKcpSecret(kcp: Client, secret: { namespace: string; name: string }): CredentialsFor {
  return async (link, signal) => {
    if (!link.startsWith('oci://')) return undefined;
    const registry = parseOciReference(link).registry;
    let found: Secret;
    try {
      found = await kcp.get<Secret>(SECRET_KIND, secret, { signal });
    } catch (e) {
      // Upstream's keychain provider's message.
      if (isNotFound(e)) throw new ArtifactError('Unauthorized', `no private oci registry auth secret found: ${secret.namespace}/${secret.name}`);
      throw e;
    }
    try {
      return credentialsFromSecret(found, registry);
    } catch (e) {
      if (e instanceof CredentialsError) throw new ArtifactError('Unauthorized', e.message);
      throw e;
    }
  };
}
