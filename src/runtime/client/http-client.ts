// `Client` over HTTPS: paths from discovery, rate limiting and retries per request, typed errors
// from Status bodies, list paging, watch streams.
import { setMaxListeners } from 'node:events';
import type { KindRef, KubeObject } from '../../kube/object.js';
import { objectKey, type ObjectKey } from '../../kube/keys.js';
import type { ClusterConfig } from './config.js';
import { RestMapper, type SharedDiscovery } from './discovery.js';
import { ApiError, errorFromResponse, type StatusBody } from './errors.js';
import type { ApplyOptions, Client, DeleteOptions, ListOptions, ListResult, PatchType, ResourceInfo, WatchEvent, WatchOptions, WriteOptions } from './interface.js';
import { type RateLimiter, unlimited } from './ratelimit.js';
import { type RetryPolicy, retryPolicy, withRetry } from './retry.js';
import { type HttpResponse, Transport } from './transport.js';
import { type LinkedSignal, linkedSignal } from '../../util/signals.js';

export interface HttpClientParts {
  transport: Transport;
  /** Discovery shared with the clients of other clusters of the same server version (default: this client's own). */
  discovery?: SharedDiscovery;
  limiter?: RateLimiter;
  retry?: RetryPolicy;
}

interface SendInit {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  /** May be sent again after any retryable failure (reads, server-side apply). */
  idempotent: boolean;
}

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function statusOf(body: string): StatusBody | undefined {
  const doc = parseJson(body);
  return typeof doc === 'object' && doc !== null && (doc as StatusBody).kind === 'Status' ? (doc as StatusBody) : undefined;
}

function headerValue(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}

/** A 404 for a path the server does not serve (kube-apiserver's Status then names no object). */
function isResourceNotFound(e: unknown): boolean {
  return e instanceof ApiError && e.code === 404 && e.reason === 'NotFound' && !e.status?.details?.name;
}

/** Errors this client raised itself because the table says the kind is namespaced and no namespace was given. */
const namespaceRequiredErrors = new WeakSet<ApiError>();

function namespaceRequired(kind: string, name: string): ApiError {
  const e = new ApiError('BadRequest', `${kind} ${name}: a namespace is required`, 400);
  namespaceRequiredErrors.add(e);
  return e;
}

/** The ApiError an ERROR watch event carries (e.g. `Gone` for a too-old resourceVersion). */
export function errorFromWatchEvent(event: WatchEvent): ApiError {
  const status = event.object as unknown as StatusBody;
  return errorFromResponse(status.code ?? 500, status);
}

export class HttpClient implements Client {
  readonly cluster: string;
  readonly mapper: RestMapper;
  readonly transport: Transport;
  private readonly limiter: RateLimiter;
  private readonly retry: RetryPolicy;
  /** Aborted by close(): ends waits, retries and watches of this client. */
  private readonly lifetime = new AbortController();

  constructor(
    readonly config: ClusterConfig,
    parts: HttpClientParts,
  ) {
    this.cluster = config.name;
    this.transport = parts.transport;
    this.limiter = parts.limiter ?? unlimited;
    this.retry = parts.retry ?? retryPolicy(undefined);
    this.mapper = new RestMapper((path) => this.discoveryGet(path), config.name, parts.discovery);
    // Every request in flight listens on it; hundreds at once are expected.
    setMaxListeners(0, this.lifetime.signal);
  }

  /** The request's signal joined with the client's lifetime; dispose it when the request is over. */
  private signalFor(signal: AbortSignal | undefined): LinkedSignal {
    return linkedSignal(this.lifetime.signal, signal);
  }

  private async headers(init: SendInit, signal: AbortSignal): Promise<Record<string, string>> {
    const headers: Record<string, string> = {};
    const authorization = await this.config.auth?.authorization(signal);
    if (authorization) headers.Authorization = authorization;
    if (init.body !== undefined) headers['Content-Type'] = init.contentType ?? 'application/json';
    return headers;
  }

  private target(init: SendInit): string {
    const q = init.query?.toString();
    return q ? `${init.path}?${q}` : init.path;
  }

  /** One attempt: rate limit, credentials (fetched again once after a 401), request, typed error. */
  private async attempt(init: SendInit, signal: AbortSignal): Promise<HttpResponse> {
    await this.limiter.acquire(signal);
    const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    const send = async () => this.transport.request({ method: init.method, path: this.target(init), headers: await this.headers(init, signal), body, signal });
    let res = await send();
    if (res.status === 401 && this.config.auth?.invalidate?.()) res = await send();
    if (res.status >= 400) throw errorFromResponse(res.status, statusOf(res.body), headerValue(res.headers['retry-after']));
    return res;
  }

  private async send(init: SendInit): Promise<HttpResponse> {
    const linked = this.signalFor(init.signal);
    const { signal } = linked;
    try {
      return await withRetry(() => this.attempt(init, signal), { policy: this.retry, idempotent: init.idempotent, signal });
    } finally {
      linked.dispose();
    }
  }

  private async sendJson<T>(init: SendInit): Promise<T> {
    const res = await this.send(init);
    const doc = parseJson(res.body);
    if (doc === undefined) throw new ApiError('Unknown', `${init.method} ${init.path}: answer is not JSON`, res.status);
    return doc as T;
  }

  private async discoveryGet(path: string): Promise<unknown> {
    try {
      return await this.sendJson<unknown>({ method: 'GET', path, idempotent: true });
    } catch (e) {
      if (e instanceof ApiError && e.reason === 'NotFound') return undefined;
      throw e;
    }
  }

  resourceFor(kind: KindRef): Promise<ResourceInfo> {
    return this.mapper.resourceFor(kind);
  }

  /**
   * `op` with the kind's resource. When the resource came from shared discovery and the server
   * answers 404 for the resource itself (not for an object: no name in the Status details), this
   * server differs from the one the table came from: its own discovery decides (NoKindMatch, or
   * `op` once more on the resource it serves). The same when the shared table calls the kind
   * namespaced and no namespace was given: the kind may be cluster-scoped on this server (a CRD of
   * the same group and version whose scope differs between clusters).
   */
  private async withResource<T>(kind: KindRef, op: (info: ResourceInfo) => Promise<T>): Promise<T> {
    const info = await this.mapper.resourceFor(kind);
    try {
      return await op(info);
    } catch (e) {
      if (!this.mapper.isBorrowed(kind) || !(isResourceNotFound(e) || (e instanceof ApiError && namespaceRequiredErrors.has(e)))) throw e;
      const own = await this.mapper.confirm(kind);
      if (own.resource === info.resource && own.namespaced === info.namespaced) throw e;
      return op(own);
    }
  }

  private path(info: ResourceInfo, namespace: string | undefined, name?: string, subresource?: string): string {
    let p = info.group ? `/apis/${info.group}/${info.version}` : `/api/${info.version}`;
    if (info.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
    p += `/${info.resource}`;
    if (name !== undefined) {
      if (name === '') throw new ApiError('BadRequest', `${info.kind}: a name is required`, 400);
      p += `/${encodeURIComponent(name)}`;
      if (subresource) p += `/${subresource}`;
    }
    return p;
  }

  /** Path of one object; a namespaced kind needs a namespace. */
  private objectPath(info: ResourceInfo, key: ObjectKey, subresource?: string): string {
    if (info.namespaced && !key.namespace) throw namespaceRequired(info.kind, key.name);
    return this.path(info, key.namespace, key.name, subresource);
  }

  private writeQuery(opts: WriteOptions | undefined): URLSearchParams {
    const q = new URLSearchParams();
    if (opts?.fieldManager) q.set('fieldManager', opts.fieldManager);
    if (opts?.dryRun) q.set('dryRun', 'All');
    return q;
  }

  async get<T extends KubeObject = KubeObject>(kind: KindRef, key: ObjectKey, opts?: { signal?: AbortSignal }): Promise<T> {
    return this.withResource(kind, async (info) => {
      return this.sendJson<T>({ method: 'GET', path: this.objectPath(info, key), signal: opts?.signal, idempotent: true });
    });
  }

  async list<T extends KubeObject = KubeObject>(kind: KindRef, opts: ListOptions = {}): Promise<ListResult<T>> {
    return this.withResource(kind, async (info) => {
      const path = this.path(info, opts.namespace);
      const itemKind = { apiVersion: kind.apiVersion, kind: kind.kind };
      const items: T[] = [];
      let token = opts.continue;
      for (;;) {
        const q = new URLSearchParams();
        if (opts.labelSelector) q.set('labelSelector', opts.labelSelector);
        if (opts.fieldSelector) q.set('fieldSelector', opts.fieldSelector);
        if (opts.limit) q.set('limit', String(opts.limit));
        if (token) q.set('continue', token);
        else if (opts.resourceVersion !== undefined) q.set('resourceVersion', opts.resourceVersion);
        const page = await this.sendJson<{ items?: T[]; metadata?: { resourceVersion?: string; continue?: string } }>({
          method: 'GET',
          path,
          query: q,
          signal: opts.signal,
          idempotent: true,
        });
        // List items come without apiVersion and kind from a real server.
        for (const item of page.items ?? []) items.push({ ...itemKind, ...item });
        token = page.metadata?.continue || undefined;
        if (!token || opts.singlePage || opts.continue !== undefined) {
          return { items, resourceVersion: page.metadata?.resourceVersion ?? '', continue: token };
        }
      }
    });
  }

  async create<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.withResource(obj, async (info) => {
      const ns = obj.metadata.namespace;
      if (info.namespaced && !ns) throw namespaceRequired(info.kind, obj.metadata.name ?? obj.metadata.generateName ?? '');
      return this.sendJson<T>({ method: 'POST', path: this.path(info, ns), query: this.writeQuery(opts), body: obj, signal: opts?.signal, idempotent: false });
    });
  }

  async update<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.withResource(obj, async (info) => {
      return this.sendJson<T>({ method: 'PUT', path: this.objectPath(info, objectKey(obj)), query: this.writeQuery(opts), body: obj, signal: opts?.signal, idempotent: false });
    });
  }

  async updateStatus<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.withResource(obj, async (info) => {
      return this.sendJson<T>({ method: 'PUT', path: this.objectPath(info, objectKey(obj), 'status'), query: this.writeQuery(opts), body: obj, signal: opts?.signal, idempotent: false });
    });
  }

  async patch<T extends KubeObject = KubeObject>(kind: KindRef, key: ObjectKey, type: PatchType, patch: unknown, opts?: WriteOptions & { subresource?: 'status' | 'scale' }): Promise<T> {
    return this.withResource(kind, async (info) => {
      return this.sendJson<T>({
        method: 'PATCH',
        path: this.objectPath(info, key, opts?.subresource),
        query: this.writeQuery(opts),
        body: patch,
        contentType: PATCH_CONTENT_TYPES[type],
        signal: opts?.signal,
        idempotent: false,
      });
    });
  }

  async apply<T extends KubeObject>(obj: T, opts: ApplyOptions): Promise<T> {
    return this.withResource(obj, async (info) => {
      const q = this.writeQuery(opts);
      if (opts.force) q.set('force', 'true');
      return this.sendJson<T>({
        method: 'PATCH',
        path: this.objectPath(info, objectKey(obj), opts.subresource),
        query: q,
        // YAML is a superset of JSON: the apply content type with a JSON body.
        body: obj,
        contentType: 'application/apply-patch+yaml',
        signal: opts.signal,
        // Applying the same configuration twice has the same result.
        idempotent: true,
      });
    });
  }

  async delete(kind: KindRef, key: ObjectKey, opts: DeleteOptions = {}): Promise<void> {
    return this.withResource(kind, async (info) => {
      const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
      if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
      if (opts.preconditions) body.preconditions = opts.preconditions;
      if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
      if (opts.dryRun) body.dryRun = ['All'];
      await this.send({ method: 'DELETE', path: this.objectPath(info, key), body, signal: opts.signal, idempotent: false });
    });
  }

  async *watch<T extends KubeObject = KubeObject>(kind: KindRef, opts: WatchOptions = {}): AsyncGenerator<WatchEvent<T>> {
    const linked = this.signalFor(opts.signal);
    try {
      yield* this.watchWith<T>(kind, opts, linked.signal);
    } finally {
      linked.dispose();
    }
  }

  private async *watchWith<T extends KubeObject>(kind: KindRef, opts: WatchOptions, signal: AbortSignal): AsyncGenerator<WatchEvent<T>> {
    if (signal.aborted) return;
    const q = new URLSearchParams({ watch: '1' });
    if (opts.resourceVersion !== undefined) q.set('resourceVersion', opts.resourceVersion);
    if (opts.labelSelector) q.set('labelSelector', opts.labelSelector);
    if (opts.fieldSelector) q.set('fieldSelector', opts.fieldSelector);
    if (opts.allowWatchBookmarks) q.set('allowWatchBookmarks', 'true');
    if (opts.timeoutSeconds !== undefined) q.set('timeoutSeconds', String(opts.timeoutSeconds));
    const open = (info: ResourceInfo) => async () => {
      const init: SendInit = { method: 'GET', path: this.path(info, opts.namespace), query: q, idempotent: true };
      await this.limiter.acquire(signal);
      const request = async () => this.transport.stream({ method: 'GET', path: this.target(init), headers: await this.headers(init, signal), signal });
      let res = await request();
      if (res.status === 401 && this.config.auth?.invalidate?.()) res = await request();
      if (res.status !== 200) throw errorFromResponse(res.status, statusOf(res.body), headerValue(res.headers['retry-after']));
      return res;
    };
    let stream;
    try {
      stream = await this.withResource(kind, (info) => withRetry(open(info), { policy: this.retry, idempotent: true, signal }));
    } catch (e) {
      if (signal.aborted) return;
      throw e;
    }
    for await (const line of stream.lines) {
      const event = parseJson(line) as WatchEvent<T> | undefined;
      if (event?.type && event.object) yield event;
    }
  }

  /** Ends waits and watches and closes every connection. */
  close(): void {
    this.lifetime.abort(new ApiError('Unreachable', `${this.cluster}: client closed`, 0));
    this.transport.close();
  }
}
