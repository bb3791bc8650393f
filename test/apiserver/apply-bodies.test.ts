// Server-side apply bodies (`application/apply-patch+yaml`) as clients send them: JSON (which YAML
// includes, and which the server reads with the JSON parser), YAML in flow style that is not JSON,
// block YAML, and a body that is neither.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startWithKinds, type ApiTestEnv } from '../support/api.js';

const CM = '/api/v1/namespaces/default/configmaps';

describe('embedded API server: apply bodies', () => {
  let env: ApiTestEnv;
  before(async () => {
    env = await startWithKinds([], []);
  });
  after(() => env.stop());

  async function apply(name: string, body: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const r = await env.client.request('PATCH', `${CM}/${name}?fieldManager=test`, { body, contentType: 'application/apply-patch+yaml' });
    return { status: r.status, body: JSON.parse(r.text) as Record<string, unknown> };
  }

  it('reads JSON, flow-style YAML and block YAML alike', async () => {
    const json = await apply('as-json', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'as-json' }, data: { a: '1', b: 'x: y' } }));
    const flow = await apply('as-flow', '{apiVersion: v1, kind: ConfigMap, metadata: {name: as-flow}, data: {a: "1", b: "x: y"}}');
    const block = await apply('as-block', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: as-block\ndata:\n  a: "1"\n  b: "x: y"\n');
    for (const r of [json, flow, block]) {
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.deepEqual(r.body.data, { a: '1', b: 'x: y' });
    }
  });

  it('refuses a body that is neither JSON nor YAML with 400', async () => {
    const r = await apply('broken', '{"apiVersion": "v1", "kind": "ConfigMap", metadata: [}');
    assert.equal(r.status, 400);
    assert.match(String(r.body.message), /^error decoding patch: /);
  });
});
