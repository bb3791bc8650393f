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

import protobuf from 'protobufjs';

type Json = Record<string, unknown>;
type Writer = protobuf.Writer;
/** Writes one message's fields (not its tag or length) for a JSON value. */
type Encoder = (w: Writer, v: unknown) => void;

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;

const key = (no: number, wire: number) => ((no << 3) | wire) >>> 0;

/** Protobuf strings must be UTF-8: a lone surrogate becomes U+FFFD (as Buffer.from does; protobufjs would write it as is). */
const LONE_SURROGATE = /\p{Surrogate}/u;
const utf8 = (s: string) => (LONE_SURROGATE.test(s) ? s.replace(/\p{Surrogate}/gu, '\uFFFD') : s);

function str(w: Writer, no: number, v: unknown): void {
  if (typeof v === 'string' && v !== '') w.uint32(key(no, LENGTH_DELIMITED)).string(utf8(v));
}

function bool(w: Writer, no: number, v: unknown): void {
  if (v === true) w.uint32(key(no, VARINT)).bool(true);
}

function int64(w: Writer, no: number, v: unknown): void {
  if (typeof v === 'number' && Number.isInteger(v) && v !== 0) w.uint32(key(no, VARINT)).int64(v);
}

function double(w: Writer, no: number, v: unknown): void {
  if (typeof v === 'number' && v !== 0) w.uint32(key(no, FIXED64)).double(v);
}

function strings(w: Writer, no: number, v: unknown): void {
  const list: unknown[] = typeof v === 'string' ? [v] : Array.isArray(v) ? v : [];
  for (const s of list) if (typeof s === 'string') w.uint32(key(no, LENGTH_DELIMITED)).string(utf8(s));
}

/** An embedded message, written even when empty (presence matters for oneofs and operations). */
function embed(w: Writer, no: number, enc: Encoder, v: unknown): void {
  enc(w.uint32(key(no, LENGTH_DELIMITED)).fork(), v);
  w.ldelim();
}

function message(w: Writer, no: number, v: unknown, enc: Encoder): void {
  if (v !== undefined) embed(w, no, enc, v);
}

function repeated(w: Writer, no: number, v: unknown, enc: Encoder): void {
  if (Array.isArray(v)) for (const x of v) embed(w, no, enc, x);
}

/** Named entries of a JSON object, as gnostic's Named<T> { name = 1; value = 2 } messages. */
function named(w: Writer, no: number, v: unknown, enc: Encoder, filter: (k: string) => boolean = () => true): void {
  if (!isObject(v)) return;
  for (const [k, x] of Object.entries(v)) {
    if (!filter(k)) continue;
    str(w.uint32(key(no, LENGTH_DELIMITED)).fork(), 1, k);
    embed(w, 2, enc, x);
    w.ldelim();
  }
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const obj = (v: unknown): Json => (isObject(v) ? v : {});

/** Any { yaml = 2 } */
const any: Encoder = (w, v) => str(w, 2, JSON.stringify(v ?? null));

const isExtension = (k: string) => k.startsWith('x-');
const extensions = (w: Writer, no: number, o: Json) => named(w, no, o, any, isExtension);

/** JsonReference { _ref = 1; description = 2 } */
const jsonReference: Encoder = (w, v) => {
  str(w, 1, obj(v).$ref);
  str(w, 2, obj(v).description);
};

/** SchemaItem and AdditionalPropertiesItem: { oneof { Schema schema = 1; ... } } holding a schema. */
const schemaItem: Encoder = (w, v) => message(w, 1, v, schema);

/** Schema (openapi_v2.Schema, fields 1-31). */
const schema: Encoder = (w, v) => {
  const s = obj(v);
  const additional = s.additionalProperties;
  str(w, 1, s.$ref);
  str(w, 2, s.format);
  str(w, 3, s.title);
  str(w, 4, s.description);
  message(w, 5, s.default, any);
  double(w, 6, s.multipleOf);
  double(w, 7, s.maximum);
  bool(w, 8, s.exclusiveMaximum);
  double(w, 9, s.minimum);
  bool(w, 10, s.exclusiveMinimum);
  int64(w, 11, s.maxLength);
  int64(w, 12, s.minLength);
  str(w, 13, s.pattern);
  int64(w, 14, s.maxItems);
  int64(w, 15, s.minItems);
  bool(w, 16, s.uniqueItems);
  int64(w, 17, s.maxProperties);
  int64(w, 18, s.minProperties);
  strings(w, 19, s.required);
  repeated(w, 20, s.enum, any);
  // AdditionalPropertiesItem { oneof { Schema schema = 1; bool boolean = 2 } }
  if (typeof additional === 'boolean') w.uint32(key(21, LENGTH_DELIMITED)).fork().uint32(key(2, VARINT)).bool(additional).ldelim();
  else if (isObject(additional)) embed(w, 21, schemaItem, additional);
  // TypeItem { repeated string value = 1 }
  message(w, 22, s.type, typeItem);
  // ItemsItem { repeated Schema schema = 1 }
  message(w, 23, s.items, itemsItem);
  repeated(w, 24, s.allOf, schema);
  // Properties { repeated NamedSchema additional_properties = 1 }
  message(w, 25, s.properties, namedSchemas);
  str(w, 26, s.discriminator);
  bool(w, 27, s.readOnly);
  message(w, 30, s.example, any);
  extensions(w, 31, s);
};

const typeItem: Encoder = (w, v) => strings(w, 1, v);
const itemsItem: Encoder = (w, v) => (Array.isArray(v) ? repeated(w, 1, v, schema) : message(w, 1, v, schema));
/** Properties and Definitions alike: { repeated NamedSchema additional_properties = 1 } */
const namedSchemas: Encoder = (w, v) => named(w, 1, v, schema);

/** The fields a non-body parameter shares; query and form parameters number them one higher (allowEmptyValue = 5). */
function primitiveParameter(w: Writer, p: Json, withAllowEmpty: boolean): void {
  const o = withAllowEmpty ? 1 : 0;
  bool(w, 1, p.required);
  str(w, 2, p.in);
  str(w, 3, p.description);
  str(w, 4, p.name);
  if (withAllowEmpty) bool(w, 5, p.allowEmptyValue);
  str(w, 5 + o, p.type);
  str(w, 6 + o, p.format);
  str(w, 8 + o, p.collectionFormat);
  message(w, 9 + o, p.default, any);
  double(w, 10 + o, p.maximum);
  bool(w, 11 + o, p.exclusiveMaximum);
  double(w, 12 + o, p.minimum);
  bool(w, 13 + o, p.exclusiveMinimum);
  int64(w, 14 + o, p.maxLength);
  int64(w, 15 + o, p.minLength);
  str(w, 16 + o, p.pattern);
  int64(w, 17 + o, p.maxItems);
  int64(w, 18 + o, p.minItems);
  bool(w, 19 + o, p.uniqueItems);
  repeated(w, 20 + o, p.enum, any);
  double(w, 21 + o, p.multipleOf);
  extensions(w, 22 + o, p);
}

/** BodyParameter { description = 1; name = 2; in = 3; required = 4; schema = 5; vendor_extension = 6 } */
const bodyParameter: Encoder = (w, v) => {
  const p = obj(v);
  str(w, 1, p.description);
  str(w, 2, p.name);
  str(w, 3, p.in);
  bool(w, 4, p.required);
  message(w, 5, p.schema, schema);
  extensions(w, 6, p);
};

/** NonBodyParameter { header = 1; form_data = 2; query = 3; path = 4 } */
const nonBodyParameter: Encoder = (w, v) => {
  const p = obj(v);
  const which = { header: 1, formData: 2, query: 3, path: 4 }[String(p.in)] ?? 3;
  primitiveParameter(w.uint32(key(which, LENGTH_DELIMITED)).fork(), p, which === 2 || which === 3);
  w.ldelim();
};

/** Parameter { oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2 } } */
const parameter: Encoder = (w, v) => (obj(v).in === 'body' ? embed(w, 1, bodyParameter, v) : embed(w, 2, nonBodyParameter, v));

/** ParametersItem { oneof { Parameter parameter = 1; JsonReference json_reference = 2 } } */
const parametersItem: Encoder = (w, v) => (typeof obj(v).$ref === 'string' ? embed(w, 2, jsonReference, v) : embed(w, 1, parameter, v));

/** Response { description = 1; SchemaItem schema = 2; ...; vendor_extension = 5 } */
const response: Encoder = (w, v) => {
  const r = obj(v);
  str(w, 1, r.description);
  message(w, 2, r.schema, schemaItem);
  extensions(w, 5, r);
};

/** ResponseValue { oneof { Response response = 1; JsonReference json_reference = 2 } } */
const responseValue: Encoder = (w, v) => (typeof obj(v).$ref === 'string' ? embed(w, 2, jsonReference, v) : embed(w, 1, response, v));

/** Responses { repeated NamedResponseValue response_code = 1; vendor_extension = 2 } */
const responses: Encoder = (w, v) => {
  const r = obj(v);
  named(w, 1, r, responseValue, (k) => !isExtension(k));
  extensions(w, 2, r);
};

/** Operation (fields 1-13). */
const operation: Encoder = (w, v) => {
  const o = obj(v);
  strings(w, 1, o.tags);
  str(w, 2, o.summary);
  str(w, 3, o.description);
  str(w, 5, o.operationId);
  strings(w, 6, o.produces);
  strings(w, 7, o.consumes);
  repeated(w, 8, o.parameters, parametersItem);
  message(w, 9, o.responses, responses);
  strings(w, 10, o.schemes);
  bool(w, 11, o.deprecated);
  extensions(w, 13, o);
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
const pathItem: Encoder = (w, v) => {
  const p = obj(v);
  str(w, 1, p.$ref);
  for (const [m, no] of METHODS) message(w, no, p[m], operation);
  repeated(w, 9, p.parameters, parametersItem);
  extensions(w, 10, p);
};

/** Paths { repeated NamedPathItem path = 2 } */
const pathItems: Encoder = (w, v) => named(w, 2, v, pathItem, (k) => !isExtension(k));

/** Info { title = 1; version = 2; description = 3 } */
const info: Encoder = (w, v) => {
  str(w, 1, obj(v).title);
  str(w, 2, obj(v).version);
};

/** The bytes of what `write` puts in a fresh writer. */
function written(write: (w: Writer) => void): Buffer {
  const w = protobuf.Writer.create();
  write(w);
  const out = w.finish();
  return Buffer.isBuffer(out) ? out : Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/** Document.paths (8). */
export function encodePaths(paths: Json): Buffer {
  return written((w) => embed(w, 8, pathItems, paths));
}

/** Document.definitions (9): Definitions { repeated NamedSchema additional_properties = 1 }. */
export function encodeDefinitions(definitions: Json): Buffer {
  return written((w) => embed(w, 9, namedSchemas, definitions));
}

/** Document.swagger (1) and info (2). */
export function encodeHead(doc: { swagger: string; info: { title: string; version: string } }): Buffer {
  return written((w) => {
    str(w, 1, doc.swagger);
    embed(w, 2, info, doc.info);
  });
}
