// The built-in definitions are derived from the type catalog: each Go shape to its OpenAPI form,
// list semantics from the field manager's knowledge of the kinds, group-version-kinds on kinds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinDefinitions, builtinTypeName } from '../../../src/apiserver/openapi/builtin.js';
import { defineKind, definePackage } from '../../../src/apiserver/types/index.js';

// A kind of its own, so that every shape of the notation is covered whatever the catalog holds.
const pkg = 'io.example.test.v1';
definePackage(pkg, {
  Amount: { special: 'quantity', fields: 'string 1 string' },
  Port: { special: 'intOrString', fields: 'type 1 int64\nintVal 2 int32\nstrVal 3 string' },
  Stamp: { special: 'time', fields: 'seconds 1 int64\nnanos 2 int32' },
  Widget: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 WidgetSpec`,
  WidgetSpec: `
    name 1 string
    replicas 2 *int32 omitempty
    ratio 3 float64 omitempty
    tags 4 []string
    limits 5 map[string]Amount omitempty
    port 6 Port omitempty
    when 7 Stamp omitempty
    blob 8 []byte omitempty
    paused 9 bool
    selector 10 *WidgetSelector`,
  WidgetSelector: `
    match 1 map[string]string omitempty`,
  WidgetList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Widget`,
});
defineKind('test.example.com', 'v1', 'Widget', `${pkg}.Widget`);

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

describe('built-in OpenAPI definitions from the type catalog', () => {
  it('types each field from its Go shape and marks kinds with their group-version-kind', () => {
    const defs = builtinDefinitions('v3');
    assert.deepEqual(defs.get(`${pkg}.Widget`), {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { $ref: `#/components/schemas/${META}.ObjectMeta` },
        spec: { $ref: `#/components/schemas/${pkg}.WidgetSpec` },
      },
      required: ['spec'],
      'x-kubernetes-group-version-kind': [{ group: 'test.example.com', version: 'v1', kind: 'Widget' }],
    });
    assert.deepEqual(defs.get(`${pkg}.WidgetSpec`), {
      type: 'object',
      properties: {
        name: { type: 'string' },
        replicas: { type: 'integer', format: 'int32' },
        ratio: { type: 'number', format: 'double' },
        tags: { type: 'array', items: { type: 'string' } },
        limits: { type: 'object', additionalProperties: { $ref: `#/components/schemas/${pkg}.Amount` } },
        port: { $ref: `#/components/schemas/${pkg}.Port` },
        when: { $ref: `#/components/schemas/${pkg}.Stamp` },
        blob: { type: 'string', format: 'byte' },
        paused: { type: 'boolean' },
        selector: { $ref: `#/components/schemas/${pkg}.WidgetSelector` },
      },
      // Lists, maps, pointers and omitempty fields are optional.
      required: ['name', 'paused'],
    });
    assert.deepEqual(defs.get(`${pkg}.WidgetList`)?.['x-kubernetes-group-version-kind'], [{ group: 'test.example.com', version: 'v1', kind: 'WidgetList' }]);
  });

  it('publishes times, quantities and int-or-strings as upstream does, per flavour', () => {
    const v2 = builtinDefinitions('v2');
    const v3 = builtinDefinitions('v3');
    assert.deepEqual(v3.get(`${pkg}.Stamp`), { type: 'string', format: 'date-time' });
    assert.deepEqual(v2.get(`${pkg}.Amount`), { type: 'string' });
    assert.deepEqual(v3.get(`${pkg}.Amount`), { oneOf: [{ type: 'string' }, { type: 'number' }] });
    assert.deepEqual(v2.get(`${pkg}.Port`), { type: 'string', format: 'int-or-string' });
    assert.deepEqual(v3.get(`${pkg}.Port`), { oneOf: [{ type: 'integer' }, { type: 'string' }], format: 'int-or-string' });
    assert.deepEqual((v2.get(`${pkg}.Widget`)?.properties as Record<string, unknown>).metadata, { $ref: `#/definitions/${META}.ObjectMeta` });
  });

  it('adds list and map semantics the field manager knows, and upstream definition names', () => {
    const defs = builtinDefinitions('v3');
    const meta = defs.get(`${META}.ObjectMeta`)?.properties as Record<string, Record<string, unknown>>;
    assert.equal(meta.finalizers['x-kubernetes-list-type'], 'set');
    assert.equal(meta.finalizers['x-kubernetes-patch-strategy'], 'merge');
    assert.deepEqual(meta.ownerReferences['x-kubernetes-list-map-keys'], ['uid']);
    assert.equal(meta.ownerReferences['x-kubernetes-patch-merge-key'], 'uid');
    assert.equal(meta.managedFields['x-kubernetes-list-type'], 'atomic');
    assert.deepEqual(meta.creationTimestamp, { $ref: `#/components/schemas/${META}.Time` });
    assert.equal(defs.get(`${META}.OwnerReference`)?.['x-kubernetes-map-type'], 'atomic');
    assert.deepEqual(defs.get(`${META}.OwnerReference`)?.required, ['apiVersion', 'kind', 'name', 'uid']);
    assert.equal(builtinTypeName({ group: '', version: 'v1', kind: 'ConfigMap' }), 'io.k8s.api.core.v1.ConfigMap');
    assert.equal(builtinTypeName({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' }, true), 'io.k8s.api.rbac.v1.RoleList');
    assert.equal(builtinTypeName({ group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' }), 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition');
    const cm = defs.get('io.k8s.api.core.v1.ConfigMap');
    assert.deepEqual((cm?.properties as Record<string, unknown>).data, { type: 'object', additionalProperties: { type: 'string' } });
    assert.deepEqual(cm?.['x-kubernetes-group-version-kind'], [{ group: '', version: 'v1', kind: 'ConfigMap' }]);
  });

  it('spreads inline structs into their parent and carries the Pod tree\'s list semantics', () => {
    const defs = builtinDefinitions('v3');
    const props = (name: string) => defs.get(`io.k8s.api.core.v1.${name}`)?.properties as Record<string, Record<string, unknown>>;
    const volume = props('Volume');
    assert.ok(volume.name && volume.configMap && volume.emptyDir && volume.secret);
    assert.equal(volume.volumeSource, undefined);
    const configMapSource = props('ConfigMapVolumeSource');
    assert.deepEqual(configMapSource.name, { type: 'string' });
    assert.equal(configMapSource.localObjectReference, undefined);
    const podSpec = props('PodSpec');
    assert.deepEqual(
      { ...podSpec.containers, items: undefined },
      { type: 'array', items: undefined, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
    );
    assert.equal(podSpec.volumes['x-kubernetes-patch-strategy'], 'merge,retainKeys');
    assert.deepEqual(props('Container').ports['x-kubernetes-list-map-keys'], ['containerPort', 'protocol']);
    assert.equal(podSpec.nodeSelector['x-kubernetes-map-type'], 'atomic');
    assert.deepEqual(defs.get('io.k8s.api.core.v1.Pod')?.['x-kubernetes-group-version-kind'], [{ group: '', version: 'v1', kind: 'Pod' }]);
  });
});
