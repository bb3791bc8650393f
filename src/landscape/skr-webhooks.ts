// The runtime watcher's webhook, run for every runtime cluster of the embedded landscape. The
// landscape's pods run no containers, so this host serves the `skr-webhook` Deployments: a runtime
// whose kyma-system has the Deployment (replicas >= 1) and its Secret `skr-webhook-tls` gets its
// webhook served here, with the runtime's own key pair both as serving certificate (what the
// runtime's API server checks against the caBundle) and as client certificate towards the KCP
// listener, and with the KCP address from the Deployment's KCP_ADDR. Nothing about the runtime is taken from
// anywhere else, so each event carries only its own runtime's identity.
//
// One HTTPS port serves every runtime: the embedded API server resolves `skr-webhook.kyma-system`
// of a cluster to this port with an SNI name of its own, which selects the runtime. States are built
// lazily and kept in a bounded LRU, so 10,000 runtimes cost what the busy ones need. The TLS
// contexts (the serving one here, the sender's client one) come from the process's context cache,
// so a state rebuilt for an unchanged certificate does not build them again.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { ResolvedService, ServiceResolver } from '../apiserver/admission.js';
import type { RunningApiServer } from '../apiserver/server.js';
import type { StoredObject } from '../apiserver/store.js';
import type { Logger } from '../runtime/log.js';
import type { Registry } from '../runtime/metrics.js';
import { closeServer, listen } from '../util/servers.js';
import { secureContexts, type SecureContextLease } from '../util/tls-contexts.js';
import { KcpEventSender } from '../watcher/sender.js';
import { SKR_WEBHOOK_NAME, SKR_WEBHOOK_NAMESPACE, SKR_WEBHOOK_TLS_SECRET, webhookEnvOf } from '../watcher/skr-objects.js';
import { answerAdmission, EventForwarder, WebhookMetrics } from '../watcher/webhook-server.js';
import { type IgnoredWrites, parseIgnoredWrites } from '../watcher/webhook.js';
import { SIMULATOR_DOMAIN } from './constants.js';

/** SNI names of the runtimes' webhooks end in this. */
const SNI_SUFFIX = `.skr-webhook.${SIMULATOR_DOMAIN}`;

interface RuntimeWebhook {
  /** Resource versions of the Secret and Deployment the state was built from. */
  version: string;
  context: SecureContextLease;
  sender: KcpEventSender;
  /** The Deployment's IGNORED_FIELD_MANAGERS and IGNORED_FIELD_MANAGERS_FOR. */
  ignoredWrites: IgnoredWrites;
}

export interface SkrWebhookHostOptions {
  log?: Logger;
  registry?: Registry;
  /** Runtimes whose state is kept at once (default 10,000); others are rebuilt when they call. */
  maxCached?: number;
}

export class SkrWebhookHost {
  private server: Server | undefined;
  /** The server's URL, kept: the resolver answers it for every admission call. */
  private serverUrl: string | undefined;
  private readonly states = new Map<string, RuntimeWebhook>();
  private readonly sniToCluster = new Map<string, string>();
  private readonly metrics: WebhookMetrics | undefined;
  private readonly forwarder: EventForwarder;

  constructor(
    private readonly api: RunningApiServer,
    private readonly opts: SkrWebhookHostOptions = {},
  ) {
    this.metrics = opts.registry ? new WebhookMetrics(opts.registry) : undefined;
    this.forwarder = new EventForwarder(this.metrics, opts.log, 4096);
  }

  async start(): Promise<void> {
    const server = createServer(
      {
        minVersion: 'TLSv1.2',
        SNICallback: (servername, cb) => {
          const state = this.stateOf(this.sniToCluster.get(servername));
          if (state) cb(null, state.context.context);
          else cb(new Error(`no skr-webhook runs for ${servername}`));
        },
      },
      (req, res) => {
        const cluster = this.sniToCluster.get((req.socket as TLSSocket).servername || '');
        const state = this.stateOf(cluster);
        if (!cluster || !state) {
          res.writeHead(503, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ message: 'the skr-webhook of this runtime does not run' }));
          return;
        }
        answerAdmission(req, res, this.metrics, (manager, event) => this.forwarder.forward(state.sender, manager, event, cluster), state.ignoredWrites);
      },
    );
    server.keepAliveTimeout = 30_000;
    await listen(server, 0, '127.0.0.1');
    this.server = server;
    this.serverUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.api.setServiceResolver(this.resolver);
  }

  get url(): string {
    if (!this.server || !this.serverUrl) throw new Error('the skr-webhook host is not started');
    return this.serverUrl;
  }

  /** For the embedded API server: where a cluster's `skr-webhook.kyma-system` is served. */
  readonly resolver: ServiceResolver = (cluster, service): ResolvedService | undefined => {
    if (service.namespace !== SKR_WEBHOOK_NAMESPACE || service.name !== SKR_WEBHOOK_NAME || !this.server) return undefined;
    if (!this.stateOf(cluster)) return undefined;
    return { url: this.url, servername: this.sniOf(cluster) };
  };

  /** Runtimes whose webhook state is built now. */
  cachedRuntimes(): number {
    return this.states.size;
  }

  async stop(): Promise<void> {
    this.api.setServiceResolver(undefined);
    for (const s of this.states.values()) dispose(s);
    this.states.clear();
    const server = this.server;
    this.server = undefined;
    this.serverUrl = undefined;
    if (server) await closeServer(server);
  }

  private sniOf(cluster: string): string {
    const name = `c${createHash('sha256').update(cluster).digest('hex').slice(0, 20)}${SNI_SUFFIX}`;
    this.sniToCluster.set(name, cluster);
    return name;
  }

  /** The runtime's webhook as its Deployment and Secret say now; undefined when it does not run. */
  private stateOf(cluster: string | undefined): RuntimeWebhook | undefined {
    if (!cluster || !this.api.hasCluster(cluster)) return this.drop(cluster);
    const store = this.api.cluster(cluster).store;
    const deployment = store.get('apps/deployments', SKR_WEBHOOK_NAMESPACE, SKR_WEBHOOK_NAME);
    const secret = store.get('/secrets', SKR_WEBHOOK_NAMESPACE, SKR_WEBHOOK_TLS_SECRET);
    if (!deployment || !secret) return this.drop(cluster);
    const version = `${secret.rv}/${deployment.rv}`;
    const cached = this.states.get(cluster);
    if (cached && cached.version === version) {
      // Most recently used last.
      this.states.delete(cluster);
      this.states.set(cluster, cached);
      return cached;
    }
    const built = this.build(deployment, secret, version, cached);
    if (!built) return this.drop(cluster);
    this.states.delete(cluster);
    this.states.set(cluster, built);
    const max = this.opts.maxCached ?? 10_000;
    for (const [k, v] of this.states) {
      if (this.states.size <= max) break;
      dispose(v);
      this.states.delete(k);
    }
    return built;
  }

  private build(deploymentStored: StoredObject, secretStored: StoredObject, version: string, previous: RuntimeWebhook | undefined): RuntimeWebhook | undefined {
    const deployment = JSON.parse(deploymentStored.json) as { spec?: { replicas?: number } };
    if ((deployment.spec?.replicas ?? 1) < 1) return undefined;
    const env = webhookEnvOf(deployment);
    const data = (JSON.parse(secretStored.json) as { data?: Record<string, string> }).data ?? {};
    const text = (k: string): string => Buffer.from(data[k] ?? '', 'base64').toString('utf8');
    const credentials = { certPem: text('tls.crt'), keyPem: text('tls.key'), caPem: text('ca.crt') };
    if (!credentials.certPem || !credentials.keyPem || !env.KCP_ADDR) return undefined;
    const ignoredWrites = parseIgnoredWrites(env.IGNORED_FIELD_MANAGERS, env.IGNORED_FIELD_MANAGERS_FOR);
    let context: SecureContextLease | undefined;
    try {
      context = secureContexts.acquire({ cert: credentials.certPem, key: credentials.keyPem });
      previous?.context.release();
      if (previous && previous.sender.address === env.KCP_ADDR) {
        previous.sender.updateCredentials(credentials);
        return { version, context, sender: previous.sender, ignoredWrites };
      }
      previous?.sender.close();
      return { version, context, sender: new KcpEventSender({ kcpAddress: env.KCP_ADDR, credentials }), ignoredWrites };
    } catch (e) {
      this.opts.log?.warn('skr-webhook certificate unusable', { error: e });
      context?.release();
      return undefined;
    }
  }

  private drop(cluster: string | undefined): undefined {
    const state = cluster === undefined ? undefined : this.states.get(cluster);
    if (state) {
      dispose(state);
      this.states.delete(cluster!);
    }
    return undefined;
  }
}

function dispose(state: RuntimeWebhook): void {
  state.sender.close();
  state.context.release();
}
