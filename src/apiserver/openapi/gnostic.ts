// The protobuf form of an OpenAPI v2 document that kubectl downloads (`Accept:
// application/com.github.proto-openapi.spec.v2@v1.0+protobuf`): gnostic's openapi_v2.Document
// (google/gnostic, openapiv2/OpenAPIv2.proto). Written from the JSON document the server builds,
// covering the parts of Swagger 2.0 that document uses: info, paths with their operations,
// parameters and responses, and definitions with every Schema keyword. Vendor extensions and
// other free-form values (default, enum, example) are carried as `Any.yaml`, holding the value's
// JSON text (JSON is YAML).
//
// Protobuf messages concatenate: a document is written as a shared head (built-in paths and
// definitions) followed by one cluster's own paths and definitions, which a reader merges.

type Json = Record<string, unknown>;
type Encoder = (v: unknown) => Buffer;

function varint(n: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
}

const key = (no: number, wire: number) => varint((no << 3) | wire);

function bytesField(no: number, payload: Buffer): Buffer {
  return Buffer.concat([key(no, 2), varint(payload.length), payload]);
}

function str(no: number, v: unknown): Buffer {
  return typeof v === 'string' && v !== '' ? bytesField(no, Buffer.from(v, 'utf8')) : EMPTY;
}

function bool(no: number, v: unknown): Buffer {
  return v === true ? Buffer.concat([key(no, 0), varint(1)]) : EMPTY;
}

function int64(no: number, v: unknown): Buffer {
  return typeof v === 'number' && Number.isInteger(v) && v !== 0 ? Buffer.concat([key(no, 0), varint(v)]) : EMPTY;
}

function double(no: number, v: unknown): Buffer {
  if (typeof v !== 'number' || v === 0) return EMPTY;
  const b = Buffer.alloc(8);
  b.writeDoubleLE(v);
  return Buffer.concat([key(no, 1), b]);
}

function strings(no: number, v: unknown): Buffer {
  const list = typeof v === 'string' ? [v] : Array.isArray(v) ? v : [];
  return Buffer.concat(list.filter((s): s is string => typeof s === 'string').map((s) => bytesField(no, Buffer.from(s, 'utf8'))));
}

/** An embedded message, written even when empty (presence matters for oneofs and operations). */
function message(no: number, v: unknown, enc: Encoder): Buffer {
  return v === undefined ? EMPTY : bytesField(no, enc(v));
}

function repeated(no: number, v: unknown, enc: Encoder): Buffer {
  return Array.isArray(v) ? Buffer.concat(v.map((x) => bytesField(no, enc(x)))) : EMPTY;
}

/** Named entries of a JSON object, as gnostic's Named<T> { name = 1; value = 2 } messages. */
function named(no: number, v: unknown, enc: Encoder, filter: (k: string) => boolean = () => true): Buffer {
  if (!isObject(v)) return EMPTY;
  return Buffer.concat(Object.entries(v).filter(([k]) => filter(k)).map(([k, x]) => bytesField(no, Buffer.concat([str(1, k), bytesField(2, enc(x))]))));
}

const EMPTY = Buffer.alloc(0);

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const obj = (v: unknown): Json => (isObject(v) ? v : {});

/** Any { yaml = 2 } */
const any: Encoder = (v) => str(2, JSON.stringify(v ?? null));

const isExtension = (k: string) => k.startsWith('x-');
const extensions = (no: number, o: Json) => named(no, o, any, isExtension);

/** JsonReference { _ref = 1; description = 2 } */
const jsonReference: Encoder = (v) => Buffer.concat([str(1, obj(v).$ref), str(2, obj(v).description)]);

/** Schema (openapi_v2.Schema, fields 1-31). */
const schema: Encoder = (v) => {
  const s = obj(v);
  const additional = s.additionalProperties;
  return Buffer.concat([
    str(1, s.$ref),
    str(2, s.format),
    str(3, s.title),
    str(4, s.description),
    s.default === undefined ? EMPTY : message(5, s.default, any),
    double(6, s.multipleOf),
    double(7, s.maximum),
    bool(8, s.exclusiveMaximum),
    double(9, s.minimum),
    bool(10, s.exclusiveMinimum),
    int64(11, s.maxLength),
    int64(12, s.minLength),
    str(13, s.pattern),
    int64(14, s.maxItems),
    int64(15, s.minItems),
    bool(16, s.uniqueItems),
    int64(17, s.maxProperties),
    int64(18, s.minProperties),
    strings(19, s.required),
    repeated(20, s.enum, any),
    // AdditionalPropertiesItem { oneof { Schema schema = 1; bool boolean = 2 } }
    typeof additional === 'boolean'
      ? bytesField(21, Buffer.concat([key(2, 0), varint(additional ? 1 : 0)]))
      : isObject(additional)
        ? bytesField(21, message(1, additional, schema))
        : EMPTY,
    // TypeItem { repeated string value = 1 }
    s.type === undefined ? EMPTY : bytesField(22, strings(1, s.type)),
    // ItemsItem { repeated Schema schema = 1 }
    s.items === undefined ? EMPTY : bytesField(23, Array.isArray(s.items) ? repeated(1, s.items, schema) : message(1, s.items, schema)),
    repeated(24, s.allOf, schema),
    // Properties { repeated NamedSchema additional_properties = 1 }
    s.properties === undefined ? EMPTY : bytesField(25, named(1, s.properties, schema)),
    str(26, s.discriminator),
    bool(27, s.readOnly),
    s.example === undefined ? EMPTY : message(30, s.example, any),
    extensions(31, s),
  ]);
};

/** The fields a non-body parameter shares; query and form parameters number them one higher (allowEmptyValue = 5). */
function primitiveParameter(p: Json, withAllowEmpty: boolean): Buffer {
  const o = withAllowEmpty ? 1 : 0;
  return Buffer.concat([
    bool(1, p.required),
    str(2, p.in),
    str(3, p.description),
    str(4, p.name),
    withAllowEmpty ? bool(5, p.allowEmptyValue) : EMPTY,
    str(5 + o, p.type),
    str(6 + o, p.format),
    str(8 + o, p.collectionFormat),
    p.default === undefined ? EMPTY : message(9 + o, p.default, any),
    double(10 + o, p.maximum),
    bool(11 + o, p.exclusiveMaximum),
    double(12 + o, p.minimum),
    bool(13 + o, p.exclusiveMinimum),
    int64(14 + o, p.maxLength),
    int64(15 + o, p.minLength),
    str(16 + o, p.pattern),
    int64(17 + o, p.maxItems),
    int64(18 + o, p.minItems),
    bool(19 + o, p.uniqueItems),
    repeated(20 + o, p.enum, any),
    double(21 + o, p.multipleOf),
    extensions(22 + o, p),
  ]);
}

/** ParametersItem { oneof { Parameter parameter = 1; JsonReference json_reference = 2 } } */
const parametersItem: Encoder = (v) => {
  const p = obj(v);
  if (typeof p.$ref === 'string') return bytesField(2, jsonReference(p));
  // Parameter { oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2 } }
  if (p.in === 'body') {
    const body = Buffer.concat([str(1, p.description), str(2, p.name), str(3, p.in), bool(4, p.required), message(5, p.schema, schema), extensions(6, p)]);
    return bytesField(1, bytesField(1, body));
  }
  // NonBodyParameter { header = 1; form_data = 2; query = 3; path = 4 }
  const which = { header: 1, formData: 2, query: 3, path: 4 }[String(p.in)] ?? 3;
  return bytesField(1, bytesField(2, bytesField(which, primitiveParameter(p, which === 2 || which === 3))));
};

/** Response { description = 1; SchemaItem schema = 2; ...; vendor_extension = 5 } */
const response: Encoder = (v) => {
  const r = obj(v);
  return Buffer.concat([str(1, r.description), r.schema === undefined ? EMPTY : bytesField(2, message(1, r.schema, schema)), extensions(5, r)]);
};

/** Responses { repeated NamedResponseValue response_code = 1; vendor_extension = 2 } */
const responses: Encoder = (v) => {
  const r = obj(v);
  const value: Encoder = (x) => (typeof obj(x).$ref === 'string' ? bytesField(2, jsonReference(x)) : bytesField(1, response(x)));
  return Buffer.concat([named(1, r, value, (k) => !isExtension(k)), extensions(2, r)]);
};

/** Operation (fields 1-13). */
const operation: Encoder = (v) => {
  const o = obj(v);
  return Buffer.concat([
    strings(1, o.tags),
    str(2, o.summary),
    str(3, o.description),
    str(5, o.operationId),
    strings(6, o.produces),
    strings(7, o.consumes),
    repeated(8, o.parameters, parametersItem),
    message(9, o.responses, responses),
    strings(10, o.schemes),
    bool(11, o.deprecated),
    extensions(13, o),
  ]);
};

const METHODS: [string, number][] = [
  ['get', 2],
  ['put', 3],
  ['post', 4],
  ['delete', 5],
  ['options', 6],
  ['head', 7],
  ['patch', 8],
];

/** PathItem { _ref = 1; get = 2; ...; patch = 8; parameters = 9; vendor_extension = 10 } */
const pathItem: Encoder = (v) => {
  const p = obj(v);
  return Buffer.concat([str(1, p.$ref), ...METHODS.map(([m, no]) => message(no, p[m], operation)), repeated(9, p.parameters, parametersItem), extensions(10, p)]);
};

/** Document.paths (8): Paths { repeated NamedPathItem path = 2 }. */
export function encodePaths(paths: Json): Buffer {
  return bytesField(8, named(2, paths, pathItem, (k) => !isExtension(k)));
}

/** Document.definitions (9): Definitions { repeated NamedSchema additional_properties = 1 }. */
export function encodeDefinitions(definitions: Json): Buffer {
  return bytesField(9, named(1, definitions, schema));
}

/** Document.swagger (1) and info (2): Info { title = 1; version = 2; description = 3 }. */
export function encodeHead(doc: { swagger: string; info: { title: string; version: string } }): Buffer {
  return Buffer.concat([str(1, doc.swagger), bytesField(2, Buffer.concat([str(1, doc.info.title), str(2, doc.info.version)]))]);
}
