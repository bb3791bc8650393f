// Test support: replays the write requests of a conformance scenario through this module alone (an
// in-memory stand-in for the API server core), so tests can hold managedFields and merged objects to the golden.
import { StatusError } from '../../src/apiserver/errors.js';
import { type JsonObject, type JsonValue, isPlainObject } from '../../src/kube/json.js';
import type { ObjectWithMeta } from '../../src/kube/object.js';
import { loadGolden, loadScenario } from '../conformance/corpus.js';
import { applyPatch, recordUpdate } from '../../src/apiserver/fieldmanager/managed.js';
import { copyJson } from '../../src/apiserver/fieldmanager/merge.js';
import type { SchemaNode } from '../../src/apiserver/fieldmanager/schema.js';
import { strategicMergePatch } from '../../src/apiserver/fieldmanager/strategic.js';

export interface Response {
  status: number;
  body: JsonValue;
}

export interface ReplayOptions {
  schemaFor: (apiVersion: string, resource: string) => SchemaNode;
  /** Server defaulting for the kinds the scenario writes (run before managed fields are computed, as the server does on create/update). */
  applyDefaults?: (obj: ObjectWithMeta) => void;
  statusSubresource?: (resource: string) => boolean;
}

interface Parsed {
  apiVersion: string;
  resource: string;
  collection: string;
  name: string | undefined;
  subresource: string | undefined;
  query: URLSearchParams;
}

function parsePath(path: string): Parsed {
  const [p, q = ''] = path.split('?');
  const parts = p.split('/').filter(Boolean);
  let i: number;
  let apiVersion: string;
  if (parts[0] === 'api') {
    apiVersion = parts[1];
    i = 2;
  } else {
    apiVersion = `${parts[1]}/${parts[2]}`;
    i = 3;
  }
  if (parts[i] === 'namespaces' && parts.length > i + 2) i += 2;
  const resource = parts[i];
  return {
    apiVersion,
    resource,
    collection: parts.slice(0, i + 1).join('/'),
    name: parts[i + 1],
    subresource: parts[i + 2],
    query: new URLSearchParams(q),
  };
}

function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isPlainObject(patch)) return patch;
  const out: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function jsonPatch(target: JsonObject, ops: JsonValue): JsonObject {
  const out = copyJson(target);
  for (const op of ops as JsonObject[]) {
    const segs = String(op.path).split('/').slice(1);
    const last = segs.pop()!;
    let node: JsonValue = out;
    for (const s of segs) node = (node as JsonObject)[s];
    if (op.op === 'test') continue;
    if (Array.isArray(node)) {
      if (last === '-') node.push(op.value);
      else node[Number(last)] = op.value;
    } else (node as JsonObject)[last] = op.value;
  }
  return out;
}

function select(value: JsonValue, path: string | undefined): JsonValue {
  if (!path) return value;
  let v: JsonValue | undefined = value;
  for (const seg of path.split('.')) v = isPlainObject(v) ? v[seg] : undefined;
  return v ?? null;
}

/** Runs every request step; answers keyed by step id. Steps the field manager has no part in (errors of the core) are passed over. */
export function replay(scenario: string, opts: ReplayOptions): { answers: Map<string, Response>; golden: Map<string, Response> } {
  const sc = loadScenario(scenario);
  const golden = new Map<string, Response>();
  for (const s of loadGolden(scenario).steps as unknown as { id?: string; response?: Response }[]) {
    if (s.id && s.response) golden.set(s.id, s.response);
  }
  const store = new Map<string, ObjectWithMeta>();
  const answers = new Map<string, Response>();
  const uids = new Map<string, string>();
  for (const raw of sc.steps as unknown as Record<string, unknown>[]) {
    if (typeof raw.path !== 'string' || typeof raw.id !== 'string') continue;
    const id = raw.id;
    const method = (raw.method as string | undefined) ?? 'GET';
    const expected = golden.get(id);
    const isApply = raw.contentType === 'application/apply-patch+yaml';
    // Errors of the core (validation, preconditions) are not this module's; apply conflicts are.
    if (method !== 'GET' && expected !== undefined && expected.status >= 400 && !(isApply && expected.status === 409)) continue;
    let body = raw.body as JsonValue | undefined;
    if (body !== undefined) body = substitute(body, uids);
    const path = String(raw.path).replaceAll('{{ns}}', 'ns');
    const req = parsePath(path);
    if (req.resource === 'customresourcedefinitions' || req.resource === 'namespaces') continue;
    const key = method === 'POST' ? `${req.collection}/${(body as ObjectWithMeta).metadata.name}` : `${req.collection}/${req.name}`;
    const live = store.get(key);
    const schema = opts.schemaFor(req.apiVersion, req.resource);
    const statusSub = opts.statusSubresource?.(req.resource) ?? false;
    const manager = req.query.get('fieldManager') ?? 'unknown';
    const time = '2026-11-22T10:00:00Z';
    try {
      let result: ObjectWithMeta;
      let status = 200;
      if (method === 'GET') {
        if (!live || expected?.status !== 200) continue;
        result = live;
      } else if (method === 'DELETE') {
        // Deletion is the core's: only its effect on the stored object matters here.
        if (!live) continue;
        if ((live.metadata.finalizers ?? []).length === 0) store.delete(key);
        else {
          const deleting = copyJson(live);
          deleting.metadata.deletionTimestamp = time;
          deleting.metadata.deletionGracePeriodSeconds = 0;
          store.set(key, deleting);
        }
        continue;
      } else if (method === 'PATCH' && isApply) {
        if (!req.query.get('fieldManager')) continue;
        result = applyPatch({
          live,
          applied: body as ObjectWithMeta,
          previous: live?.metadata.managedFields ?? [],
          manager,
          apiVersion: req.apiVersion,
          subresource: req.subresource,
          time,
          force: req.query.get('force') === 'true',
          schema,
          statusSubresource: statusSub,
        });
        opts.applyDefaults?.(result);
        if (!live) {
          status = 201;
          result.metadata.uid = `uid#${uids.size + 1}`;
        }
        store.set(key, result);
      } else {
        let next: ObjectWithMeta;
        if (method === 'POST') next = copyJson(body as ObjectWithMeta);
        else if (method === 'PUT') next = copyJson(body as ObjectWithMeta);
        else if (raw.contentType === 'application/json-patch+json') next = jsonPatch(live as unknown as JsonObject, body!) as unknown as ObjectWithMeta;
        else if (raw.contentType === 'application/strategic-merge-patch+json') next = strategicMergePatch(copyJson(live) as unknown as JsonObject, body as JsonObject, schema) as unknown as ObjectWithMeta;
        else next = mergePatch(copyJson(live) as unknown as JsonValue, body!) as unknown as ObjectWithMeta;
        if (statusSub && req.subresource === 'status' && live) {
          // Writes to /status change nothing but status.
          next = { ...copyJson(live), status: next.status } as ObjectWithMeta;
          if (next.status === undefined) delete next.status;
        }
        if (statusSub && !live) delete next.status;
        if (live) {
          next.metadata.uid = live.metadata.uid;
          if (live.metadata.deletionTimestamp) next.metadata.deletionTimestamp = live.metadata.deletionTimestamp;
          if (statusSub && req.subresource !== 'status') {
            if (live.status === undefined) delete next.status;
            else next.status = live.status;
          }
        }
        opts.applyDefaults?.(next);
        next.metadata.managedFields = recordUpdate({
          oldObject: live,
          newObject: next,
          previous: live?.metadata.managedFields ?? next.metadata.managedFields ?? [],
          manager,
          apiVersion: req.apiVersion,
          subresource: req.subresource,
          time,
          schema,
          statusSubresource: statusSub,
        });
        if (!live) {
          status = 201;
          next.metadata.uid = `uid#${uids.size + 1}`;
          uids.set(id, next.metadata.uid);
        }
        result = next;
        store.set(key, result);
      }
      answers.set(id, { status, body: select(result as unknown as JsonValue, raw.select as string | undefined) });
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
      answers.set(id, { status: e.code, body: e.toStatus() as unknown as JsonValue });
    }
  }
  return { answers, golden };
}

/** Replaces `{{STEP.body.metadata.uid}}` with the uid the replay gave that step's object. */
function substitute(v: JsonValue, uids: Map<string, string>): JsonValue {
  if (typeof v === 'string') {
    const m = /^\{\{(\w+)\.body\.metadata\.uid\}\}$/.exec(v);
    return m ? (uids.get(m[1]) ?? v) : v;
  }
  if (Array.isArray(v)) return v.map((x) => substitute(x, uids));
  if (isPlainObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) out[k] = substitute(x, uids);
    return out;
  }
  return v;
}

/** What of an answer this module is responsible for: managedFields (times blanked, in the corpus's order) and the content outside server-owned metadata. */
export function comparable(body: JsonValue): JsonValue {
  if (!isPlainObject(body)) return body;
  if (body.kind === 'Status') return body;
  if (Array.isArray(body.managedFields)) return comparable({ metadata: body });
  const metadata = body.metadata;
  if (!isPlainObject(metadata)) return normalizeTimes(body);
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(body)) if (k !== 'metadata' && k !== 'apiVersion' && k !== 'kind') out[k] = normalizeTimes(v);
  const meta: JsonObject = {};
  for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences']) if (metadata[k] !== undefined) meta[k] = metadata[k];
  const mf = metadata.managedFields;
  if (Array.isArray(mf)) {
    meta.managedFields = (mf as JsonObject[])
      .map((e): JsonObject => ({ ...e, time: '<time>' }))
      .sort((a, b) => {
        const ka = `${String(a.manager)}|${String(a.operation)}|${String(a.subresource ?? '')}`;
        const kb = `${String(b.manager)}|${String(b.operation)}|${String(b.subresource ?? '')}`;
        return ka < kb ? -1 : ka > kb ? 1 : 0;
      });
  }
  out.metadata = meta;
  return out;
}

function normalizeTimes(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(normalizeTimes);
  if (isPlainObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) out[k] = k.endsWith('Time') || k === 'time' ? '<time>' : normalizeTimes(x);
    return out;
  }
  return v;
}
