// The embedded server's garbage collector, for dependents whose owner references name an owner that
// is not there: one created so, one whose references are changed to such an owner, one whose owner
// goes later, and those a restore from disk brings back without their owner. Its other writes
// (status, data) leave a dependent of a live owner alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LogicalCluster } from '../../src/apiserver/cluster.js';
import { ClusterControllers } from '../../src/apiserver/controllers.js';
import { BUILTIN_TYPES } from '../../src/apiserver/resources.js';
import { startWithKinds, type ApiTestEnv } from '../support/api.js';
import { waitFor } from '../support/wait.js';

const CM = '/api/v1/namespaces/default/configmaps';

describe('embedded API server: garbage collection of dependents', () => {
  let env: ApiTestEnv;
  before(async () => {
    env = await startWithKinds([], []);
  });
  after(() => env.stop());

  async function create(name: string, extra: Record<string, unknown> = {}): Promise<{ uid: string }> {
    const r = await env.client.request('POST', CM, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { a: '1' } }) });
    assert.equal(r.status, 201, r.text);
    return (JSON.parse(r.text) as { metadata: { uid: string } }).metadata;
  }
  const exists = async (name: string) => (await env.client.request('GET', `${CM}/${name}`)).status === 200;
  const ownerRef = (name: string, uid: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid });

  it('collects a dependent created with an owner that does not exist', async () => {
    await create('orphan-at-birth', { ownerReferences: [ownerRef('no-such-owner', '00000000-0000-0000-0000-000000000001')] });
    await waitFor('the dependent collected', async () => !(await exists('orphan-at-birth')));
  });

  it('collects a dependent whose owner references are changed to an owner that does not exist; one of a live owner stays through its updates', async () => {
    const owner = await create('live-owner');
    await create('kept', { ownerReferences: [ownerRef('live-owner', owner.uid)] });
    await create('re-owned');
    // Data updates of the live owner's dependent, then the other dependent re-pointed at a missing owner.
    for (let i = 2; i <= 4; i++) {
      const r = await env.client.request('PATCH', `${CM}/kept`, { body: JSON.stringify({ data: { a: String(i) } }), contentType: 'application/merge-patch+json' });
      assert.equal(r.status, 200, r.text);
    }
    const r = await env.client.request('PATCH', `${CM}/re-owned`, {
      body: JSON.stringify({ metadata: { ownerReferences: [ownerRef('gone-owner', '00000000-0000-0000-0000-000000000002')] } }),
      contentType: 'application/merge-patch+json',
    });
    assert.equal(r.status, 200, r.text);
    // The collector worked through the writes in order: once the re-pointed one is gone, it has seen the updates before.
    await waitFor('the re-pointed dependent collected', async () => !(await exists('re-owned')));
    assert.ok(await exists('kept'), 'the live owner\'s dependent stays');
  });

  it('collects a dependent once its owner is deleted', async () => {
    const owner = await create('later-gone');
    await create('follows', { ownerReferences: [ownerRef('later-gone', owner.uid)] });
    await env.client.request('PATCH', `${CM}/follows`, { body: JSON.stringify({ data: { a: '2' } }), contentType: 'application/merge-patch+json' });
    assert.ok(await exists('follows'));
    assert.equal((await env.client.request('DELETE', `${CM}/later-gone`)).status, 200);
    await waitFor('the dependent collected', async () => !(await exists('follows')));
  });
});

describe('embedded API server: garbage collection after a restore', () => {
  const CONFIGMAP = BUILTIN_TYPES.find((t) => t.kind === 'ConfigMap' && t.group === '')!;
  const uid = (n: number) => `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`;

  it('collects the dependents of owners that are gone, and drops a gone owner from a dependent that has another', async () => {
    // As a restore loads a store: the owner's deletion was committed, its dependents' collection was not.
    const cluster = new LogicalCluster('restored');
    let rv = 0;
    const load = (name: string, id: number, owners: { name: string; uid: string }[] = []) => {
      rv++;
      const obj = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'default', uid: uid(id), resourceVersion: String(rv), creationTimestamp: '2026-11-29T00:00:00Z', ...(owners.length ? { ownerReferences: owners.map((o) => ({ apiVersion: 'v1', kind: 'ConfigMap', ...o })) } : {}) },
        data: { a: '1' },
      };
      cluster.store.load('/configmaps', { json: JSON.stringify(obj), rv, namespace: 'default', name, labels: undefined });
    };
    load('alive', 1);
    load('of-alive', 2, [{ name: 'alive', uid: uid(1) }]);
    load('of-gone', 3, [{ name: 'gone', uid: uid(99) }]);
    load('of-both', 4, [
      { name: 'alive', uid: uid(1) },
      { name: 'gone', uid: uid(99) },
    ]);
    // An owner of that name exists, but not the one referenced (it was deleted and made again).
    load('of-old-alive', 5, [{ name: 'alive', uid: uid(98) }]);
    // An owner of a kind this cluster does not serve cannot be resolved: left be, as kube's collector does.
    rv++;
    cluster.store.load('/configmaps', {
      json: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'of-unknown-kind', namespace: 'default', uid: uid(6), resourceVersion: String(rv), ownerReferences: [{ apiVersion: 'example.test/v1', kind: 'Widget', name: 'w', uid: uid(97) }] } }),
      rv,
      namespace: 'default',
      name: 'of-unknown-kind',
      labels: undefined,
    });
    const controllers = new ClusterControllers(cluster);
    controllers.collectOrphans();
    await controllers.idle();
    const get = (name: string) => cluster.tryGet(CONFIGMAP, 'default', name);
    assert.equal(get('of-gone'), undefined);
    assert.equal(get('of-old-alive'), undefined);
    assert.ok(get('alive'));
    assert.ok(get('of-unknown-kind'));
    assert.deepEqual(get('of-alive')?.metadata.ownerReferences?.map((r) => r.name), ['alive']);
    assert.deepEqual(get('of-both')?.metadata.ownerReferences?.map((r) => r.uid), [uid(1)]);
    controllers.stop();
  });
});
