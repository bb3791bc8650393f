// The short hashes kube's controllers put into names and labels: the `pod-template-hash` of a
// Deployment's ReplicaSets and pods, and stable suffixes for simulated machine names.
//
// kube-controller-manager's ComputeHash feeds a dump of the Go PodTemplateSpec struct (every field,
// zero values and type names included) into FNV-32a, appends the collision count as 8 little-endian
// bytes when the Deployment has one, prints the 32-bit sum in decimal and maps each digit through
// rand.SafeEncodeString's vowel-free alphabet. This does the same over the template's canonical JSON
// (keys sorted at every level) instead of the Go dump, which this server cannot reproduce: the
// labels have kube's alphabet and length (6 to 10 characters of `bcdfghjklmnpqrstvwxz2456789`) and
// are stable for a given template, but differ from the ones a real cluster computes.
import { canonicalJson } from '../../kube/json.js';
import { fnv1a32, fnv1a32Bytes } from '../../util/fnv.js';

/** rand.SafeEncodeString's alphabet (no vowels, no 0/1/3, so that no word is spelled). */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** rand.SafeEncodeString: every character replaced by the alphabet's entry at its code modulo 27. */
export function safeEncode(s: string): string {
  let out = '';
  for (const ch of s) out += SAFE_ALPHABET[ch.codePointAt(0)! % SAFE_ALPHABET.length];
  return out;
}

/** The `pod-template-hash` of a pod template, with the Deployment's `status.collisionCount` when it has one. */
export function podTemplateHash(template: unknown, collisionCount?: number): string {
  let h = fnv1a32(canonicalJson(template ?? {}));
  if (collisionCount !== undefined) {
    const extra = new Uint8Array(8);
    new DataView(extra.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv1a32Bytes(extra, h);
  }
  return safeEncode(String(h));
}

/** A stable name suffix of `length` safe characters derived from `seed` (for names that must not change between passes). */
export function stableSuffix(seed: string, length = 5): string {
  let out = '';
  let h = fnv1a32(seed);
  while (out.length < length) {
    out += SAFE_ALPHABET[h % SAFE_ALPHABET.length];
    h = Math.floor(h / SAFE_ALPHABET.length) || fnv1a32(`${seed}/${out}`);
  }
  return out;
}
