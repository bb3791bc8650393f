// HTTP front of a logical cluster: parses kube API paths and query parameters, calls the
// cluster's operations and writes answers (objects, lists, Tables, watch streams, Status errors).
import type { IncomingMessage, ServerResponse } from 'node:http';
import yaml from 'js-yaml';
import type { DeleteOptions, LogicalCluster, PatchType, UserInfo, WriteOptions } from './cluster.js';
import { enforce, isPrivileged, type RequestAttributes, requestVerb } from './auth/authorizer.js';
import { answerReview } from './auth/reviews.js';
import { parseFieldValidation } from './field-validation.js';
import { apiGroupList, apiResourceList, apiVersions, type ExtensionVerbs, groupDiscovery } from './discovery.js';
import { badRequest, methodNotAllowed, resourceNotFound, StatusError } from './errors.js';
import { listItemJson, serialize, servedJson, typePrefix } from './objects.js';
import { groupVersion, type ResourceType } from './resources.js';
import { getScale, scaleSubresourceOf, writeScale } from './scale.js';
import { parseFieldSelector, parseLabelSelectorParam } from './selectors.js';
import { tableFor, watchTableEncoder } from './table/resource-table.js';
import { canonicalJson, isPlainObject } from '../kube/json.js';
import type { ObjectWithMeta } from '../kube/object.js';
import { serveWatch } from './watch.js';
import { answersInProtobuf, decodeBody, decodeDeleteOptions, isProtobuf, sendProtobuf, unsupportedMediaType } from './protobuf/http.js';

export interface RequestContext {
  cluster: LogicalCluster;
  user: UserInfo;
  /** Path below the cluster prefix, e.g. `/api/v1/namespaces`. */
  path: string;
  query: URLSearchParams;
  /** Fault injection hooks may ask the watch layer to drop streams. */
  onWatchOpen?: (close: () => void) => () => void;
  /** Subresources served by an extension (e.g. a Shoot's `adminkubeconfig`), keyed `group/resource/subresource`. */
  subresources?: ReadonlyMap<string, SubresourceHandler>;
  /** Set by the handler once the path names a served resource (the server's metrics label requests by it). */
  route?: ResourcePath;
  /** Set once the resource is known: answers (errors and watch events too) are written in protobuf. */
  protobuf?: boolean;
}

/** A subresource served by code outside the API server (simulators register these). */
export interface SubresourceHandler {
  /** HTTP methods it answers; discovery lists them as verbs (POST as `create`). */
  methods: ('GET' | 'POST' | 'PUT' | 'PATCH')[];
  /**
   * The kind of its request bodies when not the resource's own (`serviceaccounts/token` takes an
   * authentication.k8s.io/v1 TokenRequest): discovery names it, and bodies are decoded as that kind.
   */
  kind?: { group: string; version: string; kind: string };
  handle(req: { cluster: LogicalCluster; namespace: string; name: string; method: string; body: unknown; user: UserInfo }): Promise<{ code: number; body: unknown }>;
}

export const MAX_BODY = 3 * 1024 * 1024;

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendStatus(res: ServerResponse, err: StatusError, protobuf = false): void {
  const headers: Record<string, string> = {};
  if (err.details?.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.details.retryAfterSeconds);
  if (protobuf && sendProtobuf(res, err.code, err.toStatus(), headers)) return;
  const text = JSON.stringify(err.toStatus());
  res.writeHead(err.code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** How the answers to this request are written: JSON, or protobuf when negotiated (ctx.protobuf). */
function sender(ctx: RequestContext): (res: ServerResponse, code: number, body: unknown) => void {
  return ctx.protobuf ? sendProtobufOrJson : sendJson;
}

/** Protobuf, or JSON for an answer whose kind has no protobuf form (kubectl accepts both). */
function sendProtobufOrJson(res: ServerResponse, code: number, body: unknown): void {
  if (!sendProtobuf(res, code, body)) sendJson(res, code, body);
}

function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new StatusError(413, 'BadRequest' as never, 'Request entity too large: limit is 3145728');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Parsed resource path: `/api/v1/namespaces/ns/configmaps/name/status`. */
export interface ResourcePath {
  group: string;
  version: string;
  namespace: string | undefined;
  resource: string;
  name: string | undefined;
  subresource: string | undefined;
  watchPrefix: boolean;
}

type Route = { kind: 'discovery'; body: () => unknown } | { kind: 'resource'; path: ResourcePath } | { kind: 'notfound' } | { kind: 'text404' };

function route(ctx: RequestContext): Route {
  const parts = ctx.path.split('/').filter((p) => p !== '');
  const c = ctx.cluster;
  if (parts[0] === 'api') {
    if (parts.length === 1) return { kind: 'discovery', body: () => apiVersions() };
    if (parts[1] !== 'v1') return { kind: 'text404' };
    if (parts.length === 2) return { kind: 'discovery', body: () => apiResourceList(c, '', 'v1', extensionVerbs(ctx)) };
    return resourceRoute('', 'v1', parts.slice(2));
  }
  if (parts[0] === 'apis') {
    if (parts.length === 1) return { kind: 'discovery', body: () => apiGroupList(c) };
    const group = parts[1];
    const groups = groupDiscovery(c).get(group);
    if (!groups) return { kind: 'text404' };
    if (parts.length === 2) return { kind: 'discovery', body: () => groups.group };
    const version = parts[2];
    if (!groups.versions.includes(version)) {
      // Built-in groups answer with a Status; the CRD handler answers unknown versions like an unknown path.
      const builtin = c.servedTypes().some((t) => t.group === group && !t.crd);
      return builtin ? { kind: 'notfound' } : { kind: 'text404' };
    }
    if (parts.length === 3) return { kind: 'discovery', body: () => apiResourceList(c, group, version, extensionVerbs(ctx)) };
    return resourceRoute(group, version, parts.slice(3));
  }
  return { kind: 'text404' };
}

/**
 * What a request asks, as kube's RequestInfoFactory reads it from the path alone (whether the
 * resource exists does not matter): `/api/<v>/...` and `/apis/<g>/<v>/...` with a resource are
 * resource requests, everything else (discovery included) is a path. A namespace is its own
 * namespace, and a list or watch of one object by `metadata.name` names it.
 */
export function requestAttributes(method: string, path: string, query: URLSearchParams): RequestAttributes {
  const parts = path.split('/').filter((x) => x !== '');
  const prefix = parts[0] === 'api' ? 2 : parts[0] === 'apis' ? 3 : 0;
  if (prefix === 0 || parts.length <= prefix) return { resourceRequest: false, verb: requestVerb(method, true, false), path };
  const apiGroup = prefix === 3 ? parts[1] : '';
  const apiVersion = parts[prefix - 1];
  let rest = parts.slice(prefix);
  let watch = query.get('watch') === '1' || query.get('watch') === 'true';
  if (rest[0] === 'watch') {
    watch = true;
    rest = rest.slice(1);
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    // `/namespaces/x` and its `status` and `finalize` are the namespace itself.
    if (rest.length > 2 && rest[2] !== 'status' && rest[2] !== 'finalize') rest = rest.slice(2);
  }
  const [resource = '', name = '', subresource = ''] = rest;
  const verb = requestVerb(method, name !== '', watch);
  const named = name || (verb === 'list' || verb === 'watch' ? (exactNameSelected(query.get('fieldSelector')) ?? '') : '');
  return { resourceRequest: true, verb, namespace, apiGroup, apiVersion, resource, subresource, name: named };
}

/** `X` of a field selector `metadata.name=X` (or `==`), alone or among other terms. */
function exactNameSelected(selector: string | null): string | undefined {
  for (const term of (selector ?? '').split(',')) {
    const m = /^metadata\.name==?(.*)$/.exec(term.trim());
    if (m) return m[1];
  }
  return undefined;
}

function extensionVerbs(ctx: RequestContext): ExtensionVerbs | undefined {
  if (!ctx.subresources || ctx.subresources.size === 0) return undefined;
  const out = new Map<string, { subresource: string; verbs: string[]; kind?: SubresourceHandler['kind'] }[]>();
  for (const [key, h] of ctx.subresources) {
    const [group, resource, subresource] = key.split('/');
    const verbs = h.methods.map((m) => (m === 'POST' ? 'create' : m === 'PUT' ? 'update' : m.toLowerCase()));
    out.set(`${group}/${resource}`, [...(out.get(`${group}/${resource}`) ?? []), { subresource, verbs, kind: h.kind }]);
  }
  return out;
}

function resourceRoute(group: string, version: string, rest: string[]): Route {
  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  } else if (rest[0] === 'namespaces' && rest.length === 2 && !(group === '' && version === 'v1')) {
    return { kind: 'notfound' };
  }
  if (rest.length === 0 || rest.length > 3) return { kind: 'notfound' };
  // `/api/v1/namespaces/x` and `/api/v1/namespaces/x/status|finalize` address the namespace itself.
  if (group === '' && namespace !== undefined && (rest.length === 1 && (rest[0] === 'status' || rest[0] === 'finalize'))) {
    return { kind: 'resource', path: { group, version, namespace: undefined, resource: 'namespaces', name: namespace, subresource: rest[0], watchPrefix } };
  }
  return {
    kind: 'resource',
    path: { group, version, namespace, resource: rest[0], name: rest[1], subresource: rest[2], watchPrefix },
  };
}

function wantsTable(accept: string | undefined): boolean {
  return !!accept && /as=Table/.test(accept.split(',')[0] ?? '');
}

/** How a watch writes each event's object: as a Table when asked for one, else as served. */
function watchEncoding(req: IncomingMessage, t: ResourceType, q: URLSearchParams): ((storedJson: string) => string) | undefined {
  return wantsTable(req.headers.accept) ? watchTableEncoder(t, q) : undefined;
}

function parseDryRun(q: URLSearchParams): boolean {
  const v = q.getAll('dryRun');
  for (const d of v) if (d !== 'All') throw badRequest(`Invalid dryRun value: ${d}`);
  return v.length > 0;
}

/**
 * Parses a YAML body. Clients send most apply patches as JSON (which YAML includes); JSON.parse reads
 * those several times faster than the YAML parser, which still reads everything else and reports
 * the errors. (A JSON object with a key twice keeps the last value here, as Go's JSON decoding does.)
 */
function loadYaml(text: string): unknown {
  if (/^\s*\{/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Not JSON after all: YAML's flow style, comments, or an error the YAML parser words.
    }
  }
  return yaml.load(text);
}

function decodeObject(t: ResourceType, body: Buffer, contentType: string): ObjectWithMeta {
  if (isProtobuf(contentType)) return decodeBody(t, body);
  const ct = contentType.split(';')[0].trim();
  if (ct && ct !== 'application/json' && ct !== 'application/yaml' && ct !== '*/*') throw unsupportedMediaType(t);
  const text = body.toString('utf8');
  if (/yaml/.test(contentType)) {
    try {
      const o = loadYaml(text);
      if (isPlainObject(o)) return o as ObjectWithMeta;
    } catch (e) {
      throw badRequest(`the object provided is unrecognized (must be of type ${t.kind}): ${(e as Error).message}`);
    }
    throw badRequest(`the object provided is unrecognized (must be of type ${t.kind}): couldn't get version/kind`);
  }
  try {
    const o = JSON.parse(text) as unknown;
    if (!isPlainObject(o)) throw new SyntaxError('not an object');
    return o as ObjectWithMeta;
  } catch {
    throw badRequest(`the object provided is unrecognized (must be of type ${t.kind}): couldn't get version/kind; json parse error: ${goJsonError(text)} (${text})`);
  }
}

/** The error Go's encoding/json gives for malformed input, for the cases clients hit. */
function goJsonError(text: string): string {
  try {
    JSON.parse(text);
    return 'cannot unmarshal';
  } catch (e) {
    const msg = (e as Error).message;
    if (/end of (JSON|data)/i.test(msg) || /Unterminated/.test(msg)) return 'unexpected end of JSON input';
    const m = /position (\d+)/.exec(msg);
    const ch = m ? text[Number(m[1])] : text.trim()[0];
    return `invalid character '${ch ?? ''}' looking for beginning of value`;
  }
}

function patchTypeOf(contentType: string, t: ResourceType): PatchType {
  const ct = contentType.split(';')[0].trim();
  if (ct === 'application/json-patch+json') return 'json';
  if (ct === 'application/merge-patch+json') return 'merge';
  if (ct === 'application/strategic-merge-patch+json' && !t.crd) return 'strategic';
  if (ct === 'application/apply-patch+yaml' || ct === 'application/apply-patch+json') return 'apply';
  const accepted = t.crd
    ? 'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml'
    : 'application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml';
  throw new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted}`);
}

/** What DELETE answers when the object is gone at once: a success Status naming it. */
function successStatus(t: ResourceType, obj: ObjectWithMeta): Record<string, unknown> {
  const details: Record<string, unknown> = { name: obj.metadata.name };
  if (t.group) details.group = t.group;
  details.kind = t.resource;
  details.uid = obj.metadata.uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}

/**
 * A list as kube-apiserver writes it: built-in lists in struct order, custom resource lists as
 * sorted maps (`apiVersion`, `items`, `kind`, `metadata`); `items` are item JSON texts.
 */
function listJson(t: ResourceType, metadata: Record<string, unknown>, items: string[]): string {
  if (t.crd) return `{"apiVersion":${JSON.stringify(groupVersion(t))},"items":[${items.join(',')}],"kind":${JSON.stringify(t.listKind)},"metadata":${canonicalJson(metadata)}}`;
  return `${typePrefix({ ...t, kind: t.listKind })}"metadata":${JSON.stringify(metadata)},"items":[${items.join(',')}]}`;
}

export async function handleApiRequest(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
  try {
    await dispatch(req, res, ctx);
  } catch (err) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof StatusError) sendStatus(res, err, ctx.protobuf);
    else {
      const message = err instanceof Error ? err.message : String(err);
      sendStatus(res, new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }), ctx.protobuf);
    }
  }
}

async function dispatch(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
  const r = route(ctx);
  const method = req.method ?? 'GET';
  // Authorization comes before the answer, as kube's filter chain has it: a user who may not ask
  // does not learn whether a resource exists. (A known resource's refusal is still labelled for
  // /metrics and answered in protobuf when asked for, as kube-apiserver does.)
  // system:masters (every controller's credential) may do everything: no attributes to build.
  const authorizeRequest = () => {
    if (!isPrivileged(ctx.user)) enforce(ctx.cluster, ctx.user, requestAttributes(method, ctx.path, ctx.query));
  };
  if (r.kind !== 'resource') {
    authorizeRequest();
    if (r.kind === 'text404') return sendText(res, 404, '404 page not found\n');
    if (r.kind === 'notfound') throw resourceNotFound();
    if (method !== 'GET') throw methodNotAllowed();
    return sendJson(res, 200, r.body());
  }
  const p = r.path;
  const found = ctx.cluster.resolve(p.group, p.version, p.resource);
  const extension = found && p.subresource ? ctx.subresources?.get(`${found.group}/${found.resource}/${p.subresource}`) : undefined;
  const scale = !!found && p.subresource === 'scale' && scaleSubresourceOf(found) !== undefined;
  const servedSubresource = !!found && ((p.subresource === 'status' && found.status) || (found.kind === 'Namespace' && p.subresource === 'finalize') || scale);
  if (found) {
    // /metrics labels requests by route: only a served path gets one, so no client can mint new series.
    if (!p.subresource || servedSubresource || (extension && p.name !== undefined)) ctx.route = p;
    ctx.protobuf = answersInProtobuf(req.headers.accept, found);
  }
  authorizeRequest();
  if (!found) throw resourceNotFound();
  const t = found;
  if (t.deprecation) addWarnings(res, [t.deprecation]);
  const send = sender(ctx);
  if (p.namespace !== undefined && !t.namespaced) throw resourceNotFound();
  const q = ctx.query;
  const isWatch = p.watchPrefix || q.get('watch') === '1' || q.get('watch') === 'true';
  if (t.createOnly) return serveReview(req, res, ctx, t, p);
  if (extension && p.name !== undefined) return serveExtension(req, res, ctx, extension, t, p.namespace ?? '', p.name);
  if (p.subresource && !servedSubresource) throw resourceNotFound();
  const namespace = p.namespace ?? '';
  if (t.namespaced && p.name !== undefined && p.namespace === undefined) throw resourceNotFound();
  const writeOpts = (options?: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions'): WriteOptions => ({
    dryRun: parseDryRun(q),
    fieldManager: q.get('fieldManager') ?? managerFromUserAgent(req.headers['user-agent']),
    explicitFieldManager: q.get('fieldManager') !== null,
    user: ctx.user,
    ...(options ? { fieldValidation: parseFieldValidation(q.get('fieldValidation'), options), warnings: [] } : {}),
  });

  if (p.name === undefined) {
    if (method === 'GET' && isWatch) return serveWatch(req, res, ctx, t, p.namespace, watchEncoding(req, t, q));
    if (method === 'GET') return serveList(req, res, ctx, t, p.namespace);
    if (method === 'POST') {
      const body = decodeObject(t, await readBody(req), req.headers['content-type'] ?? 'application/json');
      const opts = writeOpts('CreateOptions');
      const result = await ctx.cluster.create(t, namespace, body, opts);
      setWarnings(res, opts);
      return send(res, result.code, result.json ?? serialize(t, result.object));
    }
    if (method === 'DELETE' && t.verbs.includes('deletecollection')) return deleteCollection(req, res, ctx, t, p.namespace, writeOpts());
    throw methodNotAllowed();
  }

  const name = p.name;
  switch (method) {
    case 'GET': {
      if (isWatch) {
        // Subresources (status, scale, ...) are not watchable: a watch of one would stream the whole object.
        if (p.subresource) throw methodNotAllowed();
        q.set('fieldSelector', `metadata.name=${name}`);
        return serveWatch(req, res, ctx, t, p.namespace, watchEncoding(req, t, q));
      }
      if (scale) return send(res, 200, getScale(ctx.cluster, t, namespace, name));
      const stored = ctx.cluster.getStored(t, namespace, name);
      if (wantsTable(req.headers.accept)) {
        const obj = JSON.parse(stored.json) as ObjectWithMeta;
        return sendJson(res, 200, tableFor(t, [obj], q, undefined));
      }
      return send(res, 200, servedJson(t, stored.json));
    }
    case 'PUT': {
      const body = decodeObject(t, await readBody(req), req.headers['content-type'] ?? 'application/json');
      if (scale) return send(res, 200, await writeScale(ctx.cluster, t, namespace, name, { body }, writeOpts()));
      const sub = p.subresource === 'finalize' ? undefined : p.subresource;
      const opts = writeOpts('UpdateOptions');
      const result = await ctx.cluster.update(t, namespace, name, body, { ...opts, subresource: sub });
      setWarnings(res, opts);
      return send(res, result.code, result.json ?? serialize(t, result.object));
    }
    case 'PATCH': {
      const type = patchTypeOf(req.headers['content-type'] ?? '', t);
      const raw = (await readBody(req)).toString('utf8');
      let patch: unknown;
      try {
        patch = type === 'apply' ? loadYaml(raw) : JSON.parse(raw);
      } catch (e) {
        throw badRequest(`error decoding patch: ${(e as Error).message}`);
      }
      const opts = writeOpts('PatchOptions');
      if (type === 'apply' && !q.get('fieldManager')) {
        throw new StatusError(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch', {
          group: 'meta.k8s.io',
          kind: 'PatchOptions',
          causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }],
        });
      }
      const force = q.get('force') === 'true';
      if (scale) return send(res, 200, await writeScale(ctx.cluster, t, namespace, name, { patchType: type, patch, force }, opts));
      const result = await ctx.cluster.patch(t, namespace, name, type, patch, { ...opts, subresource: p.subresource, force });
      setWarnings(res, opts);
      return send(res, result.code, result.json ?? serialize(t, result.object));
    }
    case 'DELETE': {
      if (p.subresource) throw methodNotAllowed();
      const options = await deleteOptions(req, q, t);
      const result = await ctx.cluster.delete(t, namespace, name, options, writeOpts());
      if (result.exists) return send(res, result.code, result.json ?? serialize(t, result.object));
      return send(res, 200, successStatus(t, result.object));
    }
    default:
      throw methodNotAllowed();
  }
}

/** kube-apiserver's `Warning` headers for what a write warned about (unknown fields under Warn). */
function setWarnings(res: ServerResponse, opts: WriteOptions): void {
  if (opts.warnings) addWarnings(res, opts.warnings);
}

/** Adds `Warning: 299 - "<text>"` headers after those already set (a deprecated version's). */
function addWarnings(res: ServerResponse, warnings: string[]): void {
  if (warnings.length === 0) return;
  const set = res.getHeader('Warning');
  const before = set === undefined ? [] : Array.isArray(set) ? set : [String(set)];
  res.setHeader('Warning', [...before, ...warnings.map((w) => `299 - ${JSON.stringify(w)}`)]);
}

/** A create-only kind (access reviews): answered from the request and the caller, nothing stored. */
async function serveReview(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, t: ResourceType, p: ResourcePath): Promise<void> {
  if (p.name !== undefined || p.watchPrefix) throw resourceNotFound();
  if (req.method !== 'POST') throw methodNotAllowed();
  const body = decodeObject(t, await readBody(req), req.headers['content-type'] ?? 'application/json');
  sender(ctx)(res, 201, answerReview(ctx.cluster, t, body, ctx.user));
}

async function serveExtension(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, ext: SubresourceHandler, t: ResourceType, namespace: string, name: string): Promise<void> {
  const method = req.method ?? 'GET';
  if (!(ext.methods as string[]).includes(method)) throw methodNotAllowed();
  const bytes = await readBody(req);
  let body: unknown;
  if (ext.kind) {
    body = decodeObject({ ...t, ...ext.kind }, bytes, req.headers['content-type'] ?? 'application/json');
  } else {
    const raw = bytes.toString('utf8').trim();
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch (e) {
      throw badRequest(`the object provided is unrecognized: ${(e as Error).message}`);
    }
  }
  const result = await ext.handle({ cluster: ctx.cluster, namespace, name, method, body, user: ctx.user });
  // An answer of a declared built-in kind (a TokenRequest) is written as negotiated, protobuf included.
  (ext.kind ? sender(ctx) : sendJson)(res, result.code, result.body);
}

function managerFromUserAgent(ua: string | undefined): string | undefined {
  if (!ua) return undefined;
  return ua.split('/')[0].slice(0, 128) || undefined;
}

async function deleteOptions(req: IncomingMessage, q: URLSearchParams, t: ResourceType): Promise<DeleteOptions> {
  const body = await readBody(req);
  let opts: DeleteOptions = {};
  if (isProtobuf(req.headers['content-type'])) {
    if (body.length > 0) opts = decodeDeleteOptions(t, body) as DeleteOptions;
  } else {
    const raw = body.toString('utf8').trim();
    if (raw) {
      try {
        opts = JSON.parse(raw) as DeleteOptions;
      } catch (e) {
        throw badRequest(`the object provided is unrecognized (must be of type DeleteOptions): ${(e as Error).message}`);
      }
    }
  }
  const policy = q.get('propagationPolicy');
  if (policy) opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  if (q.get('orphanDependents') !== null) opts.orphanDependents = q.get('orphanDependents') === 'true';
  if (opts.propagationPolicy && !['Foreground', 'Background', 'Orphan'].includes(opts.propagationPolicy)) {
    throw new StatusError(422, 'Invalid', `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${opts.propagationPolicy}": supported values: "Foreground", "Background", "Orphan", "nil"`);
  }
  return opts;
}

function listOptions(ctx: RequestContext, t: ResourceType) {
  const q = ctx.query;
  const limit = q.get('limit') ? Number(q.get('limit')) : undefined;
  return {
    labelSelector: q.get('labelSelector') ? parseLabelSelectorParam(q.get('labelSelector') ?? '') : undefined,
    fieldSelector: q.get('fieldSelector') ? parseFieldSelector(q.get('fieldSelector') ?? '', `${t.group}/${t.resource}`) : undefined,
    limit: limit && limit > 0 ? limit : undefined,
    continueToken: q.get('continue') ?? undefined,
  };
}

function serveList(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, t: ResourceType, namespace: string | undefined): void {
  const result = ctx.cluster.list(t, namespace, listOptions(ctx, t));
  const listMeta: Record<string, unknown> = {};
  if (t.crd) listMeta.continue = result.continueToken ?? '';
  else if (result.continueToken) listMeta.continue = result.continueToken;
  listMeta.resourceVersion = String(result.rv);
  if (result.remaining !== undefined) listMeta.remainingItemCount = result.remaining;
  if (wantsTable(req.headers.accept)) {
    const objs = result.items.map((o) => JSON.parse(o.json) as ObjectWithMeta);
    return sendJson(res, 200, tableFor(t, objs, ctx.query, listMeta));
  }
  sender(ctx)(res, 200, listJson(t, listMeta, result.items.map((o) => listItemJson(t, o.json))));
}

async function deleteCollection(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, t: ResourceType, namespace: string | undefined, opts: WriteOptions): Promise<void> {
  const options = await deleteOptions(req, ctx.query, t);
  const result = ctx.cluster.list(t, namespace, { ...listOptions(ctx, t), limit: undefined, continueToken: undefined });
  const deleted: string[] = [];
  for (const o of result.items) {
    try {
      const r = await ctx.cluster.delete(t, o.namespace, o.name, options, opts);
      deleted.push(listItemJson(t, r.json ?? serialize(t, r.object)));
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }
  sender(ctx)(res, 200, listJson(t, { resourceVersion: String(ctx.cluster.store.rv) }, deleted));
}
