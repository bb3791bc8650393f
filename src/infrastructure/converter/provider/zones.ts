// Zone lists: which zones the infrastructure must have subnets for, and in which order.
import type { ShootWorker } from '../types.js';

/** All zones of all workers, each once, in order of first appearance (upstream getNetworkingZonesFromWorkers). */
export function networkingZones(workers: readonly ShootWorker[]): string[] {
  const out: string[] = [];
  for (const w of workers) for (const z of w.zones ?? []) if (!out.includes(z)) out.push(z);
  return out;
}

/**
 * Keeps the order Gardener already has and appends what is new. Zone subnets are computed by
 * position, so an existing zone must never move; for the same reason infrastructure zones are never
 * dropped (`keepUnused`), while a worker pool's own zone list follows the Runtime.
 */
export function mergeZoneOrder(existing: readonly string[], desired: readonly string[], keepUnused: boolean): string[] {
  const kept = keepUnused ? [...existing] : existing.filter((z) => desired.includes(z));
  for (const z of desired) if (!kept.includes(z)) kept.push(z);
  return kept;
}
