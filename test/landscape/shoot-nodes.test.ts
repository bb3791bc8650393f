// The Gardener simulator registers a Node for each machine of a shoot's worker pools (each pool's
// minimum, spread over its zones), sized by the machine type and labelled as Gardener labels them,
// and follows the workers when a Reconcile changes them; pods move off removed nodes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Shoot, type ShootObject } from '../../src/api/gardener/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { machineSize } from '../../src/landscape/index.js';
import type { Client } from '../../src/runtime/client/index.js';
import { followShoot, type Landscape, startLandscape, testShoot } from '../support/landscape.js';
import { waitFor } from '../support/wait.js';

const NODE = { apiVersion: 'v1', kind: 'Node' };
const POD = { apiVersion: 'v1', kind: 'Pod' };
type NodeObj = KubeObject & {
  spec?: { taints?: unknown[]; podCIDR?: string };
  status?: { capacity?: Record<string, string>; allocatable?: Record<string, string>; conditions?: { type: string; status: string }[]; addresses?: { type: string; address: string }[]; nodeInfo?: Record<string, string> };
};

describe('nodes of a shoot\'s worker pools', () => {
  let l: Landscape;
  let shoot: Client;

  before(async () => {
    l = await startLandscape({ kubelet: { readyDelayMs: 30 } });
    await l.garden.create(
      testShoot('nodes', l.projectNamespace, (s) => {
        s.spec.provider.workers = [
          { name: 'cpu-worker-0', machine: { type: 'm6i.xlarge', image: { name: 'gardenlinux', version: '1592.4' } }, minimum: 3, maximum: 4, zones: ['eu-central-1a', 'eu-central-1b'] },
          { name: 'db', machine: { type: 'r6i.large' }, minimum: 1, maximum: 1, zones: ['eu-central-1c'], labels: { role: 'db' }, taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] },
        ];
      }),
    );
    await followShoot(l, 'nodes', (op) => op?.type === 'Create' && op.state === 'Succeeded');
    shoot = l.shootClient('nodes');
  });
  after(async () => {
    await l.stop();
  });

  const nodes = async () => ((await shoot.list(NODE)).items as NodeObj[]).sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const pool = (n: NodeObj) => n.metadata.labels?.['worker.gardener.cloud/pool'];

  it('registers each pool\'s minimum, spread over its zones, named after the machine deployments', async () => {
    const all = await nodes();
    assert.equal(all.length, 4, 'node count');
    const cpu = all.filter((n) => pool(n) === 'cpu-worker-0');
    assert.deepEqual(cpu.map((n) => n.metadata.labels?.['topology.kubernetes.io/zone']).sort(), ['eu-central-1a', 'eu-central-1a', 'eu-central-1b']);
    for (const n of cpu) {
      const zoneIndex = n.metadata.labels?.['topology.kubernetes.io/zone'] === 'eu-central-1a' ? 1 : 2;
      assert.match(n.metadata.name ?? '', new RegExp(`^shoot--kyma-dev--nodes-cpu-worker-0-z${zoneIndex}-[a-z0-9]{5}-[a-z0-9]{5}$`));
      assert.equal(n.metadata.labels?.['kubernetes.io/hostname'], n.metadata.name);
      assert.equal(n.metadata.labels?.['node.kubernetes.io/instance-type'], 'm6i.xlarge');
      assert.equal(n.metadata.labels?.['topology.kubernetes.io/region'], 'eu-central-1');
      assert.equal(n.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
      assert.deepEqual([n.status?.capacity?.cpu, n.status?.capacity?.memory, n.status?.allocatable?.cpu], ['4', `${16 * 1024 * 1024}Ki`, '3920m']);
      assert.equal(n.status?.nodeInfo?.kubeletVersion, 'v1.31.0');
      assert.equal(n.status?.nodeInfo?.osImage, 'Garden Linux 1592.4');
    }
    const addresses = all.map((n) => n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address);
    assert.equal(new Set(addresses).size, 4, 'distinct addresses');
    assert.ok(addresses.every((a) => a?.startsWith('10.250.')), 'addresses from the nodes network');
    assert.equal(new Set(all.map((n) => n.spec?.podCIDR)).size, 4, 'distinct pod networks');
    const [db] = all.filter((n) => pool(n) === 'db');
    assert.equal(db.metadata.labels?.role, 'db');
    assert.deepEqual(db.spec?.taints, [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]);
    assert.deepEqual([db.status?.capacity?.cpu, db.status?.capacity?.memory], ['2', `${16 * 1024 * 1024}Ki`]);
  });

  it('keeps pods off tainted nodes and moves them when a Reconcile removes their node', async () => {
    await shoot.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
    const labels = { app: 'spread' };
    await shoot.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'spread', namespace: 'apps' },
      spec: { replicas: 3, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'main', image: 'nginx' }] } } },
    });
    const running = () =>
      waitFor('three running pods', async () => {
        const pods = (await shoot.list(POD, { namespace: 'apps' })).items as (KubeObject & { spec: { nodeName?: string }; status?: { phase?: string } })[];
        return pods.length === 3 && pods.every((p) => p.status?.phase === 'Running') ? pods : undefined;
      });
    const spread = await running();
    const cpuNodes = (await nodes()).filter((n) => pool(n) === 'cpu-worker-0').map((n) => n.metadata.name);
    assert.deepEqual(spread.map((p) => p.spec.nodeName).sort(), [...cpuNodes].sort(), 'one pod per untainted node');

    const s = await l.garden.get<ShootObject>(Shoot, { namespace: l.projectNamespace, name: 'nodes' });
    s.spec.provider.workers![0].minimum = 1;
    await l.garden.update(s);
    await followShoot(l, 'nodes', (op, x) => op?.type === 'Reconcile' && op.state === 'Succeeded' && x.status?.observedGeneration === x.metadata.generation);
    const left = await nodes();
    assert.deepEqual(left.map(pool).sort(), ['cpu-worker-0', 'db']);
    const remaining = left.find((n) => pool(n) === 'cpu-worker-0')!.metadata.name;
    assert.ok(cpuNodes.includes(remaining), 'the first machine of the first zone stays');
    const moved = await waitFor('the pods on the remaining node', async () => {
      const pods = await running();
      return pods.every((p) => p.spec.nodeName === remaining) ? pods : undefined;
    });
    assert.equal(moved.length, 3);
  });

  it('sizes machines by the providers\' type names', () => {
    assert.deepEqual(machineSize('m6i.large'), { cpu: 2, memoryGi: 8 });
    assert.deepEqual(machineSize('c5.2xlarge'), { cpu: 8, memoryGi: 16 });
    assert.deepEqual(machineSize('ecs.g7.xlarge'), { cpu: 4, memoryGi: 16 });
    assert.deepEqual(machineSize('n2-standard-4'), { cpu: 4, memoryGi: 16 });
    assert.deepEqual(machineSize('n2-highmem-2'), { cpu: 2, memoryGi: 16 });
    assert.deepEqual(machineSize('Standard_D4s_v5'), { cpu: 4, memoryGi: 16 });
    assert.deepEqual(machineSize('Standard_E2s_v5'), { cpu: 2, memoryGi: 16 });
    assert.deepEqual(machineSize('g_c4_m16'), { cpu: 4, memoryGi: 16 });
    assert.deepEqual(machineSize('unheard-of'), { cpu: 2, memoryGi: 8 });
  });
});
