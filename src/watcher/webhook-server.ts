// The skr-webhook server: `kcp skr-webhook` in a runtime (configured by upstream's environment
// variables), and the request handling the embedded landscape reuses to serve every runtime's
// webhook from one process.
//
// The answer (always allowed) goes out first and the event after it: the API server stores the
// object once it has every answer, so by the time the KCP reads the object the write is there.
// Pending events are de-duplicated per object and bounded; what does not fit is counted, not queued.
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Logger } from '../runtime/log.js';
import { closeServer, listen } from '../util/servers.js';
import { PROMETHEUS_CONTENT_TYPE, Registry, type Counter } from '../runtime/metrics.js';
import { CONTRACT_VERSION, type WatchEvent } from './event.js';
import { KcpEventSender } from './sender.js';
import { admissionRequestOf, decide, type IgnoredWrites, managerOfWebhookPath, parseIgnoredWrites } from './webhook.js';

/** The environment upstream's skr-webhook Deployment sets (values are upstream's defaults). */
export interface WebhookEnvironment {
  WEBHOOK_PORT?: string;
  METRICS_PORT?: string;
  KCP_ADDR?: string;
  KCP_CONTRACT?: string;
  TLS_CERT?: string;
  TLS_KEY?: string;
  CA_CERT?: string;
  /** The project's own: writes under these field managers (comma-separated) give no event... */
  IGNORED_FIELD_MANAGERS?: string;
  /** ...on the webhook paths of these event managers (comma-separated; unset: all). */
  IGNORED_FIELD_MANAGERS_FOR?: string;
}

export interface WebhookServerConfig {
  host: string;
  port: number;
  metricsPort: number;
  kcpAddress: string;
  tlsCertPath: string;
  tlsKeyPath: string;
  caCertPath: string;
  ignoredWrites: IgnoredWrites;
}

function port(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name}=${value} is not a port number`);
  return n;
}

/** Reads the configuration from upstream's variables; throws one line naming what is wrong. */
export function webhookConfigFromEnv(env: WebhookEnvironment, host = '0.0.0.0'): WebhookServerConfig {
  const contract = env.KCP_CONTRACT || CONTRACT_VERSION;
  if (contract !== CONTRACT_VERSION) throw new Error(`KCP_CONTRACT=${contract} is not supported; this webhook speaks ${CONTRACT_VERSION}`);
  const missing = (['KCP_ADDR', 'TLS_CERT', 'TLS_KEY', 'CA_CERT'] as const).filter((k) => !env[k]);
  if (missing.length > 0) throw new Error(`missing environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  return {
    host,
    port: port('WEBHOOK_PORT', env.WEBHOOK_PORT, 8443),
    metricsPort: port('METRICS_PORT', env.METRICS_PORT, 2112),
    kcpAddress: env.KCP_ADDR ?? '',
    tlsCertPath: env.TLS_CERT ?? '',
    tlsKeyPath: env.TLS_KEY ?? '',
    caCertPath: env.CA_CERT ?? '',
    ignoredWrites: parseIgnoredWrites(env.IGNORED_FIELD_MANAGERS, env.IGNORED_FIELD_MANAGERS_FOR),
  };
}

export class WebhookMetrics {
  readonly requests: Counter;
  readonly events: Counter;
  /** Upstream runtime-watcher's names: requests to the KCP, and those that failed (`error_reason="failed-request"`). */
  readonly kcpRequests: Counter;
  readonly failedKcp: Counter;
  constructor(registry: Registry) {
    this.requests = registry.counter({ name: 'watcher_webhook_requests_total', help: 'Admission requests the skr-webhook answered, by manager and whether they gave an event.', labelNames: ['manager', 'event'] });
    this.events = registry.counter({ name: 'watcher_webhook_events_total', help: 'Events the skr-webhook sent to the KCP, by result (sent, failed, dropped).', labelNames: ['result'] });
    this.kcpRequests = registry.counter({ name: 'watcher_kcp_requests_total', help: 'Events the skr-webhook sent to the KCP.' });
    this.failedKcp = registry.counter({ name: 'watcher_failed_kcp_total', help: 'Events the skr-webhook could not deliver to the KCP, by error reason.', labelNames: ['error_reason'] });
  }

  sent(): void {
    this.events.inc({ result: 'sent' });
    this.kcpRequests.inc();
  }

  failed(): void {
    this.events.inc({ result: 'failed' });
    this.kcpRequests.inc();
    this.failedKcp.inc({ error_reason: 'failed-request' });
  }
}

/** Sends events after the admission answers; one pending send per object, at most `limit` at once. */
export class EventForwarder {
  private readonly pending = new Set<string>();

  constructor(
    private readonly metrics: WebhookMetrics | undefined,
    private readonly log: Logger | undefined,
    private readonly limit = 256,
  ) {}

  forward(sender: KcpEventSender, manager: string, event: WatchEvent, key = ''): void {
    const id = `${key}|${manager}|${event.watchedGvk.group}/${event.watchedGvk.kind}|${event.watched.namespace}/${event.watched.name}`;
    if (this.pending.has(id)) return;
    if (this.pending.size >= this.limit) {
      this.metrics?.events.inc({ result: 'dropped' });
      return;
    }
    this.pending.add(id);
    // Sent on the next turn, after the admission answer was written.
    setImmediate(() => {
      this.pending.delete(id);
      sender.send(manager, event).then(
        () => this.metrics?.sent(),
        (e: unknown) => {
          this.metrics?.failed();
          this.log?.warn('sending a watcher event to the KCP failed', { manager, kind: event.watchedGvk.kind, name: event.watched.name, error: e });
        },
      );
    });
  }
}

/** Answers one admission request on `/validate/<manager>`; returns the event to forward, if any. */
export function answerAdmission(
  req: IncomingMessage,
  res: ServerResponse,
  metrics: WebhookMetrics | undefined,
  then: (manager: string, event: WatchEvent) => void,
  ignoredWrites?: IgnoredWrites,
): void {
  const path = (req.url ?? '/').split('?')[0];
  const manager = managerOfWebhookPath(path);
  const reply = (code: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  if (manager === undefined) return reply(404, { message: `no such path ${path}; webhooks are served on /validate/<manager>` });
  if (req.method !== 'POST') return reply(405, { message: 'use POST' });
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let decision;
    try {
      decision = decide(admissionRequestOf(JSON.parse(Buffer.concat(chunks).toString('utf8'))), ignoredWrites, manager);
    } catch (e) {
      return reply(400, { message: (e as Error).message });
    }
    reply(200, decision.review);
    metrics?.requests.inc({ manager, event: decision.event ? 'true' : 'false' });
    if (decision.event) then(manager, decision.event);
  });
}

export interface RunningWebhookServer {
  url: string;
  metricsUrl: string;
  close(): Promise<void>;
}

/** Starts the webhook (TLS, its key pair is also the client certificate towards the KCP) and /metrics. */
export async function startSkrWebhookServer(config: WebhookServerConfig, log?: Logger): Promise<RunningWebhookServer> {
  const read = (p: string, what: string): string => {
    try {
      return readFileSync(p, 'utf8');
    } catch (e) {
      throw new Error(`cannot read ${what} ${p}: ${(e as Error).message}`, { cause: e });
    }
  };
  const credentials = { certPem: read(config.tlsCertPath, 'TLS_CERT'), keyPem: read(config.tlsKeyPath, 'TLS_KEY'), caPem: read(config.caCertPath, 'CA_CERT') };
  const registry = new Registry();
  const metrics = new WebhookMetrics(registry);
  const sender = new KcpEventSender({ kcpAddress: config.kcpAddress, credentials });
  const forwarder = new EventForwarder(metrics, log);
  const webhook = createHttpsServer({ cert: credentials.certPem, key: credentials.keyPem, minVersion: 'TLSv1.2' }, (req, res) =>
    answerAdmission(req, res, metrics, (manager, event) => forwarder.forward(sender, manager, event), config.ignoredWrites),
  );
  const metricsServer = createHttpServer((req, res) => {
    if ((req.url ?? '').split('?')[0] === '/metrics') {
      res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE });
      res.end(registry.render());
    } else if (req.url === '/healthz' || req.url === '/readyz') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  const webhookPort = (await listen(webhook, config.port, config.host)).port;
  let metricsPort: number;
  try {
    metricsPort = (await listen(metricsServer, config.metricsPort, config.host)).port;
  } catch (e) {
    await closeServer(webhook);
    sender.close();
    throw e;
  }
  const shown = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  log?.info('skr-webhook serving', { port: webhookPort, metricsPort, kcp: config.kcpAddress });
  return {
    url: `https://${shown}:${webhookPort}`,
    metricsUrl: `http://${shown}:${metricsPort}/metrics`,
    async close() {
      sender.close();
      await Promise.all([closeServer(webhook), closeServer(metricsServer)]);
    },
  };
}
