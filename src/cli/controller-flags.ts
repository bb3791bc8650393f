// Flags as tables: one table per command drives parsing, unknown-flag errors, the usage text and
// docs/operations.md. The controller flags are one table shared by `kcp run` and `kcp up`, so both
// commands configure the controllers the same way (src/controlplane/config.ts).
import { type BindAddress, type ControlPlaneConfig, DEFAULT_LEASE, DEFAULT_MODULE_CONFIG_RESYNC_MS, DEFAULT_MODULE_SYNC, defaultControlPlaneConfig } from '../controlplane/config.js';
import { DEFAULT_SERVER_CERT_EXPIRY_WINDOW_MS, type WatcherConfig } from '../controlplane/watcher.js';
import type { RuntimeAdmissionConfig } from '../controlplane/runtime-admission.js';
import { readFileSync } from 'node:fs';
import { DEFAULT_MANIFEST_WORKERS, MaintenancePolicyError, type MaintenanceWindowPolicy, parseMaintenancePolicy } from '../lifecycle/index.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from '../runtime/log.js';
import { type FlagTable, type ParsedArgs, UsageError } from './args.js';
import { formatDuration, parseDuration } from './duration.js';
import { DEFAULT_WATCHER_PKI_SETTINGS } from '../watcher/certificates.js';
import { DEFAULT_RUNTIME_RATE } from '../watcher/listener.js';
import { DEFAULT_SKR_WEBHOOK_COMMAND, DEFAULT_SKR_WEBHOOK_IMAGE } from '../watcher/skr-objects.js';
import { DEFAULT_LISTENER } from '../watcher/index.js';

/** With the watcher, Ready Kymas and Manifests are looked at this often (upstream's 5 minutes). */
export const WATCHER_FALLBACK_MS = 5 * 60_000;

export type FlagType = 'bool' | 'string' | 'path' | 'int' | 'duration' | 'ratio' | 'address' | 'level' | 'format';

export interface Flag {
  name: string;
  /** Upstream's spelling, accepted as well. */
  aliases?: string[];
  type: FlagType;
  /** Default as written on the command line ('' when there is none). */
  default: string;
  help: string;
}

const defaults = defaultControlPlaneConfig();

const d = formatDuration;

/** The controllers' flags, for `kcp run` and `kcp up` alike. Defaults come from defaultControlPlaneConfig(). */
export const CONTROLLER_FLAGS: readonly Flag[] = [
  { name: 'infrastructure-manager', type: 'bool', default: 'true', help: 'run the infrastructure manager (Runtime and GardenerCluster controllers)' },
  { name: 'lifecycle-manager', type: 'bool', default: 'true', help: 'run the lifecycle manager (Kyma, mandatory-module, purge and Manifest controllers)' },
  { name: 'gardener-requeue-interval', type: 'duration', default: d(defaults.gardenerRequeueMs), help: 'longest wait while Gardener creates, updates or deletes a Shoot' },
  { name: 'control-plane-requeue-interval', type: 'duration', default: d(defaults.controlPlaneRequeueMs), help: 'longest wait for a GardenerCluster or a cluster preparation to finish' },
  { name: 'runtime-ctrl-workers-cnt', type: 'int', default: String(defaults.runtimeWorkers), help: 'parallel reconciles of the Runtime controller' },
  { name: 'gardener-cluster-ctrl-workers-cnt', type: 'int', default: String(defaults.gardenerClusterWorkers), help: 'parallel reconciles of the GardenerCluster controller' },
  { name: 'gardener-ctrl-reconcilation-timeout', type: 'duration', default: d(defaults.gardenerClusterReconcileTimeoutMs), help: 'timeout of one GardenerCluster reconcile' },
  { name: 'kubeconfig-expiration-time', type: 'duration', default: d(defaults.kubeconfigExpirationSeconds * 1000), help: 'validity requested for runtime kubeconfigs' },
  { name: 'minimal-rotation-time', type: 'ratio', default: String(defaults.minimalRotationTimeRatio), help: 'share of the validity after which a kubeconfig may be rotated at the earliest' },
  { name: 'rotation-period-ratio', type: 'ratio', default: String(defaults.rotationPeriodRatio), help: 'share of the rotation period after which a kubeconfig is rotated' },
  { name: 'kyma-requeue-success-interval', type: 'duration', default: d(defaults.kymaIntervals.readyMs), help: 'requeue after a Kyma reconcile ended Ready' },
  { name: 'kyma-requeue-busy-interval', type: 'duration', default: d(defaults.kymaIntervals.busyMs), help: 'requeue while a Kyma is Processing or Deleting' },
  { name: 'kyma-requeue-warning-interval', type: 'duration', default: d(defaults.kymaIntervals.warningMs), help: 'requeue while a Kyma is in Warning' },
  { name: 'kyma-requeue-error-interval', type: 'duration', default: d(defaults.kymaIntervals.errorMs), help: 'requeue after a Kyma reconcile ended in Error' },
  { name: 'manifest-requeue-success-interval', type: 'duration', default: d(defaults.manifestIntervals.successMs), help: 'requeue (drift check) of a Ready Manifest' },
  { name: 'manifest-requeue-busy-interval', type: 'duration', default: d(defaults.manifestIntervals.busyMs), help: 'requeue while a Manifest installs, prunes or deletes' },
  { name: 'manifest-requeue-warning-interval', type: 'duration', default: d(defaults.manifestIntervals.warningMs), help: 'requeue of a Manifest in Warning' },
  { name: 'manifest-requeue-error-interval', type: 'duration', default: d(defaults.manifestIntervals.errorMs), help: 'requeue after a Manifest error' },
  { name: 'max-concurrent-kyma-reconciles', type: 'int', default: String(defaults.kymaWorkers), help: 'parallel reconciles of the Kyma controller' },
  { name: 'max-concurrent-manifest-reconciles', type: 'int', default: String(defaults.manifestWorkers ?? DEFAULT_MANIFEST_WORKERS), help: 'parallel reconciles of the Manifest controller' },
  { name: 'maintenance-window-policy', type: 'path', default: '', help: 'maintenance-window policy file in upstream\'s JSON format (e.g. a ConfigMap mounted at /etc/maintenance-policy/policy.json); upgrades to module versions that require downtime wait for the window it gives the Kyma\'s region, plan or global account (without it they are Error)' },
  { name: 'min-maintenance-window-size', type: 'duration', default: d(defaults.minMaintenanceWindowMs ?? 0), help: 'a maintenance window is used only while it lasts at least this much longer' },
  { name: 'oci-registry-cred-secret', type: 'string', default: '', help: 'Secret (kubernetes.io/dockerconfigjson) in the control-plane namespace with the credentials module artifacts are pulled with' },
  { name: 'skr-image-pull-secret', type: 'string', default: '', help: 'Secret in the control-plane namespace copied into every runtime\'s kyma-system namespace and added to the imagePullSecrets (and SKR_IMG_PULL_SECRET env) of module Deployments and StatefulSets' },
  { name: 'restricted-modules', type: 'string', default: '', help: 'comma-separated modules offered only to Kymas their ModuleReleaseMeta\'s spec.kymaSelector selects' },
  { name: 'purge-finalizer-timeout', type: 'duration', default: d(defaults.purgeGraceMs), help: 'how long a Kyma may be deleting before the purge strips runtime finalizers' },
  { name: 'leader-elect', type: 'bool', default: 'false', help: 'reconcile only while holding the leader Lease (for replicas > 1)' },
  { name: 'leader-election-id', type: 'string', default: 'kcp-controllers-leader', help: 'name of the leader Lease' },
  { name: 'leader-election-namespace', type: 'string', default: '', help: 'namespace of the leader and shard Leases (default: the control-plane namespace)' },
  { name: 'leader-election-lease-duration', type: 'duration', default: d(DEFAULT_LEASE.leaseDurationMs), help: 'how long a Lease is valid without renewal' },
  { name: 'leader-election-renew-deadline', type: 'duration', default: d(DEFAULT_LEASE.renewDeadlineMs), help: 'how long the holder tries to renew before it stops' },
  { name: 'leader-pod-label', type: 'bool', default: 'false', help: 'with --leader-elect: the leader labels its own Pod kcp-controllers/leader=true (POD_NAME and POD_NAMESPACE from the downward API), so that the watcher events Service reaches the leader only' },
  { name: 'leader-election-retry-period', type: 'duration', default: d(DEFAULT_LEASE.retryPeriodMs), help: 'interval of acquire and renew attempts' },
  { name: 'shards', type: 'int', default: '0', help: 'split the keys into N shards owned through Leases (all replicas must agree; 0: off)' },
  { name: 'shard-lease-prefix', type: 'string', default: 'kcp-controllers', help: 'shard group: Leases <prefix>-shard-<i> and <prefix>-member-<id>' },
  { name: 'runtime-admission-bind-address', type: 'address', default: ':9443', help: 'address of the admission webhook that refuses a Runtime whose runtime id another Runtime carries (0: off; with the infrastructure manager)' },
  { name: 'runtime-admission-url', type: 'string', default: '', help: 'URL the KCP API server calls the webhook at (default: https://<bind address>/validate-runtime-id, for a single process next to the API server)' },
  { name: 'runtime-admission-service', type: 'string', default: '', help: 'or the Service in front of the replicas, namespace/name:port (in-cluster; e.g. kcp-system/kcp-controllers-webhook:443)' },
  { name: 'metrics-bind-address', type: 'address', default: ':8080', help: 'address of /metrics (0: off)' },
  { name: 'health-probe-bind-address', type: 'address', default: ':8081', help: 'address of /healthz and /readyz (0: off)' },
  { name: 'graceful-shutdown-timeout', type: 'duration', default: d(defaults.gracefulShutdownTimeoutMs), help: 'how long shutdown waits for in-flight reconciles' },
  { name: 'k8s-client-qps', type: 'int', default: '50', help: 'requests per second of the controllers to the KCP (0: unlimited)' },
  { name: 'k8s-client-burst', type: 'int', default: '100', help: 'request burst of the controllers to the KCP' },
  { name: 'gardener-ratelimiter-qps', type: 'int', default: '50', help: 'requests per second of the controllers to the garden cluster (0: unlimited)' },
  { name: 'gardener-ratelimiter-burst', type: 'int', default: '100', help: 'request burst of the controllers to the garden cluster' },
  { name: 'log-level', type: 'level', default: 'info', help: 'debug, info, warn or error' },
  { name: 'log-format', type: 'format', default: 'json', help: 'json (one object per line, for log pipelines) or text (one readable line per record)' },
  { name: 'enable-kcp-watcher', type: 'bool', default: 'false', help: 'run the runtime watcher: a webhook in every runtime reports changes to the listener, and Ready Kymas and Manifests are only re-checked every --watcher-fallback-interval' },
  { name: 'watcher-listener-address', type: 'address', default: `:${DEFAULT_LISTENER.port}`, help: 'address of the watcher listener (POST /v2/<manager>/event)' },
  { name: 'watcher-kcp-address', type: 'string', default: '', help: 'host:port of the watcher listener as runtimes reach it (required with --enable-kcp-watcher for real clusters)' },
  { name: 'watcher-trust-gateway', type: 'bool', default: 'false', help: 'the listener sits behind a gateway that terminates mutual TLS: serve plain HTTP and take the client certificate from X-Forwarded-Client-Cert' },
  { name: 'skr-webhook-image', type: 'string', default: DEFAULT_SKR_WEBHOOK_IMAGE, help: 'image of the skr-webhook Deployment in runtimes (another image runs with its own entrypoint, e.g. upstream\'s runtime-watcher)' },
  { name: 'kyma-runtime-check-interval', type: 'duration', default: d(defaults.kymaRuntimeCheckMs ?? 0), help: 'with the watcher: a Kyma\'s runtime (namespace, CRDs, runtime Kyma, catalog, webhook) is checked at least this often, besides on watcher events and changes (jittered by up to 10%; without the watcher on every reconcile)' },
  { name: 'manifest-drift-check-interval', type: 'duration', default: d(defaults.manifestDriftCheckMs ?? 0), help: 'with the watcher: the objects of a Ready Manifest are read back from its runtime at least this often, besides on watcher events and changes (jittered by up to 10%; without the watcher on every pass)' },
  { name: 'watcher-event-recheck-delay', type: 'duration', default: d(defaults.watcherEventRecheckMs ?? 0), help: 'with the watcher: a pass that answered watcher events and found nothing changed looks once more after this long (a webhook is called before the API server stores the write, so an event can come first)' },
  { name: 'watcher-fallback-interval', type: 'duration', default: d(WATCHER_FALLBACK_MS), help: 'with the watcher: requeue of Ready Kymas and Manifests, unless their success intervals are given (jittered by up to 10%)' },
  { name: 'module-config-resync-interval', type: 'duration', default: d(DEFAULT_MODULE_CONFIG_RESYNC_MS), help: 'how often each ModuleConfig is copied from its runtime again (with the watcher: --watcher-fallback-interval unless given)' },
  { name: 'sync-resource-resync-interval', type: 'duration', default: d(DEFAULT_MODULE_SYNC.syncResourceResyncMs), help: 'how often each SyncResource is applied into its runtime again, repairing changes made there' },
  { name: 'sync-feedback-interval', type: 'duration', default: d(DEFAULT_MODULE_SYNC.feedbackMs), help: 'how often feedback values of SyncResource items are read from the runtime' },
  { name: 'watcher-ca-validity', type: 'duration', default: d(DEFAULT_WATCHER_PKI_SETTINGS.caValidityMs), help: 'validity of the watcher CA' },
  { name: 'watcher-ca-rotation-grace', type: 'duration', default: d(DEFAULT_WATCHER_PKI_SETTINGS.rotationGraceMs), help: 'after a new watcher CA is trusted, how long until the listener presents it' },
  { name: 'watcher-cert-validity', type: 'duration', default: d(DEFAULT_WATCHER_PKI_SETTINGS.certValidityMs), help: 'validity of runtime certificates' },
  { name: 'watcher-cert-renew-before', type: 'duration', default: d(DEFAULT_WATCHER_PKI_SETTINGS.certRenewBeforeMs), help: 'renew a runtime certificate this long before it expires' },
  { name: 'watcher-cert-renew-buffer', type: 'duration', default: d(DEFAULT_WATCHER_PKI_SETTINGS.certRenewBufferMs ?? 0), help: 'a runtime certificate not renewed this long after its renewal time counts as not renewed (lifecycle_mgr_self_signed_cert_not_renew)' },
  { name: 'watcher-server-cert-expiry-window', type: 'duration', default: d(DEFAULT_SERVER_CERT_EXPIRY_WINDOW_MS), help: "the listener's server certificate counts as close to expiry this long before it ends (lifecycle_mgr_gateway_secret_server_cert_close_to_expiry)" },
  { name: 'watcher-events-per-runtime', type: 'int', default: String(DEFAULT_RUNTIME_RATE.perSecond), help: 'events per second one runtime may send (more get 429)' },
];

/** Client-side rate limit of one of the controllers' clients. */
export interface ClientLimits {
  qps: number;
  burst: number;
}

/** The controllers' client rate limits (their clients are built by the command, not by the root). */
export function clientLimitsFrom(flags: FlagReader): { kcpClient: ClientLimits; gardenClient: ClientLimits } {
  return {
    kcpClient: { qps: flags.int('k8s-client-qps'), burst: flags.int('k8s-client-burst') },
    gardenClient: { qps: flags.int('gardener-ratelimiter-qps'), burst: flags.int('gardener-ratelimiter-burst') },
  };
}

/** A table with some defaults replaced (e.g. `kcp up` serves metrics on loopback only). */
export function withDefaults(table: readonly Flag[], overrides: Record<string, string>): Flag[] {
  return table.map((f) => (f.name in overrides ? { ...f, default: overrides[f.name] } : f));
}

/** What parseArgs needs of a table: every name and alias, bool flags as switches. */
export function flagTableOf(table: readonly Flag[]): FlagTable {
  return Object.fromEntries(table.flatMap((f) => [f.name, ...(f.aliases ?? [])].map((n) => [n, f.type === 'bool' ? 'switch' : 'value'] as const)));
}

/** The "Flags:" part of a usage text. */
export function flagsUsage(table: readonly Flag[]): string[] {
  const lines: string[] = [];
  for (const f of table) {
    const alias = f.aliases ? ` (also --${f.aliases.join(', --')})` : '';
    lines.push(`  --${f.name}${alias}`, `      ${f.help}${f.default ? ` [${f.default}]` : ''}`);
  }
  return lines;
}

/** `:8080` (all interfaces), `host:port`, `[::1]:8080`; `0` turns the endpoint off. */
export function parseBindAddress(text: string): BindAddress | undefined | 'invalid' {
  if (text === '0' || text === '') return undefined;
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text);
  if (!m) return 'invalid';
  const port = Number(m[3]);
  if (port > 65535) return 'invalid';
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Typed reads of the flags given to one command; every problem is a one-line UsageError. */
export class FlagReader {
  private readonly byName = new Map<string, Flag>();
  private readonly raw = new Map<string, string | true>();

  constructor(args: ParsedArgs, table: readonly Flag[], command: string) {
    for (const f of table) for (const n of [f.name, ...(f.aliases ?? [])]) this.byName.set(n, f);
    for (const [name, value] of args.flags) {
      if (name === 'help' || name === 'h') continue;
      const f = this.byName.get(name);
      if (!f) throw new UsageError(`unknown flag --${name} (see ${command} --help)`);
      if (this.raw.has(f.name)) throw new UsageError(`--${f.name} is given twice`);
      this.raw.set(f.name, value);
    }
  }

  /** Whether the flag was given on the command line. */
  given(name: string): boolean {
    return this.raw.has(name);
  }

  text(name: string): string {
    const f = this.byName.get(name);
    if (!f) throw new Error(`no flag ${name}`);
    const v = this.raw.get(name);
    if (v === true) {
      if (f.type === 'bool') return 'true';
      throw new UsageError(`--${name} needs a value`);
    }
    return v ?? f.default;
  }

  optional(name: string): string | undefined {
    return this.text(name) || undefined;
  }

  bool(name: string): boolean {
    const v = this.text(name);
    if (v === 'true') return true;
    if (v === 'false') return false;
    throw new UsageError(`--${name} must be true or false, got ${JSON.stringify(v)}`);
  }

  int(name: string, min = 0): number {
    const v = this.text(name);
    const n = Number(v);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
    return n;
  }

  duration(name: string, positive = true): number {
    const v = this.text(name);
    const ms = parseDuration(v);
    if (ms === undefined || (positive && ms <= 0)) throw new UsageError(`--${name} must be a ${positive ? 'positive ' : ''}duration such as 30s, 5m or 1h, got ${JSON.stringify(v)}`);
    return ms;
  }

  ratio(name: string): number {
    const v = this.text(name);
    const n = Number(v);
    if (v === '' || !Number.isFinite(n) || n <= 0 || n > 1) throw new UsageError(`--${name} must be a number in (0, 1], got ${JSON.stringify(v)}`);
    return n;
  }

  address(name: string): BindAddress | undefined {
    const v = this.text(name);
    const a = parseBindAddress(v);
    if (a === 'invalid') throw new UsageError(`--${name} must be [host]:port or 0, got ${JSON.stringify(v)}`);
    return a;
  }

  dnsLabel(name: string, v = this.text(name)): string {
    if (!DNS_LABEL.test(v) || v.length > 63) throw new UsageError(`--${name} must be a DNS label (lowercase letters, digits, '-'), got ${JSON.stringify(v)}`);
    return v;
  }

  level(name = 'log-level'): LogLevel {
    const level = this.text(name);
    if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new UsageError(`--${name} must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(level)}`);
    return level as LogLevel;
  }

  logFormat(name = 'log-format'): LogFormat {
    const format = this.text(name);
    if (!(LOG_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--${name} must be one of ${LOG_FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
    return format as LogFormat;
  }
}

/** This replica's Pod, from the downward API's environment variables (deploy/manifests sets both). */
function leaderPodFromEnv(env: NodeJS.ProcessEnv): { namespace: string; name: string } {
  const name = env.POD_NAME ?? '';
  const namespace = env.POD_NAMESPACE ?? '';
  if (!name || !namespace) throw new UsageError('--leader-pod-label needs the environment variables POD_NAME and POD_NAMESPACE (fieldRef metadata.name and metadata.namespace)');
  return { namespace, name };
}

/**
 * The controllers' configuration from the CONTROLLER_FLAGS part of a command line. `namespace` is
 * the control-plane namespace (a flag of `kcp run`; fixed for `kcp up`).
 */
export function controlPlaneConfigFrom(flags: FlagReader, namespace: string, env: NodeJS.ProcessEnv = process.env): ControlPlaneConfig {
  // Naming one manager runs only that one; --x=false turns one off.
  const explicitlyOn = ['infrastructure-manager', 'lifecycle-manager'].filter((n) => flags.given(n) && flags.bool(n));
  const runs = (name: string): boolean => (flags.given(name) ? flags.bool(name) : explicitlyOn.length === 0);
  const infrastructureManager = runs('infrastructure-manager');
  const lifecycleManager = runs('lifecycle-manager');
  if (!infrastructureManager && !lifecycleManager) throw new UsageError('nothing to run: both --infrastructure-manager and --lifecycle-manager are false');

  const leaseNamespace = flags.optional('leader-election-namespace') ?? namespace;
  flags.dnsLabel('leader-election-namespace', leaseNamespace);
  const timing = {
    leaseDurationMs: flags.duration('leader-election-lease-duration'),
    renewDeadlineMs: flags.duration('leader-election-renew-deadline'),
    retryPeriodMs: flags.duration('leader-election-retry-period'),
  };
  const leaderElect = flags.bool('leader-elect');
  const shards = flags.int('shards');
  if (leaderElect && shards > 0) throw new UsageError('--leader-elect and --shards exclude each other: leader election runs everything on one replica, shards split it across all');
  if ((leaderElect || shards > 0) && !(timing.leaseDurationMs > timing.renewDeadlineMs && timing.renewDeadlineMs > timing.retryPeriodMs)) {
    throw new UsageError('leader election timing must satisfy lease-duration > renew-deadline > retry-period');
  }
  const leaderElectionId = flags.text('leader-election-id');
  if (leaderElect && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(leaderElectionId)) {
    throw new UsageError(`--leader-election-id must be a DNS subdomain, got ${JSON.stringify(leaderElectionId)}`);
  }
  const labelPod = flags.bool('leader-pod-label');
  if (labelPod && !leaderElect) throw new UsageError('--leader-pod-label needs --leader-elect: without leader election there is no leader to label');
  const pod = labelPod ? leaderPodFromEnv(env) : undefined;
  const metrics = flags.address('metrics-bind-address');
  const health = flags.address('health-probe-bind-address');
  if (metrics && health && metrics.port !== 0 && metrics.port === health.port && metrics.host !== health.host) {
    throw new UsageError('--metrics-bind-address and --health-probe-bind-address use the same port on different hosts');
  }

  const watcherOn = flags.bool('enable-kcp-watcher');
  if (watcherOn && !lifecycleManager) throw new UsageError('--enable-kcp-watcher needs the lifecycle manager');
  const fallback = flags.duration('watcher-fallback-interval');
  const ready = (name: string): number => (watcherOn && !flags.given(name) ? fallback : flags.duration(name));
  const listen = flags.address('watcher-listener-address');
  if (watcherOn && !listen) throw new UsageError('--watcher-listener-address cannot be 0 with --enable-kcp-watcher');
  const kcpAddress = flags.optional('watcher-kcp-address');
  if (kcpAddress && !/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(kcpAddress)) throw new UsageError(`--watcher-kcp-address must be host or host:port, got ${JSON.stringify(kcpAddress)}`);
  const image = flags.text('skr-webhook-image');
  const watcher: WatcherConfig | undefined =
    watcherOn && listen
      ? {
          listen,
          trustGateway: flags.bool('watcher-trust-gateway'),
          kcpAddress,
          image,
          command: image === DEFAULT_SKR_WEBHOOK_IMAGE ? DEFAULT_SKR_WEBHOOK_COMMAND : undefined,
          pki: {
            caValidityMs: flags.duration('watcher-ca-validity'),
            rotationGraceMs: flags.duration('watcher-ca-rotation-grace'),
            certValidityMs: flags.duration('watcher-cert-validity'),
            certRenewBeforeMs: flags.duration('watcher-cert-renew-before'),
            certRenewBufferMs: flags.duration('watcher-cert-renew-buffer'),
          },
          serverCertExpiryWindowMs: flags.duration('watcher-server-cert-expiry-window'),
          eventsPerRuntime: { perSecond: flags.int('watcher-events-per-runtime', 1), burst: Math.max(DEFAULT_RUNTIME_RATE.burst, flags.int('watcher-events-per-runtime', 1) * 2) },
        }
      : undefined;
  if (watcher && watcher.pki.certRenewBeforeMs !== undefined && watcher.pki.certValidityMs !== undefined && watcher.pki.certRenewBeforeMs >= watcher.pki.certValidityMs) {
    throw new UsageError('--watcher-cert-renew-before must be shorter than --watcher-cert-validity');
  }

  const runtimeAdmission = runtimeAdmissionFrom(flags, infrastructureManager);

  return {
    ...defaults,
    namespace,
    infrastructureManager,
    lifecycleManager,
    gardenerRequeueMs: flags.duration('gardener-requeue-interval'),
    controlPlaneRequeueMs: flags.duration('control-plane-requeue-interval'),
    runtimeWorkers: flags.int('runtime-ctrl-workers-cnt', 1),
    gardenerClusterWorkers: flags.int('gardener-cluster-ctrl-workers-cnt', 1),
    gardenerClusterReconcileTimeoutMs: flags.duration('gardener-ctrl-reconcilation-timeout'),
    kubeconfigExpirationSeconds: Math.ceil(flags.duration('kubeconfig-expiration-time') / 1000),
    minimalRotationTimeRatio: flags.ratio('minimal-rotation-time'),
    rotationPeriodRatio: flags.ratio('rotation-period-ratio'),
    kymaIntervals: {
      readyMs: ready('kyma-requeue-success-interval'),
      busyMs: flags.duration('kyma-requeue-busy-interval'),
      warningMs: flags.duration('kyma-requeue-warning-interval'),
      errorMs: flags.duration('kyma-requeue-error-interval'),
    },
    manifestIntervals: {
      successMs: ready('manifest-requeue-success-interval'),
      busyMs: flags.duration('manifest-requeue-busy-interval'),
      warningMs: flags.duration('manifest-requeue-warning-interval'),
      errorMs: flags.duration('manifest-requeue-error-interval'),
    },
    kymaRuntimeCheckMs: flags.duration('kyma-runtime-check-interval'),
    manifestDriftCheckMs: flags.duration('manifest-drift-check-interval'),
    watcherEventRecheckMs: flags.duration('watcher-event-recheck-delay'),
    kymaWorkers: flags.int('max-concurrent-kyma-reconciles', 1),
    manifestWorkers: flags.int('max-concurrent-manifest-reconciles', 1),
    moduleSync: {
      moduleConfigResyncMs: ready('module-config-resync-interval'),
      syncResourceResyncMs: flags.duration('sync-resource-resync-interval'),
      feedbackMs: flags.duration('sync-feedback-interval'),
    },
    purgeGraceMs: flags.duration('purge-finalizer-timeout', false),
    maintenancePolicy: maintenancePolicyFrom(flags),
    minMaintenanceWindowMs: flags.duration('min-maintenance-window-size', false),
    ociRegistryCredSecret: secretNameFrom(flags, 'oci-registry-cred-secret'),
    skrImagePullSecret: secretNameFrom(flags, 'skr-image-pull-secret'),
    restrictedModules: flags
      .text('restricted-modules')
      .split(',')
      .map((m) => m.trim())
      .filter((m) => m !== ''),
    leaderElection: leaderElect ? { name: leaderElectionId, namespace: leaseNamespace, ...timing, ...(pod ? { pod } : {}) } : undefined,
    sharding: shards > 0 ? { shards, prefix: flags.dnsLabel('shard-lease-prefix'), namespace: leaseNamespace, ...timing } : undefined,
    metrics,
    health,
    gracefulShutdownTimeoutMs: flags.duration('graceful-shutdown-timeout', false),
    watcher,
    runtimeAdmission,
  };
}

/** The policy file named by --maintenance-window-policy, read and checked at start (a broken file is a usage error, not a silent lack of windows). */
function maintenancePolicyFrom(flags: FlagReader): MaintenanceWindowPolicy | undefined {
  const file = flags.optional('maintenance-window-policy');
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`--maintenance-window-policy: cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return parseMaintenancePolicy(text, file);
  } catch (e) {
    if (e instanceof MaintenancePolicyError) throw new UsageError(`--maintenance-window-policy: ${e.message}`);
    throw e;
  }
}

function secretNameFrom(flags: FlagReader, name: string): string | undefined {
  const v = flags.optional(name);
  if (v !== undefined && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(v)) throw new UsageError(`--${name} must be a Secret name (a DNS subdomain), got ${JSON.stringify(v)}`);
  return v;
}

/** The Runtime admission webhook's settings, or undefined when it is off. */
function runtimeAdmissionFrom(flags: FlagReader, infrastructureManager: boolean): RuntimeAdmissionConfig | undefined {
  const listen = flags.address('runtime-admission-bind-address');
  const url = flags.optional('runtime-admission-url');
  const serviceText = flags.optional('runtime-admission-service');
  if (url && serviceText) throw new UsageError('--runtime-admission-url and --runtime-admission-service exclude each other');
  if (!listen || !infrastructureManager) return undefined;
  if (url) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (parsed?.protocol !== 'https:') throw new UsageError(`--runtime-admission-url must be an https URL, got ${JSON.stringify(url)}`);
  }
  let service: RuntimeAdmissionConfig['service'];
  if (serviceText) {
    const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9]*[a-z0-9])?):(\d{1,5})$/.exec(serviceText);
    if (!m || Number(m[5]) < 1 || Number(m[5]) > 65535) throw new UsageError(`--runtime-admission-service must be namespace/name:port, got ${JSON.stringify(serviceText)}`);
    service = { namespace: m[1], name: m[3], port: Number(m[5]) };
  }
  return { listen, url, service };
}
