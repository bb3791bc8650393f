// Spreading periodic work: thousands of objects created together would otherwise be requeued
// together forever, in bursts. A leaf, like sleep.ts.

/** `ms` plus up to `fraction` of it, at random. */
export function jittered(ms: number, fraction = 0.1, random: () => number = Math.random): number {
  return Math.round(ms + ms * fraction * random());
}
