// Gardener's Seed (core.gardener.cloud/v1beta1), the cluster that hosts Shoot control planes, as far
// as the infrastructure manager reads it: provider type and region, whether the scheduler may use it
// (`spec.settings.scheduling.visible`) and its conditions. Cluster-scoped, as in Gardener.
import { defineKind, type ObjectOf } from '../../crd.js';
import { array, boolean, object, req, string } from '../../schema.js';
import { gardenerConditions } from './common.js';
import { GARDENER_CORE_GROUP, GARDENER_CORE_VERSION } from './shoot.js';

/** Seed condition: the gardenlet of the seed is running and reports in. */
export const SeedConditionGardenletReady = 'GardenletReady';

export const seedSpec = object(
  {
    provider: req(
      object(
        {
          type: req(string({ minLength: 1, description: 'Infrastructure provider of the seed, e.g. `aws`.' })),
          region: req(string({ minLength: 1, description: 'Region the seed runs in.' })),
          zones: array(string(), { description: 'Availability zones of the seed.' }),
        },
        { description: 'Where the seed runs.' },
      ),
    ),
    settings: object(
      {
        scheduling: object({ visible: boolean({ description: 'Whether the scheduler may place Shoots on this seed.' }) }, { description: 'Scheduling settings.' }),
      },
      { description: 'Seed settings (others kept unvalidated).', preserveUnknownFields: true },
    ),
  },
  { description: 'Specification of the seed (fields not listed are kept unvalidated).', preserveUnknownFields: true },
);

export const seedStatus = object(
  { conditions: gardenerConditions },
  { description: 'Observed state of the seed.', preserveUnknownFields: true },
);

export const Seed = defineKind({
  group: GARDENER_CORE_GROUP,
  version: GARDENER_CORE_VERSION,
  kind: 'Seed',
  plural: 'seeds',
  singular: 'seed',
  scope: 'Cluster',
  description: 'A cluster that hosts the control planes of Shoots.',
  spec: seedSpec,
  status: seedStatus,
  printerColumns: [
    { name: 'Provider', type: 'string', jsonPath: '.spec.provider.type' },
    { name: 'Region', type: 'string', jsonPath: '.spec.provider.region' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  notes: [
    'Gardener serves Seeds from its own aggregated API server; this CRD stands in for it in the embedded garden cluster, with the fields the infrastructure manager reads typed (provider type and region, scheduling visibility, conditions) and every other field kept.',
  ].join('\n\n'),
});

export type SeedObject = ObjectOf<typeof Seed>;
