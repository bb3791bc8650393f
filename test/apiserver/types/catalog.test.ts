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
});

describe('built-in type catalog: the Pod tree of core/v1', () => {
  const core = 'io.k8s.api.core.v1';
  const fieldsOf = (type: string) => {
    const t = typeDef(`${core}.${type}`);
    assert.ok(t, `${type} is not in the catalog`);
    return t.fields;
  };
  const field = (type: string, name: string) => {
    const f = fieldsOf(type).find((x) => x.name === name);
    assert.ok(f, `${type}.${name} is not in the catalog`);
    return f;
  };
  const numbers = (type: string) => fieldsOf(type).map((f) => f.no).sort((a, b) => a - b);
  const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  it('has every field of the big messages: their protobuf numbers run without a gap', () => {
    assert.deepEqual(numbers('PodSpec'), range(42));
    assert.deepEqual(numbers('PodStatus'), range(20));
    assert.deepEqual(numbers('Container'), range(25));
    assert.deepEqual(numbers('VolumeSource'), range(30));
    assert.deepEqual(numbers('SecurityContext'), range(13));
    assert.deepEqual(numbers('PodSecurityContext'), range(13));
    assert.deepEqual(numbers('ContainerStatus'), range(15));
  });

  it('records numbers that differ from declaration order', () => {
    assert.equal(field('PodSpec', 'initContainers').no, 20);
    assert.equal(field('PodSpec', 'ephemeralContainers').no, 34);
    assert.equal(field('VolumeSource', 'projected').no, 26);
    assert.equal(field('VolumeSource', 'portworxVolume').no, 24);
    assert.equal(field('Container', 'envFrom').no, 19);
    assert.equal(field('ISCSIVolumeSource', 'chapAuthSession').no, 11);
    assert.equal(field('ISCSIVolumeSource', 'secretRef').no, 10);
    assert.equal(field('ClusterTrustBundleProjection', 'optional').no, 5);
    assert.equal(field('VolumeMount', 'recursiveReadOnly').no, 7);
    assert.equal(field('PodCondition', 'observedGeneration').no, 7);
    assert.equal(field('ResourceHealth', 'message').no, 6);
  });

  it('records Go shapes and omitempty, including the fields without omitempty', () => {
    assert.deepEqual(field('PodSpec', 'containers'), {
      name: 'containers', no: 2, type: `${core}.Container`, list: true, map: false, pointer: false, omitEmpty: false,
    });
    assert.deepEqual(field('PodSpec', 'overhead'), {
      name: 'overhead', no: 32, type: 'io.k8s.apimachinery.pkg.api.resource.Quantity', list: false, map: true, pointer: false, omitEmpty: true,
    });
    assert.deepEqual(field('Container', 'restartPolicy'), {
      name: 'restartPolicy', no: 24, type: 'string', list: false, map: false, pointer: true, omitEmpty: true,
    });
    // pointers whose JSON tag has no omitempty
    assert.equal(field('GRPCAction', 'service').pointer, true);
    assert.equal(field('GRPCAction', 'service').omitEmpty, false);
    assert.equal(field('ScaleIOVolumeSource', 'secretRef').pointer, true);
    assert.equal(field('ScaleIOVolumeSource', 'secretRef').omitEmpty, false);
    assert.equal(field('ProjectedVolumeSource', 'sources').omitEmpty, false);
    assert.equal(field('PodList', 'items').omitEmpty, false);
    assert.equal(field('ContainerStatus', 'ready').omitEmpty, false);
    // values, not pointers
    assert.equal(field('ContainerStatus', 'state').pointer, false);
    assert.equal(field('ResourceFieldSelector', 'divisor').pointer, false);
    assert.equal(field('HTTPGetAction', 'port').type, 'io.k8s.apimachinery.pkg.util.intstr.IntOrString');
    assert.equal(field('LinuxContainerUser', 'supplementalGroups').type, 'int64');
    assert.equal(field('LinuxContainerUser', 'supplementalGroups').list, true);
  });

  it('references the inlined and the core/v1 types by their full names', () => {
    assert.equal(field('EphemeralContainer', 'ephemeralContainerCommon').type, `${core}.EphemeralContainerCommon`);
    assert.equal(field('Probe', 'handler').type, `${core}.ProbeHandler`);
    assert.equal(field('PersistentVolumeClaimTemplate', 'spec').type, `${core}.PersistentVolumeClaimSpec`);
    assert.equal(field('EphemeralVolumeSource', 'volumeClaimTemplate').type, `${core}.PersistentVolumeClaimTemplate`);
  });
});
