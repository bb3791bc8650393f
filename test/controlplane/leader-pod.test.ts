// --leader-pod-label: of two replicas with leader election, only the leader's Pod carries
// `kcp-controllers/leader=true` (the Service of the watcher's events selects it); the label moves to
// the other Pod when the leader stops, and a replica that starts removes a label its Pod still has.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Namespaces } from '../../src/api/operator/index.js';
import { type ControlPlane, type ControlPlaneConfig, defaultControlPlaneConfig, startControlPlane } from '../../src/controlplane/index.js';
import { LEADER_POD_LABEL } from '../../src/controlplane/leader-pod.js';
import type { KubeObject } from '../../src/kube/object.js';
import { type Landscape, startInMemoryLandscape } from '../../src/landscape/in-memory.js';
import { silentLogger } from '../../src/runtime/log.js';
import { waitFor } from '../support/wait.js';

const NS = Namespaces.ControlPlane;
const POD = { apiVersion: 'v1', kind: 'Pod' };

function config(pod: string): ControlPlaneConfig {
  return {
    ...defaultControlPlaneConfig(),
    infrastructureManager: false,
    // Long enough that a loaded machine does not move the Lease by itself; a clean stop releases it.
    leaderElection: { name: 'kcp-test-leader', namespace: NS, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 300, pod: { namespace: NS, name: pod } },
  };
}

describe('the leader labels its own Pod', () => {
  let land: Landscape;
  const planes: ControlPlane[] = [];

  before(async () => {
    land = await startInMemoryLandscape();
    for (const name of ['ctl-a', 'ctl-b']) {
      await land.kcp.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS, labels: { 'app.kubernetes.io/name': 'kcp-controllers' } }, spec: { containers: [{ name: 'controllers', image: 'kcp-controllers:test' }] } } as KubeObject);
    }
  });
  after(async () => {
    for (const p of planes) await p.stop();
    await land.stop();
  });

  const leaderLabels = async (): Promise<Record<string, string | undefined>> => {
    const pods = (await land.kcp.list<KubeObject>(POD, { namespace: NS })).items;
    return Object.fromEntries(pods.map((p) => [p.metadata.name ?? '', p.metadata.labels?.[LEADER_POD_LABEL]]));
  };

  async function start(pod: string): Promise<ControlPlane> {
    const cp = await startControlPlane({ config: config(pod), kcp: land.kcp, logger: silentLogger, identity: pod, fetcher: { fetchManifest: () => Promise.reject(new Error('no modules here')) } });
    planes.push(cp);
    await cp.ready();
    return cp;
  }

  it('labels the leader only, moves the label with the leadership, and clears a stale one at start', async () => {
    // ctl-b's Pod still carries the label of a leadership its restarted container no longer has.
    await land.kcp.patch(POD, { namespace: NS, name: 'ctl-b' }, 'merge', { metadata: { labels: { [LEADER_POD_LABEL]: 'true' } } });
    const a = await start('ctl-a');
    await waitFor('ctl-a labelled as the leader', async () => (await leaderLabels())['ctl-a'] === 'true', 10_000);
    const b = await start('ctl-b');
    // b started after a holds the Lease, so b is a follower, and it removes its stale label.
    await waitFor('the stale label gone from ctl-b', async () => (await leaderLabels())['ctl-b'] === undefined, 10_000);
    assert.deepEqual(await leaderLabels(), { 'ctl-a': 'true', 'ctl-b': undefined }, 'only the leader carries the label');

    await a.stop();
    assert.equal((await leaderLabels())['ctl-a'], undefined, 'the label goes when leadership ends');
    await waitFor('ctl-b, now the leader, labelled', async () => (await leaderLabels())['ctl-b'] === 'true', 10_000);
    await b.stop();
    assert.deepEqual(await leaderLabels(), { 'ctl-a': undefined, 'ctl-b': undefined });
  });
});
