// The checks Gardener's API server makes on a Shoot for the fields the control plane sets: known
// provider type, zones of the region, non-overlapping pod/node/service networks, worker pools with
// maximum >= minimum, immutable region and provider type, and the deletion confirmation.
// Messages follow k8s.io/apimachinery's field errors, naming the field.
import {
  AnnotationConfirmationDeletion,
  DefaultPodNetworkCIDR,
  DefaultServiceNetworkCIDR,
  type ShootObject,
} from '../../api/gardener/index.js';
import { type FieldError, fieldErrors } from '../../apiserver/errors.js';
import { cidrsOverlap, parseCidr } from './cidr.js';
import { exampleZones, type GardenerSimulatorOptions, zonePattern } from './options.js';

type ValidationSettings = Pick<GardenerSimulatorOptions, 'providerTypes' | 'regions'>;

/** Field errors of a Shoot being created (`old` undefined) or updated. */
export function validateShoot(shoot: ShootObject, old: ShootObject | undefined, settings: ValidationSettings): FieldError[] {
  const errors: FieldError[] = [];
  const spec = shoot.spec;
  const providerType = spec.provider.type;
  if (!settings.providerTypes.includes(providerType)) {
    errors.push(fieldErrors.notSupported('spec.provider.type', providerType, settings.providerTypes));
  }
  errors.push(...validateWorkers(shoot, settings));
  errors.push(...validateNetworks(shoot));
  if (old) {
    if (old.spec.region !== spec.region) errors.push(fieldErrors.invalid('spec.region', spec.region, 'field is immutable'));
    if (old.spec.provider.type !== providerType) errors.push(fieldErrors.invalid('spec.provider.type', providerType, 'field is immutable'));
    for (const f of ['pods', 'services'] as const) {
      const before = old.spec.networking?.[f];
      const after = spec.networking?.[f];
      if (before !== undefined && before !== after) errors.push(fieldErrors.invalid(`spec.networking.${f}`, after ?? '', 'field is immutable'));
    }
  }
  return errors;
}

function validateWorkers(shoot: ShootObject, settings: ValidationSettings): FieldError[] {
  const errors: FieldError[] = [];
  const { type: providerType } = shoot.spec.provider;
  const region = shoot.spec.region;
  const listed = settings.regions[providerType]?.[region];
  const pattern = zonePattern(providerType, region);
  (shoot.spec.provider.workers ?? []).forEach((w, i) => {
    const path = `spec.provider.workers[${i}]`;
    if (w.maximum < w.minimum) errors.push(fieldErrors.forbidden(`${path}.maximum`, 'maximum value must not be less than minimum value'));
    (w.zones ?? []).forEach((zone, j) => {
      const known = listed ? listed.includes(zone) : pattern ? pattern.test(zone) : true;
      if (!known) errors.push(fieldErrors.notSupported(`${path}.zones[${j}]`, zone, listed ?? exampleZones(providerType, region)));
    });
  });
  return errors;
}

function validateNetworks(shoot: ShootObject): FieldError[] {
  const errors: FieldError[] = [];
  const n = shoot.spec.networking ?? {};
  // Gardener defaults the pod and service networks before validating.
  const networks = [
    { path: 'spec.networking.pods', cidr: n.pods ?? DefaultPodNetworkCIDR },
    { path: 'spec.networking.nodes', cidr: n.nodes },
    { path: 'spec.networking.services', cidr: n.services ?? DefaultServiceNetworkCIDR },
  ].filter((x): x is { path: string; cidr: string } => x.cidr !== undefined);
  const parsed = networks.map((x) => ({ ...x, net: parseCidr(x.cidr) }));
  for (const p of parsed) if (!p.net) errors.push(fieldErrors.invalid(p.path, p.cidr, 'must be a valid CIDR'));
  for (let i = 0; i < parsed.length; i++) {
    for (let j = i + 1; j < parsed.length; j++) {
      const a = parsed[i];
      const b = parsed[j];
      if (a.net && b.net && cidrsOverlap(a.net, b.net)) {
        errors.push(fieldErrors.invalid(b.path, b.cidr, `must not overlap with ${a.path} (${JSON.stringify(a.cidr)})`));
      }
    }
  }
  return errors;
}

/** Gardener's deletion confirmation: the message when a Shoot without it is deleted, or undefined. */
export function deletionRefusal(shoot: { metadata: { annotations?: Record<string, string> } }): string | undefined {
  const v = shoot.metadata.annotations?.[AnnotationConfirmationDeletion];
  if (v === 'true') return undefined;
  return `must have a "${AnnotationConfirmationDeletion}" annotation to delete`;
}
