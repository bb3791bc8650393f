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
    assert.deepEqual(field(`${CORE}.TypedLocalObjectReference`, 'apiGroup'), { name: 'apiGroup', no: 1, type: 'string', list: false, map: false, pointer: true, omitEmpty: false });
    // Event keeps its metadata and reporting fields in JSON even when empty.
    assert.equal(field(`${CORE}.Event`, 'metadata').omitEmpty, false);
    assert.equal(field(`${CORE}.Event`, 'reportingComponent').omitEmpty, false);
    assert.equal(typeDef(field(`${CORE}.Event`, 'eventTime').type)?.special, 'microTime');
    // A capitalized name, in JSON and protobuf alike.
    assert.equal(field(`${CORE}.DaemonEndpoint`, 'Port').no, 1);
    assert.deepEqual(field(`${CORE}.NodeStatus`, 'capacity'), { name: 'capacity', no: 1, type: 'io.k8s.apimachinery.pkg.api.resource.Quantity', list: false, map: true, pointer: false, omitEmpty: true });
  });

  it('names the meta kinds that are not served resources, and describes them', () => {
    for (const [kind, type] of Object.entries(META_KINDS)) {
      assert.ok(typeDef(type), kind);
      assert.ok(![...allKinds()].some((k) => k.kind === kind), `${kind} must not be a served kind`);
    }
    assert.deepEqual(Object.keys(META_KINDS).sort(), ['DeleteOptions', 'Status', 'WatchEvent']);
  });
});

