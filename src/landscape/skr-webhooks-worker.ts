// The runtimes' skr-webhook servers, in a worker thread of the landscape process (see
// skr-webhooks.ts for what they serve and why here). The thread holds what a webhook pod holds:
// its runtime's key pair, the KCP address and the writes to ignore, sent by the main thread when
// they change. It answers the admission calls over TLS and forwards events to the KCP listener
// over mutual TLS, off the main thread, whose event loop serves every cluster's API.
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { parentPort, workerData } from 'node:worker_threads';
import type { LogFields, Logger, LogLevel } from '../runtime/log.js';
import { Registry } from '../runtime/metrics.js';
import { closeServer, listen } from '../util/servers.js';
import { secureContexts, type SecureContextLease } from '../util/tls-contexts.js';
import { KcpEventSender } from '../watcher/sender.js';
import { answerAdmission, EventForwarder, WebhookMetrics } from '../watcher/webhook-server.js';
import { type IgnoredWrites, parseIgnoredWrites } from '../watcher/webhook.js';
import type { FromWebhookThread, MetricIncrement, RuntimeWebhookState, ToWebhookThread, WebhookCounter } from './skr-webhooks-messages.js';

/** How long a TLS handshake waits for its runtime's state (sent by the main thread before it calls). */
const STATE_WAIT_MS = 5_000;

interface RuntimeWebhook {
  cluster: string;
  /** The SNI name of the version it was built from. */
  sni: string;
  context: SecureContextLease;
  sender: KcpEventSender;
  ignoredWrites: IgnoredWrites;
}

const port = parentPort;
if (!port) throw new Error('skr-webhooks-worker runs as a worker thread');
const post = (m: FromWebhookThread): void => port.postMessage(m);

const relay =
  (level: LogLevel) =>
  (msg: string, fields?: LogFields): void =>
    post({ t: 'log', level, msg, fields: loggable(fields) });
/** Lines go to the main thread's logger, which decides what is shown. */
const log: Logger = { name: 'skr-webhook', debug: relay('debug'), info: relay('info'), warn: relay('warn'), error: relay('error'), enabled: () => true, child: () => log };

// Counters increment here and are added to the main thread's registry once per turn.
let pending: MetricIncrement[] = [];
function relayed(name: WebhookCounter, local: WebhookMetrics[WebhookCounter]): WebhookMetrics[WebhookCounter] {
  return new Proxy(local, {
    get(target, prop, receiver) {
      if (prop !== 'inc') return Reflect.get(target, prop, receiver) as unknown;
      return (labels?: Record<string, string>, by = 1) => {
        target.inc(labels, by);
        if (pending.length === 0) setImmediate(flushMetrics);
        pending.push([name, labels ?? {}, by]);
      };
    },
  });
}
function flushMetrics(): void {
  if (pending.length === 0) return;
  post({ t: 'metrics', increments: pending });
  pending = [];
}
const local = new WebhookMetrics(new Registry());
// Relayed only when the host keeps them (a registry was given).
if ((workerData as { metrics?: boolean } | undefined)?.metrics) {
  for (const name of ['requests', 'events', 'kcpRequests', 'failedKcp'] as const) (local as { -readonly [K in WebhookCounter]: WebhookMetrics[K] })[name] = relayed(name, local[name]);
}
const metrics = local;
const forwarder = new EventForwarder(metrics, log, 4096);

/** The state of every runtime whose webhook runs; its `sni` names the version it was built from. */
const states = new Map<string, RuntimeWebhook>();
/** Every SNI name a runtime's states had, to its runtime: a kept-alive connection of an older version is served with the current one. */
const sniToCluster = new Map<string, string>();
const snisOf = new Map<string, Set<string>>();
/** SNI names refused at once: a version whose key pair was unusable, a runtime whose webhook was stopped. */
const refused = new Set<string>();
/** TLS handshakes waiting for the state of their SNI name (the main thread sends it before its API server calls; the call may get here first). */
const waiting = new Map<string, Set<(s: RuntimeWebhook | undefined) => void>>();
let stopping = false;

function stateOfSni(servername: string): RuntimeWebhook | undefined {
  const cluster = sniToCluster.get(servername);
  return cluster === undefined ? undefined : states.get(cluster);
}

function settle(sni: string, s: RuntimeWebhook | undefined): void {
  for (const resolve of waiting.get(sni) ?? []) resolve(s);
  waiting.delete(sni);
}

function apply(s: RuntimeWebhookState): void {
  const previous = states.get(s.cluster);
  const credentials = { certPem: s.certPem, keyPem: s.keyPem, caPem: s.caPem };
  const ignoredWrites = parseIgnoredWrites(s.ignoredFieldManagers, s.ignoredFieldManagersFor);
  let context: SecureContextLease | undefined;
  let built: RuntimeWebhook | undefined;
  try {
    context = secureContexts.acquire({ cert: credentials.certPem, key: credentials.keyPem });
    if (previous && previous.sender.address === s.kcpAddress) {
      previous.sender.updateCredentials(credentials);
      built = { cluster: s.cluster, sni: s.sni, context, sender: previous.sender, ignoredWrites };
      previous.context.release();
    } else {
      built = { cluster: s.cluster, sni: s.sni, context, sender: new KcpEventSender({ kcpAddress: s.kcpAddress, credentials }), ignoredWrites };
      if (previous) dispose(previous);
    }
  } catch (e) {
    context?.release();
    if (previous) dispose(previous);
    states.delete(s.cluster);
    log.warn('skr-webhook certificate unusable', { cluster: s.cluster, error: e });
    post({ t: 'unusable', cluster: s.cluster, version: s.version });
  }
  if (built) {
    states.set(s.cluster, built);
    sniToCluster.set(s.sni, s.cluster);
    let snis = snisOf.get(s.cluster);
    if (!snis) snisOf.set(s.cluster, (snis = new Set()));
    snis.add(s.sni);
    refused.delete(s.sni);
  } else refused.add(s.sni);
  settle(s.sni, built);
}

function drop(cluster: string): void {
  const s = states.get(cluster);
  if (s) dispose(s);
  states.delete(cluster);
  for (const sni of snisOf.get(cluster) ?? []) {
    sniToCluster.delete(sni);
    refused.add(sni);
    settle(sni, undefined);
  }
  snisOf.delete(cluster);
}

function dispose(s: RuntimeWebhook): void {
  s.sender.close();
  s.context.release();
}

const server = createServer(
  {
    minVersion: 'TLSv1.2',
    SNICallback: (servername, cb) => {
      const current = stateOfSni(servername);
      if (current) return cb(null, current.context.context);
      if (stopping || refused.has(servername)) return cb(new Error(`no skr-webhook runs for ${servername}`));
      let list = waiting.get(servername);
      if (!list) waiting.set(servername, (list = new Set()));
      const waiters = list;
      const answer = (s: RuntimeWebhook | undefined): void => {
        clearTimeout(timer);
        waiters.delete(answer);
        if (s) cb(null, s.context.context);
        else cb(new Error(`no skr-webhook runs for ${servername}`));
      };
      const timer = setTimeout(() => {
        answer(undefined);
        if (waiters.size === 0 && waiting.get(servername) === waiters) waiting.delete(servername);
      }, STATE_WAIT_MS);
      waiters.add(answer);
    },
  },
  (req, res) => {
    const state = stateOfSni((req.socket as TLSSocket).servername || '');
    if (!state) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'the skr-webhook of this runtime does not run' }));
      return;
    }
    answerAdmission(req, res, metrics, (manager, event) => forwarder.forward(state.sender, manager, event, state.cluster), state.ignoredWrites);
  },
);
server.keepAliveTimeout = 30_000;

port.on('message', (m: ToWebhookThread) => {
  if (m.t === 'state') apply(m.state);
  else if (m.t === 'drop') drop(m.cluster);
  else if (m.t === 'stop') stop().catch((e: unknown) => log.error('stopping the skr-webhook thread failed', { error: e }));
});

async function stop(): Promise<void> {
  stopping = true;
  for (const s of states.values()) dispose(s);
  states.clear();
  for (const sni of [...waiting.keys()]) settle(sni, undefined);
  await closeServer(server);
  flushMetrics();
  // Ends the thread now: events still being sent go, as with a webhook pod that is stopped.
  process.exit(0);
}

/** Fields as they can cross to the main thread (an Error keeps its message; what cannot be copied goes as text). */
function loggable(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!fields) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = v instanceof Error ? v.message : typeof v === 'object' && v !== null ? plain(v) : typeof v === 'function' || typeof v === 'symbol' ? String(v) : v;
  return out;
}

function plain(v: object): unknown {
  try {
    return JSON.parse(JSON.stringify(v)) as unknown;
  } catch {
    return String(v);
  }
}

const address: AddressInfo = await listen(server, 0, '127.0.0.1');
post({ t: 'listening', port: address.port });
