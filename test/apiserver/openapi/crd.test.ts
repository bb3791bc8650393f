// A CRD version's schema as published: apiVersion, kind and metadata added, its list next to it,
// and for v2 only what Swagger 2.0 and kubectl's v2 validation understand.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crdDefinitions, crdTypeName } from '../../../src/apiserver/openapi/crd.js';
import { typesFromCrd } from '../../../src/apiserver/resources.js';

function typeOf(schema: Record<string, unknown>) {
  const [t] = typesFromCrd({
    metadata: { name: 'widgets.shop.example.org' },
    spec: { group: 'shop.example.org', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1beta1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] },
  });
  return t;
}

const SCHEMA = {
  type: 'object',
  description: 'A widget.',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1 },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        note: { type: 'string', nullable: true },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { keep: { type: 'string' } } },
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string', enum: ['a', 'b'] } } }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
      },
    },
  },
};

describe('custom resource OpenAPI definitions', () => {
  it('names kinds by the reversed group and adds type and object metadata', () => {
    const [[name, kind], [listName, list]] = crdDefinitions(typeOf(SCHEMA), 'v3');
    assert.equal(name, 'org.example.shop.v1beta1.Widget');
    assert.equal(crdTypeName({ group: 'cert-manager.io', version: 'v1', kind: 'Certificate' }), 'io.cert-manager.v1.Certificate');
    assert.equal(kind.description, 'A widget.');
    const props = kind.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(props.apiVersion, { type: 'string' });
    assert.deepEqual(props.metadata, { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
    // v3 keeps what the CRD says.
    assert.deepEqual(props.spec, SCHEMA.properties.spec);
    assert.deepEqual(kind['x-kubernetes-group-version-kind'], [{ group: 'shop.example.org', version: 'v1beta1', kind: 'Widget' }]);
    assert.equal(listName, 'org.example.shop.v1beta1.WidgetList');
    assert.deepEqual(list.required, ['items']);
    assert.deepEqual((list.properties as Record<string, unknown>).items, { type: 'array', items: { $ref: '#/components/schemas/org.example.shop.v1beta1.Widget' } });
    assert.deepEqual(list['x-kubernetes-group-version-kind'], [{ group: 'shop.example.org', version: 'v1beta1', kind: 'WidgetList' }]);
  });

  it('reduces v2 schemas as kube-apiserver does', () => {
    const [[, kind]] = crdDefinitions(typeOf(SCHEMA), 'v2');
    const spec = (kind.properties as Record<string, Record<string, unknown>>).spec;
    const p = spec.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(p.size, { type: 'integer', minimum: 1 });
    assert.deepEqual(p.port, { 'x-kubernetes-int-or-string': true }, 'no type and no anyOf');
    assert.deepEqual(p.note, {}, 'nullable: untyped');
    assert.deepEqual(p.extra, { 'x-kubernetes-preserve-unknown-fields': true }, 'open object: no type, no properties');
    assert.equal((p.items.items as Record<string, unknown>).type, 'object');
    assert.deepEqual((kind.properties as Record<string, unknown>).metadata, { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
    const [[, open]] = crdDefinitions(typeOf({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }), 'v2');
    assert.deepEqual(open, { 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-group-version-kind': [{ group: 'shop.example.org', version: 'v1beta1', kind: 'Widget' }] });
  });
});
