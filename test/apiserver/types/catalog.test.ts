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
      name: 'replicas', no: 1, type: 'int32', list: false, map: false, pointer: true, omitEmpty: true, inline: false,
    });
    assert.deepEqual(parseField('items 2 []Deployment', 'io.k8s.api.apps.v1'), {
      name: 'items', no: 2, type: 'io.k8s.api.apps.v1.Deployment', list: true, map: false, pointer: false, omitEmpty: false, inline: false,
    });
    assert.deepEqual(parseField('binaryData 3 map[string][]byte omitempty', 'io.k8s.api.core.v1'), {
      name: 'binaryData', no: 3, type: 'bytes', list: false, map: true, pointer: false, omitEmpty: true, inline: false,
    });
    assert.equal(parseField('metadata 1 meta.ObjectMeta', 'x').type, 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    assert.equal(parseField('volumeSource 2 VolumeSource inline', 'io.k8s.api.core.v1').inline, true);
    assert.throws(() => parseField('items 2 []Thing inline', 'x'), /must be a struct/);
    assert.throws(() => parseField('replicas one int32', 'x'), /bad number/);
    assert.throws(() => parseField('replicas 1 int32 sometimes', 'x'), /bad field line/);
  });
});
