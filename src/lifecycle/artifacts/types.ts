// The contract between the Manifest controller and module artifacts: a `rawManifest` link
// (`oci://host[:port]/repository@sha256:<digest>` or `:tag`, or an `https://` URL) becomes the
// module's Kubernetes objects. `fetcher.ts` implements it with the OCI distribution API.
import type { KubeObject } from '../../kube/object.js';

export interface FetchedManifest {
  /** The module's objects in the order the manifest lists them. */
  objects: KubeObject[];
  /** Digest of the manifest layer (`sha256:...`), or of the downloaded bytes for https links. */
  digest: string;
}

export type ArtifactErrorReason = 'InvalidLink' | 'NotFound' | 'Unauthorized' | 'Unreachable' | 'MissingLayer' | 'DigestMismatch' | 'InvalidYAML' | 'TooLarge';

/** Why an artifact could not be used; the Manifest controller puts `reason` and `message` into its Error condition. */
export class ArtifactError extends Error {
  constructor(
    readonly reason: ArtifactErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'ArtifactError';
  }
}

export interface RegistryCredentials {
  username: string;
  password: string;
}

export interface ArtifactFetcher {
  /**
   * Fetches and parses a module manifest. `credentials` come from a `kubernetes.io/dockerconfigjson`
   * Secret for the registry host, when the module needs them. Results are cached by digest.
   */
  fetchManifest(link: string, opts?: { credentials?: RegistryCredentials; signal?: AbortSignal }): Promise<FetchedManifest>;
}
