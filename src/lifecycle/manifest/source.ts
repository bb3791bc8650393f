// Where a Manifest's objects come from: the link in spec.install.source, fetched through the
// ArtifactFetcher and kept for a while, so a steady reconcile does not download again.
import type { ManifestObject } from '../../api/operator/index.js';
import { ArtifactError, type ArtifactFetcher, type FetchedManifest } from '../artifacts/types.js';
import type { CredentialsFor } from './registry-credentials.js';

/** The artifact link of a Manifest: `{ url }`, or the upstream image spec form `{ repo, name, ref }`. */
export function linkOf(manifest: ManifestObject): string {
  const source = manifest.spec.install.source as Record<string, unknown>;
  if (typeof source.url === 'string' && source.url) return source.url;
  const { repo, name, ref } = source;
  if (typeof repo === 'string' && typeof name === 'string' && typeof ref === 'string' && repo && name && ref) {
    const base = `${repo.replace(/^oci:\/\//, '').replace(/\/+$/, '')}/${name}`;
    return `oci://${base}${ref.startsWith('sha256:') ? `@${ref}` : `:${ref}`}`;
  }
  throw new ArtifactError('InvalidLink', 'spec.install.source has neither a url nor an image reference (repo, name, ref)');
}

interface Entry {
  value: FetchedManifest;
  fetchedAt: number;
}

/** Fetched manifests by link, reused for `ttlMs` (links with a digest are immutable and kept until evicted). */
export class ManifestSource {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly fetcher: ArtifactFetcher,
    private readonly ttlMs: number,
    private readonly maxEntries = 512,
  ) {}

  /** `credentials` are asked for only when the link must be fetched. */
  async fetch(link: string, signal: AbortSignal, credentials?: CredentialsFor): Promise<FetchedManifest> {
    const hit = this.entries.get(link);
    if (hit && (link.includes('@sha256:') || Date.now() - hit.fetchedAt < this.ttlMs)) {
      this.entries.delete(link);
      this.entries.set(link, hit);
      return hit.value;
    }
    const value = await this.fetcher.fetchManifest(link, { signal, credentials: await credentials?.(link, signal) });
    this.entries.delete(link);
    this.entries.set(link, { value, fetchedAt: Date.now() });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return value;
  }
}
