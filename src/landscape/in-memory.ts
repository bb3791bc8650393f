// A landscape in memory, for tests and benchmarks: the embedded API server without a data dir, the
// KCP (default logical cluster: every control-plane CRD, namespace kcp-system), the garden cluster
// (Shoot CRD, project namespace garden-<project>) played by the Gardener simulator, and the workload
// controllers and kubelets for shoot clusters. Unlike `startEmbeddedLandscape` (what `kcp up` runs)
// there is no registry, no demo catalog and no persistence, and the simulator's durations are short
// by default (a Shoot is ready about 1.2 s after creation). No controllers: point the control plane's
// composition root (src/controlplane) at it.
import { type RunningApiServer, startApiServer } from '../apiserver/server.js';
import { type Client, clientFromKubeconfig, type ClientOptions } from '../runtime/client/index.js';
import { installControlPlane } from './control-plane.js';
import { type GardenerSimulator, type GardenerSimulatorConfig, shootClusterName } from './gardener/index.js';
import { startGardenLandscape } from './index.js';
import type { KubeletOptions, KubeletSimulator } from './kubelet.js';
import { SkrWebhookHost } from './skr-webhooks.js';
import type { Registry } from '../runtime/metrics.js';

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
  /** Where the runtimes' skr-webhooks count requests and events (what each webhook's /metrics shows). */
  skrWebhookRegistry?: Registry;
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
  /** Serves the runtime watcher's webhook of every runtime (the landscape's pods run no containers). */
  skrWebhooks: SkrWebhookHost;
  /** Name of a shoot's logical cluster (`shoot--<project>--<shoot>`). */
  shootClusterName(shootName: string): string;
  /** Admin client of a shoot's logical cluster (it exists once the Shoot's Create succeeded). */
  shootClient(shootName: string): Client;
  stop(): Promise<void>;
}

export async function startInMemoryLandscape(opts: LandscapeOptions = {}): Promise<Landscape> {
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
    await installControlPlane(server, kcp, opts.kcpNamespaces);
    const garden = await startGardenLandscape(server, {
      project: opts.project,
      simulator: { onError: (err) => console.error('gardener simulator:', err), ...opts.simulator },
      kubelet: opts.kubelet,
      extraKubeletClusters: opts.extraKubeletClusters,
    });
    const gardenClient = newClient(garden.gardenKubeconfig);
    const skrWebhooks = new SkrWebhookHost(server, { registry: opts.skrWebhookRegistry });
    await skrWebhooks.start().catch(async (e: unknown) => {
      await garden.stop();
      throw e;
    });
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
      skrWebhooks,
      shootClusterName: (shootName) => shootClusterName(garden.projectNamespace, shootName),
      shootClient(shootName) {
        const name = shootClusterName(garden.projectNamespace, shootName);
        if (!server.hasCluster(name)) throw new Error(`shoot ${shootName} has no cluster (yet): ${name} does not exist`);
        return newClient(server.clusterAccess(name).kubeconfig);
      },
      async stop() {
        await skrWebhooks.stop();
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
