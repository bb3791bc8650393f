// `kcp run` against clusters reached only through kubeconfig files: a Runtime becomes a Shoot in the
// garden cluster, the probes and metrics answer, leader election holds and releases its Lease.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Shoot, type ShootObject } from '../../src/api/gardener/index.js';
import { LEASE_KIND, type Lease } from '../../src/runtime/leader/lease.js';
import { testRuntime } from '../infrastructure/runtime-harness.js';
import { waitFor } from '../support/wait.js';
import { parseArgs } from '../../src/cli/args.js';
import { parseRunConfig, RUN_FLAG_TABLE, startControllers } from '../../src/cli/run.js';
import { SHARD_GROUP_LABEL, SHARD_ROLE_LABEL } from '../../src/runtime/sharding/shards.js';
import type { Client } from '../../src/runtime/client/index.js';
import { FAST_FLAGS, httpGet, startRunEnv } from './run-env.js';

/** Holder of each shard Lease of the group. */
async function shardHolders(kcp: Client, group: string): Promise<string[]> {
  const leases = await kcp.list<Lease>(LEASE_KIND, { namespace: 'kcp-system', labelSelector: `${SHARD_GROUP_LABEL}=${group},${SHARD_ROLE_LABEL}=shard` });
  return leases.items.map((l) => l.spec?.holderIdentity ?? '');
}

test('kcp run provisions a Runtime into the garden cluster, serves /healthz /readyz /metrics, and releases its leader Lease on stop', async () => {
  const env = await startRunEnv(['--leader-elect', '--leader-election-id=kcp-test-leader']);
  try {
    const { running, land } = env;
    assert.ok(running.healthUrl, 'a health endpoint');
    assert.ok(running.metricsUrl, 'a metrics endpoint');
    assert.notEqual(running.healthUrl, running.metricsUrl, 'metrics and probes listen separately');

    assert.equal((await httpGet(`${running.healthUrl}/healthz`)).status, 200);
    await waitFor('/readyz answers 200', async () => (await httpGet(`${running.healthUrl}/readyz`)).status === 200);

    const lease = await waitFor('this replica holds the leader Lease', async () => {
      const l = await land.kcp.get<Lease>(LEASE_KIND, { namespace: 'kcp-system', name: 'kcp-test-leader' });
      return l.spec?.holderIdentity === running.identity ? l : undefined;
    });
    assert.equal(lease.spec?.leaseDurationSeconds, 2);

    const rt = testRuntime('run-rt-1');
    await land.kcp.create(rt);
    const shootName = rt.spec.shoot.name;
    const shoot = await waitFor('the Shoot of the Runtime in the garden project', () => land.garden.get<ShootObject>(Shoot, { namespace: land.projectNamespace, name: shootName }));
    assert.equal(shoot.spec.region, 'eu-central-1');

    const metrics = await waitFor('reconciles of the runtime controller in /metrics', async () => {
      const m = await httpGet(`${running.metricsUrl}/metrics`);
      return m.status === 200 && /controller_runtime_reconcile_total\{controller="runtime"/.test(m.body) ? m.body : undefined;
    });
    assert.match(metrics, /workqueue_depth/);
    assert.match(metrics, /controller_runtime_reconcile_total\{controller="kyma"|workqueue_adds_total\{[^}]*kyma/, 'the lifecycle manager runs in the same manager');

    await running.stop();
    const released = await land.kcp.get<Lease>(LEASE_KIND, { namespace: 'kcp-system', name: 'kcp-test-leader' });
    assert.equal(released.spec?.holderIdentity ?? '', '', 'a clean stop releases the Lease for the next replica');
    assert.equal((await httpGet(`${running.healthUrl}/healthz`)).status, 0, 'the probe endpoint is closed');
    assert.equal((await httpGet(`${running.metricsUrl}/metrics`)).status, 0, 'the metrics endpoint is closed');
  } finally {
    await env.stop();
  }
});

test('two kcp run replicas with --shards split the shards, both provision, and the survivor takes over all shards when one stops', async () => {
  const sharded = ['--shards=4', '--shard-lease-prefix=kcp-test', '--metrics-bind-address=0', '--health-probe-bind-address=0'];
  const env = await startRunEnv(sharded);
  const second = await startControllers(parseRunConfig(parseArgs([...env.clusterFlags, ...FAST_FLAGS, ...sharded], RUN_FLAG_TABLE, { lastWins: true })), { logSink: () => undefined });
  const { land } = env;
  const first = env.running;
  try {
    await waitFor('each replica holds two of the four shards', async () => {
      const holders = await shardHolders(land.kcp, 'kcp-test');
      const count = (id: string) => holders.filter((h) => h === id).length;
      return holders.length === 4 && count(first.identity) === 2 && count(second.identity) === 2;
    }, 20_000);

    const ids = ['shard-rt-a', 'shard-rt-b', 'shard-rt-c', 'shard-rt-d'];
    for (const id of ids) await land.kcp.create(testRuntime(id));
    for (const id of ids) {
      await waitFor(`the Shoot of ${id}`, () => land.garden.get<ShootObject>(Shoot, { namespace: land.projectNamespace, name: testRuntime(id).spec.shoot.name }));
    }

    await second.stop();
    await waitFor('the remaining replica holds every shard', async () => (await shardHolders(land.kcp, 'kcp-test')).every((h) => h === first.identity), 20_000);
    const late = testRuntime('shard-rt-late');
    await land.kcp.create(late);
    await waitFor('the Shoot of a Runtime created after the take-over', () => land.garden.get<ShootObject>(Shoot, { namespace: land.projectNamespace, name: late.spec.shoot.name }));
  } finally {
    await second.stop();
    await env.stop();
  }
});
