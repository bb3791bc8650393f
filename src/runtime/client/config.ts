// What a client needs to reach one cluster: where it is, how to trust it, how to authenticate.
// `kubeconfig.ts` builds it from a kubeconfig or the in-cluster service account.

export interface TlsOptions {
  /** PEM bundle of the CAs to trust; the system CAs when absent. */
  ca?: string;
  /** PEM client certificate and key (mutual TLS). */
  cert?: string;
  key?: string;
  /** `insecure-skip-tls-verify`: accept any server certificate. */
  insecureSkipTlsVerify?: boolean;
  /** `tls-server-name`: the name to verify the server certificate against. */
  serverName?: string;
}

/** Supplies the `Authorization` header; asked before every request. */
export interface AuthProvider {
  /** The header value (e.g. `Bearer abc`), or undefined to send none. */
  authorization(signal?: AbortSignal): Promise<string | undefined>;
  /**
   * Called after a 401: forget cached credentials. Returns true when fetching them again may help
   * (the client then retries the request once).
   */
  invalidate?(): boolean;
}

export interface ClusterConfig {
  /** A name for logs and metrics (the kubeconfig context or cluster name). */
  name: string;
  /** `https://host:port[/path]`; a path prefix (e.g. `/clusters/x`) is kept. */
  server: string;
  tls: TlsOptions;
  auth?: AuthProvider;
}

/** A fixed bearer token. */
export function staticToken(token: string): AuthProvider {
  const header = `Bearer ${token}`;
  return { authorization: () => Promise.resolve(header) };
}
