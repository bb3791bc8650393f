// What the OpenAPI builders share: the two flavours (v2 definitions, v3 components) and references.

export type Schema = Record<string, unknown>;

/** `v2`: a Swagger 2.0 definition (`#/definitions/...`); `v3`: an OpenAPI 3.0 component (`#/components/schemas/...`). */
export type Flavor = 'v2' | 'v3';

const REF_PREFIX: Record<Flavor, string> = { v2: '#/definitions/', v3: '#/components/schemas/' };

export function ref(name: string, flavor: Flavor): Schema {
  return { $ref: REF_PREFIX[flavor] + name };
}

/** The definition name a `$ref` points at. */
export function refName(schemaRef: string): string {
  return schemaRef.slice(schemaRef.lastIndexOf('/') + 1);
}

/** A reference with sibling keywords: v2 keeps them next to `$ref`; v3 wraps the reference in allOf, as kube-openapi does. */
export function refWith(name: string, flavor: Flavor, extra: Schema): Schema {
  if (Object.keys(extra).length === 0) return ref(name, flavor);
  return flavor === 'v2' ? { ...ref(name, flavor), ...extra } : { allOf: [ref(name, flavor)], ...extra };
}

export interface Gvk {
  group: string;
  version: string;
  kind: string;
}

export const GVK_EXTENSION = 'x-kubernetes-group-version-kind';

/** Names of the meta/v1 definitions every resource's operations refer to. */
export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const OBJECT_META = `${META}.ObjectMeta`;
export const LIST_META = `${META}.ListMeta`;
export const STATUS = `${META}.Status`;
export const DELETE_OPTIONS = `${META}.DeleteOptions`;
export const WATCH_EVENT = `${META}.WatchEvent`;
export const PATCH = `${META}.Patch`;
export const SCALE = 'io.k8s.api.autoscaling.v1.Scale';

/** Every definition a set of roots reaches through `$ref`, roots included, in a stable order. */
export function referenceClosure(roots: Iterable<string>, definitions: ReadonlyMap<string, Schema>): string[] {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const name = stack.pop() as string;
    if (seen.has(name) || !definitions.has(name)) continue;
    seen.add(name);
    collectRefs(definitions.get(name), stack);
  }
  return [...seen].sort();
}

/** The definitions a value (paths, a schema) refers to. */
export function refsIn(v: unknown): string[] {
  const out: string[] = [];
  collectRefs(v, out);
  return out;
}

function collectRefs(v: unknown, out: string[]): void {
  if (Array.isArray(v)) {
    for (const x of v) collectRefs(x, out);
  } else if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') out.push(refName(x));
      else collectRefs(x, out);
    }
  }
}
