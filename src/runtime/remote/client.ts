// The Client handed out for a remote cluster: a stable handle whose every call goes to the cache's
// current client for that cluster, so a rotation is picked up without the caller noticing. A call
// that fails with 401, 403 or a TLS error evicts that client, rebuilds it from the Secret and is
// tried once more (the credentials may have been rotated before the cache saw the change).
import type { ApplyOptions, Client, DeleteOptions, ListOptions, ListResult, PatchType, ResourceInfo, WatchEvent, WatchOptions, WriteOptions } from '../client/interface.js';
import { isForbidden, isUnauthorized } from '../client/errors.js';
import { isTlsError } from '../client/transport.js';
import type { KindRef, KubeObject } from '../../kube/object.js';
import type { ObjectKey } from '../../kube/keys.js';

/** 401, 403, or a TLS failure (untrusted or rotated server certificate, rejected client certificate). */
export function isCredentialError(e: unknown): boolean {
  return isUnauthorized(e) || isForbidden(e) || isTlsError(e);
}

/** What the handle needs from the cache. */
export interface ClientLease {
  /** The current client of the cluster (built or rebuilt when needed); `done` must be called after use. */
  acquire(signal?: AbortSignal): Promise<{ client: Client; done: () => void }>;
  /** Evicts `client` if it is still the current one (after a credential error). */
  evict(client: Client, reason: 'credentials'): void;
  /** Drops the cluster's cached client (Client.close of the handle). */
  close(): void;
}

export class RemoteClusterClient implements Client {
  constructor(
    readonly cluster: string,
    private readonly source: ClientLease,
  ) {}

  private async call<T>(signal: AbortSignal | undefined, op: (c: Client) => Promise<T>): Promise<T> {
    const first = await this.source.acquire(signal);
    try {
      return await op(first.client);
    } catch (e) {
      if (!isCredentialError(e) || signal?.aborted) throw e;
      this.source.evict(first.client, 'credentials');
    } finally {
      first.done();
    }
    const second = await this.source.acquire(signal);
    try {
      return await op(second.client);
    } finally {
      second.done();
    }
  }

  get<T extends KubeObject = KubeObject>(kind: KindRef, key: ObjectKey, opts?: { signal?: AbortSignal }): Promise<T> {
    return this.call(opts?.signal, (c) => c.get<T>(kind, key, opts));
  }

  list<T extends KubeObject = KubeObject>(kind: KindRef, opts?: ListOptions): Promise<ListResult<T>> {
    return this.call(opts?.signal, (c) => c.list<T>(kind, opts));
  }

  create<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.call(opts?.signal, (c) => c.create(obj, opts));
  }

  update<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.call(opts?.signal, (c) => c.update(obj, opts));
  }

  updateStatus<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.call(opts?.signal, (c) => c.updateStatus(obj, opts));
  }

  patch<T extends KubeObject = KubeObject>(kind: KindRef, key: ObjectKey, type: PatchType, patch: unknown, opts?: WriteOptions & { subresource?: 'status' | 'scale' }): Promise<T> {
    return this.call(opts?.signal, (c) => c.patch<T>(kind, key, type, patch, opts));
  }

  apply<T extends KubeObject>(obj: T, opts: ApplyOptions): Promise<T> {
    return this.call(opts.signal, (c) => c.apply(obj, opts));
  }

  delete(kind: KindRef, key: ObjectKey, opts?: DeleteOptions): Promise<void> {
    return this.call(opts?.signal, (c) => c.delete(kind, key, opts));
  }

  resourceFor(kind: KindRef): Promise<ResourceInfo> {
    return this.call(undefined, (c) => c.resourceFor(kind));
  }

  /**
   * A watch on the current client. A credential error before the first event rebuilds the client
   * once; a rotation later closes the old client, which ends this watch (the informer re-watches
   * through the handle, on the new client).
   */
  async *watch<T extends KubeObject = KubeObject>(kind: KindRef, opts?: WatchOptions): AsyncGenerator<WatchEvent<T>> {
    for (let attempt = 0; ; attempt++) {
      const { client, done } = await this.source.acquire(opts?.signal);
      // A watch does not hold the client: a rotation may close it (ending the watch) at once.
      done();
      let delivered = false;
      try {
        for await (const event of client.watch<T>(kind, opts)) {
          delivered = true;
          yield event;
        }
        return;
      } catch (e) {
        if (delivered || attempt > 0 || !isCredentialError(e) || opts?.signal?.aborted) throw e;
        this.source.evict(client, 'credentials');
      }
    }
  }

  close(): void {
    this.source.close();
  }
}
