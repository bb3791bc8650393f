// The controller runtime's client: `createClient(config)` for a ClusterConfig, `clientFromKubeconfig(text)`.
import type { ClusterConfig } from './config.js';
import type { SharedDiscovery } from './discovery.js';
import { HttpClient } from './http-client.js';
import { loadKubeconfig, type KubeconfigOptions } from './kubeconfig.js';
import { rateLimiter } from './ratelimit.js';
import { type RetryOptions, retryPolicy } from './retry.js';
import { Transport } from './transport.js';

export interface ClientOptions {
  /** Requests per second to this cluster (token bucket refill). Default 50; 0 or Infinity: no limit. */
  qps?: number;
  /** Requests allowed at once before the qps limit applies. Default 2 x qps. */
  burst?: number;
  /** Concurrent request connections (watches have their own). Default 8. */
  maxSockets?: number;
  /** Idle keep-alive request connections kept. Default: maxSockets. */
  maxIdleSockets?: number;
  /** A kept-alive request connection unused this long is closed. Default: kept until the server closes it. */
  idleSocketTimeoutMs?: number;
  /** Retries after the first attempt (a number), or the full retry policy. Default 4 retries. */
  retries?: number | RetryOptions;
  /** Per-request timeout. Default 30 s. */
  requestTimeoutMs?: number;
  /** Discovery shared with clients of other clusters (per server version); default: the client's own. */
  discovery?: SharedDiscovery;
}

export function createClient(config: ClusterConfig, opts: ClientOptions = {}): HttpClient {
  return new HttpClient(config, {
    transport: new Transport(config, { maxSockets: opts.maxSockets, maxIdleSockets: opts.maxIdleSockets, idleSocketTimeoutMs: opts.idleSocketTimeoutMs, requestTimeoutMs: opts.requestTimeoutMs }),
    limiter: rateLimiter({ qps: opts.qps, burst: opts.burst }),
    retry: retryPolicy(opts.retries),
    discovery: opts.discovery,
  });
}

/** A client for a kubeconfig's current (or `context`) context. */
export function clientFromKubeconfig(text: string, opts: ClientOptions & KubeconfigOptions = {}): HttpClient {
  return createClient(loadKubeconfig(text, opts), opts);
}

export type { Client, ApplyOptions, DeleteOptions, ListOptions, ListResult, PatchType, WatchOptions, WriteOptions } from './interface.js';
export * from './errors.js';
export type { AuthProvider, ClusterConfig, TlsOptions } from './config.js';
export { staticToken } from './config.js';
export { HttpClient, errorFromWatchEvent } from './http-client.js';
export { isNoKindMatch, RestMapper, SharedDiscovery } from './discovery.js';
export { isTlsError, Transport, type ConnectionStats, type TransportOptions } from './transport.js';
export { TokenBucket, rateLimiter, type RateLimiter } from './ratelimit.js';
export { retryPolicy, shouldRetry, withRetry, type RetryOptions } from './retry.js';
export { execAuth, inClusterConfig, loadKubeconfig, loadKubeconfigFile, tokenFileAuth, type KubeconfigOptions, type InClusterOptions } from './kubeconfig.js';
export { typed, type TypedClient } from './typed.js';
export { findObject } from './find.js';
