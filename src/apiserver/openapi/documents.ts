// The OpenAPI documents of a logical cluster: /openapi/v2 (one document, JSON or protobuf) and
// /openapi/v3 (a discovery document naming one document per group version, each with the hash
// of its content).
//
// Cost: nothing is built before someone asks. The built-in part (definitions, paths, the v3
// documents of the built-in group versions, the v2 document's built-in half in JSON and protobuf)
// is built once and shared by every cluster. A cluster keeps only what its CRDs add, built on
// request and kept until its custom types change (a CRD written, established or deleted), and
// shared with every cluster whose CRDs are the same.
import { createHash } from 'node:crypto';
import type { LogicalCluster } from '../cluster.js';
import { SERVER_VERSION } from '../discovery.js';
import { BUILTIN_TYPES, type ResourceType } from '../resources.js';
import { builtinDefinitions, builtinTypeName } from './builtin.js';
import { crdDefinitions, crdTypeName } from './crd.js';
import { encodeDefinitions, encodeHead, encodePaths } from './gnostic.js';
import { type PathItem, resourcePaths } from './paths.js';
import { type Flavor, referenceClosure, refsIn, type Schema } from './schema.js';

const INFO = { title: 'Kubernetes', version: SERVER_VERSION.gitVersion };

/** A served document: its JSON text and the hash kube-apiserver uses as ETag and `?hash=` (SHA-512, upper-case hex). */
export interface Served {
  json: string;
  etag: string;
}

export function etagOf(...parts: (string | Buffer)[]): string {
  const h = createHash('sha512');
  for (const p of parts) h.update(p);
  return h.digest('hex').toUpperCase();
}

/** `api/v1` or `apis/<group>/<version>`: the document's path below /openapi/v3/. */
export function gvPath(t: { group: string; version: string }): string {
  return t.group === '' ? `api/${t.version}` : `apis/${t.group}/${t.version}`;
}

function typeNames(t: ResourceType): { kind: string; list: string } {
  return t.crd ? { kind: crdTypeName(t), list: crdTypeName({ ...t, kind: t.listKind }) } : { kind: builtinTypeName(t), list: builtinTypeName(t, true) };
}

function pathsOf(types: ResourceType[], flavor: Flavor): Record<string, PathItem> {
  const out: Record<string, PathItem> = {};
  for (const t of types) for (const [path, item] of resourcePaths(t, typeNames(t), flavor)) out[path] = item;
  return out;
}

/** The inside of a JSON object's braces, to splice documents from shared and per-cluster parts. */
function members(o: Record<string, unknown>): string {
  return JSON.stringify(o).slice(1, -1);
}

/** Two runs of object members, comma-separated when both have some. */
function joined(a: string, b: string): string[] {
  return a && b ? [a, ',', b] : [a || b];
}

// ---- built-in part, shared ----

interface BuiltinV2 {
  pathsJson: string;
  definitionsJson: string;
  protobuf: Buffer;
  etag: string;
}

let builtinV2: BuiltinV2 | undefined;
let builtinV3: Map<string, Served> | undefined;

function sharedV2(): BuiltinV2 {
  if (!builtinV2) {
    const paths = pathsOf([...BUILTIN_TYPES], 'v2');
    const definitions = Object.fromEntries(builtinDefinitions('v2'));
    const pathsJson = members(paths);
    const definitionsJson = members(definitions);
    const protobuf = Buffer.concat([encodeHead({ swagger: '2.0', info: INFO }), encodePaths(paths), encodeDefinitions(definitions)]);
    builtinV2 = { pathsJson, definitionsJson, protobuf, etag: etagOf(pathsJson, definitionsJson) };
  }
  return builtinV2;
}

function byGroupVersion(types: readonly ResourceType[]): Map<string, ResourceType[]> {
  const out = new Map<string, ResourceType[]>();
  for (const t of types) out.set(gvPath(t), [...(out.get(gvPath(t)) ?? []), t]);
  return out;
}

/** One group version's v3 document: its paths and every component they reach. */
function v3Document(types: ResourceType[], definitions: ReadonlyMap<string, Schema>): Served {
  const paths = pathsOf(types, 'v3');
  const schemas = Object.fromEntries(referenceClosure(refsIn(paths), definitions).map((n) => [n, definitions.get(n)]));
  const json = JSON.stringify({ openapi: '3.0.0', info: INFO, paths, components: { schemas } });
  return { json, etag: etagOf(json) };
}

function sharedV3(): Map<string, Served> {
  if (!builtinV3) {
    builtinV3 = new Map();
    const defs = builtinDefinitions('v3');
    for (const [gv, types] of byGroupVersion(BUILTIN_TYPES)) builtinV3.set(gv, v3Document(types, defs));
  }
  return builtinV3;
}

// ---- per cluster ----

interface ClusterDocs {
  /** The custom types these documents were built from (new objects whenever a CRD changes). */
  types: ResourceType[];
  v2?: V2;
  v3?: Map<string, Served>;
  discovery?: Served;
}

const perCluster = new WeakMap<LogicalCluster, ClusterDocs>();

function docsOf(c: LogicalCluster): ClusterDocs {
  const types = c.customTypeList();
  let d = perCluster.get(c);
  if (!d || d.types.length !== types.length || d.types.some((t, i) => t !== types[i])) {
    d = { types };
    perCluster.set(c, d);
  }
  return d;
}

function customDefinitions(types: ResourceType[], flavor: Flavor): Map<string, Schema> {
  return new Map(types.flatMap((t) => crdDefinitions(t, flavor)));
}

// Documents built from equal custom types are equal: clusters with the same CRDs (a fleet's runtimes,
// installed from the same manifests) share one copy, found by the types' content. The cache holds
// them weakly: a document goes when no cluster keeps it.
const byContent = new Map<string, WeakRef<object>>();
const forget = new FinalizationRegistry<string>((key) => {
  if (byContent.get(key)?.deref() === undefined) byContent.delete(key);
});

function sharedByContent<T extends object>(key: string, build: () => T): T {
  const known = byContent.get(key)?.deref();
  if (known) return known as T;
  const built = build();
  byContent.set(key, new WeakRef(built));
  forget.register(built, key);
  return built;
}

/** What the documents of these types depend on, hashed. */
function contentKey(kind: string, types: ResourceType[]): string {
  const h = createHash('sha256').update(kind);
  for (const t of types) h.update(JSON.stringify([t.group, t.version, t.resource, t.kind, t.listKind, t.namespaced, t.verbs, t.crd?.name, t.crd?.version]));
  return h.digest('base64');
}

type V2 = { json: string[]; protobuf: Buffer[]; etag: string };

function customV2(types: ResourceType[]): V2 {
  const shared = sharedV2();
  const head = `{"swagger":"2.0","info":${JSON.stringify(INFO)},"paths":{`;
  if (types.length === 0) return { json: [head, shared.pathsJson, '},"definitions":{', shared.definitionsJson, '}}'], protobuf: [shared.protobuf], etag: shared.etag };
  const paths = pathsOf(types, 'v2');
  const definitions = Object.fromEntries(customDefinitions(types, 'v2'));
  const pathsJson = members(paths);
  const definitionsJson = members(definitions);
  return {
    json: [head, ...joined(shared.pathsJson, pathsJson), '},"definitions":{', ...joined(shared.definitionsJson, definitionsJson), '}}'],
    protobuf: [shared.protobuf, encodePaths(paths), encodeDefinitions(definitions)],
    etag: etagOf(shared.etag, pathsJson, definitionsJson),
  };
}

/** /openapi/v2: the JSON text in pieces (shared ones and the cluster's), its protobuf form likewise, and its ETag. */
export function openApiV2(c: LogicalCluster): V2 {
  const d = docsOf(c);
  d.v2 ??= sharedByContent(contentKey('v2', d.types), () => customV2(d.types));
  return d.v2;
}

function customV3(c: LogicalCluster, d: ClusterDocs): Map<string, Served> {
  if (!d.v3) {
    d.v3 = new Map();
    const customGvs = new Set(d.types.map(gvPath));
    let defs: Map<string, Schema> | undefined;
    const definitions = () => {
      if (!defs) {
        defs = new Map(builtinDefinitions('v3'));
        for (const [name, s] of customDefinitions(d.types, 'v3')) defs.set(name, s);
      }
      return defs;
    };
    // A group version with a custom type gets its own document (built-in types of it included).
    for (const [gv, types] of byGroupVersion(c.servedTypes())) {
      if (customGvs.has(gv)) d.v3.set(gv, sharedByContent(contentKey(`v3 ${gv}`, types), () => v3Document(types, definitions())));
    }
  }
  return d.v3;
}

/** /openapi/v3/<gv>: the group version's document, or undefined when the cluster serves no such group version. */
export function openApiV3(c: LogicalCluster, gv: string): Served | undefined {
  return customV3(c, docsOf(c)).get(gv) ?? sharedV3().get(gv);
}

/** /openapi/v3: every group version's document with the URL (and hash) to fetch it. */
export function openApiV3Discovery(c: LogicalCluster): Served {
  const d = docsOf(c);
  if (!d.discovery) {
    const all = new Map([...sharedV3(), ...customV3(c, d)]);
    const paths = Object.fromEntries([...all.keys()].sort().map((gv) => [gv, { serverRelativeURL: `/openapi/v3/${gv}?hash=${all.get(gv)?.etag}` }]));
    const json = JSON.stringify({ paths });
    d.discovery = { json, etag: etagOf(json) };
  }
  return d.discovery;
}
