// The embedded server's garbage collector, for dependents whose owner references name an owner that
// is not there: one created so, one whose references are changed to such an owner, and one whose
// owner goes later. Its other writes (status, data) leave a dependent of a live owner alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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
