// The landscape over a persisted API server: after a restart the simulator re-registers its
// admission webhook (new port) and carries on with the Shoots it finds, and the kubelet simulation
// picks up the shoot clusters restored from disk.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AnnotationConfirmationDeletion, Shoot, type ShootObject } from '../../src/api/gardener/index.js';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { GARDEN_CLUSTER, type GardenLandscape, shootClusterName, startGardenLandscape } from '../../src/landscape/index.js';
import { type Client, clientFromKubeconfig, isInvalid, isNotFound } from '../../src/runtime/client/index.js';
import { testShoot, waitFor } from '../support/landscape.js';

const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };

describe('landscape restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'landscape-restart-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  async function boot(): Promise<{ server: RunningApiServer; land: GardenLandscape; garden: Client; stop: () => Promise<void> }> {
    const server = await startApiServer({ port: 0, dataDir });
    const land = await startGardenLandscape(server, { kubelet: { readyDelayMs: 50, scanIntervalMs: 100 } });
    const garden = clientFromKubeconfig(server.clusterAccess(GARDEN_CLUSTER).kubeconfig, { qps: 0 });
    return {
      server,
      land,
      garden,
      async stop() {
        await land.stop();
        garden.close();
        await server.stop();
      },
    };
  }

  it('after a restart, Shoots are still validated, deleted on request, and shoot workloads still become ready', async () => {
    const first = await boot();
    const ns = first.land.projectNamespace;
    const getShoot = (c: Client, name: string) => c.get<ShootObject>(Shoot, { namespace: ns, name });
    await first.garden.create(testShoot('survivor', ns));
    await waitFor('the Shoot to be created', async () => (await getShoot(first.garden, 'survivor')).status?.lastOperation?.state === 'Succeeded');
    await first.stop();

    const second = await boot();
    try {
      await assert.rejects(second.garden.create(testShoot('bad', ns, (s) => (s.spec.provider.type = 'nope'))), (err: unknown) => isInvalid(err));
      const cluster = shootClusterName(ns, 'survivor');
      assert.ok(second.server.hasCluster(cluster));
      await waitFor('the kubelet to attach to the restored shoot cluster', () => second.land.kubelet.attachedClusters().includes(cluster));
      const shoot = clientFromKubeconfig(second.server.clusterAccess(cluster).kubeconfig, { qps: 0 });
      try {
        const labels = { app: 'web' };
        await shoot.create({ ...DEPLOYMENT, metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } } });
        await waitFor('the Deployment to be ready', async () => ((await shoot.get(DEPLOYMENT, { namespace: 'default', name: 'web' })).status as { readyReplicas?: number } | undefined)?.readyReplicas === 1);
      } finally {
        shoot.close();
      }
      await second.garden.patch(Shoot, { namespace: ns, name: 'survivor' }, 'merge', { metadata: { annotations: { [AnnotationConfirmationDeletion]: 'true' } } });
      await second.garden.delete(Shoot, { namespace: ns, name: 'survivor' });
      await waitFor('the Shoot to be gone', () => getShoot(second.garden, 'survivor').then(() => false, (err: unknown) => isNotFound(err)));
      assert.equal(second.server.hasCluster(cluster), false);
    } finally {
      await second.stop();
    }
  });
});
