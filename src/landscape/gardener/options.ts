// Settings of the Gardener simulator: how long its operations take and which providers and zones it
// knows (the annotations that make it fail on purpose are in ../constants.ts).
import { createHash } from 'node:crypto';

/** Logical cluster of the embedded server that plays the garden (Gardener's API). */
export const GARDEN_CLUSTER = 'garden';
/** Prefix of Gardener project namespaces (`garden-<project>`). */
export const PROJECT_NAMESPACE_PREFIX = 'garden-';

/** Field manager of the simulator's writes (as Gardener's API server and gardenlet). */
export const SIMULATOR_FIELD_MANAGER = 'gardener-simulator';

/** Zones per region, as a CloudProfile lists them. */
export type RegionZones = Record<string, string[]>;

export interface GardenerSimulatorOptions {
  /** Time a new Shoot stays `Pending` before its Create operation starts processing. */
  pendingMs: number;
  /** Time a Create operation spends `Processing` (progress 0..100). */
  createMs: number;
  /** Time a Reconcile operation spends `Processing`. */
  reconcileMs: number;
  /** Time a Delete operation spends `Processing`. */
  deleteMs: number;
  /** Progress updates per operation (progress moves in `100 / steps` increments). */
  progressSteps: number;
  /** Time an operation stays in `Error` (or `Failed` with recovery asked for) before it is retried. */
  recoverAfterMs: number;
  /** Longest validity granted to an adminkubeconfig, in seconds (Gardener may grant less than asked). */
  maxAdminKubeconfigSeconds: number;
  /** Infrastructure provider types accepted in `spec.provider.type`. */
  providerTypes: string[];
  /**
   * Zones known per provider and region. A region not listed falls back to the provider's naming
   * scheme (`zonePattern`); a region listed accepts exactly its zones.
   */
  regions: Record<string, RegionZones>;
  /** Concurrent Shoot reconciliations. */
  concurrency: number;
  /** Seeds of the landscape, created at start (visible, gardenlet ready) when missing. */
  seeds: SeedSetting[];
}

export interface SeedSetting {
  name: string;
  provider: string;
  region: string;
}

/** One seed per provider in a few common regions (a Runtime that enforces its seed location needs one in its region). */
export const defaultSeeds: SeedSetting[] = [
  ['aws', 'eu-central-1'],
  ['aws', 'eu-west-1'],
  ['aws', 'us-east-1'],
  ['azure', 'westeurope'],
  ['azure', 'eastus'],
  ['gcp', 'europe-west3'],
  ['gcp', 'us-central1'],
  ['openstack', 'eu-de-1'],
  ['alicloud', 'cn-beijing'],
].map(([provider, region]) => ({ name: `${provider}-${region}`, provider, region }));

/** Short defaults, for tests: a Shoot is ready about 1.2 s after creation. */
export const defaultSimulatorOptions: GardenerSimulatorOptions = {
  pendingMs: 200,
  createMs: 1000,
  reconcileMs: 500,
  deleteMs: 500,
  progressSteps: 4,
  recoverAfterMs: 1000,
  maxAdminKubeconfigSeconds: 2 ** 32,
  providerTypes: ['aws', 'azure', 'gcp', 'openstack', 'alicloud'],
  regions: {},
  concurrency: 4,
  seeds: defaultSeeds,
};

/** Slower, more lifelike defaults for `kcp up` (a Shoot is ready after about 5 s). */
export const embeddedSimulatorOptions: Partial<GardenerSimulatorOptions> = {
  pendingMs: 1000,
  createMs: 4000,
  reconcileMs: 2000,
  deleteMs: 2000,
  progressSteps: 5,
  recoverAfterMs: 5000,
};

/**
 * How zones are named per provider when a region is not listed in `regions`: AWS
 * `eu-central-1a`, GCP `europe-west3-a`, Azure `1`..`3`, OpenStack `eu-de-1a`, Alicloud `cn-beijing-a`.
 */
export function zonePattern(provider: string, region: string): RegExp | undefined {
  const r = region.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  switch (provider) {
    case 'aws':
      return new RegExp(`^${r}[a-f]$`);
    case 'gcp':
      return new RegExp(`^${r}-[a-f]$`);
    case 'azure':
      return /^[1-3]$/;
    case 'openstack':
      return new RegExp(`^${r}[a-d]$`);
    case 'alicloud':
      return new RegExp(`^${r}-[a-k]$`);
    default:
      return undefined;
  }
}

/** Example zones for a region, for error messages (what `supported values` shows). */
export function exampleZones(provider: string, region: string): string[] {
  switch (provider) {
    case 'aws':
    case 'openstack':
      return ['a', 'b', 'c'].map((z) => `${region}${z}`);
    case 'gcp':
    case 'alicloud':
      return ['a', 'b', 'c'].map((z) => `${region}-${z}`);
    case 'azure':
      return ['1', '2', '3'];
    default:
      return [];
  }
}

/** The project a project namespace belongs to (`garden-kyma-dev` -> `kyma-dev`; `garden` -> `garden`). */
export function projectOfNamespace(namespace: string): string {
  return namespace.startsWith(PROJECT_NAMESPACE_PREFIX) ? namespace.slice(PROJECT_NAMESPACE_PREFIX.length) : namespace;
}

/**
 * Technical ID of a Shoot and name of its logical cluster: `shoot--<project>--<name>`. Gardener keeps
 * project plus shoot name within 21 characters; the simulator does not enforce that, so a longer
 * result is cut to 52 characters plus a hash to stay a valid logical cluster name (63 at most).
 */
export function shootClusterName(namespace: string, shootName: string): string {
  const full = `shoot--${projectOfNamespace(namespace)}--${shootName}`;
  if (full.length <= 63) return full;
  return `${full.slice(0, 52).replace(/-+$/, '')}-${createHash('sha256').update(full).digest('hex').slice(0, 10)}`;
}
