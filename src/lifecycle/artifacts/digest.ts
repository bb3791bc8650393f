// Content digests (`sha256:<hex>`): computing and checking them.
import { createHash } from 'node:crypto';
import { ArtifactError } from './types.js';

const DIGEST_PATTERN = /^sha256:[a-f0-9]{64}$/;

export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

export function isDigest(ref: string): boolean {
  return DIGEST_PATTERN.test(ref);
}

/** Throws DigestMismatch unless `bytes` hash to `expected`. */
export function verifyDigest(bytes: Uint8Array, expected: string, what: string): void {
  if (!isDigest(expected)) throw new ArtifactError('DigestMismatch', `${what}: unsupported digest ${JSON.stringify(expected)} (only sha256 is accepted)`);
  const actual = sha256Digest(bytes);
  if (actual !== expected) throw new ArtifactError('DigestMismatch', `${what}: content has digest ${actual}, expected ${expected}`);
}
