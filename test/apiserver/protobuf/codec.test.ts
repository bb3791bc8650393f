import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeObject, encodeMessage, encodeObject } from '../../../src/apiserver/protobuf/codec.js';
import { formatGoDuration, parseGoDuration } from '../../../src/apiserver/protobuf/duration.js';
import { MAGIC, unwrap, watchFrame } from '../../../src/apiserver/protobuf/envelope.js';
import { messageType } from '../../../src/apiserver/protobuf/messages.js';
import { allKinds, defineKind, definePackage } from '../../../src/apiserver/types/index.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

// A package of test types with every shape and special the codec handles, independent of which
// kinds the catalog describes.
const PKG = 'io.k8s.test.codec.v1';
definePackage(PKG, {
  Sample: `
    metadata 1 meta.ObjectMeta omitempty
    count 2 int32 omitempty
    total 3 int64
    replicas 4 *int32 omitempty
    limit 5 *int64
    name 6 string
    flag 7 bool omitempty
    ratio 8 float64 omitempty
    payload 9 []byte omitempty
    tags 10 []string
    opts 11 map[string]string
    child 12 Child omitempty
    maybe 13 *Child omitempty
    source 14 Source inline
    when 15 meta.Time omitempty
    lastSeen 16 *meta.Time omitempty
    specials 17 *Specials omitempty`,
  SampleList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Sample`,
  Child: `
    label 1 string omitempty
    big 2 int64 omitempty
    secret 3 map[string][]byte omitempty`,
  Source: `
    path 1 *string omitempty
    port 2 int32 omitempty`,
  Specials: `
    eventTime 1 MicroTime
    timeout 2 *Duration omitempty
    cpu 3 *Quantity omitempty
    limits 4 map[string]Quantity omitempty
    target 5 *IntOrString omitempty
    targets 6 []IntOrString omitempty
    raw 7 *RawExtension omitempty
    value 8 *JSON omitempty
    items 9 *PropsOrArray omitempty
    extra 10 *PropsOrBool omitempty
    deps 11 map[string]PropsOrStringArray omitempty
    zeroTarget 12 IntOrString
    zeroQuantity 13 Quantity
    extra2 14 map[string]StringList omitempty
    ref 15 *string omitempty json=$ref`,
  Props: `
    type 1 string omitempty
    description 2 string omitempty`,
  MicroTime: { special: 'microTime', fields: 'seconds 1 int64\nnanos 2 int32' },
  Duration: { special: 'duration', fields: 'duration 1 int64' },
  Quantity: { special: 'quantity', fields: 'string 1 string' },
  IntOrString: { special: 'intOrString', fields: 'type 1 int64\nintVal 2 int32\nstrVal 3 string' },
  RawExtension: { special: 'rawExtension', fields: 'raw 1 []byte' },
  JSON: { special: 'json', fields: 'raw 1 []byte' },
  PropsOrArray: { special: 'jsonSchemaPropsOrArray', fields: 'schema 1 *Props\njSONSchemas 2 []Props' },
  PropsOrBool: { special: 'jsonSchemaPropsOrBool', fields: 'allows 1 bool\nschema 2 *Props' },
  PropsOrStringArray: { special: 'jsonSchemaPropsOrStringArray', fields: 'schema 1 *Props\nproperty 2 []string' },
  StringList: { special: 'stringList', fields: 'items 1 []string' },
});
defineKind('codec.test', 'v1', 'Sample', `${PKG}.Sample`);
const API_VERSION = 'codec.test/v1';

/** A Sample as it travels: encoded, then decoded back into JSON. */
function roundTrip(obj: Record<string, unknown>): Record<string, unknown> {
  return decodeObject(encodeObject({ kind: 'Sample', apiVersion: API_VERSION, ...obj }));
}

/** The JSON of the Sample whose message has exactly these bytes. */
function decodeSample(message: Buffer): Record<string, unknown> {
  return decodeObject(Buffer.concat([MAGIC, messageType('io.k8s.apimachinery.pkg.runtime.Unknown').encode({ typeMeta: { apiVersion: API_VERSION, kind: 'Sample' }, raw: message }).finish()]));
}

/** What Go writes for a Sample with nothing set: zero structs and non-omitempty fields are there. */
const EMPTY_SAMPLE = {
  kind: 'Sample',
  apiVersion: API_VERSION,
  metadata: { creationTimestamp: null },
  total: 0,
  limit: null,
  name: '',
  tags: null,
  opts: null,
  child: {},
  when: null,
};

describe('protobuf codec', () => {
  it('writes a small ConfigMap byte for byte as the wire format says (and kubectl 1.32 sends)', () => {
    const bytes = encodeObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' }, data: { k: 'v' } });
    // Each line: bytes, then what they are.
    const expected = hex(
      [
        ['6b 38 73 00', 'magic "k8s\\0"'],
        ['0a 0f', 'runtime.Unknown typeMeta (field 1, length-delimited), 15 bytes'],
        ['0a 02 76 31', '  apiVersion (1) "v1"'],
        ['12 09 43 6f 6e 66 69 67 4d 61 70', '  kind (2) "ConfigMap"'],
        ['12 1b', 'raw (2), 27 bytes: the ConfigMap message'],
        ['0a 11', '  metadata (1), 17 bytes'],
        ['0a 01 61', '    name (1) "a"'],
        ['12 00 1a 00 22 00 2a 00 32 00', '    generateName, namespace, selfLink, uid, resourceVersion: "" (Go writes them)'],
        ['38 00', '    generation (7, varint) 0'],
        ['42 00', '    creationTimestamp (8): the zero Time, an empty message'],
        ['12 06', '  data (2): one map entry, 6 bytes'],
        ['0a 01 6b 12 01 76', '    key (1) "k", value (2) "v"'],
        ['1a 00', 'contentEncoding (3) ""'],
        ['22 00', 'contentType (4) ""'],
      ]
        .map(([bytes]) => bytes)
        .join(' '),
    );
    assert.equal(bytes.toString('hex'), expected.toString('hex'));
    assert.deepEqual(decodeObject(bytes), { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', creationTimestamp: null }, data: { k: 'v' } });
  });

  it('round-trips a stored ConfigMap, writing keys in Go struct order and map keys sorted', () => {
    const cm = {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: {
        name: 'settings',
        namespace: 'demo',
        uid: '0b1c',
        resourceVersion: '42',
        creationTimestamp: '2025-03-04T05:06:07Z',
        labels: { b: '2', a: '1' },
        annotations: { note: 'x' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u1', controller: true }],
        finalizers: ['keep'],
        managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2025-03-04T05:06:07Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:mode': {} } } }],
      },
      immutable: false,
      data: { mode: 'fast' },
      binaryData: { blob: Buffer.from([0, 255, 7]).toString('base64') },
    };
    const back = decodeObject(encodeObject(cm));
    assert.deepEqual(back, { ...cm, metadata: { ...cm.metadata, labels: { a: '1', b: '2' } } });
    assert.deepEqual(Object.keys(back), ['kind', 'apiVersion', 'metadata', 'immutable', 'data', 'binaryData']);
    assert.deepEqual(Object.keys(back.metadata as object), ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields']);
  });

  it('drops JSON fields the catalog does not describe, as a Go server would', () => {
    const back = decodeObject(encodeObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', bogus: 1 }, data: { k: 'v' }, status: { x: 1 } }));
    assert.deepEqual(back, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', creationTimestamp: null }, data: { k: 'v' } });
  });

  it('decodes an empty message as Go prints the zero object', () => {
    assert.deepEqual(decodeSample(Buffer.alloc(0)), EMPTY_SAMPLE);
  });

  it('keeps pointers present on the wire even when zero, and drops zero omitempty scalars', () => {
    const back = roundTrip({ metadata: { name: 's' }, count: 0, replicas: 0, limit: 0, flag: false, ratio: 0, total: 7, name: 'n', maybe: {} });
    assert.deepEqual(back, { ...EMPTY_SAMPLE, metadata: { name: 's', creationTimestamp: null }, total: 7, replicas: 0, limit: 0, name: 'n', maybe: {} });
    // replicas (4) and limit (5) are on the wire as varint 0: 20 00 and 28 00.
    const message = unwrap(encodeObject({ kind: 'Sample', apiVersion: API_VERSION, replicas: 0, limit: 0 })).raw;
    assert.ok(Buffer.from(message).includes(hex('20 00 28 00')), Buffer.from(message).toString('hex'));
    const absent = unwrap(encodeObject({ kind: 'Sample', apiVersion: API_VERSION })).raw;
    assert.ok(!Buffer.from(absent).includes(hex('20 00')), 'an unset pointer is not written');
  });

  it('writes scalars, lists, maps and bytes in their Go JSON forms', () => {
    const big = 2 ** 40 + 3;
    const back = roundTrip({
      count: 3,
      total: -big,
      ratio: 0.25,
      flag: true,
      payload: Buffer.from('hello').toString('base64'),
      tags: ['x', 'y'],
      opts: { z: '1', a: '2' },
      child: { label: 'c', big, secret: { token: Buffer.from([1, 2, 3]).toString('base64') } },
    });
    assert.equal(back.count, 3);
    assert.equal(back.total, -big);
    assert.equal(back.ratio, 0.25);
    assert.equal(back.flag, true);
    assert.equal(back.payload, 'aGVsbG8=');
    assert.deepEqual(back.tags, ['x', 'y']);
    assert.deepEqual(Object.keys(back.opts as object), ['a', 'z']);
    assert.deepEqual(back.child, { label: 'c', big, secret: { token: 'AQID' } });
  });

  it('writes an inline struct as fields of the outer JSON object and carries it as its own message', () => {
    const back = roundTrip({ path: '/data', port: 80 });
    assert.equal(back.path, '/data');
    assert.equal(back.port, 80);
    assert.ok(!('source' in back));
    // Source is field 14 on the wire: tag 0x72, then its message (path "/data", port 80).
    const message = Buffer.from(unwrap(encodeObject({ kind: 'Sample', apiVersion: API_VERSION, path: '/data', port: 80 })).raw);
    assert.ok(message.includes(hex('72 09 0a 05 2f 64 61 74 61 10 50')), message.toString('hex'));
  });

  it('reads and writes metav1.Time as RFC 3339 seconds: seconds on the wire, nanos 0, zero time as an empty message', () => {
    const back = roundTrip({ when: '2024-02-29T23:59:58Z', lastSeen: '1970-01-01T00:00:00Z' });
    assert.equal(back.when, '2024-02-29T23:59:58Z');
    assert.equal(back.lastSeen, '1970-01-01T00:00:00Z', 'the epoch is a time, not the zero time');
    const message = Buffer.from(unwrap(encodeObject({ kind: 'Sample', apiVersion: API_VERSION, when: '2024-02-29T23:59:58.75Z' })).raw);
    // when (15): seconds 1709251198 as varint, nanos 0 (Time keeps seconds only).
    assert.ok(message.includes(hex('7a 08 08 fe b4 84 af 06 10 00')), message.toString('hex'));
    assert.equal(decodeSample(message).when, '2024-02-29T23:59:58Z');
  });

  it('reads and writes the other special types in their JSON forms', () => {
    const specials = {
      eventTime: '2024-05-06T07:08:09.123456Z',
      timeout: '1h2m3.5s',
      cpu: '250m',
      limits: { memory: '1Gi', cpu: '2' },
      target: 'http',
      targets: [8080, 'metrics'],
      raw: { kind: 'Thing', spec: { n: [1, 2] } },
      value: 'text',
      items: [{ type: 'string' }, { type: 'integer' }],
      extra: false,
      deps: { a: ['b', 'c'], d: { type: 'object' } },
      zeroTarget: 0,
      zeroQuantity: '0',
      extra2: { groups: ['a', 'b'] },
      $ref: '#/definitions/x',
    };
    assert.deepEqual(roundTrip({ specials }).specials, specials);
    const other = { eventTime: null, target: 443, items: { type: 'number' }, extra: { description: 'any' }, zeroTarget: 'x', zeroQuantity: '5' };
    assert.deepEqual(roundTrip({ specials: other }).specials, other);
    // Empty: the non-pointer specials still appear, as Go prints their zero values.
    assert.deepEqual(roundTrip({ specials: {} }).specials, { eventTime: null, zeroTarget: 0, zeroQuantity: '0' });
  });

  it('lays out the special types on the wire as Kubernetes does', () => {
    const wire = (type: string, json: unknown) => Buffer.from(encodeMessage(`${PKG}.${type}`, json)).toString('hex');
    // IntOrString: type (1), intVal (2), strVal (3), all three written.
    assert.equal(wire('IntOrString', 8080), hex('08 00 10 90 3f 1a 00').toString('hex'));
    assert.equal(wire('IntOrString', 'web'), hex('08 01 10 00 1a 03 77 65 62').toString('hex'));
    assert.equal(wire('Quantity', '100m'), hex('0a 04 31 30 30 6d').toString('hex'));
    // MicroTime keeps microseconds, as nanos (2000); Duration is nanoseconds (1.5e9).
    assert.equal(wire('MicroTime', '1970-01-01T00:00:01.000002Z'), hex('08 01 10 d0 0f').toString('hex'));
    assert.equal(wire('Duration', '1.5s'), hex('08 80 de a0 cb 05').toString('hex'));
    // RawExtension and JSON carry the JSON text in raw (1).
    assert.equal(wire('RawExtension', { a: 1 }), Buffer.concat([hex('0a 07'), Buffer.from('{"a":1}')]).toString('hex'));
    assert.equal(wire('JSON', null), '');
    assert.equal(wire('StringList', ['a', 'b']), hex('0a 01 61 0a 01 62').toString('hex'));
    // A JSON name that is not the protobuf name ($ref is field 15, protobuf name ref).
    const specials = wire('Specials', { $ref: 'r' });
    assert.ok(specials.endsWith(hex('7a 01 72').toString('hex')), specials);
  });

  it('decodes an object embedded in protobuf inside a RawExtension', () => {
    const inner = encodeObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'in' } });
    const message = Buffer.from(messageType(`${PKG}.Sample`).encode({ specials: { raw: { raw: inner } } }).finish());
    const specials = decodeSample(message).specials as Record<string, unknown>;
    assert.deepEqual(specials.raw, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'in', creationTimestamp: null } });
  });

  it('frames a watch event: length, then the raw WatchEvent message holding the object body', () => {
    const body = encodeObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' } });
    const frame = watchFrame('ADDED', body);
    assert.equal(frame.readUInt32BE(0), frame.length - 4);
    const event = frame.subarray(4);
    // type (1) "ADDED", object (2) RawExtension { raw (1) the full object body, magic included }.
    assert.equal(event.subarray(0, 7).toString('hex'), hex('0a 05 41 44 44 45 44').toString('hex'));
    const decoded = messageType('io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent').decode(event) as unknown as { type: string; object: { raw: Uint8Array } };
    assert.equal(decoded.type, 'ADDED');
    assert.deepEqual(Buffer.from(decoded.object.raw), body);
  });

  it('gives every served kind and its list a message: the zero object survives protobuf, JSON and protobuf again', () => {
    let kinds = 0;
    for (const k of allKinds()) {
      const apiVersion = k.group ? `${k.group}/${k.version}` : k.version;
      for (const kind of [k.kind, `${k.kind}List`]) {
        const bytes = encodeObject({ kind, apiVersion });
        const json = decodeObject(bytes);
        assert.equal(json.kind, kind);
        assert.deepEqual(encodeObject(json), bytes, `${apiVersion} ${kind}`);
        kinds++;
      }
    }
    assert.ok(kinds >= 60, `only ${kinds} kinds and lists`);
  });

  it('reads request bodies that are types of their group version without a list (Scale, TokenRequest, reviews)', () => {
    const token = { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', metadata: { name: 'default', creationTimestamp: null }, spec: { audiences: ['api'], expirationSeconds: 600, boundObjectRef: null }, status: { token: '', expirationTimestamp: null } };
    assert.deepEqual(decodeObject(encodeObject(token)), token);
    const scale = decodeObject(encodeObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'web' }, spec: { replicas: 3 } }));
    assert.deepEqual(scale.spec, { replicas: 3 });
    assert.equal(decodeObject(encodeObject({ kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } })).kind, 'SelfSubjectAccessReview');
  });

  it('builds each message type once', () => {
    assert.equal(messageType('io.k8s.api.core.v1.ConfigMap'), messageType('io.k8s.api.core.v1.ConfigMap'));
  });

  it('rejects bodies that are not Kubernetes protobuf with kube\'s messages', () => {
    assert.throws(() => decodeObject(Buffer.from('{"kind":"ConfigMap"}')), /provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\]/);
    assert.throws(() => decodeObject(Buffer.alloc(0)), /empty data/);
    assert.throws(() => decodeObject(MAGIC), /empty body/);
    const unknownKind = Buffer.concat([MAGIC, messageType('io.k8s.apimachinery.pkg.runtime.Unknown').encode({ typeMeta: { apiVersion: 'v1', kind: 'Gizmo' }, raw: Buffer.alloc(0) }).finish()]);
    assert.throws(() => decodeObject(unknownKind), /no kind "Gizmo" is registered for version "v1"/);
  });
});

describe('Go durations', () => {
  it('formats as time.Duration.String does', () => {
    const cases: [bigint, string][] = [
      [0n, '0s'],
      [1n, '1ns'],
      [1_500n, '1.5µs'],
      [100_000_000n, '100ms'],
      [1_500_000_000n, '1.5s'],
      [60_000_000_000n, '1m0s'],
      [3_723_500_000_000n, '1h2m3.5s'],
      [-90_000_000_000n, '-1m30s'],
      [36_000_000_000_000n, '10h0m0s'],
    ];
    for (const [ns, text] of cases) {
      assert.equal(formatGoDuration(ns), text);
      assert.equal(parseGoDuration(text), ns, text);
    }
  });

  it('parses what time.ParseDuration accepts and rejects the rest', () => {
    assert.equal(parseGoDuration('1h30m'), 5_400_000_000_000n);
    assert.equal(parseGoDuration('2.5ms'), 2_500_000n);
    assert.equal(parseGoDuration('3us'), 3_000n);
    assert.equal(parseGoDuration('0'), 0n);
    assert.throws(() => parseGoDuration('5'), /unknown unit|invalid/);
    assert.throws(() => parseGoDuration('1d'), /unknown unit "d"/);
    assert.throws(() => parseGoDuration(''), /invalid duration/);
  });
});
