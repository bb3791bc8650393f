// Two sharded control planes with the runtime watcher, each with its own listener: a runtime's
// webhook reports to the replica that owns the runtime, and follows it when the runtime changes
// hands, also back to a replica that owned it before (whose own record of the webhook is stale).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, type KymaObject, Labels, Namespaces } from '../../src/api/operator/index.js';
import { type ControlPlane, type ControlPlaneConfig, defaultControlPlaneConfig, startControlPlane } from '../../src/controlplane/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { type Landscape, startInMemoryLandscape } from '../../src/landscape/in-memory.js';
import { attachRuntimeCluster } from '../../src/landscape/runtime-cluster.js';
import { clientFromKubeconfig, type HttpClient } from '../../src/runtime/client/index.js';
import { silentLogger } from '../../src/runtime/log.js';
import { shardOf } from '../../src/runtime/sharding/hash.js';
import { SKR_WEBHOOK_NAME, SKR_WEBHOOK_NAMESPACE, DEFAULT_SKR_WEBHOOK_IMAGE, webhookEnvOf } from '../../src/watcher/skr-objects.js';
import { waitFor } from '../support/wait.js';

const NS = Namespaces.ControlPlane;
const HOUR = 3_600_000;
const SHARDS = 2;
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };

function config(): ControlPlaneConfig {
  return {
    ...defaultControlPlaneConfig(),
    infrastructureManager: false,
    remoteRequestTimeoutMs: 3_000,
    // A full runtime check by time only every hour: what happens within the test was asked for.
    kymaRuntimeCheckMs: HOUR,
    watcher: { listen: { host: '127.0.0.1', port: 0 }, trustGateway: false, image: DEFAULT_SKR_WEBHOOK_IMAGE, pki: {} },
    sharding: { shards: SHARDS, prefix: 'kcp-test', namespace: NS, leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 300 },
  };
}

describe('sharded control planes with the runtime watcher', () => {
  let land: Landscape;
  const planes: ControlPlane[] = [];
  const remotes: HttpClient[] = [];

  before(async () => {
    land = await startInMemoryLandscape({ extraKubeletClusters: (n) => n.startsWith('skr-'), kubelet: { readyDelayMs: 50, scanIntervalMs: 100 } });
  });
  after(async () => {
    for (const p of planes) await p.stop();
    for (const r of remotes) r.close();
    await land.stop();
  });

  async function start(identity: string): Promise<ControlPlane> {
    const cp = await startControlPlane({ config: config(), kcp: land.kcp, logger: silentLogger, identity, fetcher: { fetchManifest: () => Promise.reject(new Error('no modules here')) } });
    planes.push(cp);
    await cp.ready();
    return cp;
  }

  it('a runtime\'s webhook reports to its owner, after a takeover and after the way back', async () => {
    const a = await start('replica-a');
    // Alone, a takes every shard (from its second round).
    await waitFor('a holds both shards', async () => (await leaseHolders()).every((h) => h === 'replica-a'), 10_000);
    // One runtime per shard, so that whichever shard b takes holds one.
    const ids = ['shw-1', 'shw-2', 'shw-3', 'shw-4', 'shw-5', 'shw-6'];
    const perShard = [0, 1].map((s) => ids.find((id) => shardOf(`${NS}/${id}`, SHARDS) === s) ?? '');
    assert.ok(perShard.every(Boolean), 'a runtime in each shard');
    const webhookAddress = new Map<string, () => Promise<string | undefined>>();
    for (const id of perShard) {
      const rt = await attachRuntimeCluster(land.server, land.kcp, id);
      const remote = clientFromKubeconfig(land.server.clusterAccess(rt.cluster).kubeconfig, { retries: 0, requestTimeoutMs: 3_000 });
      remotes.push(remote);
      await land.kcp.create({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id, [Labels.RuntimeID]: id } }, spec: { channel: 'regular', modules: [] } });
      webhookAddress.set(id, async () => {
        const d = await remote.get<KubeObject & { spec?: unknown }>(DEPLOYMENT, { namespace: SKR_WEBHOOK_NAMESPACE, name: SKR_WEBHOOK_NAME }).catch(() => undefined);
        return d ? webhookEnvOf(d).KCP_ADDR : undefined;
      });
    }
    const reportsTo = async (id: string, cp: ControlPlane): Promise<boolean> => (await webhookAddress.get(id)?.()) === cp.watcher?.kcpAddress;
    for (const id of perShard) await waitFor(`${id}'s webhook reports to a`, () => reportsTo(id, a), 10_000);
    // a's record of each runtime is healthy (its webhook confirmed): a later full check is due to the shard's gain alone.
    for (const id of perShard) {
      await waitFor(`${id}'s webhook confirmed`, async () => (await land.kcp.get<KymaObject>(Kyma, { namespace: NS, name: id })).status?.conditions?.some((c) => c.type === 'SKRWebhook' && c.status === 'True'), 10_000);
    }

    // b joins and takes one shard: the webhook of that shard's runtime follows it to b's listener.
    const b = await start('replica-b');
    assert.notEqual(a.watcher?.kcpAddress, b.watcher?.kcpAddress, 'each replica runs its own listener');
    const holders = await waitFor('one shard each', async () => {
      const h = await leaseHolders();
      return h.includes('replica-a') && h.includes('replica-b') && h;
    }, 10_000);
    const moved = perShard[holders.indexOf('replica-b')];
    const stayed = perShard[holders.indexOf('replica-a')];
    await waitFor(`${moved}'s webhook reports to b`, () => reportsTo(moved, b), 10_000);
    assert.ok(await reportsTo(stayed, a), `${stayed}'s webhook still reports to a`);

    // b stops (releasing its shard): a takes the shard back. a installed that webhook before, and
    // its own record of it is an hour from the next check; the shard's gain asks for one now.
    const gainedChecks = a.manager.registry.render();
    await b.stop();
    await waitFor('a holds both shards again', async () => (await leaseHolders()).every((h) => h === 'replica-a'), 10_000);
    await waitFor(`${moved}'s webhook reports to a again`, () => reportsTo(moved, a), 10_000);
    assert.ok(shardGainedChecks(a.manager.registry.render()) > shardGainedChecks(gainedChecks), 'a full runtime check for the gained shard');
  });

  async function leaseHolders(): Promise<string[]> {
    const holder = async (i: number) =>
      (await land.kcp.get<KubeObject & { spec?: { holderIdentity?: string } }>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' }, { namespace: NS, name: `kcp-test-shard-${i}` }).catch(() => undefined))?.spec?.holderIdentity ?? '';
    return Promise.all(Array.from({ length: SHARDS }, (_, i) => holder(i)));
  }
});

function shardGainedChecks(metrics: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith('lifecycle_mgr_full_runtime_checks_total{') && l.includes('reason="shard_gained"'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}
