// The runtime watcher's webhook, run for every runtime cluster of the embedded landscape. The
// landscape's pods run no containers, so this host serves the `skr-webhook` Deployments: a runtime
// whose kyma-system has the Deployment (replicas >= 1) and its Secret `skr-webhook-tls` gets its
// webhook served here, with the runtime's own key pair both as serving certificate (what the
// runtime's API server checks against the caBundle) and as client certificate towards the KCP
// listener, and with the KCP address from the Deployment's KCP_ADDR. Nothing about the runtime is taken from
// anywhere else, so each event carries only its own runtime's identity.
//
// One HTTPS port serves every runtime: the embedded API server resolves `skr-webhook.kyma-system`
// of a cluster to this port with an SNI name of its own, which selects the runtime. The servers
// run in a worker thread (skr-webhooks-worker.ts), as webhook pods run beside a runtime's API
// server and not in it: their TLS, the admission reviews they parse and the events they send to
// the KCP stay off the main thread, whose event loop serves every cluster's API. The main thread
// reads a runtime's Deployment and Secret when its API server is about to call, and sends them
// over when they changed.
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { ResolvedService, ServiceResolver } from '../apiserver/admission.js';
import type { RunningApiServer } from '../apiserver/server.js';
import type { StoredObject } from '../apiserver/store.js';
import type { Logger } from '../runtime/log.js';
import type { Registry } from '../runtime/metrics.js';
import { SKR_WEBHOOK_NAME, SKR_WEBHOOK_NAMESPACE, SKR_WEBHOOK_TLS_SECRET, webhookEnvOf } from '../watcher/skr-objects.js';
import { WebhookMetrics } from '../watcher/webhook-server.js';
import { SIMULATOR_DOMAIN } from './constants.js';
import { addIncrements, type FromWebhookThread, type RuntimeWebhookState, type ToWebhookThread } from './skr-webhooks-messages.js';

/** SNI names of the runtimes' webhooks end in this. */
const SNI_SUFFIX = `.skr-webhook.${SIMULATOR_DOMAIN}`;

/** What the main thread knows of a runtime's webhook: the version the thread has, and whether it is usable. */
interface SentState {
  version: string;
  sni: string;
  /** The thread could not use the key pair of this version. */
  unusable: boolean;
}

export interface SkrWebhookHostOptions {
  log?: Logger;
  registry?: Registry;
  /** How often the states the thread holds are checked against their runtimes (default 30 s). */
  sweepMs?: number;
}

export class SkrWebhookHost {
  private worker: Worker | undefined;
  /** The server's URL, kept: the resolver answers it for every admission call. */
  private serverUrl: string | undefined;
  private readonly sent = new Map<string, SentState>();
  private readonly metrics: WebhookMetrics | undefined;
  private stopped: Promise<void> | undefined;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly api: RunningApiServer,
    private readonly opts: SkrWebhookHostOptions = {},
  ) {
    this.metrics = opts.registry ? new WebhookMetrics(opts.registry) : undefined;
  }

  async start(): Promise<void> {
    const worker = new Worker(new URL('./skr-webhooks-worker.js', import.meta.url), { workerData: { metrics: this.metrics !== undefined } });
    const port = await new Promise<number>((resolve, reject) => {
      const failed = (e: Error) => reject(e);
      const exited = (code: number) => reject(new Error(`the skr-webhook thread ended with code ${code} before it listened`));
      worker.once('error', failed);
      worker.once('exit', exited);
      worker.on('message', (m: FromWebhookThread) => {
        if (m.t === 'listening') {
          worker.off('error', failed);
          worker.off('exit', exited);
          resolve(m.port);
        } else this.onMessage(m);
      });
    });
    worker.on('error', (e) => this.complain('the skr-webhook thread failed', e));
    this.stopped = new Promise((resolve) =>
      worker.once('exit', (code) => {
        // Not asked to stop: no runtime has a webhook from now on (the API server finds no service,
        // and the webhooks' failure policy lets the writes through without events).
        if (this.worker === worker) {
          this.complain(`the skr-webhook thread ended (code ${code}); runtimes get no watcher events from now on`);
          this.worker = undefined;
          this.sent.clear();
        }
        resolve();
      }),
    );
    this.worker = worker;
    this.serverUrl = `https://127.0.0.1:${port}`;
    this.api.setServiceResolver(this.resolver);
    // A runtime deleted, or whose webhook was stopped, may never be called again: its state goes
    // from the thread at the next sweep.
    this.sweeper = setInterval(() => {
      for (const cluster of [...this.sent.keys()]) this.stateOf(cluster);
    }, this.opts.sweepMs ?? 30_000);
    this.sweeper.unref();
  }

  /** Logged, or written to stderr without a logger: a landscape without webhooks must not go unnoticed. */
  private complain(msg: string, error?: unknown): void {
    if (this.opts.log) this.opts.log.error(msg, error === undefined ? undefined : { error });
    else console.error(`skr-webhook host: ${msg}${error instanceof Error ? `: ${error.message}` : ''}`);
  }

  get url(): string {
    if (!this.worker || !this.serverUrl) throw new Error('the skr-webhook host is not started');
    return this.serverUrl;
  }

  /** For the embedded API server: where a cluster's `skr-webhook.kyma-system` is served. */
  readonly resolver: ServiceResolver = (cluster, service): ResolvedService | undefined => {
    if (service.namespace !== SKR_WEBHOOK_NAMESPACE || service.name !== SKR_WEBHOOK_NAME || !this.worker) return undefined;
    const state = this.stateOf(cluster);
    if (!state) return undefined;
    return { url: this.url, servername: state.sni };
  };

  /** Runtimes whose webhook state was sent to the thread (less those it reported unusable). */
  cachedRuntimes(): number {
    let n = 0;
    for (const s of this.sent.values()) if (!s.unusable) n++;
    return n;
  }

  async stop(): Promise<void> {
    this.api.setServiceResolver(undefined);
    clearInterval(this.sweeper);
    const worker = this.worker;
    this.worker = undefined;
    this.serverUrl = undefined;
    this.sent.clear();
    if (!worker) return;
    this.send(worker, { t: 'stop' });
    // The thread closes its server and ends; one that does not within 10 s is ended.
    const timer = setTimeout(() => {
      worker.terminate().catch(() => undefined);
    }, 10_000);
    await this.stopped;
    clearTimeout(timer);
  }

  private onMessage(m: FromWebhookThread): void {
    if (m.t === 'metrics') {
      if (this.metrics) addIncrements(this.metrics, m.increments);
    } else if (m.t === 'log') {
      this.opts.log?.[m.level](m.msg, m.fields);
    } else if (m.t === 'unusable') {
      const s = this.sent.get(m.cluster);
      if (s && s.version === m.version) s.unusable = true;
    }
  }

  private send(worker: Worker, m: ToWebhookThread): void {
    worker.postMessage(m);
  }

  /**
   * The SNI name of a runtime's webhook at one version of its Deployment and Secret: a new version
   * gets a new name, so the API server's next connection waits in the thread for exactly that state.
   */
  private sniOf(cluster: string, version: string): string {
    return `c${createHash('sha256').update(`${cluster}\0${version}`).digest('hex').slice(0, 20)}${SNI_SUFFIX}`;
  }

  /**
   * The runtime's webhook as its Deployment and Secret say now (sent to the thread when they
   * changed); undefined when it does not run.
   */
  private stateOf(cluster: string): SentState | undefined {
    const worker = this.worker;
    if (!worker) return undefined;
    const store = this.api.hasCluster(cluster) ? this.api.cluster(cluster).store : undefined;
    const deployment = store?.get('apps/deployments', SKR_WEBHOOK_NAMESPACE, SKR_WEBHOOK_NAME);
    const secret = store?.get('/secrets', SKR_WEBHOOK_NAMESPACE, SKR_WEBHOOK_TLS_SECRET);
    const version = deployment && secret ? `${secret.rv}/${deployment.rv}` : undefined;
    const known = this.sent.get(cluster);
    if (known && known.version === version) return known.unusable ? undefined : known;
    const state = version !== undefined && deployment && secret ? readState(cluster, this.sniOf(cluster, version), version, deployment, secret) : undefined;
    if (!state) {
      if (known) {
        this.sent.delete(cluster);
        this.send(worker, { t: 'drop', cluster });
      }
      return undefined;
    }
    const sent: SentState = { version: state.version, sni: state.sni, unusable: false };
    this.sent.set(cluster, sent);
    this.send(worker, { t: 'state', state });
    return sent;
  }
}

/** What the webhook pod would read; undefined when it would not run (no replicas, no key pair, no KCP address). */
function readState(cluster: string, sni: string, version: string, deploymentStored: StoredObject, secretStored: StoredObject): RuntimeWebhookState | undefined {
  const deployment = JSON.parse(deploymentStored.json) as { spec?: { replicas?: number } };
  if ((deployment.spec?.replicas ?? 1) < 1) return undefined;
  const env = webhookEnvOf(deployment);
  const data = (JSON.parse(secretStored.json) as { data?: Record<string, string> }).data ?? {};
  const text = (k: string): string => Buffer.from(data[k] ?? '', 'base64').toString('utf8');
  const certPem = text('tls.crt');
  const keyPem = text('tls.key');
  if (!certPem || !keyPem || !env.KCP_ADDR) return undefined;
  return {
    cluster,
    sni,
    version,
    certPem,
    keyPem,
    caPem: text('ca.crt'),
    kcpAddress: env.KCP_ADDR,
    ignoredFieldManagers: env.IGNORED_FIELD_MANAGERS,
    ignoredFieldManagersFor: env.IGNORED_FIELD_MANAGERS_FOR,
  };
}
