import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allKinds, catalogProblems, kindType, parseField, typeDef } from '../../../src/apiserver/types/index.js';

describe('built-in type catalog', () => {
  it('is sound: every reference resolves, no number or name twice in a type', () => {
    assert.deepEqual(catalogProblems(), []);
  });

  it('describes every kind it declares, with its list type', () => {
    for (const k of allKinds()) {
      assert.ok(typeDef(k.type), `${k.kind}: ${k.type}`);
      assert.ok(typeDef(`${k.type}List`), `${k.kind}: no ${k.type}List`);
    }
    assert.equal(kindType('', 'v1', 'ConfigMap')?.name, 'io.k8s.api.core.v1.ConfigMap');
  });

  it('reads the Go-like field notation', () => {
    assert.deepEqual(parseField('replicas 1 *int32 omitempty', 'io.k8s.api.apps.v1'), {
      name: 'replicas', no: 1, type: 'int32', list: false, map: false, pointer: true, omitEmpty: true,
    });
    assert.deepEqual(parseField('items 2 []Deployment', 'io.k8s.api.apps.v1'), {
      name: 'items', no: 2, type: 'io.k8s.api.apps.v1.Deployment', list: true, map: false, pointer: false, omitEmpty: false,
    });
    assert.deepEqual(parseField('binaryData 3 map[string][]byte omitempty', 'io.k8s.api.core.v1'), {
      name: 'binaryData', no: 3, type: 'bytes', list: false, map: true, pointer: false, omitEmpty: true,
    });
    assert.equal(parseField('metadata 1 meta.ObjectMeta', 'x').type, 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    assert.throws(() => parseField('replicas one int32', 'x'), /bad number/);
    assert.throws(() => parseField('replicas 1 int32 sometimes', 'x'), /bad field line/);
  });

  it('reads the options for JSON names that differ from protobuf names and for embedded structs', () => {
    assert.deepEqual(parseField('ref 19 *string omitempty json=$ref', 'x'), {
      name: '$ref', protoName: 'ref', no: 19, type: 'string', list: false, map: false, pointer: true, omitEmpty: true,
    });
    assert.deepEqual(parseField('ingressRuleValue 2 IngressRuleValue inline', 'io.k8s.api.networking.v1'), {
      name: 'ingressRuleValue', no: 2, type: 'io.k8s.api.networking.v1.IngressRuleValue', list: false, map: false, pointer: false, omitEmpty: false, inline: true,
    });
    assert.equal(parseField('a 1 string json=a', 'x').protoName, undefined);
    assert.throws(() => parseField('ref 19 string json=', 'x'), /bad field line/);
    assert.throws(() => parseField('ref 19 string omitempty omitempty', 'x'), /bad field line/);
  });
});
