// kubectl against a runtime cluster of the landscape: a Deployment gets Running pods, a rollout is
// a new revision that `kubectl rollout history` lists and `rollout undo` reverts, and the cluster
// has the Ready nodes of its worker pool.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectlOk } from '../support/kubectl.js';
import { followShoot, type Landscape, startLandscape, testShoot } from '../support/landscape.js';
import { waitFor } from '../support/wait.js';

/** The rows of a kubectl table, split into cells. */
function rows(table: string): string[][] {
  return table
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));
}

describe('kubectl and the workloads of a landscape runtime', () => {
  let l: Landscape;
  let dir: string;
  let kc: string;

  before(async () => {
    l = await startLandscape({ kubelet: { readyDelayMs: 50 } });
    await l.garden.create(testShoot('kubectl', l.projectNamespace, (s) => (s.spec.provider.workers![0].minimum = 2)));
    await followShoot(l, 'kubectl', (op) => op?.type === 'Create' && op.state === 'Succeeded');
    dir = mkdtempSync(join(tmpdir(), 'kcp-kubectl-workloads-'));
    kc = join(dir, 'runtime.kubeconfig');
    writeFileSync(kc, l.server.clusterAccess(l.shootClusterName('kubectl')).kubeconfig);
  });
  after(async () => {
    await l.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the worker pool\'s nodes as Ready', async () => {
    const [header, ...nodes] = rows(await kubectlOk(kc, ['get', 'nodes']));
    assert.deepEqual(header, ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    assert.equal(nodes.length, 2);
    for (const [name, status, roles, , version] of nodes) {
      assert.match(name, /^shoot--kyma-dev--kubectl-cpu-worker-0-z[12]-/);
      assert.deepEqual([status, roles, version], ['Ready', '<none>', 'v1.31.0']);
    }
    const wide = rows(await kubectlOk(kc, ['get', 'nodes', '-o', 'wide', '-l', 'worker.gardener.cloud/pool=cpu-worker-0']));
    assert.deepEqual(wide[0].slice(5), ['INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
    assert.match(wide[1][5], /^10\.250\.\d+\.\d+$/);
    assert.equal(wide[1][7], 'Garden Linux 1592.9');
  });

  it('runs a Deployment\'s pods', async () => {
    assert.match(await kubectlOk(kc, ['create', 'deployment', 'web', '--image', 'nginx', '--replicas', '2']), /deployment.apps\/web created/);
    assert.match(await kubectlOk(kc, ['rollout', 'status', 'deployment/web', '--timeout=30s']), /deployment "web" successfully rolled out/);
    const [header, ...pods] = rows(await kubectlOk(kc, ['get', 'pods']));
    assert.deepEqual(header, ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    assert.equal(pods.length, 2);
    for (const [name, ready, status, restarts] of pods) {
      assert.match(name, /^web-[bcdfghjklmnpqrstvwxz2456789]{6,10}-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.deepEqual([ready, status, restarts], ['1/1', 'Running', '0']);
    }
    const [, deployment] = rows(await kubectlOk(kc, ['get', 'deployment', 'web']));
    assert.deepEqual(deployment.slice(0, 4), ['web', '2/2', '2', '2']);
  });

  it('makes a new revision of an image change, lists both, and rolls back', async () => {
    assert.match(await kubectlOk(kc, ['set', 'image', 'deployment/web', 'nginx=nginx:1.27']), /deployment.apps\/web image updated/);
    assert.match(await kubectlOk(kc, ['rollout', 'status', 'deployment/web', '--timeout=30s']), /successfully rolled out/);
    const history = rows(await kubectlOk(kc, ['rollout', 'history', 'deployment/web']));
    assert.deepEqual(history, [['deployment.apps/web'], ['REVISION', 'CHANGE-CAUSE'], ['1', '<none>'], ['2', '<none>']]);
    const second = await kubectlOk(kc, ['rollout', 'history', 'deployment/web', '--revision', '2']);
    assert.match(second, /deployment.apps\/web with revision #2/);
    assert.match(second, /Image:\s+nginx:1\.27/);
    assert.match(second, /pod-template-hash=/);

    const rs = rows(await kubectlOk(kc, ['get', 'replicasets']));
    assert.equal(rs.length, 3, 'two ReplicaSets');
    assert.deepEqual(rs.slice(1).map(([, desired, current, ready]) => [desired, current, ready]).sort(), [['0', '0', '0'], ['2', '2', '2']]);

    assert.match(await kubectlOk(kc, ['rollout', 'undo', 'deployment/web']), /deployment.apps\/web rolled back/);
    assert.match(await kubectlOk(kc, ['rollout', 'status', 'deployment/web', '--timeout=30s']), /successfully rolled out/);
    const after = rows(await kubectlOk(kc, ['rollout', 'history', 'deployment/web']));
    assert.deepEqual(after.slice(2), [['2', '<none>'], ['3', '<none>']]);
    // The old pods go once the rolled-back ReplicaSet's are up: then only the first template's run.
    const images = await waitFor('the first template\'s pods only', async () => {
      const out = await kubectlOk(kc, ['get', 'pods', '-o', 'jsonpath={.items[*].spec.containers[0].image}']);
      return out === 'nginx nginx' ? out : undefined;
    });
    assert.equal(images, 'nginx nginx');
  });
});
