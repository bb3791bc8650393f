import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { META_KINDS, allKinds, allTypes, catalogProblems, kindType, parseField, typeDef, type FieldDef } from '../../../src/apiserver/types/index.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const CORE = 'io.k8s.api.core.v1';

function field(type: string, name: string): FieldDef {
  const f = typeDef(type)?.fields.find((x) => x.name === name);
  assert.ok(f, `${type}.${name} is not described`);
  return f;
}

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

  it('gives every kind ObjectMeta as field 1 and its list ListMeta and the items as fields 1 and 2', () => {
    let checked = 0;
    for (const k of allKinds()) {
      const type = typeDef(k.type);
      const list = typeDef(`${k.type}List`);
      if (!type || !list) continue; // a kind whose tree another package describes; the test above names it
      assert.deepEqual(field(k.type, 'metadata'), { ...field(k.type, 'metadata'), no: 1, type: `${META}.ObjectMeta`, list: false, map: false });
      assert.deepEqual(
        list.fields.map((f) => [f.name, f.no, f.type, f.list]),
        [['metadata', 1, `${META}.ListMeta`, false], ['items', 2, k.type, true]],
        `${k.kind}List`,
      );
      checked++;
    }
    assert.ok(checked >= 9, `only ${checked} kinds checked`);
  });

  it('lays out the special types as the codecs expect (catalog.ts, Special)', () => {
    const shapes: Record<string, string[]> = {
      time: ['seconds 1 int64', 'nanos 2 int32'],
      microTime: ['seconds 1 int64', 'nanos 2 int32'],
      duration: ['duration 1 int64'],
      quantity: ['string 1 string'],
      intOrString: ['type 1 int64', 'intVal 2 int32', 'strVal 3 string'],
      rawExtension: ['raw 1 bytes'],
      fieldsV1: ['Raw 1 bytes'],
    };
    const seen = new Set<string>();
    for (const t of allTypes()) {
      if (!t.special || !(t.special in shapes)) continue;
      seen.add(t.special);
      assert.deepEqual(t.fields.map((f) => `${f.name} ${f.no} ${f.type}`), shapes[t.special], t.name);
    }
    assert.deepEqual([...seen].sort(), Object.keys(shapes).sort());
  });

  it('holds upstream facts where the numbering or Go shape is irregular', () => {
    // Numbers out of declaration order or with gaps.
    const numbers: [string, string, number][] = [
      [`${CORE}.ServiceSpec`, 'clusterIPs', 18],
      [`${CORE}.ServiceSpec`, 'ipFamilyPolicy', 17],
      [`${CORE}.ServiceSpec`, 'trafficDistribution', 23],
      [`${CORE}.ServicePort`, 'appProtocol', 6],
      [`${CORE}.Secret`, 'immutable', 5],
      [`${CORE}.NamespaceCondition`, 'lastTransitionTime', 4],
      [`${CORE}.NodeSpec`, 'podCIDRs', 7],
      [`${CORE}.NodeConfigSource`, 'configMap', 2],
      [`${CORE}.PersistentVolumeClaimSpec`, 'selector', 4],
      [`${META}.OwnerReference`, 'apiVersion', 5],
      [`${META}.StatusDetails`, 'uid', 6],
      [`${META}.DeleteOptions`, 'ignoreStoreReadErrorWithClusterBreakingPotential', 6],
    ];
    for (const [type, name, no] of numbers) assert.equal(field(type, name).no, no, `${type}.${name}`);
    // meta/v1 TypeMeta and runtime.TypeMeta number kind and apiVersion the other way round.
    assert.deepEqual([field(`${META}.TypeMeta`, 'kind').no, field(`${META}.TypeMeta`, 'apiVersion').no], [1, 2]);
    const runtime = 'io.k8s.apimachinery.pkg.runtime';
    assert.deepEqual([field(`${runtime}.TypeMeta`, 'apiVersion').no, field(`${runtime}.TypeMeta`, 'kind').no], [1, 2]);
    assert.deepEqual(
      typeDef(`${runtime}.Unknown`)?.fields.map((f) => `${f.name} ${f.no} ${f.type}`),
      [`typeMeta 1 ${runtime}.TypeMeta`, 'raw 2 bytes', 'contentEncoding 3 string', 'contentType 4 string'],
    );
    // Pointers without omitempty are written as null when nil.
    assert.deepEqual(field(`${CORE}.TypedLocalObjectReference`, 'apiGroup'), { name: 'apiGroup', no: 1, type: 'string', list: false, map: false, pointer: true, omitEmpty: false, inline: false });
    // Event keeps its metadata and reporting fields in JSON even when empty.
    assert.equal(field(`${CORE}.Event`, 'metadata').omitEmpty, false);
    assert.equal(field(`${CORE}.Event`, 'reportingComponent').omitEmpty, false);
    assert.equal(typeDef(field(`${CORE}.Event`, 'eventTime').type)?.special, 'microTime');
    // A capitalized name, in JSON and protobuf alike.
    assert.equal(field(`${CORE}.DaemonEndpoint`, 'Port').no, 1);
    assert.deepEqual(field(`${CORE}.NodeStatus`, 'capacity'), { name: 'capacity', no: 1, type: 'io.k8s.apimachinery.pkg.api.resource.Quantity', list: false, map: true, pointer: false, omitEmpty: true, inline: false });
  });

  it('names the meta kinds that are not served resources, and describes them', () => {
    for (const [kind, type] of Object.entries(META_KINDS)) {
      assert.ok(typeDef(type), kind);
      assert.ok(![...allKinds()].some((k) => k.kind === kind), `${kind} must not be a served kind`);
    }
    assert.deepEqual(Object.keys(META_KINDS).sort(), ['DeleteOptions', 'Status', 'WatchEvent']);
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
      name: 'containers', no: 2, type: `${core}.Container`, list: true, map: false, pointer: false, omitEmpty: false, inline: false,
    });
    assert.deepEqual(field('PodSpec', 'overhead'), {
      name: 'overhead', no: 32, type: 'io.k8s.apimachinery.pkg.api.resource.Quantity', list: false, map: true, pointer: false, omitEmpty: true, inline: false,
    });
    assert.deepEqual(field('Container', 'restartPolicy'), {
      name: 'restartPolicy', no: 24, type: 'string', list: false, map: false, pointer: true, omitEmpty: true, inline: false,
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

  it('marks the structs Go embeds with json:",inline", and only those', () => {
    const inlined = [...allTypes()].flatMap((t) => t.fields.filter((f) => f.inline).map((f) => `${t.name.slice(core.length + 1)}.${f.name}`));
    for (const expected of ['Volume.volumeSource', 'Probe.handler', 'EphemeralContainer.ephemeralContainerCommon', 'SecretKeySelector.localObjectReference', 'ConfigMapEnvSource.localObjectReference']) {
      assert.ok(inlined.includes(expected), expected);
    }
    assert.equal(field('Container', 'resources').inline, false);
  });
});
