// The runtime watcher's KCP side, as the composition root starts it: the watcher CA (a KCP Secret,
// created on first start, rotated in upstream's order), the listener with a serving certificate
// of that CA, and a loop that picks up CA changes (rotation, another replica's work) and renews
// the listener's certificate before it expires.
import { isIP } from 'node:net';
import type { Client } from '../runtime/client/interface.js';
import type { Logger } from '../runtime/log.js';
import type { Registry } from '../runtime/metrics.js';
import {
  certificateNotAfter,
  DEFAULT_WATCHER_PKI_SETTINGS,
  issueListenerCertificate,
  WatcherCertificateAuthority,
  type CaState,
  type IssuedCertificate,
  type WatcherPkiSettings,
} from '../watcher/certificates.js';
import { EventListener, type RuntimeRate } from '../watcher/listener.js';
import { WatcherCertificateMetrics } from '../watcher/metrics.js';
import { kcpBaseUrl } from '../watcher/sender.js';
import type { BindAddress } from './config.js';

export interface WatcherConfig {
  /** Where the listener listens (`:8082` upstream; port 0 picks a free one). */
  listen: BindAddress;
  /** Behind a gateway that terminates mutual TLS: plain HTTP, identity from X-Forwarded-Client-Cert. */
  trustGateway: boolean;
  /** The listener's address as runtimes reach it (`host:port`); default: the listen address (embedded landscape). */
  kcpAddress?: string;
  /** Image and command of the skr-webhook Deployment in runtimes. */
  image: string;
  command?: string[];
  /** CA and certificate lifetimes (upstream's by default). */
  pki: Partial<WatcherPkiSettings>;
  /** Events one runtime may send. */
  eventsPerRuntime?: RuntimeRate;
  /** How often the CA Secret is looked at (default 1 min). */
  caRefreshMs?: number;
  /** Re-apply unchanged webhook objects in runtimes this often (default 24 h). */
  webhookResyncMs?: number;
  /**
   * The listener's server certificate counts as close to expiry this long before it (or the CA that
   * issued it) ends: metric lifecycle_mgr_gateway_secret_server_cert_close_to_expiry (upstream's
   * --istio-gateway-server-cert-expiry-window, 14 days).
   */
  serverCertExpiryWindowMs?: number;
}

/** The longest a timed CA refresh may take (requests of a stalled connection are given up). */
const REFRESH_TIMEOUT_MS = 60_000;

/** Upstream's default server certificate expiry window. */
export const DEFAULT_SERVER_CERT_EXPIRY_WINDOW_MS = 14 * 24 * 60 * 60 * 1000;

export interface WatcherRuntime {
  listener: EventListener;
  authority: WatcherCertificateAuthority;
  pki: WatcherPkiSettings;
  /** The address runtimes are given. */
  kcpAddress: string;
  /** The CA as last loaded. */
  ca(): CaState | undefined;
  /** Called after the CA changed (rotation started or finished). */
  onCaChanged?: (ca: CaState) => void;
  /** Looks at the CA now (what the loop does every caRefreshMs). */
  refresh(signal?: AbortSignal): Promise<void>;
  stop(): Promise<void>;
}

function hostOf(address: string): string {
  return kcpBaseUrl(address).hostname.replace(/^\[|\]$/g, '');
}

export async function startWatcherRuntime(opts: { kcp: Client; namespace: string; config: WatcherConfig; registry: Registry; log: Logger }): Promise<WatcherRuntime> {
  const { config, log } = opts;
  const pki: WatcherPkiSettings = { ...DEFAULT_WATCHER_PKI_SETTINGS, ...config.pki, namespace: opts.namespace };
  const authority = new WatcherCertificateAuthority(opts.kcp, pki);
  let ca = await authority.ensure();
  const listenHost = config.listen.host === '0.0.0.0' || config.listen.host === '::' ? '127.0.0.1' : config.listen.host;
  const names = new Set([config.kcpAddress ? hostOf(config.kcpAddress) : listenHost, 'localhost']);
  const dnsNames = [...names].filter((n) => isIP(n) === 0);
  const ipAddresses = [...new Set([...[...names].filter((n) => isIP(n) !== 0), '127.0.0.1'])];
  const issue = (state: CaState): Promise<IssuedCertificate> => issueListenerCertificate(state, { dnsNames, ipAddresses, validityMs: pki.certValidityMs });
  let serving = await issue(ca);
  const tlsOf = (state: CaState, cert: IssuedCertificate) => ({ certPem: cert.certPem, keyPem: cert.keyPem, clientCaPem: state.trustedPem });
  const listener = new EventListener({
    host: config.listen.host,
    port: config.listen.port,
    mode: config.trustGateway ? { kind: 'gateway', clientCaPem: ca.trustedPem } : { kind: 'mtls', tls: tlsOf(ca, serving) },
    registry: opts.registry,
    log: log.child('watcher-listener'),
    rate: config.eventsPerRuntime,
  });
  try {
    await listener.start();
  } catch (e) {
    throw new Error(`cannot serve the watcher listener on ${config.listen.host}:${config.listen.port}: ${(e as Error).message}`, { cause: e });
  }
  const kcpAddress = config.kcpAddress ?? `${listenHost}:${listener.address.port}`;

  const now = pki.now ?? (() => new Date());
  // Upstream's gateway presents the watcher CA's own certificate; here the listener presents a
  // certificate of the serving CA: whichever of the two ends first ends what runtimes can verify.
  // Behind a gateway the certificate runtimes see is the gateway's, not known here.
  const metrics = new WatcherCertificateMetrics(opts.registry);
  const reportServerCertificate = (): void => {
    if (config.trustGateway) return;
    const ends = Math.min(serving.notAfter.getTime(), certificateNotAfter(ca.serving.certPem)?.getTime() ?? 0);
    metrics.serverCertificate(ends - now().getTime() < (config.serverCertExpiryWindowMs ?? DEFAULT_SERVER_CERT_EXPIRY_WINDOW_MS));
  };
  reportServerCertificate();
  let refreshing: Promise<void> = Promise.resolve();
  const refreshOnce = async (signal?: AbortSignal): Promise<void> => {
    const next = await authority.ensure(signal);
    const caChanged = next.resourceVersion !== ca.resourceVersion;
    const renew = serving.notAfter.getTime() - now().getTime() < pki.certRenewBeforeMs;
    if (!caChanged && !renew) return reportServerCertificate();
    // The listener trusts the new bundle before anyone is handed the new CA (`ca()`): the
    // installer issues runtime certificates from it, and a runtime sending with one of those to a
    // listener that does not trust it yet would be refused (401, not retried).
    const nextServing = await issue(next);
    listener.updateTls(tlsOf(next, nextServing));
    ca = next;
    serving = nextServing;
    reportServerCertificate();
    if (caChanged) {
      log.info('watcher CA changed', { trustedCAs: ca.trustedPem.split('BEGIN CERTIFICATE').length - 1, rotationStartedAt: ca.caAddedToBundleAt?.toISOString() });
      runtime.onCaChanged?.(ca);
    }
  };
  const runtime: WatcherRuntime = {
    listener,
    authority,
    pki,
    kcpAddress,
    ca: () => ca,
    refresh(signal) {
      // One at a time (the timer's and a caller's), each seeing what the one before installed; the
      // timer's are bounded in time, so a stalled request cannot hold up every later refresh.
      const run = refreshing.then(() => {
        signal?.throwIfAborted();
        return refreshOnce(signal);
      });
      refreshing = run.catch(() => undefined);
      return run;
    },
    async stop() {
      clearInterval(timer);
      await listener.close();
    },
  };
  const refreshEveryMs = config.caRefreshMs ?? 60_000;
  const timer = setInterval(() => {
    runtime.refresh(AbortSignal.timeout(Math.max(refreshEveryMs, REFRESH_TIMEOUT_MS))).catch((e: unknown) => log.warn('watcher CA refresh failed', { error: e }));
  }, refreshEveryMs);
  timer.unref();
  log.info('watcher listener serving', { url: listener.url, kcpAddress, mode: config.trustGateway ? 'behind a gateway (X-Forwarded-Client-Cert)' : 'mutual TLS' });
  return runtime;
}
