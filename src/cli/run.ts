// `kcp run`: the controllers alone (infrastructure manager, lifecycle manager) against real
// clusters: a KCP (kubeconfig or in-cluster service account) and a Gardener project's garden
// cluster. Nothing is embedded. Flags follow upstream's names where upstream has one.
//
// Both managers share one controller-runtime Manager: one set of informers, one leader election
// (or one shard group), one metrics registry, one /healthz and /readyz.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { GardenerCluster, Runtime } from '../api/infrastructuremanager/index.js';
import { Kyma, Manifest, ModuleReleaseMeta, ModuleTemplate, Namespaces } from '../api/operator/index.js';
import { loadConverterConfig, type ConverterConfig } from '../infrastructure/converter/index.js';
import { setupGardenerClusterController } from '../infrastructure/gardener-cluster/index.js';
import { setupRuntimeController } from '../infrastructure/index.js';
import type { ArtifactFetcher } from '../lifecycle/artifacts/types.js';
import { startLifecycleManager, type LifecycleManagerHandle } from '../lifecycle/index.js';
import { type Client, type ClientOptions, createClient, inClusterConfig, isForbidden, isNotFound, isUnauthorized, loadKubeconfigFile } from '../runtime/client/index.js';
import { startOperationsServer, type OperationsServer } from '../runtime/health.js';
import { useLeaderElection } from '../runtime/leader/manager.js';
import { createLogger, type Logger, type LogLevel, type LogSink } from '../runtime/log.js';
import { type Manager, newManager, signalHandler } from '../runtime/manager.js';
import { useSharding } from '../runtime/sharding/manager.js';
import { type ParsedArgs, UsageError } from './args.js';
import type { Command } from './command.js';
import { parseDuration } from './duration.js';

// ---------------------------------------------------------------------------------------------
// Flags: one table drives parsing, unknown-flag errors, the usage text and docs/operations.md.

export type FlagType = 'bool' | 'string' | 'path' | 'int' | 'duration' | 'ratio' | 'address' | 'level';

export interface RunFlag {
  name: string;
  /** Upstream's spelling, accepted as well. */
  aliases?: string[];
  type: FlagType;
  /** Default as written on the command line ('' when there is none). */
  default: string;
  help: string;
}

export const RUN_FLAGS: readonly RunFlag[] = [
  { name: 'kubeconfig', type: 'path', default: '', help: 'kubeconfig of the KCP; default: the in-cluster service account' },
  { name: 'gardener-kubeconfig', aliases: ['gardener-kubeconfig-path'], type: 'path', default: '', help: 'kubeconfig of the garden cluster (required with the infrastructure manager)' },
  { name: 'gardener-project', aliases: ['gardener-project-name'], type: 'string', default: '', help: 'Gardener project; Shoots live in garden-<project> (required with the infrastructure manager)' },
  { name: 'infrastructure-manager', type: 'bool', default: 'true', help: 'run the infrastructure manager (Runtime and GardenerCluster controllers)' },
  { name: 'lifecycle-manager', type: 'bool', default: 'true', help: 'run the lifecycle manager (Kyma, mandatory-module, purge and Manifest controllers)' },
  { name: 'namespace', type: 'string', default: Namespaces.ControlPlane, help: 'namespace of Runtimes, GardenerClusters, Kymas, module catalog, Manifests and kubeconfig Secrets' },
  { name: 'converter-config', aliases: ['converter-config-filepath'], type: 'path', default: '', help: 'Runtime-to-Shoot converter configuration, JSON (required with the infrastructure manager)' },
  { name: 'gardener-requeue-interval', type: 'duration', default: '15s', help: 'longest wait while Gardener creates, updates or deletes a Shoot' },
  { name: 'control-plane-requeue-interval', type: 'duration', default: '10s', help: 'longest wait for a GardenerCluster or a cluster preparation to finish' },
  { name: 'runtime-ctrl-workers-cnt', type: 'int', default: '25', help: 'parallel reconciles of the Runtime controller' },
  { name: 'gardener-cluster-ctrl-workers-cnt', type: 'int', default: '25', help: 'parallel reconciles of the GardenerCluster controller' },
  { name: 'gardener-ctrl-reconcilation-timeout', type: 'duration', default: '60s', help: 'timeout of one GardenerCluster reconcile' },
  { name: 'kubeconfig-expiration-time', type: 'duration', default: '24h', help: 'validity requested for runtime kubeconfigs' },
  { name: 'minimal-rotation-time', type: 'ratio', default: '0.6', help: 'share of the validity after which a kubeconfig may be rotated at the earliest' },
  { name: 'rotation-period-ratio', type: 'ratio', default: '0.95', help: 'share of the rotation period after which a kubeconfig is rotated' },
  { name: 'kyma-requeue-success-interval', type: 'duration', default: '30s', help: 'requeue after a Kyma reconcile ended Ready' },
  { name: 'kyma-requeue-busy-interval', type: 'duration', default: '5s', help: 'requeue while a Kyma is Processing or Deleting' },
  { name: 'kyma-requeue-warning-interval', type: 'duration', default: '30s', help: 'requeue while a Kyma is in Warning' },
  { name: 'kyma-requeue-error-interval', type: 'duration', default: '2s', help: 'requeue after a Kyma reconcile ended in Error' },
  { name: 'manifest-requeue-success-interval', type: 'duration', default: '30s', help: 'requeue (drift check) of a Ready Manifest' },
  { name: 'manifest-requeue-busy-interval', type: 'duration', default: '5s', help: 'requeue while a Manifest installs, prunes or deletes' },
  { name: 'manifest-requeue-warning-interval', type: 'duration', default: '30s', help: 'requeue of a Manifest in Warning' },
  { name: 'manifest-requeue-error-interval', type: 'duration', default: '2s', help: 'requeue after a Manifest error' },
  { name: 'max-concurrent-kyma-reconciles', type: 'int', default: '4', help: 'parallel reconciles of the Kyma controller' },
  { name: 'purge-finalizer-timeout', type: 'duration', default: '5m', help: 'how long a Kyma may be deleting before the purge strips runtime finalizers' },
  { name: 'k8s-client-qps', type: 'int', default: '50', help: 'requests per second to the KCP (0: unlimited)' },
  { name: 'k8s-client-burst', type: 'int', default: '100', help: 'request burst to the KCP' },
  { name: 'gardener-ratelimiter-qps', type: 'int', default: '50', help: 'requests per second to the garden cluster (0: unlimited)' },
  { name: 'gardener-ratelimiter-burst', type: 'int', default: '100', help: 'request burst to the garden cluster' },
  { name: 'leader-elect', type: 'bool', default: 'false', help: 'reconcile only while holding the leader Lease (for replicas > 1)' },
  { name: 'leader-election-id', type: 'string', default: 'kcp-controllers-leader', help: 'name of the leader Lease' },
  { name: 'leader-election-namespace', type: 'string', default: '', help: 'namespace of the leader and shard Leases (default: --namespace)' },
  { name: 'leader-election-lease-duration', type: 'duration', default: '15s', help: 'how long a Lease is valid without renewal' },
  { name: 'leader-election-renew-deadline', type: 'duration', default: '10s', help: 'how long the holder tries to renew before it stops' },
  { name: 'leader-election-retry-period', type: 'duration', default: '2s', help: 'interval of acquire and renew attempts' },
  { name: 'shards', type: 'int', default: '0', help: 'split the keys into N shards owned through Leases (all replicas must agree; 0: off)' },
  { name: 'shard-lease-prefix', type: 'string', default: 'kcp-controllers', help: 'shard group: Leases <prefix>-shard-<i> and <prefix>-member-<id>' },
  { name: 'metrics-bind-address', type: 'address', default: ':8080', help: 'address of /metrics (0: off)' },
  { name: 'health-probe-bind-address', type: 'address', default: ':8081', help: 'address of /healthz and /readyz (0: off)' },
  { name: 'graceful-shutdown-timeout', type: 'duration', default: '30s', help: 'how long shutdown waits for in-flight reconciles' },
  { name: 'log-level', type: 'level', default: 'info', help: 'debug, info, warn or error (JSON lines on stderr)' },
];

export const RUN_SWITCHES: ReadonlySet<string> = new Set(['help', ...RUN_FLAGS.filter((f) => f.type === 'bool').map((f) => f.name)]);

function usageText(): string {
  const lines = [
    'Usage:',
    '  kcp run [--kubeconfig KCP] --gardener-kubeconfig GARDEN --gardener-project P --converter-config FILE [flags]',
    '      Runs the controllers against real clusters until SIGTERM/SIGINT. Bool flags: --flag, --flag=false.',
    '      Durations: 500ms, 30s, 5m, 1h30m. Addresses: :8080, 127.0.0.1:8080, 0 (off).',
    '',
    'Flags:',
  ];
  for (const f of RUN_FLAGS) {
    const alias = f.aliases ? ` (also --${f.aliases.join(', --')})` : '';
    lines.push(`  --${f.name}${alias}`, `      ${f.help}${f.default ? ` [${f.default}]` : ''}`);
  }
  return lines.join('\n');
}

export const RUN_USAGE = usageText();

export interface BindAddress {
  host: string;
  port: number;
}

export interface RunConfig {
  kubeconfig?: string;
  gardenerKubeconfig?: string;
  gardenerProject?: string;
  infrastructureManager: boolean;
  lifecycleManager: boolean;
  namespace: string;
  converterConfig?: string;
  gardenerRequeueMs: number;
  controlPlaneRequeueMs: number;
  runtimeWorkers: number;
  gardenerClusterWorkers: number;
  gardenerClusterReconcileTimeoutMs: number;
  kubeconfigExpirationSeconds: number;
  minimalRotationTimeRatio: number;
  rotationPeriodRatio: number;
  kymaIntervals: { readyMs: number; busyMs: number; warningMs: number; errorMs: number };
  manifestIntervals: { successMs: number; busyMs: number; warningMs: number; errorMs: number };
  kymaWorkers: number;
  purgeGraceMs: number;
  kcpClient: { qps: number; burst: number };
  gardenClient: { qps: number; burst: number };
  leaderElection?: { name: string; namespace: string; leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  sharding?: { shards: number; prefix: string; namespace: string; leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  metrics?: BindAddress;
  health?: BindAddress;
  gracefulShutdownTimeoutMs: number;
  logLevel: LogLevel;
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
const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** Reads the flags into a RunConfig; every problem is a one-line UsageError. Files are not read here. */
export function parseRunConfig(args: ParsedArgs): RunConfig {
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[0])} (kcp run takes only flags; see kcp run --help)`);
  const byName = new Map<string, RunFlag>();
  for (const f of RUN_FLAGS) for (const n of [f.name, ...(f.aliases ?? [])]) byName.set(n, f);
  const raw = new Map<string, string | true>();
  for (const [name, value] of args.flags) {
    if (name === 'help' || name === 'h') continue;
    const f = byName.get(name);
    if (!f) throw new UsageError(`unknown flag --${name} (see kcp run --help)`);
    if (raw.has(f.name)) throw new UsageError(`--${f.name} is given twice`);
    raw.set(f.name, value);
  }
  const text = (name: string): string => {
    const f = byName.get(name);
    if (!f) throw new Error(`no flag ${name}`);
    const v = raw.get(name);
    if (v === true) {
      if (f.type === 'bool') return 'true';
      throw new UsageError(`--${name} needs a value`);
    }
    return v ?? f.default;
  };
  const bool = (name: string): boolean => {
    const v = text(name);
    if (v === 'true') return true;
    if (v === 'false') return false;
    throw new UsageError(`--${name} must be true or false, got ${JSON.stringify(v)}`);
  };
  const int = (name: string, min = 0): number => {
    const v = text(name);
    const n = Number(v);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
    return n;
  };
  const duration = (name: string, positive = true): number => {
    const v = text(name);
    const ms = parseDuration(v);
    if (ms === undefined || (positive && ms <= 0)) throw new UsageError(`--${name} must be a ${positive ? 'positive ' : ''}duration such as 30s, 5m or 1h, got ${JSON.stringify(v)}`);
    return ms;
  };
  const ratio = (name: string): number => {
    const v = text(name);
    const n = Number(v);
    if (v === '' || !Number.isFinite(n) || n <= 0 || n > 1) throw new UsageError(`--${name} must be a number in (0, 1], got ${JSON.stringify(v)}`);
    return n;
  };
  const address = (name: string): BindAddress | undefined => {
    const v = text(name);
    const a = parseBindAddress(v);
    if (a === 'invalid') throw new UsageError(`--${name} must be [host]:port or 0, got ${JSON.stringify(v)}`);
    return a;
  };
  const optional = (name: string): string | undefined => text(name) || undefined;
  const dnsLabel = (name: string, v: string): string => {
    if (!DNS_LABEL.test(v) || v.length > 63) throw new UsageError(`--${name} must be a DNS label (lowercase letters, digits, '-'), got ${JSON.stringify(v)}`);
    return v;
  };

  // Naming one manager runs only that one; --x=false turns one off.
  const explicitlyOn = ['infrastructure-manager', 'lifecycle-manager'].filter((n) => raw.has(n) && bool(n));
  const runs = (name: string): boolean => (raw.has(name) ? bool(name) : explicitlyOn.length === 0);
  const infrastructureManager = runs('infrastructure-manager');
  const lifecycleManager = runs('lifecycle-manager');
  if (!infrastructureManager && !lifecycleManager) throw new UsageError('nothing to run: both --infrastructure-manager and --lifecycle-manager are false');

  const namespace = dnsLabel('namespace', text('namespace'));
  const gardenerKubeconfig = optional('gardener-kubeconfig');
  const gardenerProject = optional('gardener-project');
  const converterConfig = optional('converter-config');
  if (infrastructureManager) {
    for (const [flag, v] of [['gardener-kubeconfig', gardenerKubeconfig], ['gardener-project', gardenerProject], ['converter-config', converterConfig]] as const) {
      if (!v) throw new UsageError(`--${flag} is required to run the infrastructure manager (or pass --lifecycle-manager to run only that)`);
    }
    dnsLabel('gardener-project', gardenerProject ?? '');
  }

  const leaseNamespace = optional('leader-election-namespace') ?? namespace;
  dnsLabel('leader-election-namespace', leaseNamespace);
  const timing = {
    leaseDurationMs: duration('leader-election-lease-duration'),
    renewDeadlineMs: duration('leader-election-renew-deadline'),
    retryPeriodMs: duration('leader-election-retry-period'),
  };
  const leaderElect = bool('leader-elect');
  const shards = int('shards');
  if (leaderElect && shards > 0) throw new UsageError('--leader-elect and --shards exclude each other: leader election runs everything on one replica, shards split it across all');
  if ((leaderElect || shards > 0) && !(timing.leaseDurationMs > timing.renewDeadlineMs && timing.renewDeadlineMs > timing.retryPeriodMs)) {
    throw new UsageError('leader election timing must satisfy lease-duration > renew-deadline > retry-period');
  }
  const level = text('log-level');
  if (!(LEVELS as readonly string[]).includes(level)) throw new UsageError(`--log-level must be one of ${LEVELS.join(', ')}, got ${JSON.stringify(level)}`);
  const gardenerRequeueMs = duration('gardener-requeue-interval');

  const config: RunConfig = {
    kubeconfig: optional('kubeconfig'),
    gardenerKubeconfig,
    gardenerProject,
    infrastructureManager,
    lifecycleManager,
    namespace,
    converterConfig,
    gardenerRequeueMs,
    controlPlaneRequeueMs: duration('control-plane-requeue-interval'),
    runtimeWorkers: int('runtime-ctrl-workers-cnt', 1),
    gardenerClusterWorkers: int('gardener-cluster-ctrl-workers-cnt', 1),
    gardenerClusterReconcileTimeoutMs: duration('gardener-ctrl-reconcilation-timeout'),
    kubeconfigExpirationSeconds: Math.ceil(duration('kubeconfig-expiration-time') / 1000),
    minimalRotationTimeRatio: ratio('minimal-rotation-time'),
    rotationPeriodRatio: ratio('rotation-period-ratio'),
    kymaIntervals: {
      readyMs: duration('kyma-requeue-success-interval'),
      busyMs: duration('kyma-requeue-busy-interval'),
      warningMs: duration('kyma-requeue-warning-interval'),
      errorMs: duration('kyma-requeue-error-interval'),
    },
    manifestIntervals: {
      successMs: duration('manifest-requeue-success-interval'),
      busyMs: duration('manifest-requeue-busy-interval'),
      warningMs: duration('manifest-requeue-warning-interval'),
      errorMs: duration('manifest-requeue-error-interval'),
    },
    kymaWorkers: int('max-concurrent-kyma-reconciles', 1),
    purgeGraceMs: duration('purge-finalizer-timeout', false),
    kcpClient: { qps: int('k8s-client-qps'), burst: int('k8s-client-burst') },
    gardenClient: { qps: int('gardener-ratelimiter-qps'), burst: int('gardener-ratelimiter-burst') },
    leaderElection: leaderElect ? { name: text('leader-election-id'), namespace: leaseNamespace, ...timing } : undefined,
    sharding: shards > 0 ? { shards, prefix: dnsLabel('shard-lease-prefix', text('shard-lease-prefix')), namespace: leaseNamespace, ...timing } : undefined,
    metrics: address('metrics-bind-address'),
    health: address('health-probe-bind-address'),
    gracefulShutdownTimeoutMs: duration('graceful-shutdown-timeout', false),
    logLevel: level as LogLevel,
  };
  if (config.leaderElection && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(config.leaderElection.name)) {
    throw new UsageError(`--leader-election-id must be a DNS subdomain, got ${JSON.stringify(config.leaderElection.name)}`);
  }
  if (config.metrics && config.health && config.metrics.port !== 0 && config.metrics.port === config.health.port && config.metrics.host !== config.health.host) {
    throw new UsageError('--metrics-bind-address and --health-probe-bind-address use the same port on different hosts');
  }
  return config;
}

// ---------------------------------------------------------------------------------------------
// Inputs read from files: each failure is one line naming the flag and the file.

function readFlagFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new UsageError(`cannot read --${flag} ${path}: ${err.code === 'ENOENT' ? 'no such file' : (err.code ?? err.message)}`);
  }
}

/** A client for the kubeconfig file given to `flag` (relative paths in it resolve against its directory). */
export function clientFromKubeconfigFlag(flag: string, path: string, opts: ClientOptions): Client {
  readFlagFile(flag, path);
  let config;
  try {
    config = loadKubeconfigFile(path);
  } catch (e) {
    throw new UsageError(`--${flag} ${path} is not a usable kubeconfig: ${(e as Error).message.split('\n')[0]}`);
  }
  return createClient(config, opts);
}

function kcpClientFor(config: RunConfig): Client {
  const opts: ClientOptions = { qps: config.kcpClient.qps, burst: config.kcpClient.burst };
  if (config.kubeconfig) return clientFromKubeconfigFlag('kubeconfig', config.kubeconfig, opts);
  try {
    return createClient(inClusterConfig(), opts);
  } catch (e) {
    throw new UsageError(`no --kubeconfig and not running in a cluster (${(e as Error).message.split('\n')[0]})`);
  }
}

function converterConfigFrom(path: string): ConverterConfig {
  const text = readFlagFile('converter-config', path);
  try {
    return loadConverterConfig(text, { baseDir: dirname(path) });
  } catch (e) {
    throw new UsageError(`--converter-config ${path}: ${(e as Error).message.split('\n')[0]}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Preflight: the KCP must serve the kinds the enabled managers reconcile.

const CRD_KIND = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

function requiredKinds(config: RunConfig): { group: string; plural: string }[] {
  return [...(config.infrastructureManager ? [Runtime, GardenerCluster] : []), ...(config.lifecycleManager ? [Kyma, ModuleTemplate, ModuleReleaseMeta, Manifest] : [])];
}

/** Fails with one line when CRDs are missing; only warns when the RBAC does not allow reading CRDs. */
async function checkCrdsInstalled(kcp: Client, config: RunConfig, logger: Logger): Promise<void> {
  const missing: string[] = [];
  for (const k of requiredKinds(config)) {
    const name = `${k.plural}.${k.group}`;
    try {
      await kcp.get(CRD_KIND, { name });
    } catch (e) {
      if (isNotFound(e)) missing.push(name);
      else if (isForbidden(e) || isUnauthorized(e)) {
        if (isUnauthorized(e)) throw new UsageError(`the KCP rejects the credentials of ${config.kubeconfig ? `--kubeconfig ${config.kubeconfig}` : 'the in-cluster service account'} (401)`, { cause: e });
        logger.warn('cannot check the CRDs (no permission to read CustomResourceDefinitions); continuing', { crd: name });
        return;
      } else throw new Error(`cannot reach the KCP: ${(e as Error).message.split('\n')[0]}`, { cause: e });
    }
  }
  if (missing.length > 0) throw new UsageError(`the KCP has no CRD ${missing.join(', ')}: install them with kcp install --kubeconfig FILE`);
}

// ---------------------------------------------------------------------------------------------
// Running.

export interface RunDeps {
  /** Wraps the KCP client (tests record the requests the controllers make). */
  wrapKcpClient?: (client: Client) => Client;
  /** Fetches module manifests (default: the OCI/https fetcher); tests serve modules from memory. */
  fetcher?: ArtifactFetcher;
  /** Where JSON log lines go (default stderr). */
  logSink?: LogSink;
  /** Replica identity for leader election and sharding (default POD_NAME or hostname, plus a random suffix). */
  identity?: string;
}

export interface RunningControllers {
  manager: Manager;
  /** Base URL of /metrics (undefined when off). */
  metricsUrl?: string;
  /** Base URL of /healthz and /readyz (undefined when off). */
  healthUrl?: string;
  identity: string;
  /** Resolves when caches are synced and the controllers run (for a follower: when the caches are synced). */
  ready(): Promise<void>;
  /** Graceful stop: intake stops, in-flight reconciles finish, Leases are released, servers and clients close. */
  stop(): Promise<void>;
}

function urlOf(server: OperationsServer | undefined): string | undefined {
  return server?.url;
}

/** Starts the configured controllers; throws a UsageError (before starting anything) on unreadable inputs. */
export async function startControllers(config: RunConfig, deps: RunDeps = {}): Promise<RunningControllers> {
  const logger = createLogger({ name: 'kcp', level: config.logLevel, sink: deps.logSink });
  const converter = config.infrastructureManager ? converterConfigFrom(config.converterConfig ?? '') : undefined;
  const clients: Client[] = [];
  const rawKcp = kcpClientFor(config);
  clients.push(rawKcp);
  let garden: Client | undefined;
  try {
    if (config.infrastructureManager) {
      garden = clientFromKubeconfigFlag('gardener-kubeconfig', config.gardenerKubeconfig ?? '', { qps: config.gardenClient.qps, burst: config.gardenClient.burst });
      clients.push(garden);
    }
  } catch (e) {
    rawKcp.close();
    throw e;
  }
  const kcp = deps.wrapKcpClient ? deps.wrapKcpClient(rawKcp) : rawKcp;
  try {
    await checkCrdsInstalled(kcp, config, logger);
  } catch (e) {
    for (const c of clients) c.close();
    throw e;
  }
  const identity = deps.identity ?? `${process.env.POD_NAME ?? hostname()}_${randomUUID().slice(0, 8)}`;

  // The manager serves /healthz and /readyz (its checks: informers synced, controllers started);
  // /metrics gets its own listener unless both addresses are the same.
  const sameAddress = config.metrics && config.health && config.metrics.host === config.health.host && config.metrics.port === config.health.port && config.metrics.port !== 0;
  const manager = newManager({
    client: kcp,
    name: 'kcp-controllers',
    logger,
    operationsPort: config.health?.port,
    operationsHost: config.health?.host,
    gracefulShutdownTimeoutMs: config.gracefulShutdownTimeoutMs,
    reportingInstance: identity,
  });
  if (config.leaderElection) {
    useLeaderElection(manager, { client: kcp, identity, log: logger.child('leader-election'), ...config.leaderElection });
  } else if (config.sharding) {
    const s = config.sharding;
    useSharding(manager, {
      client: kcp,
      identity,
      namespace: s.namespace,
      name: s.prefix,
      shardCount: s.shards,
      leaseDurationMs: s.leaseDurationMs,
      renewDeadlineMs: s.renewDeadlineMs,
      retryPeriodMs: s.retryPeriodMs,
      log: logger.child('sharding'),
    });
  }
  if (config.infrastructureManager && garden && converter && config.gardenerProject) {
    const requeue = config.gardenerRequeueMs;
    setupRuntimeController(manager, {
      kcp,
      garden,
      project: config.gardenerProject,
      converterConfig: converter,
      namespace: config.namespace,
      timing: { gardenerRequeueMs: requeue, shootCreateRequeueMs: requeue, shootReconcileRequeueMs: requeue, shootDeleteRequeueMs: requeue, controlPlaneRequeueMs: config.controlPlaneRequeueMs },
      workers: config.runtimeWorkers,
      logger: logger.child('infrastructure-manager'),
    });
    setupGardenerClusterController(manager, {
      garden,
      kcp,
      project: config.gardenerProject,
      namespace: config.namespace,
      expirationSeconds: config.kubeconfigExpirationSeconds,
      minimalRotationTimeRatio: config.minimalRotationTimeRatio,
      rotationPeriodRatio: config.rotationPeriodRatio,
      workers: config.gardenerClusterWorkers,
      reconcileTimeoutMs: config.gardenerClusterReconcileTimeoutMs,
      logger: logger.child('infrastructure-manager'),
    });
  }

  let metricsServer: OperationsServer | undefined;
  const closeAll = async (): Promise<void> => {
    await metricsServer?.close();
    for (const c of clients) c.close();
  };
  try {
    if (config.metrics && !sameAddress) {
      metricsServer = await startOperationsServer({
        port: config.metrics.port,
        host: config.metrics.host,
        registry: manager.registry,
        healthChecks: new Map([['ping', () => true]]),
        readyChecks: new Map(),
      });
    }
  } catch (e) {
    await closeAll();
    throw new Error(`cannot listen on --metrics-bind-address: ${(e as Error).message}`, { cause: e });
  }

  const lifetime = new AbortController();
  let lifecycle: LifecycleManagerHandle | undefined;
  let managerDone: Promise<void> | undefined;
  if (config.lifecycleManager) {
    // startLifecycleManager adds its controllers to our manager and starts it.
    lifecycle = await startLifecycleManager(
      {
        kcp,
        manager,
        namespace: config.namespace,
        intervals: config.kymaIntervals,
        manifestIntervals: config.manifestIntervals,
        maxConcurrentReconciles: config.kymaWorkers,
        purgeGraceMs: config.purgeGraceMs,
        fetcher: deps.fetcher,
        logger: logger.child('lifecycle-manager'),
      },
      lifetime.signal,
    );
  } else {
    managerDone = manager.start(lifetime.signal);
    managerDone.catch((e: unknown) => logger.error('manager failed', { error: e }));
  }
  try {
    await waitForOperationsServer(manager, config);
  } catch (e) {
    lifetime.abort(e);
    await lifecycle?.stop();
    await managerDone?.catch(() => undefined);
    await closeAll();
    throw e;
  }
  logger.info('controllers started', {
    identity,
    infrastructureManager: config.infrastructureManager,
    lifecycleManager: config.lifecycleManager,
    namespace: config.namespace,
    coordination: config.leaderElection ? 'leader-election' : config.sharding ? `${config.sharding.shards} shards` : 'none',
    metrics: urlOf(metricsServer) ?? (sameAddress ? manager.operationsUrl : undefined),
    health: manager.operationsUrl,
  });

  let stopped: Promise<void> | undefined;
  return {
    manager,
    identity,
    metricsUrl: urlOf(metricsServer) ?? (sameAddress ? manager.operationsUrl : undefined),
    healthUrl: manager.operationsUrl,
    ready: () => manager.ready(),
    stop: () =>
      (stopped ??= (async () => {
        lifetime.abort(new Error('stopping'));
        if (lifecycle) await lifecycle.stop();
        await managerDone?.catch(() => undefined);
        await closeAll();
        logger.info('controllers stopped');
      })()),
  };
}

/** The manager opens its operations server inside start(); wait until it listens (or start failed). */
async function waitForOperationsServer(manager: Manager, config: RunConfig): Promise<void> {
  if (!config.health) return;
  const deadline = Date.now() + 10_000;
  while (!manager.operationsUrl) {
    if (Date.now() > deadline) throw new Error('cannot listen on --health-probe-bind-address within 10 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function runControllers(args: ParsedArgs): Promise<void> {
  const config = parseRunConfig(args);
  const signal = signalHandler();
  const running = await startControllers(config);
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await running.stop();
}

export const command: Command = {
  summary: 'the controllers alone against real clusters (KCP and garden), for production',
  usage: RUN_USAGE,
  switches: RUN_SWITCHES,
  run: runControllers,
};
