// Kubernetes protobuf bodies <-> the JSON objects the server works with, driven by the type catalog.
//
// Decoding yields what Go's JSON encoder writes for the decoded Go object, so a protobuf body enters
// the server exactly as the same object sent as JSON by a Go client would:
// - a zero scalar is left out when its field has omitempty and is not a pointer; a pointer present on
//   the wire keeps its value even when zero (replicas: 0);
// - nil pointers, slices and maps without omitempty are null, zero structs are always written
//   (omitempty does not apply to structs: `creationTimestamp: null`, `status: {}`);
// - bytes are base64 strings, int64 numbers, and the special types have their own JSON forms.
// Encoding writes what Go's generated marshallers write: fields in number order, non-pointer scalars
// and structs always (so empty strings and zero numbers are on the wire), pointers when set, map
// entries sorted by key. JSON fields the catalog does not describe are dropped, as a Go server would.
import protobuf from 'protobufjs';
import { isPlainObject } from '../../kube/json.js';
import { splitApiVersion } from '../../kube/object.js';
import { type FieldDef, isScalar, kindType, META_KINDS, requestBodyType, type Scalar, type TypeDef, typeDef } from '../types/index.js';
import { formatGoDuration, parseGoDuration } from './duration.js';
import { hasMagic, unwrap, wrap } from './envelope.js';
import { facts, messageType, protoFieldName } from './messages.js';

type Json = Record<string, unknown>;
/** A decoded protobufjs message: own properties are the fields present on the wire. */
type Message = Record<string, unknown>;

/**
 * The catalog type of an apiVersion and kind, if described: a served kind, its `<Kind>List`, a meta
 * kind (Status, DeleteOptions, WatchEvent), or a request body of its group version without a list of
 * its own (Scale, TokenRequest, the access reviews).
 */
export function typeNameOf(apiVersion: string, kind: string): string | undefined {
  const { group, version } = splitApiVersion(apiVersion);
  const served = kindType(group, version, kind);
  if (served) return served.name;
  if (kind.endsWith('List')) {
    const item = kindType(group, version, kind.slice(0, -'List'.length));
    if (item && typeDef(`${item.name}List`)) return `${item.name}List`;
  }
  if (META_KINDS[kind]) return META_KINDS[kind];
  return requestBodyType(group, version, kind)?.name;
}

/**
 * A protobuf body (magic, envelope, message) as the JSON object, `kind` and `apiVersion` first as Go
 * writes them; `defaults` stand in for what the envelope leaves empty (the type the URL names).
 */
export function decodeObject(bytes: Uint8Array, defaults?: { apiVersion: string; kind: string }): Json {
  const envelope = unwrap(bytes);
  const kind = envelope.kind || defaults?.kind || '';
  const apiVersion = envelope.apiVersion || defaults?.apiVersion || '';
  const raw = envelope.raw;
  const name = typeNameOf(apiVersion, kind);
  if (!name) throw new Error(`no kind "${kind}" is registered for version "${apiVersion}"`);
  return { kind, apiVersion, ...(messageJson(name, messageType(name).decode(raw) as unknown as Message) as Json) };
}

/** A JSON object (with its `kind` and `apiVersion`) as a protobuf body; throws if the catalog does not describe its kind. */
export function encodeObject(obj: Json): Buffer {
  const apiVersion = String(obj.apiVersion ?? '');
  const kind = String(obj.kind ?? '');
  const name = typeNameOf(apiVersion, kind);
  if (!name) throw new Error(`protobuf: no catalog type for ${apiVersion} ${kind}`);
  return wrap(apiVersion, kind, encodeMessage(name, obj));
}

/** The message bytes (no envelope) of a JSON value of a catalog type. */
export function encodeMessage(name: string, json: unknown): Uint8Array {
  return messageType(name).encode(messageValue(name, json)).finish();
}

// ---- protobuf -> JSON ----

function messageJson(name: string, msg: Message | null): unknown {
  const def = facts(name);
  if (def.special) return specialJson(def, msg);
  const out: Json = {};
  for (const f of def.fields) {
    const key = protoFieldName(f);
    const present = msg !== null && Object.prototype.hasOwnProperty.call(msg, key);
    const v = present ? msg[key] : undefined;
    if (f.list) {
      const items = v as unknown[] | undefined;
      if (items && items.length > 0) out[f.name] = items.map((x) => elementJson(f, x));
      else if (!f.omitEmpty) out[f.name] = null;
    } else if (f.map) {
      const keys = v ? Object.keys(v).sort() : [];
      if (keys.length > 0) out[f.name] = Object.fromEntries(keys.map((k) => [k, elementJson(f, (v as Message)[k])]));
      else if (!f.omitEmpty) out[f.name] = null;
    } else if (f.inline) {
      Object.assign(out, messageJson(f.type, (v as Message | undefined) ?? null));
    } else if (f.pointer) {
      if (present) out[f.name] = elementJson(f, v);
      else if (!f.omitEmpty) out[f.name] = null;
    } else if (isScalar(f.type)) {
      const j = present ? scalarJson(f.type, v) : zeroJson(f.type);
      if (!(f.omitEmpty && (j === '' || j === 0 || j === false || j === null))) out[f.name] = j;
    } else {
      out[f.name] = messageJson(f.type, (v as Message | undefined) ?? null);
    }
  }
  return out;
}

function elementJson(f: FieldDef, v: unknown): unknown {
  return isScalar(f.type) ? scalarJson(f.type, v) : messageJson(f.type, v as Message);
}

function scalarJson(type: Scalar, v: unknown): unknown {
  if (type === 'int64') return Number(int64(v));
  if (type === 'bytes') return Buffer.from(v as Uint8Array).toString('base64');
  return v;
}

function zeroJson(type: Scalar): unknown {
  switch (type) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'bytes':
      return null; // a nil []byte
    default:
      return 0;
  }
}

function has(msg: Message | null, field: string): boolean {
  return msg !== null && Object.prototype.hasOwnProperty.call(msg, field);
}

/** An int64 as protobufjs decodes it (a Long's two halves, or a number). */
function int64(v: unknown): bigint {
  if (v === undefined || v === null) return 0n;
  if (typeof v === 'object') {
    const { low, high } = v as protobuf.Long;
    return BigInt.asIntN(64, (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0));
  }
  return BigInt(v as number);
}

/** The JSON of the types whose JSON is not an object of their fields (catalog.ts, Special). */
function specialJson(def: TypeDef, msg: Message | null): unknown {
  switch (def.special) {
    case 'time':
    case 'microTime': {
      // An empty message is Go's zero time, which JSON writes as null.
      if (!has(msg, 'seconds') && !has(msg, 'nanos')) return null;
      const seconds = Number(int64(msg!.seconds));
      const text = new Date(seconds * 1000).toISOString().slice(0, 19);
      if (def.special === 'time') return `${text}Z`; // metav1.Time keeps seconds only
      return `${text}.${String(Math.floor(Number(msg!.nanos ?? 0) / 1000)).padStart(6, '0')}Z`;
    }
    case 'duration':
      return formatGoDuration(int64(msg?.duration));
    case 'quantity':
      return typeof msg?.string === 'string' && msg.string !== '' ? msg.string : '0';
    case 'intOrString':
      return Number(int64(msg?.type)) === 1 ? (msg?.strVal ?? '') : (msg?.intVal ?? 0);
    case 'rawExtension':
    case 'fieldsV1':
    case 'json':
      return rawJson(msg?.[protoFieldName(def.fields[0])] as Uint8Array | undefined);
    case 'stringList': {
      const items = msg?.items as string[] | undefined;
      return items && items.length > 0 ? items : null;
    }
    case 'jsonSchemaPropsOrArray': {
      const schemas = msg?.jSONSchemas as Message[] | undefined;
      if (schemas && schemas.length > 0) return schemas.map((s) => messageJson(fieldOf(def, 'jSONSchemas').type, s));
      return has(msg, 'schema') ? messageJson(fieldOf(def, 'schema').type, msg!.schema as Message) : null;
    }
    case 'jsonSchemaPropsOrBool':
      if (has(msg, 'schema')) return messageJson(fieldOf(def, 'schema').type, msg!.schema as Message);
      return msg?.allows === true;
    case 'jsonSchemaPropsOrStringArray': {
      const property = msg?.property as string[] | undefined;
      if (property && property.length > 0) return property;
      return has(msg, 'schema') ? messageJson(fieldOf(def, 'schema').type, msg!.schema as Message) : null;
    }
    default:
      throw new Error(`protobuf: special type ${String(def.special)} of ${def.name} has no JSON form`);
  }
}

/** Embedded JSON text (RawExtension, FieldsV1, apiextensions JSON); an embedded protobuf object is decoded too. */
function rawJson(raw: Uint8Array | undefined): unknown {
  if (!raw || raw.length === 0) return null;
  if (hasMagic(raw)) return decodeObject(raw);
  return JSON.parse(Buffer.from(raw).toString('utf8'));
}

function fieldOf(def: TypeDef, name: string): FieldDef {
  const f = def.fields.find((x) => x.name === name);
  if (!f) throw new Error(`protobuf: ${def.name} (${String(def.special)}) has no field ${name}`);
  return f;
}

// ---- JSON -> protobuf ----

function messageValue(name: string, json: unknown): Message {
  const def = facts(name);
  if (def.special) return specialValue(def, json);
  const src = isPlainObject(json) ? json : {};
  const out: Message = {};
  for (const f of def.fields) {
    const key = protoFieldName(f);
    if (f.inline) {
      out[key] = messageValue(f.type, src);
      continue;
    }
    const v = src[f.name];
    if (f.list) {
      if (Array.isArray(v) && v.length > 0) out[key] = v.map((x) => elementValue(f, x));
    } else if (f.map) {
      if (isPlainObject(v)) out[key] = Object.fromEntries(Object.keys(v).sort().map((k) => [k, elementValue(f, v[k])]));
    } else if (v === undefined || v === null) {
      // Go writes non-pointer fields whatever their value (a nil []byte excepted).
      if (!f.pointer && f.type !== 'bytes') out[key] = isScalar(f.type) ? scalarValue(f.type, undefined) : messageValue(f.type, undefined);
    } else {
      out[key] = elementValue(f, v);
    }
  }
  return out;
}

function elementValue(f: FieldDef, v: unknown): unknown {
  return isScalar(f.type) ? scalarValue(f.type, v) : messageValue(f.type, v);
}

function scalarValue(type: Scalar, v: unknown): unknown {
  switch (type) {
    case 'string':
      return v === undefined || v === null ? '' : String(v as string);
    case 'bool':
      return v === true;
    case 'bytes':
      return typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.alloc(0);
    default:
      return typeof v === 'number' ? v : Number(v ?? 0);
  }
}

function specialValue(def: TypeDef, json: unknown): Message {
  switch (def.special) {
    case 'time':
    case 'microTime': {
      if (typeof json !== 'string') return {}; // zero time: Go writes an empty message
      const ms = Date.parse(json);
      if (Number.isNaN(ms)) throw new Error(`protobuf: ${JSON.stringify(json)} is not an RFC 3339 time`);
      const seconds = Math.floor(ms / 1000);
      // metav1.Time drops the fraction on the wire; MicroTime keeps microseconds.
      const digits = def.special === 'microTime' ? (/\.(\d+)/.exec(json)?.[1] ?? '') : '';
      return { seconds, nanos: Number(digits.slice(0, 6).padEnd(9, '0')) };
    }
    case 'duration':
      return { duration: typeof json === 'string' ? parseGoDuration(json).toString() : 0 };
    case 'quantity':
      return { string: json === undefined || json === null ? '0' : String(json as string) };
    case 'intOrString':
      return typeof json === 'string' ? { type: 1, intVal: 0, strVal: json } : { type: 0, intVal: Number(json ?? 0), strVal: '' };
    case 'rawExtension':
    case 'fieldsV1':
    case 'json':
      return json === undefined || json === null ? {} : { [protoFieldName(def.fields[0])]: Buffer.from(JSON.stringify(json)) };
    case 'stringList':
      return Array.isArray(json) ? { items: json.map((s) => String(s)) } : {};
    case 'jsonSchemaPropsOrArray':
      if (Array.isArray(json)) return { jSONSchemas: json.map((s) => messageValue(fieldOf(def, 'jSONSchemas').type, s)) };
      return isPlainObject(json) ? { schema: messageValue(fieldOf(def, 'schema').type, json) } : {};
    case 'jsonSchemaPropsOrBool':
      if (isPlainObject(json)) return { allows: true, schema: messageValue(fieldOf(def, 'schema').type, json) };
      return { allows: json === true };
    case 'jsonSchemaPropsOrStringArray':
      if (Array.isArray(json)) return { property: json.map((s) => String(s)) };
      return isPlainObject(json) ? { schema: messageValue(fieldOf(def, 'schema').type, json) } : {};
    default:
      throw new Error(`protobuf: special type ${String(def.special)} of ${def.name} has no protobuf form`);
  }
}
