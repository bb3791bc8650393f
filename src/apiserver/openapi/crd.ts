// OpenAPI definitions of a custom resource, from its CRD version's openAPIV3Schema as kube-apiserver
// publishes them: apiVersion, kind and metadata added to the root, x-kubernetes-group-version-kind
// set, a <Kind>List definition next to it; for v2 the schema is reduced to what Swagger 2.0 and
// kubectl's v2 validation understand.
import { deepClone, isPlainObject } from '../../kube/json.js';
import type { ResourceType } from '../resources.js';
import { type Flavor, GVK_EXTENSION, LIST_META, OBJECT_META, ref, type Schema } from './schema.js';

/** Upstream's definition name of a custom kind: the group's domain reversed, then version and kind (`io.cert-manager.v1.Certificate`). */
export function crdTypeName(t: { group: string; version: string; kind: string }): string {
  return `${t.group.split('.').reverse().join('.')}.${t.version}.${t.kind}`;
}

/** The kind's and its list's definitions for one served version of a CRD. */
export function crdDefinitions(t: ResourceType, flavor: Flavor): [string, Schema][] {
  const raw = (t.crd?.version.schema as { openAPIV3Schema?: unknown } | undefined)?.openAPIV3Schema;
  const root: Schema = isPlainObject(raw) ? deepClone(raw) : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  // A root that keeps unknown fields is published in v2 as a bare object (no properties, not even
  // apiVersion, kind and metadata): kubectl's v2 validation would otherwise reject every other field.
  const openV2Root = flavor === 'v2' && root['x-kubernetes-preserve-unknown-fields'] === true;
  let kind: Schema;
  if (openV2Root) kind = { type: 'object' };
  else {
    kind = flavor === 'v2' ? toV2(root) : root;
    kind.type ??= 'object';
    const properties = isPlainObject(kind.properties) ? kind.properties : {};
    kind.properties = { ...properties, apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: ref(OBJECT_META, flavor) };
  }
  kind[GVK_EXTENSION] = [{ group: t.group, version: t.version, kind: t.kind }];
  const name = crdTypeName(t);
  const list: Schema = {
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string' },
      items: { type: 'array', items: ref(name, flavor) },
      kind: { type: 'string' },
      metadata: ref(LIST_META, flavor),
    },
    [GVK_EXTENSION]: [{ group: t.group, version: t.version, kind: t.listKind }],
  };
  return [
    [name, kind],
    [crdTypeName({ ...t, kind: t.listKind }), list],
  ];
}

/**
 * What Swagger 2.0 and kubectl's v2 parser cannot say, left out as kube-apiserver's
 * ToStructuralOpenAPIV2 does: no oneOf/anyOf/allOf/not; a nullable node loses its type, items and
 * properties (and is no longer required by its parent); a node that keeps unknown fields loses its
 * items and properties but keeps its type (an object without properties is a map of anything to
 * kubectl); an array left without items loses its type. Embedded resources are treated like nodes
 * that keep unknown fields (upstream lists apiVersion, kind and metadata for them instead).
 * Int-or-string nodes have no type in a structural schema, so they end up untyped.
 */
function toV2(s: Schema): Schema {
  const out: Schema = { ...s };
  for (const k of ['oneOf', 'anyOf', 'allOf', 'not', 'nullable']) delete out[k];
  if (s.nullable === true) delete out.type;
  if (s.nullable === true || s['x-kubernetes-preserve-unknown-fields'] === true || s['x-kubernetes-embedded-resource'] === true) {
    delete out.items;
    delete out.properties;
  }
  if (s['x-kubernetes-int-or-string'] === true) delete out.type;
  if (out.type === 'array' && out.items === undefined) delete out.type;
  if (isPlainObject(out.properties)) {
    const properties = out.properties;
    out.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, isPlainObject(v) ? toV2(v) : v]));
    if (Array.isArray(out.required)) {
      const required = out.required.filter((name) => !(isPlainObject(properties[name as string]) && (properties[name as string] as Schema).nullable === true));
      if (required.length > 0) out.required = required;
      else delete out.required;
    }
  }
  if (isPlainObject(out.items)) out.items = toV2(out.items);
  if (isPlainObject(out.additionalProperties)) {
    if (out.additionalProperties.nullable === true) delete out.required;
    out.additionalProperties = toV2(out.additionalProperties);
  }
  return out;
}
