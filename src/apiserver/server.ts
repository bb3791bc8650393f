// The embedded Kubernetes API server: HTTPS on loopback, bearer tokens, many logical clusters
// (`/` is the default one, `/clusters/<name>/...` the others), each with its own kubeconfig.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { type ServiceResolver, WebhookAdmitter } from './admission.js';
import { asksImpersonation, impersonated } from './auth/impersonation.js';
import { looksLikeJwt, ServiceAccountTokens } from './auth/service-account-tokens.js';
import { tokenRequestSubresource } from './auth/token-request.js';
import { TokenFile, type TokenSecrets } from './auth/token-file.js';
import { LogicalCluster, type UserInfo } from './cluster.js';
import { ClusterControllers } from './controllers.js';
import type { NamespaceDefaultsController } from './namespace-defaults.js';
import { SERVER_VERSION } from './discovery.js';
import { StatusError } from './errors.js';
import { enforce, requestVerb } from './auth/authorizer.js';
import { ensureBootstrapPolicy } from './auth/bootstrap-policy.js';
import { type FaultConfig, type FaultCounts, FaultInjector } from './faults.js';
import { handleApiRequest, readBody, type RequestContext, type ResourcePath, sendJson, sendStatus, type SubresourceHandler } from './handler.js';
import { kubeconfigYaml } from './kubeconfig.js';
import { ApiServerMetrics } from './metrics.js';
import { newUid } from './objects.js';
import { isOpenApiPath, serveOpenApi } from './openapi/http.js';
import { Persistence, type PersistenceOptions, type StoreLog, type StoreStats } from './persistence.js';
import { type CertKeyPair, createCA, createServingCert } from './pki.js';
import { PROMETHEUS_CONTENT_TYPE } from '../util/prometheus.js';

export type { ResolvedService, ServiceResolver } from './admission.js';
export { StoreDamagedError, type StoreLog, type StoreStats } from './persistence.js';

export interface ApiServerOptions {
  port?: number;
  host?: string;
  /** Where certificates, tokens, kubeconfigs and (with persistence) the object log live. Memory only without one. */
  dataDir?: string;
  /** Watch history kept per logical cluster (events a watch can resume from). */
  historyLimit?: number;
  /** Where admission webhooks given by `clientConfig.service` are served (see setServiceResolver). */
  serviceResolver?: ServiceResolver;
  /**
   * In-process controllers to leave off, as kube-controller-manager's `--controllers=*,-<name>`
   * (the conformance corpus was recorded without these two).
   */
  disabledControllers?: NamespaceDefaultsController[];
  /**
   * Start on a damaged store (records that fail their checksum or cannot be read) with what can be
   * read, keeping the damaged files in `<dataDir>/store/damaged-<time>/`; without it such a store
   * stops the start with a StoreDamagedError (`kcp up` and `kcp apiserver`: --recover-store).
   */
  recoverStore?: boolean;
  /** Durability and compaction of the store in the data dir (persistence.ts; defaults for production). */
  storage?: Omit<PersistenceOptions, 'recover' | 'log'>;
  /** Where the store reports what it did at start and while compacting (default: warnings and errors to stderr). */
  log?: StoreLog;
  /**
   * The class a logical cluster's requests are counted under in `GET /_kcp/stats` (`requestsByRoute`);
   * the landscape tells its garden and runtime clusters apart. Default: `kcp` for the default cluster, else `cluster`.
   */
  clusterClass?: (cluster: string) => string;
}

export interface ClusterAccess {
  name: string;
  url: string;
  token: string;
  kubeconfig: string;
}

export interface RunningApiServer {
  url: string;
  caPem: string;
  adminToken: string;
  port: number;
  stop(): Promise<void>;
  createCluster(name: string): Promise<ClusterAccess>;
  deleteCluster(name: string): Promise<void>;
  clusterAccess(name: string): ClusterAccess;
  hasCluster(name: string): boolean;
  clusterNames(): string[];
  /** Changes whenever a logical cluster is added or deleted (pollers compare it before listing clusters). */
  readonly clusterSetVersion: number;
  /** The in-process cluster, for the simulators and tests that want to look inside. */
  cluster(name: string): LogicalCluster;
  setFaults(name: string, faults: FaultConfig | undefined): void;
  /** What the fault injection did to a cluster's requests so far (also `GET /_kcp/clusters/<name>/faults`). */
  faultCounts(name: string): FaultCounts;
  /**
   * An extra bearer token for a logical cluster that stops working (401) after `ttlSeconds`, as a
   * short-lived admin kubeconfig's token does. Returns the token and its expiry (RFC 3339).
   */
  issueToken(name: string, ttlSeconds: number): { token: string; expirationTimestamp: string };
  /** A kubeconfig for a logical cluster with the given token. */
  kubeconfigWithToken(name: string, token: string): string;
  /** Serves a subresource of a resource in every logical cluster (e.g. `core.gardener.cloud/shoots/adminkubeconfig`). */
  registerSubresource(group: string, resource: string, subresource: string, handler: SubresourceHandler): void;
  /**
   * Installs (or, with undefined, removes) the resolver for admission webhooks given by
   * `clientConfig.service`: the embedded server has no pods, so whoever embeds it says where a
   * service of a logical cluster is served. Without one, such webhooks fail as for a missing service.
   */
  setServiceResolver(resolver: ServiceResolver | undefined): void;
  /** Resolves when the in-process controllers of every cluster have nothing queued. */
  idle(): Promise<void>;
  /** Requests served since start (all logical clusters, health checks excluded), for benchmarks; per cluster or method: observeRequests. */
  requestCount(): number;
  /**
   * Observation (tests, benchmarks): `listener` sees every counted request (logical cluster, method,
   * path without the cluster prefix, query) as it arrives; returns the function that removes it.
   */
  observeRequests(listener: RequestObserver): () => void;
  /** With a data dir: folds the log into a new snapshot now (it also happens by itself when the log outgrows its bound). */
  compactStore(): Promise<void>;
  /** With a data dir: sizes of the snapshot and the log, and compactions so far. */
  storeStats(): StoreStats | undefined;
}

export type RequestObserver = (request: { cluster: string; method: string; path: string; query: string }) => void;

export const DEFAULT_CLUSTER = 'default';
const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

interface ClusterEntry {
  cluster: LogicalCluster;
  controllers: ClusterControllers;
  token: string;
  user: UserInfo;
  faults: FaultInjector;
}

/** The store's reports without a logger: warnings and errors on stderr. */
const logToStderr: StoreLog = (level, message, fields) => {
  if (level !== 'info') process.stderr.write(`apiserver: ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`);
};

function unauthorized(res: ServerResponse): void {
  sendStatus(res, new StatusError(401, 'Unauthorized', 'Unauthorized'));
}

class EmbeddedApiServer implements RunningApiServer {
  url = '';
  port = 0;
  caPem = '';
  adminToken = '';
  clusterSetVersion = 0;
  private server: Server | undefined;
  private readonly clusters = new Map<string, ClusterEntry>();
  private readonly byToken = new Map<string, string>();
  private readonly sockets = new Set<Socket>();
  private readonly admitter: WebhookAdmitter;
  private readonly subresources = new Map<string, SubresourceHandler>();
  private requests = 0;
  /** TLS connections this server accepted, and how many of them resumed a session (no full handshake). */
  private readonly tlsAccepted = { connections: 0, resumed: 0 };
  private readonly metrics = new ApiServerMetrics(() => [...this.clusters.values()].map((e) => e.cluster));
  private readonly requestObservers = new Set<RequestObserver>();
  private persistence: Persistence | undefined;
  private tokenFile: TokenFile | undefined;
  private serviceAccountTokens: ServiceAccountTokens | undefined;

  constructor(private readonly opts: ApiServerOptions) {
    this.admitter = new WebhookAdmitter(opts.serviceResolver);
  }

  async start(): Promise<void> {
    const host = this.opts.host ?? '127.0.0.1';
    const { ca, serving } = await this.loadOrCreatePki(host);
    this.caPem = ca.certPem;
    this.tokenFile = new TokenFile(this.opts.dataDir);
    this.adminToken = this.secrets.adminToken;
    const saTokens = ServiceAccountTokens.load(this.opts.dataDir);
    this.serviceAccountTokens = saTokens;
    this.registerSubresource('', 'serviceaccounts', 'token', tokenRequestSubresource(saTokens));
    if (this.opts.dataDir) {
      const persistence = new Persistence(this.opts.dataDir, { ...this.opts.storage, recover: this.opts.recoverStore, log: this.opts.log ?? logToStderr });
      // Clusters deleted later in the log are made and dropped during replay: only the survivors are served.
      const restored = await persistence.restore((name, initialRv) => this.newCluster(name, initialRv));
      this.persistence = persistence;
      for (const cluster of restored) {
        const e = this.register(cluster);
        persistence.attach(cluster);
        e.controllers.resyncNamespaceDefaults();
        e.controllers.collectOrphans();
        // A data dir from before RBAC lacks the bootstrap policy; aggregation catches up with the restored roles.
        this.ensureBootstrapPolicy(e.cluster);
        e.controllers.aggregateClusterRoles();
      }
      if (!this.clusters.has(DEFAULT_CLUSTER)) this.addCluster(DEFAULT_CLUSTER);
    } else {
      this.addCluster(DEFAULT_CLUSTER);
    }
    const server = createServer({ key: serving.keyPem, cert: serving.certPem, ca: ca.certPem }, (req, res) => {
      // Handlers answer their own errors; what escapes them becomes a 500 instead of an unhandled rejection.
      this.onRequest(req, res).catch((err: unknown) => sendStatus(res, err instanceof StatusError ? err : new StatusError(500, 'InternalError', String(err))));
    });
    server.keepAliveTimeout = 60_000;
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    server.on('secureConnection', (s: TLSSocket) => {
      this.tlsAccepted.connections++;
      if (s.isSessionReused()) this.tlsAccepted.resumed++;
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port ?? 0, host, () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.url = `https://${host}:${this.port}`;
    this.writeKubeconfigs();
  }

  private async loadOrCreatePki(host: string): Promise<{ ca: CertKeyPair; serving: CertKeyPair }> {
    const dir = this.opts.dataDir;
    const files = dir ? { ca: join(dir, 'ca.crt'), caKey: join(dir, 'ca.key'), crt: join(dir, 'serving.crt'), key: join(dir, 'serving.key') } : undefined;
    if (files && existsSync(files.ca) && existsSync(files.caKey) && existsSync(files.crt) && existsSync(files.key)) {
      const read = (p: string) => readFileSync(p, 'utf8');
      return { ca: { certPem: read(files.ca), keyPem: read(files.caKey) }, serving: { certPem: read(files.crt), keyPem: read(files.key) } };
    }
    const ca = await createCA('kcp-embedded-ca');
    const serving = await createServingCert(ca, { commonName: 'kcp-embedded-apiserver', dnsNames: ['localhost'], ipAddresses: [...new Set([host, '127.0.0.1'])] });
    if (dir && files) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(files.ca, ca.certPem);
      writeFileSync(files.caKey, ca.keyPem, { mode: 0o600 });
      writeFileSync(files.crt, serving.certPem);
      writeFileSync(files.key, serving.keyPem, { mode: 0o600 });
    }
    return { ca, serving };
  }

  private get secrets(): TokenSecrets {
    if (!this.tokenFile) throw new Error('the API server has not started');
    return this.tokenFile.secrets;
  }

  private newCluster(name: string, initialRv?: number): LogicalCluster {
    const cluster = new LogicalCluster(name, { historyLimit: this.opts.historyLimit, initialRv });
    cluster.admitter = this.admitter;
    return cluster;
  }

  /** A new logical cluster, persisted, with the namespaces every cluster starts with. */
  private addCluster(name: string): LogicalCluster {
    const cluster = this.newCluster(name);
    this.register(cluster);
    if (this.persistence) {
      this.persistence.clusterCreated(cluster);
      this.persistence.attach(cluster);
    }
    this.ensureDefaultNamespaces(cluster);
    this.ensureBootstrapPolicy(cluster);
    return cluster;
  }

  /** Serves a logical cluster: its controllers and token. */
  private register(cluster: LogicalCluster): ClusterEntry {
    const name = cluster.name;
    const disabled = this.opts.disabledControllers ?? [];
    const controllers = new ClusterControllers(cluster, {
      namespaceDefaults: { serviceAccount: !disabled.includes('serviceaccount'), rootCaPem: disabled.includes('root-ca-cert-publisher') ? undefined : this.caPem },
    });
    let token = this.secrets.tokens[name];
    if (!token) {
      token = name === DEFAULT_CLUSTER ? this.secrets.adminToken : randomBytes(24).toString('hex');
      this.tokenFile?.setClusterToken(name, token);
    }
    const user: UserInfo = { username: 'admin', uid: newUid(), groups: ['system:masters', 'system:authenticated'] };
    const entry: ClusterEntry = { cluster, controllers, token, user, faults: new FaultInjector() };
    this.clusters.set(name, entry);
    this.clusterSetVersion++;
    this.byToken.set(token, name);
    return entry;
  }

  /** The default ClusterRoles and bindings every real cluster starts with. */
  private ensureBootstrapPolicy(cluster: LogicalCluster): void {
    ensureBootstrapPolicy(cluster).catch((err: unknown) => console.error(`cluster ${cluster.name}: could not create the bootstrap RBAC policy:`, err));
  }

  /** Namespaces every real cluster starts with. */
  private ensureDefaultNamespaces(cluster: LogicalCluster): void {
    const nsType = cluster.resolve('', 'v1', 'namespaces')!;
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      if (!cluster.tryGet(nsType, '', name)) {
        cluster
          .create(nsType, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { internal: true, fieldManager: 'kube-apiserver' })
          .catch((err: unknown) => console.error(`cluster ${cluster.name}: could not create namespace ${name}:`, err));
      }
    }
  }

  private kubeconfigPath(name: string): string | undefined {
    if (!this.opts.dataDir) return undefined;
    return name === DEFAULT_CLUSTER ? join(this.opts.dataDir, 'kubeconfig') : join(this.opts.dataDir, 'clusters', `${name}.kubeconfig`);
  }

  private writeKubeconfigs(): void {
    for (const name of this.clusters.keys()) this.writeKubeconfig(name);
  }

  private writeKubeconfig(name: string): void {
    const path = this.kubeconfigPath(name);
    if (!path) return;
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, this.clusterAccess(name).kubeconfig, { mode: 0o600 });
  }

  clusterUrl(name: string): string {
    return name === DEFAULT_CLUSTER ? this.url : `${this.url}/clusters/${name}`;
  }

  clusterAccess(name: string): ClusterAccess {
    const e = this.clusters.get(name);
    if (!e) throw new Error(`logical cluster ${name} does not exist`);
    const url = this.clusterUrl(name);
    return { name, url, token: e.token, kubeconfig: kubeconfigYaml({ name, server: url, caPem: this.caPem, token: e.token }) };
  }

  hasCluster(name: string): boolean {
    return this.clusters.has(name);
  }

  clusterNames(): string[] {
    return [...this.clusters.keys()];
  }

  cluster(name: string): LogicalCluster {
    const e = this.clusters.get(name);
    if (!e) throw new Error(`logical cluster ${name} does not exist`);
    return e.cluster;
  }

  async createCluster(name: string): Promise<ClusterAccess> {
    if (!CLUSTER_NAME.test(name) || name.length > 63) throw new Error(`invalid logical cluster name ${JSON.stringify(name)}: must be a DNS label`);
    if (!this.clusters.has(name)) {
      this.addCluster(name);
      this.writeKubeconfig(name);
    }
    return this.clusterAccess(name);
  }

  async deleteCluster(name: string): Promise<void> {
    if (name === DEFAULT_CLUSTER) throw new Error('the default logical cluster cannot be deleted');
    const e = this.clusters.get(name);
    if (!e) return;
    e.controllers.stop();
    this.clusters.delete(name);
    this.clusterSetVersion++;
    this.byToken.delete(e.token);
    this.tokenFile?.clusterGone(name);
    this.persistence?.clusterDeleted(e.cluster);
    // Open connections to the deleted cluster (watches) end as if the host went away.
    e.faults.dropAll();
  }

  issueToken(name: string, ttlSeconds: number): { token: string; expirationTimestamp: string } {
    if (!this.clusters.has(name)) throw new Error(`logical cluster ${name} does not exist`);
    const token = randomBytes(24).toString('hex');
    const expiresAt = Date.now() + ttlSeconds * 1000;
    // Tokens that expired long ago are forgotten when the token file is folded.
    this.tokenFile?.addExpiring(token, name, expiresAt);
    return { token, expirationTimestamp: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  }

  kubeconfigWithToken(name: string, token: string): string {
    return kubeconfigYaml({ name, server: this.clusterUrl(name), caPem: this.caPem, token });
  }

  registerSubresource(group: string, resource: string, subresource: string, handler: SubresourceHandler): void {
    this.subresources.set(`${group}/${resource}/${subresource}`, handler);
  }

  /** The logical cluster a bearer token opens: its own token, or a short-lived one not yet expired. */
  private clusterOfToken(token: string): string | undefined {
    const own = this.byToken.get(token);
    if (own !== undefined) return own;
    const e = this.secrets.expiring?.[token];
    return e !== undefined && e.expiresAt > Date.now() ? e.cluster : undefined;
  }

  private tokenOpens(token: string, name: string): boolean {
    return this.clusterOfToken(token) === name;
  }

  /** Who a bearer token is in a logical cluster: its admin, one of its ServiceAccounts, or nobody (401). */
  private authenticate(token: string, entry: ClusterEntry): UserInfo | undefined {
    if (!token) return undefined;
    if (this.tokenOpens(token, entry.cluster.name)) return entry.user;
    if (looksLikeJwt(token)) return this.serviceAccountTokens?.authenticate(token, entry.cluster);
    return undefined;
  }

  setFaults(name: string, faults: FaultConfig | undefined): void {
    const e = this.clusters.get(name);
    if (!e) throw new Error(`logical cluster ${name} does not exist`);
    e.faults.configure(faults, e.cluster);
  }

  faultCounts(name: string): FaultCounts {
    const e = this.clusters.get(name);
    if (!e) throw new Error(`logical cluster ${name} does not exist`);
    return e.faults.counts();
  }

  setServiceResolver(resolver: ServiceResolver | undefined): void {
    this.admitter.serviceResolver = resolver;
  }

  requestCount(): number {
    return this.requests;
  }

  observeRequests(listener: RequestObserver): () => void {
    this.requestObservers.add(listener);
    return () => this.requestObservers.delete(listener);
  }

  async idle(): Promise<void> {
    for (const e of this.clusters.values()) await e.controllers.idle();
  }

  async stop(): Promise<void> {
    for (const e of this.clusters.values()) e.controllers.stop();
    const server = this.server;
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of this.sockets) s.destroy();
      await closed;
    }
    this.admitter.close();
    this.tokenFile?.close();
    await this.persistence?.close();
  }

  compactStore(): Promise<void> {
    if (!this.persistence) return Promise.reject(new Error('the API server has no data dir: nothing to compact'));
    return this.persistence.compact();
  }

  storeStats(): StoreStats | undefined {
    return this.persistence?.stats();
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'https://localhost');
    let path = url.pathname;
    const auth = req.headers.authorization ?? '';
    const token = auth.startsWith('Bearer ') ? auth.slice(7).trim() : '';
    let name: string;
    if (path.startsWith('/clusters/')) {
      const rest = path.slice('/clusters/'.length);
      const slash = rest.indexOf('/');
      name = slash < 0 ? rest : rest.slice(0, slash);
      path = slash < 0 ? '/' : rest.slice(slash);
    } else {
      // Without the prefix, a logical cluster's token (or a ServiceAccount token issued there) names
      // its cluster (clients that rebuild URLs from the host, `kubectl get --raw /version`); the
      // admin token and anything else mean `default`.
      name = (token && (this.clusterOfToken(token) ?? this.serviceAccountTokens?.clusterNamed(token))) || DEFAULT_CLUSTER;
    }
    if (path.startsWith('/_kcp/')) return this.onAdminRequest(req, res, path, url.searchParams);
    const entry = this.clusters.get(name);
    if (!entry) {
      // A deleted (or never created) logical cluster behaves like a host that is not there.
      req.socket.destroy();
      return;
    }
    if (path === '/healthz' || path === '/readyz' || path === '/livez') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
      this.metrics.recordHealth(path, 200, (performance.now() - started) / 1000);
      return;
    }
    if (path === '/metrics') return this.serveMetrics(res, token, name);
    this.requests++;
    for (const observe of this.requestObservers) observe({ cluster: name, method: req.method ?? 'GET', path, query: url.search });
    const authenticated = this.authenticate(token, entry);
    if (!authenticated) return unauthorized(res);
    const user = asksImpersonation(req.headers) ? impersonated(entry.cluster, authenticated, req.headersDistinct) : authenticated;
    const fault = await entry.faults.before(req, res);
    if (fault === 'handled') return;
    // Non-resource paths are authorized too (a thrown 403 is answered by the caller of onRequest).
    if (path === '/version' || isOpenApiPath(path)) enforce(entry.cluster, user, { resourceRequest: false, verb: requestVerb(req.method ?? 'GET', true, false), path });
    if (path === '/version') return sendJson(res, 200, SERVER_VERSION);
    if (isOpenApiPath(path)) return serveOpenApi(req, res, entry.cluster, path, url.searchParams, url.pathname.slice(0, url.pathname.length - path.length));
    const ctx: RequestContext = {
      cluster: entry.cluster,
      user,
      path,
      query: url.searchParams,
      onWatchOpen: (close) => entry.faults.trackWatch(close),
      subresources: this.subresources,
    };
    await handleApiRequest(req, res, ctx);
    const route = ctx.route;
    if (route === undefined) return;
    // Counted when answered; a watch when it ends, as kube-apiserver does.
    if (res.writableEnded) this.recordRequest(req, res, name, route, url.searchParams, started);
    else res.once('close', () => this.recordRequest(req, res, name, route, url.searchParams, started));
  }

  private recordRequest(req: IncomingMessage, res: ServerResponse, cluster: string, route: ResourcePath, query: URLSearchParams, started: number): void {
    const clusterClass = this.opts.clusterClass?.(cluster) ?? (cluster === DEFAULT_CLUSTER ? 'kcp' : 'cluster');
    this.metrics.recordResource(req.method ?? 'GET', route, query, req.headers['content-type'], res.statusCode, (performance.now() - started) / 1000, clusterClass);
  }

  /** kube-apiserver's metrics; only the admin token may read them (kube grants them to system:monitoring). */
  private serveMetrics(res: ServerResponse, token: string, cluster: string): void {
    if (!token || !this.tokenOpens(token, cluster)) return unauthorized(res);
    if (cluster !== DEFAULT_CLUSTER) return sendStatus(res, new StatusError(403, 'Forbidden', 'forbidden: User "admin" cannot get path "/metrics"', {}));
    const text = this.metrics.render();
    res.writeHead(200, { 'Content-Type': PROMETHEUS_CONTENT_TYPE, 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }

  /** Server administration (logical clusters, faults), for the command line and simulators. */
  private async onAdminRequest(req: IncomingMessage, res: ServerResponse, path: string, _q: URLSearchParams): Promise<void> {
    const auth = req.headers.authorization ?? '';
    if (auth !== `Bearer ${this.adminToken}`) return unauthorized(res);
    const parts = path.split('/').filter(Boolean).slice(1);
    try {
      if (parts[0] === 'stats' && parts.length === 1 && req.method === 'GET') {
        // For benchmarks and operators: what this server answered and holds, process-wide.
        const memory = process.memoryUsage();
        const stats = {
          requests: this.requests,
          clusters: this.clusters.size,
          pid: process.pid,
          rssBytes: memory.rss,
          heapUsedBytes: memory.heapUsed,
          tlsConnections: { ...this.tlsAccepted },
          webhookCalls: this.admitter.stats,
        };
        return sendJson(res, 200, { ...stats, requestsByRoute: this.metrics.requestsByRoute() });
      }
      if (parts[0] === 'clusters' && parts.length === 1 && req.method === 'GET') {
        return sendJson(res, 200, { clusters: this.clusterNames() });
      }
      if (parts[0] === 'clusters' && parts.length === 2 && req.method === 'PUT') {
        const access = await this.createCluster(parts[1]);
        return sendJson(res, 200, { name: access.name, url: access.url, kubeconfigPath: this.kubeconfigPath(access.name) ?? null, kubeconfig: access.kubeconfig });
      }
      if (parts[0] === 'clusters' && parts.length === 2 && req.method === 'DELETE') {
        await this.deleteCluster(parts[1]);
        return sendJson(res, 200, { deleted: parts[1] });
      }
      if (parts[0] === 'clusters' && parts.length === 3 && parts[2] === 'faults' && req.method === 'PUT') {
        const body = (await readBody(req)).toString('utf8');
        this.setFaults(parts[1], body.trim() ? (JSON.parse(body) as FaultConfig) : undefined);
        return sendJson(res, 200, { configured: parts[1] });
      }
      if (parts[0] === 'clusters' && parts.length === 3 && parts[2] === 'faults' && req.method === 'GET') {
        return sendJson(res, 200, this.faultCounts(parts[1]));
      }
      sendStatus(res, new StatusError(404, 'NotFound', 'the server could not find the requested resource', {}));
    } catch (err) {
      sendStatus(res, new StatusError(400, 'BadRequest', err instanceof Error ? err.message : String(err)));
    }
  }
}

export async function startApiServer(opts: ApiServerOptions = {}): Promise<RunningApiServer> {
  const s = new EmbeddedApiServer(opts);
  await s.start();
  return s;
}
