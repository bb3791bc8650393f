// A fresh embedded landscape for scenario tests: the embedded API server with the KCP (default
// logical cluster: every control-plane CRD, namespace kcp-system), the garden cluster (Shoot CRD,
// project namespace garden-<project>) played by the Gardener simulator, and the kubelet simulation
// for shoot clusters. Short simulated durations by default (a Shoot is ready about 1.2 s after creation).
import { crdOf } from '../../src/api/crd.js';
import { type LastOperation, Shoot, type ShootObject } from '../../src/api/gardener/index.js';
import { controlPlaneKinds } from '../../src/api/index.js';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import {
  GARDEN_CLUSTER,
  type GardenerSimulator,
  type GardenerSimulatorConfig,
  type KubeletOptions,
  type KubeletSimulator,
  shootClusterName,
  startGardenLandscape,
} from '../../src/landscape/index.js';
import { type Client, clientFromKubeconfig, type ClientOptions } from '../../src/runtime/client/index.js';
import { waitFor } from './wait.js';
import { sleep } from '../../src/util/sleep.js';

export interface LandscapeOptions {
  /** Gardener project; the namespace in the garden cluster is `garden-<project>`. Default `kyma-dev`. */
  project?: string;
  /** Simulator durations and settings (see src/landscape/gardener/options.ts). */
  simulator?: Omit<GardenerSimulatorConfig, 'hooks'>;
  kubelet?: Partial<KubeletOptions>;
  /** Also run the kubelet simulation in these non-shoot clusters (e.g. `(n) => n.startsWith('skr-')`). */
  extraKubeletClusters?: (name: string) => boolean;
  /** Extra namespaces in the KCP besides kcp-system. */
  kcpNamespaces?: string[];
  /** Options of the returned clients (default: no rate limit). */
  clientOptions?: ClientOptions;
}

export interface Landscape {
  server: RunningApiServer;
  /** Client of the KCP (default logical cluster). */
  kcp: Client;
  /** Client of the garden cluster. */
  garden: Client;
  kcpKubeconfig: string;
  gardenKubeconfig: string;
  project: string;
  /** `garden-<project>`. */
  projectNamespace: string;
  simulator: GardenerSimulator;
  kubelet: KubeletSimulator;
  /** Name of a shoot's logical cluster (`shoot--<project>--<shoot>`). */
  shootClusterName(shootName: string): string;
  /** Admin client of a shoot's logical cluster (it exists once the Shoot's Create succeeded). */
  shootClient(shootName: string): Client;
  stop(): Promise<void>;
}

export async function startLandscape(opts: LandscapeOptions = {}): Promise<Landscape> {
  const server = await startApiServer({ port: 0 });
  const clients: Client[] = [];
  const clientOpts: ClientOptions = { qps: 0, ...opts.clientOptions };
  const newClient = (kubeconfig: string): Client => {
    const c = clientFromKubeconfig(kubeconfig, clientOpts);
    clients.push(c);
    return c;
  };
  const kcpKubeconfig = server.clusterAccess('default').kubeconfig;
  const kcp = newClient(kcpKubeconfig);
  try {
    await installCrds(server, kcp);
    for (const ns of ['kcp-system', ...(opts.kcpNamespaces ?? [])]) {
      await kcp.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    }
    const garden = await startGardenLandscape(server, {
      project: opts.project,
      simulator: { onError: (err) => console.error('gardener simulator:', err), ...opts.simulator },
      kubelet: opts.kubelet,
      extraKubeletClusters: opts.extraKubeletClusters,
    });
    const gardenClient = newClient(garden.gardenKubeconfig);
    return {
      server,
      kcp,
      garden: gardenClient,
      kcpKubeconfig,
      gardenKubeconfig: garden.gardenKubeconfig,
      project: garden.project,
      projectNamespace: garden.projectNamespace,
      simulator: garden.simulator,
      kubelet: garden.kubelet,
      shootClusterName: (shootName) => shootClusterName(garden.projectNamespace, shootName),
      shootClient(shootName) {
        const name = shootClusterName(garden.projectNamespace, shootName);
        if (!server.hasCluster(name)) throw new Error(`shoot ${shootName} has no cluster (yet): ${name} does not exist`);
        return newClient(server.clusterAccess(name).kubeconfig);
      },
      async stop() {
        await garden.stop();
        for (const c of clients) c.close();
        await server.stop();
      },
    };
  } catch (err) {
    for (const c of clients) c.close();
    await server.stop();
    throw err;
  }
}

/** Installs every control-plane CRD into the KCP and waits until each is served. */
async function installCrds(server: RunningApiServer, kcp: Client): Promise<void> {
  for (const k of controlPlaneKinds) await kcp.create(crdOf(k) as Parameters<Client['create']>[0]);
  const kcpCluster = server.cluster('default');
  const deadline = Date.now() + 10_000;
  for (const k of controlPlaneKinds) {
    while (!kcpCluster.resolve(k.group, k.version, k.plural)) {
      if (Date.now() > deadline) throw new Error(`the CRD of ${k.kind} was not served within 10 s`);
      await sleep(10);
    }
  }
}

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
