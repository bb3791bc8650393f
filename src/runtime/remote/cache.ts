// A cache of Clients for thousands of remote clusters, built from kubeconfig Secrets in the
// control-plane cluster (which Secret belongs to which cluster is the caller's function).
//
// A cached client is replaced
// - when its Secret's content changes (rotation): the new client is built from the new content as
//   soon as the change is seen (`secretChanged`, fed by `watchSecrets` or the caller's informer),
//   while the old credentials still work, not after they failed;
// - when a call fails with 401, 403 or a TLS error (the handle evicts, rebuilds from the Secret
//   and tries once more);
// - after `ttlMs`, when the next use re-reads the Secret from the API server and finds other content
//   (unchanged content keeps the client, its connections and TLS sessions: at 10,000 runtimes
//   rebuilding unchanged clients every 15 min cost about 8,700 full TLS handshakes in one cold start).
// A replaced client finishes the requests it has in flight and is closed after the last one.
// A cluster's first client is built from the caller's informer copy of the Secret when there is
// one (`cachedSecret`); a client that replaces one (TTL, a credential or TLS failure, a deleted,
// rotated or invalidated Secret) is built from the Secret read from the API server, since the
// informer may not have seen the change that made it fail yet.
//
// Sockets: each client uses at most `maxSocketsPerClient` connections at once and keeps
// `maxIdleSocketsPerClient` of them open between requests; a socket unused for `idleSocketTimeoutMs`
// is closed (each on its own, and all of a client's once it is unused that long); and when all
// clients together hold more than `socketBudget` request sockets, the least recently used clients'
// idle sockets are closed first (sockets.ts). Clients with the same CA and client certificate share
// one TLS context, and a reconnect resumes the TLS session (src/runtime/client/transport.ts).
// Optionally `maxClients` bounds the cached clients themselves (LRU).
//
// Discovery: the default builder's clients share one SharedDiscovery (src/runtime/client/discovery.ts),
// so runtimes of one Kubernetes version are discovered once, not once per client; a client kept past
// its TTL forgets what it discovered (its runtime may have been upgraded meanwhile).
import { clientFromKubeconfig, type ClientOptions, SharedDiscovery } from '../client/index.js';
import { ApiError, isGone } from '../client/errors.js';
import type { Client } from '../client/interface.js';
import { type Clock, systemClock } from '../timers.js';
import { abortable, pause } from '../../util/sleep.js';
import { type Logger, silentLogger } from '../log.js';
import { type ClientLease, RemoteClusterClient } from './client.js';
import { DEFAULT_KUBECONFIG_KEY, type KubeconfigRef, kubeconfigFingerprint, kubeconfigOf, readKubeconfig, refString, SECRET_KIND, type Secret } from './secret.js';
import { type SocketCounts, type SocketOwner, SocketJanitor, sumCounts } from './sockets.js';
import type { ObjectKey } from '../../kube/keys.js';

export { isCredentialError, RemoteClusterClient } from './client.js';
export { KubeconfigSecretError, kubeconfigFingerprint, type KubeconfigRef } from './secret.js';
export type { SocketCounts } from './sockets.js';

/** A client the cache can pool: the runtime's HttpClient (its `transport` reports and closes sockets). */
export interface PooledClient extends Client {
  readonly transport?: SocketOwner;
  /** Discovery of the client's server, forgotten when the cache keeps the client past its TTL. */
  readonly mapper?: { forget(): void };
}

export interface RemoteClusterCacheOptions {
  /** The control-plane client that reads the kubeconfig Secrets. */
  client: Client;
  /**
   * The Secret as the caller's informer holds it, if it does (the informers that feed
   * `secretChanged`): a client is then built without a GET. A Secret the informer has not seen yet,
   * or one without the key, is read from the API server.
   */
  cachedSecret?: (ref: KubeconfigRef) => Secret | undefined;
  /** Which Secret (and data key, default `config`) holds a cluster's kubeconfig. */
  kubeconfigFor: (cluster: string) => KubeconfigRef;
  /** Builds a client from kubeconfig text (default: the runtime client with `maxSocketsPerClient` sockets). */
  buildClient?: (kubeconfig: string, cluster: string) => PooledClient;
  /** Options for the default builder (qps, retries, request timeout). */
  clientOptions?: Omit<ClientOptions, 'maxSockets' | 'maxIdleSockets' | 'idleSocketTimeoutMs' | 'discovery'>;
  /**
   * Whether the default builder's clients share discovery per server version (default true): one
   * discovery per group/version for all runtimes of a Kubernetes version instead of one per client.
   */
  shareDiscovery?: boolean;
  /** A client's Secret is read again from the API server after this long (default 15 min): changed content replaces the client. */
  ttlMs?: number;
  /** Connections one client may use at once (default 2). */
  maxSocketsPerClient?: number;
  /** Idle keep-alive connections one client keeps between requests (default 1). */
  maxIdleSocketsPerClient?: number;
  /** Idle sockets of a client unused this long are closed (default 10 s). */
  idleSocketTimeoutMs?: number;
  /** Open request sockets of all clients above which the least recently used clients' idle sockets close (default 2,048). */
  socketBudget?: number;
  /** Cached clients above which the least recently used (and idle) ones are dropped (default: no bound). */
  maxClients?: number;
  clock?: Clock;
  log?: Logger;
}

/**
 * Sized for a fleet (docs/sharding.md, "Remote cluster clients"): a runtime reconciled now and then
 * needs a kept-alive connection, not a pool; a burst uses two, and both stay for the next burst (a
 * new connection costs both sides about four requests' CPU, even with the TLS session resumed). A
 * runtime's passes come seconds to tens of seconds apart while its modules install: the idle
 * timeout keeps its connections across them (kube-apiserver closes idle ones after 90 s). The
 * budget bounds the request sockets of all runtimes together (each costs a file descriptor and TLS
 * buffers) well above what the controllers' workers use at once.
 */
export const DEFAULT_SOCKET_LIMITS = { maxSocketsPerClient: 2, maxIdleSocketsPerClient: 2, idleSocketTimeoutMs: 30_000, socketBudget: 2048 } as const;

/** Replaced clusters remembered for `readFromServer` at most. */
const READ_FROM_SERVER_LIMIT = 4096;

export type EvictionReason = 'rotation' | 'credentials' | 'ttl' | 'lru' | 'deleted' | 'invalidated';

interface Entry {
  cluster: string;
  ref: KubeconfigRef;
  refKey: string;
  client: PooledClient;
  fingerprint: string;
  builtAt: number;
  /** Order of installation, to tell a stale build from a newer rotation. */
  seq: number;
  inflight: number;
  retired: boolean;
  /** Set when the Secret changed while this entry was being built: rebuild at next use. */
  outdated: boolean;
}

export interface RemoteCacheStats {
  clients: number;
  builds: number;
  /** Clients kept after their TTL's re-read found the kubeconfig unchanged. */
  renewals: number;
  evictions: Record<EvictionReason, number>;
  sockets: SocketCounts & { total: number };
  socketsClosedByBudget: number;
  socketsClosedByIdleTimeout: number;
}

export class RemoteClusterCache {
  private readonly entries = new Map<string, Entry>(); // least recently used first
  private readonly building = new Map<string, Promise<Entry>>();
  /** TTL re-reads of the Secret in flight, by cluster. */
  private readonly renewing = new Map<string, Promise<Entry | undefined>>();
  private renewals = 0;
  private readonly clustersBySecret = new Map<string, Set<string>>();
  /** The last Secret event seen for a cluster while its client was being built (undefined: the Secret was deleted). */
  private readonly changedWhileBuilding = new Map<string, Secret | undefined>();
  /** Clusters whose client was replaced (not merely dropped from the LRU): the next build reads the Secret from the API server. */
  private readonly readFromServer = new Set<string>();
  private readonly janitor: SocketJanitor;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly ttlMs: number;
  private readonly maxSockets: number;
  private readonly maxIdleSockets: number;
  private readonly idleSocketTimeoutMs: number;
  private readonly discovery: SharedDiscovery | undefined;
  private readonly lifetime = new AbortController();
  private seq = 0;
  private builds = 0;
  private readonly evictions: Record<EvictionReason, number> = { rotation: 0, credentials: 0, ttl: 0, lru: 0, deleted: 0, invalidated: 0 };

  constructor(private readonly opts: RemoteClusterCacheOptions) {
    this.clock = opts.clock ?? systemClock;
    this.log = (opts.log ?? silentLogger).child('remote-clusters');
    this.ttlMs = opts.ttlMs ?? 15 * 60_000;
    this.maxSockets = opts.maxSocketsPerClient ?? DEFAULT_SOCKET_LIMITS.maxSocketsPerClient;
    this.maxIdleSockets = opts.maxIdleSocketsPerClient ?? DEFAULT_SOCKET_LIMITS.maxIdleSocketsPerClient;
    this.idleSocketTimeoutMs = opts.idleSocketTimeoutMs ?? DEFAULT_SOCKET_LIMITS.idleSocketTimeoutMs;
    this.discovery = opts.shareDiscovery === false ? undefined : new SharedDiscovery();
    this.janitor = new SocketJanitor({
      budget: opts.socketBudget ?? DEFAULT_SOCKET_LIMITS.socketBudget,
      idleTimeoutMs: this.idleSocketTimeoutMs,
      clock: this.clock,
    });
  }

  /**
   * The client of a remote cluster: a cheap, stable handle; every call uses the current cached
   * client (built from the Secret on first use), so rotations apply without the caller noticing.
   */
  client(cluster: string): RemoteClusterClient {
    const lease: ClientLease = {
      acquire: (signal) => this.acquire(cluster, signal),
      evict: (client, reason) => {
        const e = this.entries.get(cluster);
        if (e && e.client === client) this.evict(e, reason);
      },
      close: () => this.invalidate(cluster),
    };
    return new RemoteClusterClient(cluster, lease);
  }

  /** The current client of a cluster, built if needed; call `done` when the request is over. */
  async acquire(cluster: string, signal?: AbortSignal): Promise<{ client: Client; done: () => void }> {
    if (this.lifetime.signal.aborted) throw new ApiError('Unreachable', `remote cluster cache closed (cluster ${cluster})`, 0);
    signal?.throwIfAborted();
    let e = this.entries.get(cluster);
    if (e && !e.outdated && this.clock.now() - e.builtAt >= this.ttlMs) e = await abortable(this.renew(e), signal);
    if (e?.outdated) {
      this.evict(e, 'rotation');
      e = undefined;
    }
    if (!e) e = await abortable(this.load(cluster), signal);
    // Evicted, replaced or closed while this call waited: the cache's current client instead.
    if (e.retired || this.entries.get(cluster) !== e) return this.acquire(cluster, signal);
    const entry = e;
    entry.inflight++;
    this.entries.delete(cluster);
    this.entries.set(cluster, entry);
    if (entry.client.transport) this.janitor.touch(entry.client.transport);
    let released = false;
    const done = (): void => {
      if (released) return;
      released = true;
      entry.inflight--;
      if (entry.retired) {
        if (entry.inflight === 0) this.closeClient(entry);
      } else if (entry.client.transport) this.janitor.released(entry.client.transport);
    };
    return { client: entry.client, done };
  }

  /** What the cache holds for a cluster: the kubeconfig fingerprint it was built from, and when it was built or its Secret last read again. */
  describe(cluster: string): { fingerprint: string; builtAt: number; secret: string } | undefined {
    const e = this.entries.get(cluster);
    return e ? { fingerprint: e.fingerprint, builtAt: e.builtAt, secret: e.refKey } : undefined;
  }

  /**
   * A kubeconfig Secret was added or changed (from `watchSecrets` or the caller's informer). Clients
   * built from other content are replaced at once by clients built from this one.
   */
  secretChanged(secret: Secret): void {
    const refKey = refString({ namespace: secret.metadata.namespace, name: secret.metadata.name ?? '' });
    for (const cluster of this.clustersBySecret.get(refKey) ?? []) {
      const e = this.entries.get(cluster);
      if (!e) {
        if (this.building.has(cluster)) this.changedWhileBuilding.set(cluster, secret);
        continue;
      }
      const text = kubeconfigOf(secret, e.ref.key ?? DEFAULT_KUBECONFIG_KEY);
      if (text === undefined) {
        this.evict(e, 'rotation');
        continue;
      }
      if (kubeconfigFingerprint(text) === e.fingerprint) continue;
      try {
        this.install(cluster, e.ref, text, 'rotation');
        this.log.info('rotated client', { cluster, secret: refKey });
      } catch (err) {
        // Keep the old client while its credentials may still work; the TTL or a 401 tries again.
        this.log.warn('rotated kubeconfig unusable; keeping the old client', { cluster, secret: refKey, error: err });
      }
    }
  }

  /** A kubeconfig Secret was deleted: its clusters' clients are dropped. */
  secretDeleted(key: ObjectKey): void {
    for (const cluster of this.clustersBySecret.get(refString(key)) ?? []) {
      const e = this.entries.get(cluster);
      if (e) this.evict(e, 'deleted');
      else if (this.building.has(cluster)) this.changedWhileBuilding.set(cluster, undefined);
    }
  }

  /**
   * Watches kubeconfig Secrets and feeds `secretChanged`/`secretDeleted` until `signal` (or close())
   * aborts. Resumes from the last resourceVersion; starts over after 410 Gone.
   */
  async watchSecrets(opts: { namespace?: string; labelSelector?: string; signal?: AbortSignal } = {}): Promise<void> {
    const signal = opts.signal ? AbortSignal.any([opts.signal, this.lifetime.signal]) : this.lifetime.signal;
    let resourceVersion: string | undefined;
    let failures = 0;
    while (!signal.aborted) {
      let progressed = false;
      try {
        for await (const event of this.opts.client.watch<Secret>(SECRET_KIND, { namespace: opts.namespace, labelSelector: opts.labelSelector, resourceVersion, allowWatchBookmarks: true, signal })) {
          if (event.type === 'ERROR') {
            resourceVersion = undefined; // e.g. 410 Expired: start over from the current state
            break;
          }
          progressed = true;
          resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
          if (event.type === 'ADDED' || event.type === 'MODIFIED') this.secretChanged(event.object);
          else if (event.type === 'DELETED') this.secretDeleted({ namespace: event.object.metadata.namespace, name: event.object.metadata.name ?? '' });
        }
      } catch (e) {
        if (signal.aborted) break;
        if (isGone(e)) resourceVersion = undefined;
        this.log.warn('kubeconfig Secret watch failed', { error: e });
      }
      // Back off when watches end without delivering anything (errors, a server cutting them at once).
      failures = progressed ? 0 : failures + 1;
      if (failures > 0) await pause(Math.min(30_000, 100 * 2 ** Math.min(failures, 9)), signal);
    }
  }

  /** Drops a cluster's cached client (closed once its requests are over). */
  invalidate(cluster: string): void {
    const e = this.entries.get(cluster);
    if (e) this.evict(e, 'invalidated');
  }

  /** Open sockets of all cached clients (client side): requests in flight, idle keep-alive, watches. */
  openSockets(): SocketCounts & { total: number } {
    return sumCounts([...this.entries.values()].flatMap((e) => (e.client.transport ? [e.client.transport.socketCounts()] : [])));
  }

  stats(): RemoteCacheStats {
    const j = this.janitor.stats();
    return {
      clients: this.entries.size,
      builds: this.builds,
      renewals: this.renewals,
      evictions: { ...this.evictions },
      sockets: this.openSockets(),
      socketsClosedByBudget: j.closedByBudget,
      // The sweep closes a quiet client's sockets, each client's transport a busy one's unused second.
      socketsClosedByIdleTimeout: j.closedByIdle + [...this.entries.values()].reduce((n, e) => n + (e.client.transport?.connectionStats?.().closedIdle ?? 0), 0),
    };
  }

  /** Closes every client and stops the Secret watch and the socket sweeper. */
  close(): void {
    this.lifetime.abort();
    this.janitor.close();
    for (const e of this.entries.values()) {
      e.retired = true;
      this.closeClient(e);
    }
    this.entries.clear();
    this.clustersBySecret.clear();
  }

  /**
   * The TTL's re-read of a client's Secret from the API server (the informer's copy may have missed a
   * change): the client is kept when the kubeconfig is the same, replaced when it changed, and
   * dropped when the read fails (as a rebuild would have failed).
   */
  private renew(e: Entry): Promise<Entry | undefined> {
    let p = this.renewing.get(e.cluster);
    if (!p) {
      p = this.reread(e).finally(() => this.renewing.delete(e.cluster));
      this.renewing.set(e.cluster, p);
    }
    return p;
  }

  private async reread(e: Entry): Promise<Entry | undefined> {
    let text: string;
    try {
      text = (await readKubeconfig(this.opts.client, e.cluster, e.ref, this.lifetime.signal)).text;
    } catch (err) {
      const current = this.entries.get(e.cluster);
      if (current !== e) return current;
      this.evict(e, 'ttl');
      throw err;
    }
    // Replaced (rotated), dropped or found outdated meanwhile: what the cache holds now decides.
    const current = this.entries.get(e.cluster);
    if (current !== e || e.outdated || e.retired) return current;
    if (kubeconfigFingerprint(text) !== e.fingerprint) {
      try {
        return this.install(e.cluster, e.ref, text, 'ttl');
      } catch (err) {
        // Unusable new content: dropped as a failed rebuild was, so the next use reads the Secret again.
        this.evict(e, 'ttl');
        throw err;
      }
    }
    e.builtAt = this.clock.now();
    // What the runtime serves may have changed since (an upgrade, a CRD version no longer served).
    e.client.mapper?.forget();
    this.renewals++;
    return e;
  }

  private load(cluster: string): Promise<Entry> {
    let p = this.building.get(cluster);
    if (!p) {
      p = this.build(cluster).finally(() => this.building.delete(cluster));
      this.building.set(cluster, p);
    }
    return p;
  }

  private async build(cluster: string): Promise<Entry> {
    const ref = this.opts.kubeconfigFor(cluster);
    this.indexSecret(cluster, refString(ref));
    this.changedWhileBuilding.delete(cluster);
    const startedSeq = this.seq;
    const cached = this.readFromServer.has(cluster) ? undefined : this.opts.cachedSecret?.(ref);
    const cachedText = cached && kubeconfigOf(cached, ref.key ?? DEFAULT_KUBECONFIG_KEY);
    const text = cachedText ?? (await readKubeconfig(this.opts.client, cluster, ref, this.lifetime.signal)).text;
    this.readFromServer.delete(cluster);
    const newer = this.entries.get(cluster);
    if (newer && newer.seq > startedSeq) return newer; // a rotation installed a newer client meanwhile
    const entry = this.install(cluster, ref, text, 'ttl');
    if (this.changedWhileBuilding.has(cluster)) {
      // A Secret event arrived while the Secret was being read: the client is outdated unless the
      // event carried the content it was built from (e.g. the informer's first sight of it).
      const seen = this.changedWhileBuilding.get(cluster);
      this.changedWhileBuilding.delete(cluster);
      const seenText = seen && kubeconfigOf(seen, ref.key ?? DEFAULT_KUBECONFIG_KEY);
      if (seenText === undefined || kubeconfigFingerprint(seenText) !== entry.fingerprint) entry.outdated = true;
    }
    return entry;
  }

  /** Builds a client from kubeconfig text and makes it the cluster's current one. */
  private install(cluster: string, ref: KubeconfigRef, text: string, replacing: EvictionReason): Entry {
    if (this.lifetime.signal.aborted) throw new ApiError('Unreachable', `remote cluster cache closed (cluster ${cluster})`, 0);
    const client = (this.opts.buildClient ?? this.defaultBuilder)(text, cluster);
    const entry: Entry = {
      cluster,
      ref,
      refKey: refString(ref),
      client,
      fingerprint: kubeconfigFingerprint(text),
      builtAt: this.clock.now(),
      seq: ++this.seq,
      inflight: 0,
      retired: false,
      outdated: false,
    };
    const old = this.entries.get(cluster);
    if (old) this.evict(old, replacing);
    this.entries.set(cluster, entry);
    this.indexSecret(cluster, entry.refKey);
    this.builds++;
    this.enforceMaxClients();
    return entry;
  }

  private readonly defaultBuilder = (text: string): PooledClient => clientFromKubeconfig(text, {
      ...this.opts.clientOptions,
      maxSockets: this.maxSockets,
      maxIdleSockets: this.maxIdleSockets,
      // Each connection on its own too: a busy runtime's second connection is not kept past the server's idle timeout.
      idleSocketTimeoutMs: this.idleSocketTimeoutMs,
      discovery: this.discovery,
    });

  private indexSecret(cluster: string, refKey: string): void {
    let set = this.clustersBySecret.get(refKey);
    if (!set) this.clustersBySecret.set(refKey, (set = new Set()));
    set.add(cluster);
  }

  private evict(e: Entry, reason: EvictionReason): void {
    if (e.retired) return;
    if (this.entries.get(e.cluster) === e) {
      this.entries.delete(e.cluster);
      const set = this.clustersBySecret.get(e.refKey);
      if (set && !this.building.has(e.cluster)) {
        set.delete(e.cluster);
        if (set.size === 0) this.clustersBySecret.delete(e.refKey);
      }
    }
    this.evictions[reason]++;
    if (reason !== 'lru') {
      this.readFromServer.add(e.cluster);
      // Bounded: a runtime that went (its Secret deleted) is never built again. The oldest entry
      // dropped is at worst one first build from the informer's copy.
      if (this.readFromServer.size > READ_FROM_SERVER_LIMIT) this.readFromServer.delete(this.readFromServer.values().next().value as string);
    }
    e.retired = true;
    if (e.inflight === 0) this.closeClient(e);
  }

  private closeClient(e: Entry): void {
    if (e.client.transport) this.janitor.forget(e.client.transport);
    try {
      e.client.close();
    } catch (err) {
      this.log.warn('closing client failed', { cluster: e.cluster, error: err });
    }
  }

  private enforceMaxClients(): void {
    const max = this.opts.maxClients ?? Infinity;
    if (this.entries.size <= max) return;
    for (const e of this.entries.values()) {
      if (this.entries.size <= max) break;
      if (e.inflight === 0) this.evict(e, 'lru');
    }
  }
}

/**
 * Cluster key of a cache over kubeconfig Secrets: the Secret's `<namespace>/<name>`. Every controller
 * that reaches a cluster through the same Secret then shares one client, and a rotation of that
 * Secret replaces it for all of them.
 */
export function secretClusterKey(secret: ObjectKey): string {
  return refString({ namespace: secret.namespace, name: secret.name });
}

/** The Secret a `secretClusterKey` names (data key `config`): the `kubeconfigFor` of such a cache. */
export function kubeconfigRefOfKey(key: string): KubeconfigRef {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash) || undefined, name: key.slice(slash + 1) };
}
