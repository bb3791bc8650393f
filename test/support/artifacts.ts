// What fake artifact fetchers answer with: a digest of the content, as a registry's manifest
// layer digest is, so that other objects under the same link come with another digest.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../src/kube/object.js';

export function contentDigest(objects: readonly KubeObject[]): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(objects)).digest('hex')}`;
}
