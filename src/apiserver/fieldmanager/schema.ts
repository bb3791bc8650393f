// What the merge logic needs to know about an object's structure, and how to read it.
import { type JsonValue, isPlainObject } from '../../kube/json.js';
import { builtinKindSchema, objectMetaSchema } from './builtin-kinds.js';

export interface SchemaNode {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode; // map values (e.g. labels, data)
  items?: SchemaNode;
  listType?: 'atomic' | 'set' | 'map'; // SSA list semantics (x-kubernetes-list-type)
  listMapKeys?: string[]; // x-kubernetes-list-map-keys
  mapType?: 'granular' | 'atomic'; // x-kubernetes-map-type / structType
  patchStrategy?: 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys'; // strategic merge patch
  patchMergeKey?: string;
  preserveUnknownFields?: boolean;
  /** Values the server fills in for list-map keys an item leaves out (Service and container ports: protocol TCP). */
  listMapKeyDefaults?: Record<string, JsonValue>;
  /**
   * Built-in kinds only: the field is present in a freshly made (zero) Go object, as `{}` for a struct
   * or `null` for a slice or map without omitempty. Ownership on create is computed against that object.
   */
  inZeroObject?: boolean;
}

export type ListSemantics = { kind: 'atomic' } | { kind: 'set' } | { kind: 'map'; keys: string[] };

/** SSA list semantics; untagged lists with a strategic merge key behave as maps keyed by it, as upstream's schema conversion does. */
export function listSemantics(node: SchemaNode | undefined): ListSemantics {
  if (node === undefined) return { kind: 'atomic' };
  if (node.listType === 'map' && node.listMapKeys && node.listMapKeys.length > 0) return { kind: 'map', keys: node.listMapKeys };
  if (node.listType === 'set') return { kind: 'set' };
  if (node.listType === 'atomic') return { kind: 'atomic' };
  if (node.patchStrategy !== undefined && node.patchStrategy.includes('merge')) {
    return node.patchMergeKey ? { kind: 'map', keys: [node.patchMergeKey] } : { kind: 'set' };
  }
  return { kind: 'atomic' };
}

/** The schema of a map's child, and whether it is a declared struct field (which changes SSA ownership of the node itself). */
export function childOf(node: SchemaNode | undefined, key: string): { schema: SchemaNode | undefined; declared: boolean } {
  const declaredField = node?.properties?.[key];
  if (declaredField !== undefined) return { schema: declaredField, declared: true };
  return { schema: node?.additionalProperties, declared: false };
}

export function isAtomicMap(node: SchemaNode | undefined): boolean {
  return node?.mapType === 'atomic';
}

const zeroObjects = new WeakMap<SchemaNode, Record<string, JsonValue>>();

/** The zero-valued object of a built-in kind (see `inZeroObject`); `{}` for schemas without that knowledge. Shared: do not mutate. */
export function zeroObject(node: SchemaNode): Record<string, JsonValue> {
  let zero = zeroObjects.get(node);
  if (zero === undefined) {
    zero = {};
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      if (!child.inZeroObject) continue;
      zero[name] = child.properties !== undefined ? zeroObject(child) : null;
    }
    zeroObjects.set(node, zero);
  }
  return zero;
}

// ---- OpenAPI (CRD) schemas ----

/** Converts a CRD version's `schema.openAPIV3Schema` (JSONSchemaProps) into a SchemaNode. */
export function schemaFromOpenAPI(openAPIV3Schema: unknown): SchemaNode {
  const root = convertProps(openAPIV3Schema);
  // Every custom resource carries standard object metadata, whatever its schema says.
  root.properties = { ...(root.properties ?? {}), metadata: objectMetaSchema };
  if (root.type === undefined) root.type = 'object';
  return root;
}

function convertProps(raw: unknown): SchemaNode {
  if (!isPlainObject(raw)) return {};
  const node: SchemaNode = {};
  const t = raw.type;
  if (t === 'object' || t === 'array' || t === 'string' || t === 'integer' || t === 'number' || t === 'boolean') node.type = t;
  if (isPlainObject(raw.properties)) {
    node.properties = {};
    for (const [name, child] of Object.entries(raw.properties)) node.properties[name] = convertProps(child);
  }
  if (isPlainObject(raw.additionalProperties)) node.additionalProperties = convertProps(raw.additionalProperties);
  else if (raw.additionalProperties === true) node.additionalProperties = {};
  if (isPlainObject(raw.items)) node.items = convertProps(raw.items);
  const listType = raw['x-kubernetes-list-type'];
  if (listType === 'atomic' || listType === 'set' || listType === 'map') node.listType = listType;
  const keys = raw['x-kubernetes-list-map-keys'];
  if (Array.isArray(keys)) node.listMapKeys = keys.filter((k): k is string => typeof k === 'string');
  const mapType = raw['x-kubernetes-map-type'];
  if (mapType === 'atomic' || mapType === 'granular') node.mapType = mapType;
  if (raw['x-kubernetes-preserve-unknown-fields'] === true) node.preserveUnknownFields = true;
  if (raw['x-kubernetes-embedded-resource'] === true) {
    node.properties = { ...(node.properties ?? {}), metadata: objectMetaSchema };
  }
  return node;
}

/** Structure of a built-in kind (group '' for core). Unknown kinds get a permissive default (granular maps, atomic lists). */
export function builtinSchema(group: string, kind: string): SchemaNode {
  return builtinKindSchema(group, kind);
}

export { objectMetaSchema };
