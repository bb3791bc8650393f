// `kcp run`: the controllers alone (infrastructure manager, lifecycle manager) against real
// clusters: a KCP (kubeconfig or in-cluster service account) and a Gardener project's garden
// cluster. Nothing is embedded. Flags follow upstream's names where upstream has one.
//
// This file only reads flags and files and builds the clients; the controllers are wired by the
// control plane's composition root (src/controlplane), the same one `kcp up` uses.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { GardenerCluster, Runtime } from '../api/infrastructuremanager/index.js';
import { Kyma, Manifest, ModuleReleaseMeta, ModuleTemplate, Namespaces } from '../api/operator/index.js';
import { type ControlPlane, type ControlPlaneConfig, startControlPlane } from '../controlplane/index.js';
import { loadConverterConfig, type ConverterConfig } from '../infrastructure/converter/index.js';
import type { ArtifactFetcher } from '../lifecycle/artifacts/types.js';
import { type Client, type ClientOptions, createClient, inClusterConfig, isForbidden, isNotFound, isUnauthorized, loadKubeconfigFile } from '../runtime/client/index.js';
import { createLogger, type Logger, type LogFormat, type LogLevel, type LogSink } from '../runtime/log.js';
import { type Manager, signalHandler } from '../runtime/manager.js';
import { type FlagTable, type ParsedArgs, UsageError } from './args.js';
import type { Command } from './command.js';
import { type ClientLimits, clientLimitsFrom, CONTROLLER_FLAGS, controlPlaneConfigFrom, type Flag, FlagReader, flagsUsage, flagTableOf } from './controller-flags.js';

// ---------------------------------------------------------------------------------------------
// Flags: where the clusters are, plus the controller flags `kcp up` takes as well.

/** Flags of `kcp run` only: the clusters, the Gardener project, the converter. */
export const CONNECTION_FLAGS: readonly Flag[] = [
  { name: 'kubeconfig', type: 'path', default: '', help: 'kubeconfig of the KCP; default: the in-cluster service account' },
  { name: 'gardener-kubeconfig', aliases: ['gardener-kubeconfig-path'], type: 'path', default: '', help: 'kubeconfig of the garden cluster (required with the infrastructure manager)' },
  { name: 'gardener-project', aliases: ['gardener-project-name'], type: 'string', default: '', help: 'Gardener project; Shoots live in garden-<project> (required with the infrastructure manager)' },
  { name: 'namespace', type: 'string', default: Namespaces.ControlPlane, help: 'namespace of Runtimes, GardenerClusters, Kymas, module catalog, Manifests and kubeconfig Secrets' },
  { name: 'converter-config', aliases: ['converter-config-filepath'], type: 'path', default: '', help: 'Runtime-to-Shoot converter configuration, JSON (required with the infrastructure manager)' },
];

export const RUN_FLAGS: readonly Flag[] = [...CONNECTION_FLAGS, ...CONTROLLER_FLAGS];

export const RUN_FLAG_TABLE: FlagTable = flagTableOf(RUN_FLAGS);

export const RUN_USAGE = [
  'Usage:',
  '  kcp run [--kubeconfig KCP] --gardener-kubeconfig GARDEN --gardener-project P --converter-config FILE [flags]',
  '      Runs the controllers against real clusters until SIGTERM/SIGINT. Bool flags: --flag, --flag=false.',
  '      Durations: 500ms, 30s, 5m, 1h30m. Addresses: :8080, 127.0.0.1:8080, 0 (off). Logs: JSON lines on stderr (--log-format text: readable lines).',
  '',
  'Flags:',
  ...flagsUsage(RUN_FLAGS),
].join('\n');

export interface RunConfig extends ControlPlaneConfig {
  kubeconfig?: string;
  gardenerKubeconfig?: string;
  gardenerProject?: string;
  converterConfig?: string;
  kcpClient: ClientLimits;
  gardenClient: ClientLimits;
  logLevel: LogLevel;
  logFormat: LogFormat;
}

/** Reads the flags into a RunConfig; every problem is a one-line UsageError. Files are not read here. */
export function parseRunConfig(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): RunConfig {
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[0])} (kcp run takes only flags; see kcp run --help)`);
  const flags = new FlagReader(args, RUN_FLAGS, 'kcp run');
  const namespace = flags.dnsLabel('namespace');
  const controlPlane = controlPlaneConfigFrom(flags, namespace, env);
  const gardenerKubeconfig = flags.optional('gardener-kubeconfig');
  const gardenerProject = flags.optional('gardener-project');
  const converterConfig = flags.optional('converter-config');
  if (controlPlane.infrastructureManager) {
    for (const [flag, v] of [['gardener-kubeconfig', gardenerKubeconfig], ['gardener-project', gardenerProject], ['converter-config', converterConfig]] as const) {
      if (!v) throw new UsageError(`--${flag} is required to run the infrastructure manager (or pass --lifecycle-manager to run only that)`);
    }
    flags.dnsLabel('gardener-project', gardenerProject ?? '');
  }
  return {
    ...controlPlane,
    kubeconfig: flags.optional('kubeconfig'),
    gardenerKubeconfig,
    gardenerProject,
    converterConfig,
    ...clientLimitsFrom(flags),
    logLevel: flags.level(),
    logFormat: flags.logFormat(),
  };
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
async function checkCrdsInstalled(kcp: Client, config: RunConfig, logger: Logger, signal?: AbortSignal): Promise<void> {
  const missing: string[] = [];
  for (const k of requiredKinds(config)) {
    const name = `${k.plural}.${k.group}`;
    try {
      await kcp.get(CRD_KIND, { name }, { signal });
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
// Running: the composition root (src/controlplane) pointed at the clusters the flags name.

export interface RunDeps {
  /** Wraps the KCP client (tests record the requests the controllers make). */
  wrapKcpClient?: (client: Client) => Client;
  /** Fetches module manifests (default: the OCI/https fetcher); tests serve modules from memory. */
  fetcher?: ArtifactFetcher;
  /** Where log lines go (default stderr). */
  logSink?: LogSink;
  /** Replica identity for leader election and sharding (default POD_NAME or hostname, plus a random suffix). */
  identity?: string;
  /** Aborts the start (e.g. SIGTERM while the KCP does not answer) and, later, stops the controllers. */
  signal?: AbortSignal;
}

export interface RunningControllers {
  controlPlane: ControlPlane;
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
  /** Resolves when the controllers stopped (after stop(), the signal, or a failure of the manager, which rejects it). */
  done: Promise<void>;
}

/** Starts the configured controllers; throws a UsageError (before starting anything) on unreadable inputs. */
export async function startControllers(config: RunConfig, deps: RunDeps = {}): Promise<RunningControllers> {
  const logger = createLogger({ name: 'kcp', level: config.logLevel, format: config.logFormat, sink: deps.logSink });
  const converter = config.infrastructureManager ? converterConfigFrom(config.converterConfig ?? '') : undefined;
  const clients: Client[] = [];
  const closeClients = (): void => {
    for (const c of clients) c.close();
  };
  const rawKcp = kcpClientFor(config);
  clients.push(rawKcp);
  let garden: Client | undefined;
  try {
    if (config.infrastructureManager) {
      garden = clientFromKubeconfigFlag('gardener-kubeconfig', config.gardenerKubeconfig ?? '', { qps: config.gardenClient.qps, burst: config.gardenClient.burst });
      clients.push(garden);
    }
    const kcp = deps.wrapKcpClient ? deps.wrapKcpClient(rawKcp) : rawKcp;
    await checkCrdsInstalled(kcp, config, logger, deps.signal);
    let controlPlane: ControlPlane;
    try {
      controlPlane = await startControlPlane({
        config,
        kcp,
        garden,
        gardenerProject: config.gardenerProject,
        converterConfig: converter,
        fetcher: deps.fetcher,
        logger,
        identity: deps.identity,
        signal: deps.signal,
      });
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new Error(`cannot start the controllers: ${(e as Error).message}`, { cause: e });
    }
    let stopped: Promise<void> | undefined;
    return {
      controlPlane,
      manager: controlPlane.manager,
      identity: controlPlane.identity,
      metricsUrl: controlPlane.metricsUrl,
      healthUrl: controlPlane.healthUrl,
      ready: () => controlPlane.ready(),
      done: controlPlane.done,
      stop: () =>
        (stopped ??= (async () => {
          await controlPlane.stop();
          closeClients();
          logger.info('controllers stopped');
        })()),
    };
  } catch (e) {
    closeClients();
    throw e;
  }
}

export async function runControllers(args: ParsedArgs): Promise<void> {
  const config = parseRunConfig(args);
  const signal = signalHandler();
  const running = await startControllers(config, { signal });
  // Runs until a signal, or until the controllers stop by themselves (a failure): then the process
  // must not linger without them.
  const failed = await new Promise<unknown>((resolve) => {
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener('abort', () => resolve(undefined), { once: true });
    running.done.then(
      () => resolve(signal.aborted ? undefined : new Error('the controllers stopped')),
      (e: unknown) => resolve(e),
    );
  });
  await running.stop();
  if (failed !== undefined) throw new Error(`kcp run: ${failed instanceof Error ? failed.message : String(failed)}`, { cause: failed });
}

export const command: Command = {
  summary: 'the controllers alone against real clusters (KCP and garden), for production',
  usage: RUN_USAGE,
  flags: () => RUN_FLAG_TABLE,
  lastFlagWins: true,
  run: runControllers,
};
