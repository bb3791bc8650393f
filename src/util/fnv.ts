// FNV-1a, 32 bits (Go's hash/fnv New32a): shard assignment (runtime/sharding) and the simulated
// deployment controller's pod-template hashes and names (landscape/workloads).

const OFFSET_BASIS = 0x811c9dc5;
const PRIME = 0x01000193;
const encoder = new TextEncoder();

/** The hash of `bytes`, continuing from `seed` (the hash of what came before) when given. */
export function fnv1a32Bytes(bytes: Uint8Array, seed = OFFSET_BASIS): number {
  let hash = seed;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, PRIME);
  return hash >>> 0;
}

/** The hash of the UTF-8 bytes of `text`, as an unsigned integer. */
export function fnv1a32(text: string): number {
  return fnv1a32Bytes(encoder.encode(text));
}
