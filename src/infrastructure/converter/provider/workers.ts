// Worker pools: the Runtime's workers and additional workers with machine image defaults, AWS IMDSv2,
// and on a patch the machine image version and zone order Gardener already has.
import { zoneBelongsToRegion } from '../../../api/infrastructuremanager/index.js';
import { defaultMachineImage } from '../config.js';
import { ConversionError } from '../errors.js';
import { cloneJson, type ConversionInput, type ShootWorker } from '../types.js';
import { neverDowngrade } from '../version.js';
import { awsImdsV2WorkerConfig } from './aws.js';
import { mergeZoneOrder } from './zones.js';

interface PlacedWorker {
  worker: ShootWorker;
  /** Path of the worker in the Runtime, for error messages. */
  path: string;
}

function runtimeWorkers(input: ConversionInput): PlacedWorker[] {
  const provider = input.runtime.spec.shoot.provider;
  return [
    ...provider.workers.map((worker, i) => ({ worker, path: `spec.shoot.provider.workers[${i}]` })),
    ...(provider.additionalWorkers ?? []).map((worker, i) => ({ worker, path: `spec.shoot.provider.additionalWorkers[${i}]` })),
  ];
}

function checkZones(input: ConversionInput, placed: PlacedWorker): void {
  const type = input.runtime.spec.shoot.provider.type;
  const region = input.runtime.spec.shoot.region;
  const seen = new Set<string>();
  (placed.worker.zones ?? []).forEach((zone, k) => {
    const field = `${placed.path}.zones[${k}]`;
    if (!zoneBelongsToRegion(type, region, zone)) throw new ConversionError(field, `zone ${zone} is not a ${type} zone of region ${region}`);
    if (seen.has(zone)) throw new ConversionError(field, `zone ${zone} is listed twice`);
    seen.add(zone);
  });
}

function withMachineImage(input: ConversionInput, worker: ShootWorker, existing: ShootWorker | undefined): void {
  const defaults = defaultMachineImage(input.config, input.runtime.spec.shoot.provider.type);
  const image = worker.machine.image;
  const name = image?.name ? image.name : defaults.name;
  // The default version only fits the default image; another image without a version gets Gardener's latest.
  let version = image?.version ? image.version : name === defaults.name ? defaults.version : undefined;
  const current = existing?.machine.image;
  if (version !== undefined && current?.name === name) version = neverDowngrade(version, current.version);
  const next: NonNullable<ShootWorker['machine']['image']> = { ...(image ?? {}), name };
  if (version === undefined) delete next.version;
  else next.version = version;
  worker.machine.image = next;
}

/** The Shoot's worker pools for the Runtime (in the Runtime's order: workers, then additional workers). */
export function convertWorkers(input: ConversionInput): ShootWorker[] {
  const existingWorkers = input.existing?.spec.provider.workers ?? [];
  const imdsV2 = input.runtime.spec.shoot.provider.type === 'aws' && input.config.provider.aws.enableIMDSv2;
  return runtimeWorkers(input).map((placed) => {
    checkZones(input, placed);
    const worker = cloneJson(placed.worker);
    const existing = existingWorkers.find((w) => w.name === worker.name);
    withMachineImage(input, worker, existing);
    if (existing?.zones && worker.zones) worker.zones = mergeZoneOrder(existing.zones, worker.zones, false);
    if (imdsV2 && worker.providerConfig === undefined) worker.providerConfig = awsImdsV2WorkerConfig();
    return worker;
  });
}

/** Names of worker pools the Shoot has and the Runtime no longer lists. */
export function removedWorkerNames(desired: readonly ShootWorker[], existing: readonly ShootWorker[]): string[] {
  return existing.filter((w) => !desired.some((d) => d.name === w.name)).map((w) => w.name);
}
