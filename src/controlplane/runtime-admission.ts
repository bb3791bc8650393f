// The control plane's validating admission webhook for Runtimes: a Runtime whose runtime id
// (label `kyma-project.io/runtime-id`) another Runtime of the namespace already carries is refused
// when it is created or relabelled, with a message naming that Runtime. It works against any
// kube-apiserver: an HTTPS endpoint in this process, a serving certificate of a CA the control
// plane keeps in a KCP Secret (the watcher's CA code, src/watcher/certificates.ts, under another
// Secret name), and a ValidatingWebhookConfiguration with that CA as caBundle, applied at start and
// kept current. Lookups come from the Runtime informer cache the Runtime controller uses.
//
// failurePolicy Ignore, deliberately: the webhook is the early, friendly refusal; the Runtime
// controller applies the same rule by itself (src/infrastructure/runtime/runtime-id.ts). With Fail, a
// control plane that is down (or not yet started) would refuse every Runtime write, the removal
// of finalizers included, which would block deletions and the broker for no gain in safety.
// A Runtime created while the cache has not seen the other one yet (milliseconds), or while the
// webhook is unreachable, is let through and blocked by the controller instead.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { LabelKymaRuntimeID, Runtime, type RuntimeObject } from '../api/infrastructuremanager/index.js';
import { duplicateMessage, peersOf, runtimeIdOf } from '../infrastructure/runtime/runtime-id.js';
import { jsonEqual } from '../kube/json.js';
import type { KubeObject } from '../kube/object.js';
import type { Store } from '../runtime/cache/store.js';
import { isAlreadyExists, isConflict, isForbidden, isNotFound } from '../runtime/client/errors.js';
import type { Client } from '../runtime/client/interface.js';
import type { Logger } from '../runtime/log.js';
import { closeServer, listen } from '../util/servers.js';
import { DEFAULT_WATCHER_PKI_SETTINGS, issueListenerCertificate, WatcherCertificateAuthority, type CaState, type IssuedCertificate } from '../watcher/certificates.js';
import { admissionRequestOf } from '../watcher/webhook.js';
import type { BindAddress } from './config.js';

/** Path the webhook is served on. */
export const RUNTIME_ADMISSION_PATH = '/validate-runtime-id';
/** The webhook's name in the configuration (kube-apiserver wants a name with at least three segments). */
export const RUNTIME_ID_WEBHOOK_NAME = 'runtime-id.infrastructuremanager.kyma-project.io';
/** Name of the KCP Secret of the webhook's CA, in the control plane's namespace. */
export const RUNTIME_ADMISSION_CA_SECRET = 'kcp-runtime-admission-ca';
const DAY_MS = 24 * 60 * 60 * 1000;

/** The ValidatingWebhookConfiguration of a control plane in `namespace` (cluster-scoped, so one per namespace). */
export function runtimeAdmissionConfigurationName(namespace: string): string {
  return `kcp-runtime-admission-${namespace}`;
}

export interface RuntimeAdmissionConfig {
  /** Where the webhook listens (port 0: any free port). */
  listen: BindAddress;
  /** The URL the KCP's API server calls (a single process: kcp up, a kcp run next to the API server); default: from the listen address. */
  url?: string;
  /** Or a Service in front of every replica (in-cluster): the API server calls `https://<name>.<namespace>.svc:<port>/validate-runtime-id`. */
  service?: { namespace: string; name: string; port: number };
  /** How often the CA Secret and the configuration are looked at (default 1 min). */
  refreshMs?: number;
}

export interface RuntimeAdmission {
  /** The URL this process serves the webhook on. */
  url: string;
  /** Applies the configuration and renews the certificate if needed (what the loop does every refreshMs). */
  refresh(signal?: AbortSignal): Promise<void>;
  stop(): Promise<void>;
}

interface AdmissionDecision {
  allowed: boolean;
  message?: string;
}

/**
 * Whether a Runtime write may go on: refused when it gives the Runtime a runtime id that another
 * Runtime of its namespace carries (a create, or an update that changes the label). An update that
 * keeps the id is never refused here: two Runtimes that share an id already are the controller's to
 * sort out, and refusing would block their finalizers.
 */
export function decideRuntimeAdmission(request: { operation: string; object?: unknown; oldObject?: unknown }, runtimes: Pick<Store<RuntimeObject>, 'list'>): AdmissionDecision {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return { allowed: true };
  const runtime = request.object as RuntimeObject | undefined;
  if (!runtime?.metadata) return { allowed: true };
  const id = runtimeIdOf(runtime);
  if (!id) return { allowed: true };
  if (request.operation === 'UPDATE' && runtimeIdOf(request.oldObject as RuntimeObject) === id) return { allowed: true };
  const other = peersOf(runtimes, runtime)[0];
  if (!other) return { allowed: true };
  return { allowed: false, message: `${duplicateMessage(id, other)}; two Runtimes with one runtime id would share its kubeconfig and Kyma` };
}

const MAX_REVIEW_BYTES = 3 * 1024 * 1024;

function reply(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function answer(req: IncomingMessage, res: ServerResponse, runtimes: Pick<Store<RuntimeObject>, 'list'>, log: Logger): void {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== RUNTIME_ADMISSION_PATH) return reply(res, 404, { message: `no such path ${path}; the webhook is served on ${RUNTIME_ADMISSION_PATH}` });
  if (req.method !== 'POST') return reply(res, 405, { message: 'use POST' });
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (c: Buffer) => {
    size += c.length;
    // kube-apiserver sends at most its own request limit (3 MiB); anything bigger is not from it.
    if (size > MAX_REVIEW_BYTES) {
      reply(res, 413, { message: `an AdmissionReview is at most ${MAX_REVIEW_BYTES} bytes` });
      req.destroy();
      return;
    }
    chunks.push(c);
  });
  req.on('end', () => {
    if (size > MAX_REVIEW_BYTES) return;
    let request;
    try {
      request = admissionRequestOf(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    } catch (e) {
      return reply(res, 400, { message: (e as Error).message });
    }
    const decision = decideRuntimeAdmission(request, runtimes);
    if (!decision.allowed) log.info('Runtime refused: its runtime id is taken', { runtime: `${request.namespace ?? ''}/${request.name ?? ''}`, operation: request.operation, message: decision.message });
    reply(res, 200, {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: request.uid, allowed: decision.allowed, ...(decision.allowed ? {} : { status: { code: 403, reason: 'Forbidden', message: decision.message } }) },
    });
  });
}

const WEBHOOK_CONFIGURATION = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' } as const;

/** The configuration for a control plane in `namespace`, calling `clientConfig` with `caBundle`. */
export function runtimeAdmissionConfiguration(namespace: string, clientConfig: Record<string, unknown>): KubeObject {
  const [group, version] = Runtime.apiVersion.split('/');
  return {
    ...WEBHOOK_CONFIGURATION,
    metadata: { name: runtimeAdmissionConfigurationName(namespace), labels: { 'app.kubernetes.io/name': 'kcp-controllers', 'app.kubernetes.io/part-of': 'kcp' } },
    webhooks: [
      {
        name: RUNTIME_ID_WEBHOOK_NAME,
        clientConfig,
        rules: [{ apiGroups: [group], apiVersions: [version], operations: ['CREATE', 'UPDATE'], resources: ['runtimes'], scope: 'Namespaced' }],
        // Ignore: see the top of this file. The controller keeps the rule when the webhook is not called.
        failurePolicy: 'Ignore',
        matchPolicy: 'Equivalent',
        sideEffects: 'None',
        timeoutSeconds: 5,
        admissionReviewVersions: ['v1'],
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
        objectSelector: { matchExpressions: [{ key: LabelKymaRuntimeID, operator: 'Exists' }] },
      },
    ],
  };
}

/** Creates or updates the configuration when it differs from `desired` (compared by value). */
async function applyConfiguration(kcp: Client, desired: KubeObject, signal?: AbortSignal): Promise<boolean> {
  const name = desired.metadata.name ?? '';
  for (let attempt = 1; ; attempt++) {
    try {
      let current: KubeObject | undefined;
      try {
        current = await kcp.get<KubeObject>(WEBHOOK_CONFIGURATION, { name }, { signal });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      if (!current) {
        // `kcp install` creates it for `kcp run`; an admin credential (`kcp up`) may create it here.
        try {
          await kcp.create(desired, { signal });
        } catch (e) {
          if (isForbidden(e)) throw new Error(`the ValidatingWebhookConfiguration ${name} is missing and these credentials may not create it: run kcp install (the controllers still refuse duplicate runtime ids themselves)`, { cause: e });
          throw e;
        }
        return true;
      }
      // Compare what we set; the API server defaults further fields (reinvocationPolicy of mutating ones, ...).
      const have = (current.webhooks as Record<string, unknown>[] | undefined)?.map((w) => Object.fromEntries(Object.keys((desired.webhooks as Record<string, unknown>[])[0]).map((k) => [k, w[k]])));
      if (jsonEqual(have, desired.webhooks) && jsonEqual(current.metadata.labels ?? {}, desired.metadata.labels ?? {})) return false;
      await kcp.update({ ...current, metadata: { ...current.metadata, labels: desired.metadata.labels }, webhooks: desired.webhooks }, { signal });
      return true;
    } catch (e) {
      if ((isConflict(e) || isAlreadyExists(e)) && attempt < 5) continue;
      throw e;
    }
  }
}

/**
 * Starts the webhook: loads or creates the CA, serves HTTPS with a certificate of it, applies the
 * configuration, and then looks at both every refreshMs (a CA rotation, another replica's work, a
 * configuration someone edited or deleted, a serving certificate near its end).
 */
export async function startRuntimeAdmission(opts: { kcp: Client; namespace: string; runtimes: Pick<Store<RuntimeObject>, 'list'>; config: RuntimeAdmissionConfig; log: Logger }): Promise<RuntimeAdmission> {
  const { kcp, namespace, config, log } = opts;
  const pki = {
    ...DEFAULT_WATCHER_PKI_SETTINGS,
    namespace,
    caSecretName: RUNTIME_ADMISSION_CA_SECRET,
    caCommonName: 'kcp-runtime-admission-ca',
    caSecretLabels: { 'app.kubernetes.io/name': 'kcp-controllers', 'app.kubernetes.io/part-of': 'kcp' },
  };
  const authority = new WatcherCertificateAuthority(kcp, pki);
  let ca = await authority.ensure();

  const listenHost = config.listen.host === '0.0.0.0' || config.listen.host === '::' || config.listen.host === '' ? '127.0.0.1' : config.listen.host;
  const names = new Set(['localhost', listenHost]);
  if (config.url) names.add(new URL(config.url).hostname.replace(/^\[|\]$/g, ''));
  if (config.service) {
    names.add(`${config.service.name}.${config.service.namespace}.svc`);
    names.add(`${config.service.name}.${config.service.namespace}.svc.cluster.local`);
  }
  const dnsNames = [...names].filter((n) => isIP(n) === 0);
  const ipAddresses = [...new Set([...[...names].filter((n) => isIP(n) !== 0), '127.0.0.1'])];
  const issue = (state: CaState): Promise<IssuedCertificate> => issueListenerCertificate(state, { dnsNames, ipAddresses, validityMs: 30 * DAY_MS, commonName: 'kcp-runtime-admission' });
  let serving = await issue(ca);

  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem, minVersion: 'TLSv1.2' }, (req, res) => answer(req, res, opts.runtimes, log));
  server.keepAliveTimeout = 30_000;
  // The API server answers within its webhook timeout (5 s here); a client that dawdles is not it.
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  let port: number;
  try {
    port = (await listen(server, config.listen.port, config.listen.host || '0.0.0.0')).port;
  } catch (e) {
    throw new Error(`cannot serve the Runtime admission webhook on ${config.listen.host}:${config.listen.port}: ${(e as Error).message}`, { cause: e });
  }
  const hostForUrl = isIP(listenHost) === 6 ? `[${listenHost}]` : listenHost;
  const url = `https://${hostForUrl}:${port}${RUNTIME_ADMISSION_PATH}`;
  const clientConfig = (): Record<string, unknown> => ({
    ...(config.service ? { service: { ...config.service, path: RUNTIME_ADMISSION_PATH } } : { url: config.url ?? url }),
    caBundle: Buffer.from(ca.trustedPem).toString('base64'),
  });

  const admission: RuntimeAdmission = {
    url,
    async refresh(signal) {
      const next = await authority.ensure(signal);
      const renew = serving.notAfter.getTime() - Date.now() < 10 * DAY_MS;
      if (next.resourceVersion !== ca.resourceVersion || renew) {
        ca = next;
        serving = await issue(ca);
        server.setSecureContext({ cert: serving.certPem, key: serving.keyPem, minVersion: 'TLSv1.2' });
      }
      if (await applyConfiguration(kcp, runtimeAdmissionConfiguration(namespace, clientConfig()), signal)) {
        log.info('Runtime admission webhook configured', { configuration: runtimeAdmissionConfigurationName(namespace), calls: config.service ? `service ${config.service.namespace}/${config.service.name}:${config.service.port}` : (config.url ?? url) });
      }
    },
    async stop() {
      clearInterval(timer);
      await closeServer(server);
    },
  };
  try {
    await admission.refresh();
  } catch (e) {
    // Not fatal: the controllers refuse duplicate runtime ids themselves, and the refresh below
    // tries again (e.g. once `kcp install` created the configuration).
    log.error('Runtime admission webhook not configured; trying again every refresh', { error: e });
  }
  const timer = setInterval(() => {
    admission.refresh().catch((e: unknown) => log.warn('Runtime admission webhook refresh failed', { error: e }));
  }, config.refreshMs ?? 60_000);
  timer.unref();
  log.info('Runtime admission webhook serving', { url, failurePolicy: 'Ignore' });
  return admission;
}
