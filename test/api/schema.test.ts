import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crdOf, defineKind, type ObjectOf } from '../../src/api/crd.js';
import { array, enumOf, type Infer, integer, map, object, req, string } from '../../src/api/schema.js';

const spec = object({
  channel: req(string({ pattern: '^[a-z]+$', description: 'release channel' })),
  replicas: integer({ minimum: 0, default: 1 }),
  policy: enumOf(['CreateAndDelete', 'Ignore'] as const, { default: 'CreateAndDelete' }),
  modules: array(object({ name: req(string()), channel: string() }), { listType: 'map', listMapKeys: ['name'] }),
  labels: map(string()),
});

test('types are inferred from the schema: required fields are not optional', () => {
  const s: Infer<typeof spec> = { channel: 'regular', modules: [{ name: 'a' }] };
  // @ts-expect-error channel is required
  const missing: Infer<typeof spec> = { replicas: 1 };
  // @ts-expect-error policy is an enum
  const wrong: Infer<typeof spec> = { channel: 'x', policy: 'Sometimes' };
  assert.equal(s.channel, 'regular');
  assert.ok(missing && wrong);
});

test('the CRD is generated from the same schema', () => {
  const kind = defineKind({
    group: 'demo.example.com', version: 'v1', kind: 'Demo', plural: 'demos', singular: 'demo', scope: 'Namespaced',
    description: 'A demo.', spec, status: object({ state: string() }),
    printerColumns: [{ name: 'State', type: 'string', jsonPath: '.status.state' }],
  });
  const crd = crdOf(kind) as { metadata: { name: string }; spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } }; subresources: unknown }[] } };
  assert.equal(crd.metadata.name, 'demos.demo.example.com');
  const v = crd.spec.versions[0];
  assert.deepEqual(v.subresources, { status: {} });
  const s = v.schema.openAPIV3Schema.properties.spec as { required: string[]; properties: Record<string, Record<string, unknown>> };
  assert.deepEqual(s.required, ['channel']);
  assert.equal(s.properties.channel.pattern, '^[a-z]+$');
  assert.equal(s.properties.replicas.default, 1);
  assert.deepEqual(s.properties.policy.enum, ['CreateAndDelete', 'Ignore']);
  assert.deepEqual(s.properties.modules['x-kubernetes-list-map-keys'], ['name']);
  const obj: ObjectOf<typeof kind> = { apiVersion: kind.apiVersion, kind: 'Demo', metadata: { name: 'd' }, spec: { channel: 'fast' }, status: { state: 'Ready' } };
  assert.equal(obj.spec.channel, 'fast');
});
