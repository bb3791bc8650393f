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
  const kind: Schema = flavor === 'v2' ? toV2(root) : root;
  // A root that keeps unknown fields stays open in v2 (no type, no properties): kubectl's v2
  // validation would otherwise reject every field but the ones added here.
  const openV2Root = flavor === 'v2' && root['x-kubernetes-preserve-unknown-fields'] === true;
  if (!openV2Root) {
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
 * What Swagger 2.0 cannot say, left out as kube-apiserver does for its v2 document: no oneOf/anyOf/
 * allOf/not, and nullable, int-or-string, preserve-unknown-fields and embedded-resource nodes lose
 * their type (and the last three their items and properties) so that kubectl does not reject values
 * the server accepts.
 */
function toV2(s: Schema): Schema {
  const out: Schema = { ...s };
  for (const k of ['oneOf', 'anyOf', 'allOf', 'not', 'nullable']) delete out[k];
  const open = s['x-kubernetes-preserve-unknown-fields'] === true || s['x-kubernetes-embedded-resource'] === true || s.nullable === true;
  if (open) {
    delete out.type;
    delete out.items;
    delete out.properties;
    delete out.additionalProperties;
  }
  if (s['x-kubernetes-int-or-string'] === true) delete out.type;
  if (isPlainObject(out.properties)) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, isPlainObject(v) ? toV2(v) : v]));
  }
  if (isPlainObject(out.items)) out.items = toV2(out.items);
  if (isPlainObject(out.additionalProperties)) out.additionalProperties = toV2(out.additionalProperties);
  return out;
}
