// Is there a seed for a Runtime that enforces its seed location (upstream seedForRegionAvailable)?
// Gardener schedules such a Shoot only onto a seed of its provider in its region; without one the
// Shoot would wait unscheduled for good, so the Runtime fails before the Shoot is created.
import { Seed, SeedConditionGardenletReady, type SeedObject } from '../../api/gardener/index.js';
import type { Client } from '../../runtime/client/interface.js';

export interface SeedAvailability {
  available: boolean;
  /** Regions with a usable seed of the provider, sorted (for the message). */
  regionsWithSeeds: string[];
}

/** A seed the scheduler may use: not being deleted, visible, its gardenlet not reported down. */
function usable(seed: SeedObject): boolean {
  if (seed.metadata.deletionTimestamp) return false;
  if (seed.spec.settings?.scheduling?.visible === false) return false;
  const gardenlet = seed.status?.conditions?.find((c) => c.type === SeedConditionGardenletReady);
  return !gardenlet || gardenlet.status === 'True';
}

export async function seedForRegionAvailable(garden: Client, providerType: string, region: string, signal?: AbortSignal): Promise<SeedAvailability> {
  const seeds = (await garden.list<SeedObject>(Seed, { signal })).items.filter((s) => s.spec.provider.type === providerType && usable(s));
  const regionsWithSeeds = [...new Set(seeds.map((s) => s.spec.provider.region))].sort();
  return { available: regionsWithSeeds.includes(region), regionsWithSeeds };
}
