// The composition root gives both managers one client per runtime: the infrastructure manager's key
// for a Runtime and the lifecycle manager's for a Kyma name the same kubeconfig Secret, and a
// rotated Secret replaces that one client, seen through the informers, before anything fails.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Namespaces } from '../../src/api/operator/index.js';
import { type ControlPlane, defaultControlPlaneConfig, startControlPlane } from '../../src/controlplane/index.js';
import { remoteClusterKey } from '../../src/infrastructure/runtime/remote-cluster.js';
import { type Landscape, startInMemoryLandscape } from '../../src/landscape/in-memory.js';
import { attachRuntimeCluster } from '../../src/landscape/runtime-cluster.js';
import { silentLogger } from '../../src/runtime/log.js';
import { readConverterConfig } from '../../src/up/index.js';
import { waitFor } from '../support/wait.js';

const NS = Namespaces.ControlPlane;
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };

describe('control plane: one client per runtime for both managers', () => {
  let land: Landscape;
  let cp: ControlPlane;
  before(async () => {
    land = await startInMemoryLandscape();
    cp = await startControlPlane({
      config: { ...defaultControlPlaneConfig(), gracefulShutdownTimeoutMs: 2_000 },
      kcp: land.kcp,
      garden: land.garden,
      gardenerProject: land.project,
      converterConfig: readConverterConfig(),
      logger: silentLogger,
    });
    await cp.ready();
  });
  after(async () => {
    await cp?.stop();
    await land?.stop();
  });

  it('shares the client between the managers and replaces it when the Secret rotates', async () => {
    const rt = await attachRuntimeCluster(land.server, land.kcp, 'rt-shared');
    assert.ok(cp.lifecycle, 'the lifecycle manager runs');
    await waitFor('the kubeconfig Secret in the informer', () => cp.lifecycle?.access.secretOf(rt.kymaName));
    const infrastructureSide = cp.remoteClusters.client(remoteClusterKey(NS, rt.runtimeId));
    const lifecycleSide = cp.lifecycle.access.client(rt.kymaName);
    await infrastructureSide.list(CONFIGMAP, { namespace: 'default' });
    await lifecycleSide.list(CONFIGMAP, { namespace: 'default' });
    const key = remoteClusterKey(NS, rt.runtimeId);
    const first = cp.remoteClusters.describe(key);
    assert.ok(first, 'the client is cached under the Secret');
    assert.equal(cp.remoteClusters.stats().clients, 1, 'one client for both managers');
    assert.equal(cp.remoteClusters.stats().builds, 1);

    // Rotation: new content in the same Secret (here the same credentials written anew).
    const kubeconfig = `# rotated\n${land.server.clusterAccess(rt.cluster).kubeconfig}`;
    await land.kcp.patch(SECRET, { namespace: NS, name: rt.secretName }, 'merge', { data: { config: Buffer.from(kubeconfig).toString('base64') } });
    await waitFor('the client rebuilt from the rotated Secret', () => {
      const now = cp.remoteClusters.describe(key);
      return now !== undefined && now.fingerprint !== first.fingerprint;
    });
    assert.equal(cp.remoteClusters.stats().evictions.rotation, 1, 'replaced by the rotation, not after a failure');
    assert.equal(cp.remoteClusters.stats().evictions.credentials, 0);
    await infrastructureSide.list(CONFIGMAP, { namespace: 'default' });
    await lifecycleSide.list(CONFIGMAP, { namespace: 'default' });
    assert.equal(cp.remoteClusters.stats().clients, 1, 'still one client for both managers');
    assert.equal(cp.remoteClusters.stats().builds, 2);
  });
});
