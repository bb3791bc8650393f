// The GardenerCluster controller alone on an embedded landscape with one Shoot, for its scenario
// tests: a GardenerCluster fixture as the Runtime controller creates it, and the controller's manager
// started and stopped around a suite.
import { GardenerCluster, type GardenerClusterObject } from '../../src/api/infrastructuremanager/index.js';
import { setupGardenerClusterController } from '../../src/infrastructure/gardener-cluster/index.js';
import type { Client } from '../../src/runtime/client/interface.js';
import { silentLogger } from '../../src/runtime/log.js';
import { newManager } from '../../src/runtime/manager.js';
import type { Registry } from '../../src/runtime/metrics.js';
import { type Landscape, startLandscape, testShoot, waitFor } from '../support/landscape.js';

export const NAMESPACE = 'kcp-system';

/** The labels the Runtime controller gives a GardenerCluster. */
export function gardenerClusterLabels(runtimeId: string, shootName: string): Record<string, string> {
  return { 'kyma-project.io/runtime-id': runtimeId, 'operator.kyma-project.io/kyma-name': runtimeId, 'kyma-project.io/shoot-name': shootName, 'kyma-project.io/global-account-id': 'ga-1' };
}

export function gardenerCluster(runtimeId: string, shootName: string, annotations?: Record<string, string>): GardenerClusterObject {
  return {
    apiVersion: GardenerCluster.apiVersion,
    kind: GardenerCluster.kind,
    metadata: { name: runtimeId, namespace: NAMESPACE, labels: gardenerClusterLabels(runtimeId, shootName), ...(annotations ? { annotations } : {}) },
    spec: { kubeconfig: { secret: { name: `kubeconfig-${runtimeId}`, namespace: NAMESPACE, key: 'config' } }, shoot: { name: shootName } },
  };
}

export interface GardenerClusterEnv {
  landscape: Landscape;
  stop(): Promise<void>;
}

/** A landscape with the Shoot `shootName` (its cluster created) and the GardenerCluster controller running; `wrapKcp` wraps the controller's KCP client (to count its calls, say). */
export async function startGardenerClusterEnv(shootName: string, registry?: Registry, wrapKcp?: (client: Client) => Client): Promise<GardenerClusterEnv> {
  const landscape = await startLandscape();
  await landscape.garden.create(testShoot(shootName, landscape.projectNamespace));
  await waitFor('the shoot cluster', () => landscape.server.hasCluster(landscape.shootClusterName(shootName)));
  const manager = newManager({ client: landscape.kcp, logger: silentLogger, ...(registry ? { registry } : {}) });
  setupGardenerClusterController(manager, { garden: landscape.garden, kcp: wrapKcp ? wrapKcp(landscape.kcp) : landscape.kcp, project: landscape.project, namespace: NAMESPACE, expirationSeconds: 3600, missingShootRetryMs: 500 });
  const abort = new AbortController();
  const running = manager.start(abort.signal);
  await manager.ready();
  return {
    landscape,
    async stop() {
      abort.abort();
      await running;
      await landscape.stop();
    },
  };
}
