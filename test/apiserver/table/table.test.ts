import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { ObjectWithMeta } from '../../../src/kube/object.js';
import { humanDuration } from '../../../src/apiserver/table/age.js';
import { evaluateJsonPath } from '../../../src/kube/jsonpath.js';
import { builtinColumns, crdColumns, toTable } from '../../../src/apiserver/table/table.js';

const fixtures = new URL('../../../../test/fixtures/kube-conformance/', import.meta.url);
type Step = { id?: string; body?: Record<string, unknown>; response?: { status: number; body: unknown } };
const load = (dir: string, name: string): { steps: Step[] } => JSON.parse(readFileSync(new URL(`${dir}/${name}.json`, fixtures), 'utf8'));
const golden = load('golden', 'table-output');
const expected = (id: string): unknown => golden.steps.find((s) => s.id === id)?.response?.body;
const crdVersion = (load('scenarios', 'table-output').steps[0].body as { spec: { versions: Array<Record<string, unknown>> } }).spec.versions[0];

const now = new Date('2024-05-01T12:00:00Z');
const created = '2024-05-01T12:00:00Z';
const ageToken = (cells: unknown[]) => cells.map((c) => (typeof c === 'string' && /^(\d+[smhdy])+$/.test(c) ? '<age>' : c));

test('golden table-output: ConfigMap columns and rows', () => {
  const rowObject = (expected('cmRows') as Array<{ object: { metadata: ObjectWithMeta['metadata'] } }>)[0].object;
  const cm: ObjectWithMeta = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...rowObject.metadata, creationTimestamp: created }, data: { a: '1', b: '2' } };
  const columns = builtinColumns('', 'ConfigMap');
  const table = toTable(columns, [cm], { group: '', kind: 'ConfigMap', listMeta: { resourceVersion: '7' }, now });
  assert.deepEqual(table.columnDefinitions, expected('cmTable'));
  const rows = table.rows as Array<{ cells: unknown[]; object: { metadata: Record<string, unknown> } }>;
  assert.deepEqual(ageToken(rows[0].cells), ['t1', 2, '<age>']);
  assert.deepEqual({ ...rows[0], cells: ageToken(rows[0].cells), object: { ...rows[0].object, metadata: { ...rows[0].object.metadata, creationTimestamp: '<time>' } } }, (expected('cmRows') as unknown[])[0]);
  assert.equal(table.kind, 'Table');
  assert.deepEqual(table.metadata, { resourceVersion: '7' });
});

test('golden table-output: custom resource with printer columns', () => {
  const rowObject = (expected('crRows') as Array<{ object: { metadata: ObjectWithMeta['metadata'] } }>)[0].object;
  const widget: ObjectWithMeta = { apiVersion: 'conf.example.com/v1', kind: 'Widget', metadata: { ...rowObject.metadata, creationTimestamp: created }, spec: { size: 1 }, status: { state: 'Ready' } };
  const columns = crdColumns(crdVersion);
  const table = toTable(columns, [widget], { group: 'conf.example.com', kind: 'Widget', listMeta: {}, now });
  assert.deepEqual(table.columnDefinitions, expected('crTable'));
  const rows = table.rows as Array<{ cells: unknown[]; object: { metadata: Record<string, unknown> } }>;
  assert.deepEqual(rows[0].cells, ['t1', 'Ready']);
  assert.deepEqual({ ...rows[0].object, metadata: { ...rows[0].object.metadata, creationTimestamp: '<time>' } }, (expected('crRows') as Array<{ object: unknown }>)[0].object);
  const single = toTable(columns, [widget], { group: 'conf.example.com', kind: 'Widget', now });
  assert.equal(single.kind, expected('crTableOne'));
  assert.deepEqual(single.metadata, { resourceVersion: 'rv#2' });
});

test('CRD versions without printer columns get Age; date, integer and filtered columns', () => {
  const plain = crdColumns({ name: 'v1' });
  assert.deepEqual(
    plain.map((c) => [c.name, c.type]),
    [
      ['Name', 'string'],
      ['Age', 'date'],
    ],
  );
  const columns = crdColumns({
    additionalPrinterColumns: [
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Created', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      { name: 'Missing', type: 'string', jsonPath: '.status.nothing' },
    ],
  });
  const o: ObjectWithMeta = { metadata: { name: 'x', creationTimestamp: '2024-05-01T11:54:58Z' }, spec: { replicas: 3 }, status: { conditions: [{ type: 'Synced', status: 'False' }, { type: 'Ready', status: 'True' }] } };
  const table = toTable(columns, [o], { group: 'g', kind: 'K', includeObject: 'None', now });
  const row = (table.rows as Array<{ cells: unknown[]; object: unknown }>)[0];
  assert.deepEqual(row.cells, ['x', 'True', 3, '5m2s', null]);
  assert.equal(row.object, null);
});

test('built-in printers: Deployment cells and Role "Created At"', () => {
  const deployment: ObjectWithMeta = {
    metadata: { name: 'web', creationTimestamp: '2024-04-28T12:00:00Z' },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [{ name: 'c', image: 'nginx:1' }, { name: 's', image: 'envoy' }] } } },
    status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
  };
  assert.deepEqual(
    builtinColumns('apps', 'Deployment').map((c) => c.name),
    ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector'],
  );
  const t = toTable(builtinColumns('apps', 'Deployment'), [deployment], { group: 'apps', kind: 'Deployment', now });
  assert.deepEqual((t.rows as Array<{ cells: unknown[] }>)[0].cells, ['web', '2/3', 3, 2, '3d', 'c,s', 'nginx:1,envoy', 'app=web']);
  const role: ObjectWithMeta = { metadata: { name: 'r', creationTimestamp: '2024-05-01T10:00:00.123Z' } };
  const rt = toTable(builtinColumns('rbac.authorization.k8s.io', 'Role'), [role], { group: 'rbac.authorization.k8s.io', kind: 'Role', now });
  assert.deepEqual((rt.rows as Array<{ cells: unknown[] }>)[0].cells, ['r', '2024-05-01T10:00:00Z']);
});

test('humanDuration matches kubectl ages', () => {
  const s = 1000;
  assert.equal(humanDuration(0), '0s');
  assert.equal(humanDuration(119 * s), '119s');
  assert.equal(humanDuration(302 * s), '5m2s');
  assert.equal(humanDuration(15 * 60 * s), '15m');
  assert.equal(humanDuration((5 * 3600 + 7 * 60) * s), '5h7m');
  assert.equal(humanDuration(3 * 86400 * s), '3d');
  assert.equal(humanDuration((3 * 86400 + 4 * 3600) * s), '3d4h');
  assert.equal(humanDuration(-5 * s), '<invalid>');
});

test('jsonpath forms used by printer columns', () => {
  const o = { a: { 'b.c': 1, list: [{ n: 'x', v: 1 }, { n: 'y', v: 2 }] } };
  assert.deepEqual(evaluateJsonPath(".a['b.c']", o), [1]);
  assert.deepEqual(evaluateJsonPath('.a.list[*].n', o), ['x', 'y']);
  assert.deepEqual(evaluateJsonPath('.a.list[1].v', o), [2]);
  assert.deepEqual(evaluateJsonPath('.a.list[?(@.v>1)].n', o), ['y']);
  assert.deepEqual(evaluateJsonPath('{..n}', o), ['x', 'y']);
  assert.deepEqual(evaluateJsonPath('.a.none', o), []);
});
