// Parsing artifact links: `oci://host[:port]/repository@sha256:<hex>` or `oci://host[:port]/repository:tag`.
import { isDigest } from './digest.js';
import { ArtifactError } from './types.js';

export interface OciReference {
  /** `host[:port]` as written in the link. */
  registry: string;
  /** Repository path, e.g. `kyma-modules/keda`. */
  repository: string;
  /** A digest (`sha256:...`) or a tag. */
  reference: string;
  byDigest: boolean;
}

const REPOSITORY_PATTERN = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const TAG_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const REGISTRY_PATTERN = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

export function parseOciReference(link: string): OciReference {
  const bad = (why: string) => new ArtifactError('InvalidLink', `invalid OCI reference ${JSON.stringify(link)}: ${why}`);
  if (!link.startsWith('oci://')) throw bad('it must start with oci://');
  const rest = link.slice('oci://'.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) throw bad('it needs a registry host and a repository');
  const registry = rest.slice(0, slash);
  if (!REGISTRY_PATTERN.test(registry)) throw bad(`registry ${JSON.stringify(registry)} is not host[:port]`);
  let path = rest.slice(slash + 1);
  let reference: string;
  const at = path.indexOf('@');
  if (at >= 0) {
    reference = path.slice(at + 1);
    path = path.slice(0, at);
    if (!isDigest(reference)) throw bad(`digest ${JSON.stringify(reference)} is not sha256:<64 hex>`);
  } else {
    const colon = path.lastIndexOf(':');
    if (colon < 0) throw bad('it needs a tag (:tag) or a digest (@sha256:...)');
    reference = path.slice(colon + 1);
    path = path.slice(0, colon);
    if (!TAG_PATTERN.test(reference)) throw bad(`tag ${JSON.stringify(reference)} is not valid`);
  }
  if (!REPOSITORY_PATTERN.test(path)) throw bad(`repository ${JSON.stringify(path)} is not valid`);
  return { registry, repository: path, reference, byDigest: at >= 0 };
}

export function formatOciReference(ref: Omit<OciReference, 'byDigest'>): string {
  return `oci://${ref.registry}/${ref.repository}${isDigest(ref.reference) ? '@' : ':'}${ref.reference}`;
}

/** Loopback hosts are reached over plain HTTP; so are registries explicitly marked insecure. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** `host` of `host[:port]` (IPv6 brackets kept off). */
export function hostOf(registry: string): string {
  if (registry.startsWith('[')) return registry.slice(1, registry.indexOf(']'));
  const colon = registry.lastIndexOf(':');
  return colon < 0 ? registry : registry.slice(0, colon);
}
