// The embedded landscape: Gardener (garden cluster, Shoots, shoot clusters) and the kubelets of the
// shoot clusters, simulated next to the embedded API server. `kcp up` and the scenario tests start it
// with `startGardenLandscape(server)`.
import type { RunningApiServer } from '../apiserver/server.js';
import type { Logger } from '../runtime/log.js';
import { GARDEN_CLUSTER, GardenerSimulator, type GardenerSimulatorConfig } from './gardener/index.js';
import { KubeletSimulator, type KubeletOptions } from './kubelet.js';

export * from './constants.js';
export * from './gardener/index.js';
export { KubeletSimulator, defaultKubeletOptions, readyStatus, type KubeletOptions } from './kubelet.js';
export { KeyedLoop } from './keyed-loop.js';

/** Default Gardener project of the embedded landscape (namespace `garden-kyma-dev`). */
export const DEFAULT_PROJECT = 'kyma-dev';

export interface GardenLandscapeOptions {
  /** Gardener project (namespace `garden-<project>`). */
  project?: string;
  simulator?: Omit<GardenerSimulatorConfig, 'hooks'>;
  kubelet?: Partial<KubeletOptions>;
  /** Also simulate kubelets in clusters matching this (besides every shoot cluster), e.g. test runtimes `skr-*`. */
  extraKubeletClusters?: (name: string) => boolean;
  /** Where the simulators log what they decide (children `gardener-simulator`, `kubelet`); default: nowhere. */
  logger?: Logger;
  signal?: AbortSignal;
}

export interface GardenLandscape {
  simulator: GardenerSimulator;
  kubelet: KubeletSimulator;
  project: string;
  /** Namespace of the project in the garden cluster. */
  projectNamespace: string;
  /** Admin kubeconfig of the garden cluster (what the infrastructure manager's `gardener-kubeconfig-path` points at). */
  gardenKubeconfig: string;
  stop(): Promise<void>;
}

export async function startGardenLandscape(server: RunningApiServer, opts: GardenLandscapeOptions = {}): Promise<GardenLandscape> {
  const project = opts.project ?? DEFAULT_PROJECT;
  const extra = opts.extraKubeletClusters;
  const kubelet = new KubeletSimulator(
    server,
    {
      ...opts.kubelet,
      clusters: (name) => name.startsWith('shoot--') || (extra?.(name) ?? false) || (opts.kubelet?.clusters?.(name) ?? false),
      // A shoot cluster has the Nodes of its worker pools (the simulator registers them); other clusters get the kubelet's own.
      registerNodes: (name) => !name.startsWith('shoot--') && (opts.kubelet?.registerNodes?.(name) ?? true),
    },
    opts.logger?.child('kubelet'),
  );
  const simulator = new GardenerSimulator(server, {
    ...opts.simulator,
    ...(opts.logger ? { logger: opts.logger.child('gardener-simulator') } : {}),
    hooks: { clusterCreated: (name) => kubelet.attach(name), clusterDeleted: (name) => kubelet.detach(name) },
  });
  await simulator.start(opts.signal);
  kubelet.start(opts.signal);
  const projectNamespace = await simulator.ensureProject(project);
  return {
    simulator,
    kubelet,
    project,
    projectNamespace,
    gardenKubeconfig: server.clusterAccess(GARDEN_CLUSTER).kubeconfig,
    async stop() {
      await simulator.stop();
      await kubelet.stop();
    },
  };
}
