// OpenAPI definitions of the built-in types, derived from the type catalog (src/apiserver/types):
// one definition per catalog type under upstream's name (io.k8s.api.core.v1.Pod), each field typed
// from its Go shape, list and map semantics taken from what the field manager knows of the built-in
// kinds (fieldmanager/builtin-kinds.ts), and x-kubernetes-group-version-kind on the kinds.
import { builtinKindSchema } from '../fieldmanager/builtin-kinds.js';
import type { SchemaNode } from '../fieldmanager/schema.js';
import { BUILTIN_TYPES, groupVersion } from '../resources.js';
import { allKinds, allTypes, type FieldDef, isScalar, kindType, requestBodyType, type Scalar, type TypeDef, typeDef } from '../types/index.js';
import { jsonFields } from '../types/json-fields.js';
import { DELETE_OPTIONS, type Flavor, GVK_EXTENSION, type Gvk, PATCH, refWith, type Schema, STATUS, WATCH_EVENT } from './schema.js';

const SCALAR_SCHEMAS: Record<Scalar, Schema> = {
  string: { type: 'string' },
  bool: { type: 'boolean' },
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  float64: { type: 'number', format: 'double' },
  bytes: { type: 'string', format: 'byte' },
};

/** Types whose JSON form is not an object of their fields (see catalog.ts `Special`), as upstream publishes them. */
function specialSchema(t: TypeDef, flavor: Flavor): Schema {
  switch (t.special) {
    case 'time':
    case 'microTime':
      return { type: 'string', format: 'date-time' };
    case 'duration':
      return { type: 'string' };
    case 'quantity':
      return flavor === 'v2' ? { type: 'string' } : { oneOf: [{ type: 'string' }, { type: 'number' }] };
    case 'intOrString':
      return flavor === 'v2' ? { type: 'string', format: 'int-or-string' } : { oneOf: [{ type: 'integer' }, { type: 'string' }], format: 'int-or-string' };
    case 'rawExtension':
    case 'fieldsV1':
      return { type: 'object' };
    case 'stringList':
      return { type: 'array', items: { type: 'string' } };
    default:
      // apiextensions JSON and the JSONSchemaPropsOr* unions: any value.
      return {};
  }
}

// ---- list and map semantics ----

/** Extensions per `type\0field` (on the property) and per type (on the definition). */
interface Semantics {
  fields: Map<string, Schema>;
  types: Map<string, Schema>;
}

function fieldExtensions(node: SchemaNode, list: boolean): Schema {
  const ext: Schema = {};
  if (list) {
    if (node.listType) ext['x-kubernetes-list-type'] = node.listType;
    if (node.listType === 'map' && node.listMapKeys) ext['x-kubernetes-list-map-keys'] = node.listMapKeys;
  }
  if (node.patchStrategy) ext['x-kubernetes-patch-strategy'] = node.patchStrategy;
  if (node.patchMergeKey) ext['x-kubernetes-patch-merge-key'] = node.patchMergeKey;
  return ext;
}

/** Walks a kind's field-manager schema alongside its catalog type and notes what it says per field and type. */
function collectSemantics(node: SchemaNode, t: TypeDef, sem: Semantics): void {
  for (const f of jsonFields(t)) {
    const child = node.properties?.[f.name];
    if (child === undefined) continue;
    const ext = fieldExtensions(child, f.list);
    if (f.map && child.mapType === 'atomic') ext['x-kubernetes-map-type'] = 'atomic';
    const key = `${t.name}\0${f.name}`;
    if (Object.keys(ext).length > 0 && !sem.fields.has(key)) sem.fields.set(key, ext);
    const inner = isScalar(f.type) ? undefined : typeDef(f.type);
    if (inner === undefined || inner.special !== undefined) continue;
    const valueNode = f.list ? child.items : f.map ? child.additionalProperties : child;
    if (valueNode === undefined) continue;
    if (valueNode.mapType === 'atomic' && !sem.types.has(inner.name)) sem.types.set(inner.name, { 'x-kubernetes-map-type': 'atomic' });
    collectSemantics(valueNode, inner, sem);
  }
}

// ---- kinds ----

/** The group-version-kinds each catalog type is served as (kinds and their lists). */
function kindsByType(): Map<string, Gvk[]> {
  const out = new Map<string, Gvk[]>();
  const add = (type: string, gvk: Gvk) => out.set(type, [...(out.get(type) ?? []), gvk]);
  for (const k of allKinds()) {
    add(k.type, { group: k.group, version: k.version, kind: k.kind });
    if (typeDef(`${k.type}List`)) add(`${k.type}List`, { group: k.group, version: k.version, kind: `${k.kind}List` });
  }
  // The create-only kinds (access reviews) are request bodies, served without lists.
  for (const t of BUILTIN_TYPES) if (t.createOnly) add(builtinTypeName(t), { group: t.group, version: t.version, kind: t.kind });
  add(STATUS, { group: '', version: 'v1', kind: 'Status' });
  // DeleteOptions and WatchEvent are registered in every group version the server serves.
  const gvs = [...new Map(BUILTIN_TYPES.map((t) => [groupVersion(t), { group: t.group, version: t.version }])).values()];
  for (const gv of gvs) {
    add(DELETE_OPTIONS, { ...gv, kind: 'DeleteOptions' });
    add(WATCH_EVENT, { ...gv, kind: 'WatchEvent' });
  }
  return out;
}

// ---- definitions ----

function propertySchema(f: FieldDef, flavor: Flavor, ext: Schema | undefined): Schema {
  let value: Schema;
  if (isScalar(f.type)) value = { ...SCALAR_SCHEMAS[f.type] };
  else if (typeDef(f.type)) value = refWith(f.type, flavor, f.list || f.map ? {} : (ext ?? {}));
  else value = {}; // a type the catalog does not describe yet: any value
  if (f.list) return { type: 'array', items: value, ...(ext ?? {}) };
  if (f.map) return { type: 'object', additionalProperties: value, ...(ext ?? {}) };
  if (isScalar(f.type) && ext) return { ...value, ...ext };
  return value;
}

/**
 * Required fields as far as the catalog tells: a non-pointer field without omitempty, except lists,
 * maps and bytes (Go writes them as null, and upstream marks many of them optional). Upstream's
 * `+optional` markers are not in the catalog, so this errs on the side of optional.
 */
function isRequired(f: FieldDef): boolean {
  return !f.omitEmpty && !f.pointer && !f.list && !f.map && f.type !== 'bytes';
}

function definition(t: TypeDef, flavor: Flavor, sem: Semantics, gvks: Gvk[] | undefined): Schema {
  if (t.special !== undefined) return specialSchema(t, flavor);
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  if (gvks) {
    properties.apiVersion = { type: 'string' };
    properties.kind = { type: 'string' };
  }
  for (const f of jsonFields(t)) {
    if (properties[f.name]) continue;
    properties[f.name] = propertySchema(f, flavor, sem.fields.get(`${t.name}\0${f.name}`));
    if (isRequired(f)) required.push(f.name);
  }
  const out: Schema = { type: 'object', properties };
  if (required.length > 0) out.required = required;
  Object.assign(out, sem.types.get(t.name) ?? {});
  if (gvks) out[GVK_EXTENSION] = gvks;
  return out;
}

/** All built-in definitions of one flavour, by name. Computed on first use and shared by every cluster. */
export function builtinDefinitions(flavor: Flavor): ReadonlyMap<string, Schema> {
  let defs = cache.get(flavor);
  if (defs === undefined) {
    const sem: Semantics = { fields: new Map(), types: new Map() };
    for (const k of allKinds()) {
      const t = typeDef(k.type);
      if (t) collectSemantics(builtinKindSchema(k.group, k.kind), t, sem);
    }
    const gvks = kindsByType();
    const out = new Map<string, Schema>();
    for (const t of allTypes()) out.set(t.name, definition(t, flavor, sem, gvks.get(t.name)));
    // The body of a PATCH request: any object (its media type says how to read it).
    out.set(PATCH, { type: 'object' });
    defs = out;
    cache.set(flavor, defs);
  }
  return defs;
}

const cache = new Map<Flavor, ReadonlyMap<string, Schema>>();

/** The definition name of a served built-in kind (or its list). The catalog describes every served kind (its tests say so). */
export function builtinTypeName(t: { group: string; version: string; kind: string; createOnly?: boolean }, list = false): string {
  const def = kindType(t.group, t.version, t.kind) ?? (t.createOnly ? requestBodyType(t.group, t.version, t.kind) : undefined);
  if (!def) throw new Error(`${t.group}/${t.version} ${t.kind} is served but not in the type catalog`);
  return list ? `${def.name}List` : def.name;
}
