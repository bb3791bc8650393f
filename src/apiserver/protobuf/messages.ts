// protobufjs message types built from the built-in type catalog, each once and only when first
// needed (a request for a ConfigMap builds ConfigMap, ObjectMeta and what they reference, nothing else).
import protobuf from 'protobufjs';
import { type FieldDef, isScalar, type TypeDef, typeDef } from '../types/index.js';

/** The catalog's scalars as protobuf scalar types. */
const PROTO_SCALARS: Record<string, string> = { string: 'string', bool: 'bool', int32: 'int32', int64: 'int64', float64: 'double', bytes: 'bytes' };

const root = new protobuf.Root();
const built = new Map<string, protobuf.Type>();

/** The catalog's facts for a type; throws for a type the catalog does not describe. */
export function facts(name: string): TypeDef {
  const def = typeDef(name);
  if (!def) throw new Error(`protobuf: the type catalog does not describe ${name}`);
  return def;
}

/** The message type for a catalog type (`io.k8s.api.core.v1.ConfigMap`), built with everything it references. */
export function messageType(name: string): protobuf.Type {
  const done = built.get(name);
  if (done) return done;
  const pending: string[] = [];
  const type = declare(name, pending);
  // Referenced types are declared before any is used: protobufjs resolves field types on first encode/decode.
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) declare(next, pending);
  return type;
}

function declare(name: string, pending: string[]): protobuf.Type {
  const done = built.get(name);
  if (done) return done;
  const def = facts(name);
  const type = new protobuf.Type(protoName(name));
  for (const f of def.fields) {
    const fieldType = isScalar(f.type) ? PROTO_SCALARS[f.type] : protoName(f.type);
    type.add(protoField(f, fieldType));
    if (!isScalar(f.type) && !built.has(f.type)) pending.push(f.type);
  }
  root.add(type);
  built.set(name, type);
  return type;
}

/** The message field of a catalog field, under its protobuf name (the JSON name may be `$ref`). */
function protoField(f: FieldDef, fieldType: string): protobuf.FieldBase {
  const name = protoFieldName(f);
  if (f.map) return new protobuf.MapField(name, f.no, 'string', fieldType);
  return new protobuf.Field(name, f.no, fieldType, f.list ? 'repeated' : 'optional');
}

export function protoFieldName(f: FieldDef): string {
  return f.protoName ?? f.name;
}

/** Catalog names have dots and dashes; the protobuf root holds each type flat under a name protobufjs can use in generated code. */
function protoName(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, '_');
}
