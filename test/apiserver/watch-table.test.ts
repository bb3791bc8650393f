// Watches asked for `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` (what `kubectl get -w`
// sends): every event's object is a Table with that object's row; only the first carries columns.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { KubeClient } from '../conformance/http.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

interface Row {
  cells: unknown[];
  object: { kind?: string; apiVersion?: string; metadata: { name: string; resourceVersion: string }; data?: Record<string, string> } | null;
}
interface Table {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion?: string };
  columnDefinitions: { name: string }[] | null;
  rows: Row[];
}
interface Event {
  type: string;
  object: Table;
}

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gizmos.wt.example.com' },
  spec: {
    group: 'wt.example.com',
    scope: 'Namespaced',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
      },
    ],
  },
};

describe('watch as Table', () => {
  let server: RunningApiServer;
  let c: KubeClient;
  before(async () => {
    server = await startApiServer({ port: 0 });
    c = new KubeClient({ url: server.url, token: server.adminToken, caPem: server.caPem });
  });
  after(async () => {
    c.close();
    await server.stop();
  });

  const cm = (name: string, data: Record<string, string>) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

  it('sends each change as a Table with the row of its object, the columns only in the first event', async () => {
    await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('before', { a: '1' }) });
    const list = JSON.parse((await c.request('GET', '/api/v1/namespaces/default/configmaps', { accept: TABLE })).text) as Table;
    assert.deepEqual(list.columnDefinitions?.map((d) => d.name), ['Name', 'Data', 'Age']);
    const w = await c.watch(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}`, 10_000, TABLE);
    await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('w1', { a: '1' }) });
    await c.request('PATCH', '/api/v1/namespaces/default/configmaps/w1', { body: JSON.stringify({ data: { b: '2', c: '3' } }), contentType: 'application/merge-patch+json' });
    await c.request('DELETE', '/api/v1/namespaces/default/configmaps/before');
    const events = (await w.take(3, 5000)) as unknown as Event[];
    w.close();
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
    for (const e of events) {
      assert.equal(e.object.kind, 'Table');
      assert.equal(e.object.apiVersion, 'meta.k8s.io/v1');
      assert.equal(e.object.rows.length, 1);
      const row = e.object.rows[0];
      assert.equal(row.object?.kind, 'PartialObjectMetadata');
      assert.equal(row.object?.apiVersion, 'meta.k8s.io/v1');
      assert.equal(e.object.metadata.resourceVersion, row.object?.metadata.resourceVersion, "the Table's resourceVersion is its object's");
    }
    assert.deepEqual(events[0].object.columnDefinitions?.map((d) => d.name), ['Name', 'Data', 'Age']);
    assert.equal(events[1].object.columnDefinitions, null);
    assert.equal(events[2].object.columnDefinitions, null);
    assert.deepEqual(events.map((e) => e.object.rows[0].cells.slice(0, 2)), [['w1', 1], ['w1', 3], ['before', 1]]);
    assert.ok('columnDefinitions' in events[1].object, 'later events carry columnDefinitions: null, as the Go struct encodes it');
  });

  it('sends the current state as ADDED Tables, with the whole object when includeObject=Object', async () => {
    const w = await c.watch('/api/v1/namespaces/default/configmaps?watch=1&includeObject=Object', 10_000, TABLE);
    // The namespace's kube-root-ca.crt and w1, in name order.
    const events = (await w.take(2, 5000)) as unknown as Event[];
    w.close();
    assert.deepEqual(events.map((e) => [e.type, e.object.rows[0].cells[0]]), [['ADDED', 'kube-root-ca.crt'], ['ADDED', 'w1']]);
    const row = events[1].object.rows[0];
    assert.equal(row.object?.kind, 'ConfigMap');
    assert.equal(row.object?.apiVersion, 'v1');
    assert.deepEqual(row.object?.data, { a: '1', b: '2', c: '3' });
    assert.ok(events[0].object.columnDefinitions);
  });

  it('uses a CRD version\'s printer columns; a watch without as=Table still sends objects', async () => {
    assert.equal((await c.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(CRD) })).status, 201);
    const path = '/apis/wt.example.com/v1/namespaces/default/gizmos';
    const w = await c.watch(`${path}?watch=1`, 10_000, TABLE);
    const plain = await c.watch(`${path}?watch=1`);
    const body = (name: string, size: number) => JSON.stringify({ apiVersion: 'wt.example.com/v1', kind: 'Gizmo', metadata: { name }, spec: { size } });
    assert.equal((await c.request('POST', path, { body: body('g1', 3) })).status, 201);
    assert.equal((await c.request('POST', path, { body: body('g2', 7) })).status, 201);
    const events = (await w.take(2, 5000)) as unknown as Event[];
    const objects = (await plain.take(2, 5000)) as unknown as { object: { kind: string } }[];
    w.close();
    plain.close();
    assert.deepEqual(events[0].object.columnDefinitions?.map((d) => d.name), ['Name', 'Size']);
    assert.equal(events[1].object.columnDefinitions, null);
    assert.deepEqual(events.map((e) => e.object.rows[0].cells), [['g1', 3], ['g2', 7]]);
    assert.deepEqual(objects.map((e) => e.object.kind), ['Gizmo', 'Gizmo']);
  });
});
