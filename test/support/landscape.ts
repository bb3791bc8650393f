// Scenario-test helpers around the in-memory landscape (src/landscape/in-memory.ts): a fresh
// landscape per suite, a valid Shoot, and following a Shoot's operations.
import { type LastOperation, Shoot, type ShootObject } from '../../src/api/gardener/index.js';
import { GARDEN_CLUSTER } from '../../src/landscape/index.js';
import { type Landscape, startInMemoryLandscape } from '../../src/landscape/in-memory.js';
import { waitFor } from './wait.js';

export type { Landscape, LandscapeOptions } from '../../src/landscape/in-memory.js';
/** A fresh in-memory landscape (src/landscape/in-memory.ts). */
export const startLandscape = startInMemoryLandscape;

export { GARDEN_CLUSTER };

/** A valid AWS Shoot for the landscape's project; `edit` adjusts it (e.g. to make it invalid). */
export function testShoot(name: string, namespace: string, edit?: (s: ShootObject) => void): ShootObject {
  const shoot: ShootObject = {
    apiVersion: Shoot.apiVersion,
    kind: Shoot.kind,
    metadata: { name, namespace },
    spec: {
      cloudProfileName: 'aws',
      region: 'eu-central-1',
      secretBindingName: 'aws-credentials',
      purpose: 'evaluation',
      kubernetes: { version: '1.31' },
      networking: { type: 'calico', pods: '100.64.0.0/12', nodes: '10.250.0.0/16', services: '100.104.0.0/13' },
      provider: {
        type: 'aws',
        workers: [{ name: 'cpu-worker-0', machine: { type: 'm6i.large', image: { name: 'gardenlinux' } }, minimum: 1, maximum: 3, zones: ['eu-central-1a', 'eu-central-1b'] }],
      },
    },
  };
  edit?.(shoot);
  return shoot;
}

export { waitFor };

/**
 * Asserts that the observed states (polling may miss short ones) follow the expected order:
 * `seen` without `none` is a subsequence of `expected` and contains every `required` state.
 */
export function assertInOrder(seen: string[], expected: string[], required: string[]): void {
  const observed = seen.filter((x) => x !== 'none');
  let i = 0;
  for (const x of observed) {
    while (i < expected.length && expected[i] !== x) i++;
    if (i === expected.length) throw new Error(`states ${observed.join(' -> ')} do not follow ${expected.join(' -> ')}`);
    i++;
  }
  for (const r of required) if (!observed.includes(r)) throw new Error(`state ${r} not seen in ${observed.join(' -> ')}`);
}

/** Follows a Shoot's lastOperation until `until` holds, recording every distinct `type/state` seen into `seen`. */
export async function followShoot(l: Landscape, name: string, until: (op: LastOperation | undefined, s: ShootObject) => boolean, seen: string[] = []): Promise<ShootObject> {
  return waitFor(`shoot ${name} to reach the expected state (seen ${seen.join(' -> ')})`, async () => {
    const s = await l.garden.get<ShootObject>(Shoot, { namespace: l.projectNamespace, name });
    const op = s.status?.lastOperation;
    const label = op ? `${op.type}/${op.state}` : 'none';
    if (seen[seen.length - 1] !== label) seen.push(label);
    return until(op, s) ? s : undefined;
  });
}
