// The v2 document's protobuf form, read back field by field with protobufjs's Reader: gnostic's field
// numbers (google/gnostic openapiv2/OpenAPIv2.proto) carry what kubectl reads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';
import { encodeDefinitions, encodeHead, encodePaths } from '../../../src/apiserver/openapi/gnostic.js';
import { resourcePaths } from '../../../src/apiserver/openapi/paths.js';
import { BUILTIN_TYPES } from '../../../src/apiserver/resources.js';

type Fields = Map<number, (Buffer | bigint)[]>;

/** Splits a message into its fields: length-delimited values as bytes, varints and fixed64 as bigint. */
function read(buf: Uint8Array): Fields {
  const out: Fields = new Map();
  const r = protobuf.Reader.create(buf);
  while (r.pos < r.len) {
    const key = r.uint32();
    let value: Buffer | bigint;
    if ((key & 7) === 0) value = BigInt(r.uint64().toString());
    else if ((key & 7) === 2) {
      const b = r.bytes();
      value = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    } else if ((key & 7) === 1) value = BigInt(r.fixed64().toString());
    else throw new Error(`wire type ${key & 7}`);
    const no = key >>> 3;
    out.set(no, [...(out.get(no) ?? []), value]);
  }
  return out;
}

const bytes = (f: Fields, no: number): Buffer[] => (f.get(no) ?? []) as Buffer[];
const text = (f: Fields, no: number): string | undefined => bytes(f, no)[0]?.toString('utf8');

/** Named<T> entries { name = 1; value = 2 } as a map of name to the value's fields. */
function namedEntries(entries: Buffer[]): Map<string, Fields> {
  return new Map(entries.map((e) => read(e)).map((f) => [text(f, 1) ?? '', read(bytes(f, 2)[0] ?? Buffer.alloc(0))]));
}

describe('gnostic openapi_v2.Document encoding', () => {
  it('writes swagger, info and definitions with their schemas and vendor extensions', () => {
    const doc = read(
      Buffer.concat([
        encodeHead({ swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.24.0' } }),
        encodeDefinitions({
          'x.Thing': {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string', maxLength: 63 }, count: { type: 'integer', minimum: -1 }, tags: { type: 'array', items: { $ref: '#/definitions/x.Tag' } } },
            additionalProperties: false,
            'x-kubernetes-group-version-kind': [{ group: 'x', version: 'v1', kind: 'Thing' }],
          },
        }),
      ]),
    );
    assert.equal(text(doc, 1), '2.0');
    const info = read(bytes(doc, 2)[0]);
    assert.equal(text(info, 1), 'Kubernetes');
    assert.equal(text(info, 2), 'v1.24.0');
    const defs = namedEntries(bytes(read(bytes(doc, 9)[0]), 1));
    const thing = defs.get('x.Thing');
    assert.ok(thing);
    assert.equal(text(read(bytes(thing, 22)[0]), 1), 'object', 'type is a TypeItem');
    assert.equal(text(thing, 19), 'name', 'required');
    assert.deepEqual(read(bytes(thing, 21)[0]).get(2), [0n], 'additionalProperties: false is the oneof boolean');
    const props = namedEntries(bytes(read(bytes(thing, 25)[0]), 1));
    assert.deepEqual(props.get('name')?.get(11), [63n], 'maxLength');
    assert.equal(Buffer.from((props.get('count')?.get(9)?.[0] as bigint).toString(16).padStart(16, '0'), 'hex').readDoubleBE(), -1, 'minimum is a double');
    const tagItems = read(bytes(props.get('tags') as Fields, 23)[0]);
    assert.equal(text(read(bytes(tagItems, 1)[0]), 1), '#/definitions/x.Tag', 'items holds a schema with its $ref');
    const [ext] = bytes(thing, 31).map(read);
    assert.equal(text(ext, 1), 'x-kubernetes-group-version-kind');
    assert.deepEqual(JSON.parse(text(read(bytes(ext, 2)[0]), 2) ?? ''), [{ group: 'x', version: 'v1', kind: 'Thing' }], 'Any.yaml holds the value');
  });

  it('writes strings as valid UTF-8, a lone surrogate as U+FFFD (kubectl rejects a document with invalid UTF-8)', () => {
    const defs = namedEntries(bytes(read(bytes(read(encodeDefinitions({ 'x.Odd': { description: 'a\ud800b', title: 'pair \u{1F600}' } })), 9)[0]), 1));
    const odd = defs.get('x.Odd');
    assert.ok(odd);
    assert.deepEqual(bytes(odd, 4)[0], Buffer.from('a\ufffdb', 'utf8'));
    assert.deepEqual(bytes(odd, 3)[0], Buffer.from('pair \u{1F600}', 'utf8'), 'a surrogate pair stays one code point');
  });

  it('writes a PATCH operation with its query parameters and group-version-kind', () => {
    const configmaps = BUILTIN_TYPES.find((t) => t.kind === 'ConfigMap');
    assert.ok(configmaps);
    const paths = Object.fromEntries(resourcePaths(configmaps, { kind: 'io.k8s.api.core.v1.ConfigMap', list: 'io.k8s.api.core.v1.ConfigMapList' }, 'v2'));
    const doc = read(encodePaths(paths));
    const items = namedEntries(bytes(read(bytes(doc, 8)[0]), 2));
    const item = items.get('/api/v1/namespaces/{namespace}/configmaps/{name}');
    assert.ok(item);
    const patch = read(bytes(item, 8)[0]);
    assert.equal(text(patch, 5), 'patchCoreV1NamespacedConfigMap');
    assert.ok(bytes(patch, 7).map((b) => b.toString()).includes('application/strategic-merge-patch+json'), 'consumes');
    // ParametersItem.parameter(1) -> Parameter.non_body_parameter(2) -> NonBodyParameter.query(3) -> name(4)
    const queryNames = bytes(patch, 8)
      .map((p) => read(bytes(read(p), 1)[0]))
      .filter((p) => p.has(2))
      .map((p) => text(read(bytes(read(bytes(p, 2)[0]), 3)[0]), 4));
    assert.deepEqual(queryNames, ['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    const body = read(bytes(read(bytes(read(bytes(patch, 8)[0]), 1)[0]), 1)[0]);
    assert.equal(text(body, 3), 'body');
    const extensions = new Map(bytes(patch, 13).map(read).map((e) => [text(e, 1), JSON.parse(text(read(bytes(e, 2)[0]), 2) ?? '') as unknown]));
    assert.deepEqual(extensions.get('x-kubernetes-group-version-kind'), { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.equal(extensions.get('x-kubernetes-action'), 'patch');
    // Path-level parameters: the name and namespace path parameters (NonBodyParameter.path = 4).
    const pathParams = bytes(item, 9).map((p) => read(bytes(read(bytes(read(p), 1)[0]), 2)[0])).filter((p) => p.has(4));
    assert.deepEqual(pathParams.map((p) => text(read(bytes(p, 4)[0]), 4)), ['name', 'namespace']);
  });
});
