// OciArtifactFetcher: turns a `rawManifest` link into the module's objects.
// - `oci://host[:port]/repo@sha256:...` / `:tag`: OCI distribution API pull (manifest, then the raw-manifest
//   layer), every digest verified; credentials answer Basic or Bearer challenges.
// - `https://...` (and `http://` for loopback or insecure hosts): the YAML stream itself.
// Parsed results are cached by digest; concurrent fetches of one link share one download.
import { AuthCache } from './auth.js';
import { ManifestCache } from './cache.js';
import { sha256Digest } from './digest.js';
import { exchange } from './http.js';
import { InFlight } from './inflight.js';
import { DOCKER_MANIFEST_LIST, OCI_INDEX, PLAIN_YAML_LAYERS, RAW_MANIFEST_LAYER } from './media-types.js';
import { hostOf, isLoopbackHost, type OciReference, parseOciReference } from './reference.js';
import { RegistryClient } from './registry-client.js';
import { ArtifactError, type ArtifactFetcher, type FetchedManifest, type RegistryCredentials } from './types.js';
import { isRecord, parseObjects } from './yaml-stream.js';

export interface OciFetcherOptions {
  /** Registries (`host[:port]` or `host`) reached over plain http; loopback registries always are. */
  insecureRegistries?: string[];
  /** Extra CA certificates (PEM) trusted for https registries and https links. */
  caPem?: string | string[];
  /** Largest OCI manifest accepted. Default 4 MiB. */
  maxManifestBytes?: number;
  /** Largest raw manifest (layer or https download) accepted. Default 32 MiB. */
  maxLayerBytes?: number;
  /** Cache bounds. Defaults: 256 entries, 128 MiB of YAML. */
  cacheMaxEntries?: number;
  cacheMaxBytes?: number;
  /** Per-request timeout. Default 30 s. */
  requestTimeoutMs?: number;
}

export interface OciDescriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

export interface OciImageManifest {
  schemaVersion: number;
  mediaType?: string;
  config: OciDescriptor;
  layers: OciDescriptor[];
  annotations?: Record<string, string>;
}

const MiB = 1024 * 1024;

export class OciArtifactFetcher implements ArtifactFetcher {
  private readonly cache: ManifestCache;
  private readonly inflight = new InFlight<FetchedManifest>();
  private readonly authCache = new AuthCache();
  private readonly insecure: Set<string>;
  private readonly ca: string[] | undefined;
  private readonly maxManifestBytes: number;
  private readonly maxLayerBytes: number;
  private readonly timeoutMs: number;

  constructor(opts: OciFetcherOptions = {}) {
    this.insecure = new Set(opts.insecureRegistries ?? []);
    this.ca = opts.caPem === undefined ? undefined : Array.isArray(opts.caPem) ? opts.caPem : [opts.caPem];
    this.maxManifestBytes = opts.maxManifestBytes ?? 4 * MiB;
    this.maxLayerBytes = opts.maxLayerBytes ?? 32 * MiB;
    this.timeoutMs = opts.requestTimeoutMs ?? 30_000;
    this.cache = new ManifestCache({ maxEntries: opts.cacheMaxEntries ?? 256, maxBytes: opts.cacheMaxBytes ?? 128 * MiB });
  }

  async fetchManifest(link: string, opts: { credentials?: RegistryCredentials; signal?: AbortSignal } = {}): Promise<FetchedManifest> {
    const key = `${link}|${opts.credentials?.username ?? ''}`;
    if (link.startsWith('oci://')) {
      const ref = parseOciReference(link);
      // A digest names the content for good: a cached result needs no registry at all.
      const cached = ref.byDigest ? this.cache.get(ref.reference) : undefined;
      if (cached) return cached;
      return this.inflight.do(key, (signal) => this.pullOci(ref, opts.credentials, signal), opts.signal);
    }
    const url = this.parseHttpLink(link);
    return this.inflight.do(key, (signal) => this.download(url, signal), opts.signal);
  }

  /** Entries and bytes currently cached. */
  get cacheSize(): { entries: number; bytes: number } {
    return this.cache.size;
  }

  /** Drops cached manifests and tokens. */
  clear(): void {
    this.cache.clear();
    this.authCache.clear();
  }

  /** A client for one registry, for callers that need more than the raw manifest (e.g. `kcp module push`). */
  registryClient(registry: string, credentials?: RegistryCredentials): RegistryClient {
    return new RegistryClient({ registry, credentials, plainHttp: this.plainHttp(registry), ca: this.ca, timeoutMs: this.timeoutMs, authCache: this.authCache });
  }

  private async pullOci(ref: OciReference, credentials: RegistryCredentials | undefined, signal: AbortSignal): Promise<FetchedManifest> {
    const client = this.registryClient(ref.registry, credentials);
    const pulled = await client.getManifest(ref.repository, ref.reference, this.maxManifestBytes, signal);
    const cached = this.cache.get(pulled.digest);
    if (cached) return cached;
    const manifest = parseImageManifest(pulled.bytes, pulled.mediaType, `${ref.registry}/${ref.repository}@${pulled.digest}`);
    const layer = rawManifestLayer(manifest, `${ref.registry}/${ref.repository}@${pulled.digest}`);
    if (layer.size > this.maxLayerBytes) throw new ArtifactError('TooLarge', `raw manifest layer ${layer.digest} has ${layer.size} bytes, over the limit of ${this.maxLayerBytes}`);
    const bytes = await client.getBlob(ref.repository, layer.digest, this.maxLayerBytes, signal);
    const result: FetchedManifest = { objects: parseObjects(bytes.toString('utf8'), `raw manifest ${layer.digest}`), digest: layer.digest };
    this.cache.set(pulled.digest, result, bytes.length);
    return this.cache.get(pulled.digest) ?? result;
  }

  private async download(url: URL, signal: AbortSignal): Promise<FetchedManifest> {
    const answer = await exchange({ method: 'GET', url, headers: { accept: 'application/yaml, application/x-yaml, text/yaml, text/plain, */*' }, maxBytes: this.maxLayerBytes, timeoutMs: this.timeoutMs, ca: this.ca, signal });
    if (answer.status === 404) throw new ArtifactError('NotFound', `${url.href} not found`);
    if (answer.status === 401 || answer.status === 403) throw new ArtifactError('Unauthorized', `${url.href}: access denied (HTTP ${answer.status})`);
    if (answer.status !== 200) throw new ArtifactError('Unreachable', `${url.href}: HTTP ${answer.status}`);
    const digest = sha256Digest(answer.body);
    const cached = this.cache.get(digest);
    if (cached) return cached;
    const result: FetchedManifest = { objects: parseObjects(answer.body.toString('utf8'), url.href), digest };
    this.cache.set(digest, result, answer.body.length);
    return this.cache.get(digest) ?? result;
  }

  private parseHttpLink(link: string): URL {
    let url: URL;
    try {
      url = new URL(link);
    } catch {
      throw new ArtifactError('InvalidLink', `invalid link ${JSON.stringify(link)}: not a URL`);
    }
    if (url.protocol === 'https:') return url;
    if (url.protocol === 'http:' && this.plainHttp(url.host)) return url;
    if (url.protocol === 'http:') throw new ArtifactError('InvalidLink', `refusing ${link}: plain http is only allowed for loopback or insecure hosts`);
    throw new ArtifactError('InvalidLink', `invalid link ${JSON.stringify(link)}: use oci://, https:// or http://`);
  }

  private plainHttp(registry: string): boolean {
    return isLoopbackHost(hostOf(registry)) || this.insecure.has(registry) || this.insecure.has(hostOf(registry));
  }
}

/** Reads an OCI image manifest (or Docker v2 manifest); indexes are refused. */
export function parseImageManifest(bytes: Uint8Array, contentType: string, where: string): OciImageManifest {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw new ArtifactError('MissingLayer', `${where}: the manifest is not JSON`);
  }
  if (!isRecord(doc)) throw new ArtifactError('MissingLayer', `${where}: the manifest is not a JSON object`);
  const mediaType = typeof doc.mediaType === 'string' ? doc.mediaType : contentType;
  if (mediaType === OCI_INDEX || mediaType === DOCKER_MANIFEST_LIST || Array.isArray(doc.manifests)) {
    throw new ArtifactError('MissingLayer', `${where} is an image index, not a module artifact`);
  }
  if (doc.schemaVersion !== 2 || !Array.isArray(doc.layers)) throw new ArtifactError('MissingLayer', `${where}: not an OCI image manifest (schemaVersion 2 with layers)`);
  const layers = doc.layers.filter(isDescriptor);
  if (layers.length !== doc.layers.length || !isDescriptor(doc.config)) throw new ArtifactError('MissingLayer', `${where}: the manifest has malformed descriptors`);
  return { schemaVersion: 2, mediaType, config: doc.config, layers, annotations: isRecord(doc.annotations) ? (doc.annotations as Record<string, string>) : undefined };
}

/** The layer holding the raw manifest: ours by media type, else the first plain YAML layer. */
export function rawManifestLayer(manifest: OciImageManifest, where: string): OciDescriptor {
  const layer = manifest.layers.find((l) => l.mediaType === RAW_MANIFEST_LAYER) ?? manifest.layers.find((l) => PLAIN_YAML_LAYERS.includes(l.mediaType));
  if (layer) return layer;
  const found = manifest.layers.map((l) => l.mediaType).join(', ') || 'none';
  throw new ArtifactError('MissingLayer', `${where} has no raw manifest layer (${RAW_MANIFEST_LAYER} or plain YAML); its layers: ${found}`);
}

function isDescriptor(v: unknown): v is OciDescriptor {
  return isRecord(v) && typeof v.mediaType === 'string' && typeof v.digest === 'string' && typeof v.size === 'number';
}
