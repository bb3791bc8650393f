// The embedded landscape in one process, as `kcp up` runs it: the embedded API server with a data
// dir, the KCP (default logical cluster: control-plane CRDs, namespace kcp-system), the garden
// cluster with the Gardener simulator, the kubelet simulation, the simulated module operators, an
// OCI registry, the demo module catalog (published once per data dir, never over what users
// published: catalog.ts) and the module manager of the
// demo `functions` module (module-managers/, a module team's part). No control-plane controllers: `kcp up`
// points the control plane's composition root (src/controlplane) at this, as `kcp run` points it at
// real clusters (src/up wires the two).
//
//   const land = await startEmbeddedLandscape({ dataDir: '.kcp', port: 6443 });
//   land.files.kcpKubeconfig; land.registry.host; ...
//   await land.stop();
//
// Everything persists in the data dir: a second start finds the Runtimes, Shoots, shoot clusters,
// Kymas and the registry content and carries on reconciling them (see docs/landscape.md, "kcp up").
// The registry keeps its address when the port is free; when it moves, the ModuleTemplates linking
// its earlier addresses are relinked to the new one.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AnnotationForceKubeconfigRotation, GardenerCluster } from '../api/infrastructuremanager/index.js';
import { Namespaces } from '../api/operator/index.js';
import { DEFAULT_CLUSTER, type RunningApiServer, startApiServer, type StoreLog } from '../apiserver/server.js';
import { type Client, clientFromKubeconfig } from '../runtime/client/index.js';
import { processAlive } from '../util/bound-child.js';
import type { Logger, LogFormat, LogLevel, LogSink } from '../runtime/log.js';
import { embeddedSimulatorOptions, GARDEN_CLUSTER, type GardenerSimulator, type GardenerSimulatorConfig } from './gardener/index.js';
import { DEFAULT_PROJECT, type GardenLandscape, startGardenLandscape } from './index.js';
import type { KubeletOptions, KubeletSimulator } from './kubelet.js';
import { openLogFile, type LogFile } from './log-file.js';
import { SkrWebhookHost } from './skr-webhooks.js';
import { type ModuleOperators, startModuleOperators } from './module-operators.js';
import { FUNCTIONS_MODULE_MANAGER, type RunningModuleManager, startFunctionsModuleManager } from './module-managers/functions.js';
import { type CatalogMarker, type CatalogState, ensureCatalog } from './catalog.js';
import { EMBEDDED_FIELD_MANAGER, installControlPlane } from './control-plane.js';
import { dockerRegistryInstalled, endLeftoverDockerRegistries, isAddressInUse, type LandscapeRegistry, type RegistryKind, startDockerRegistry, startInProcessRegistry } from './registry.js';

export { EMBEDDED_FIELD_MANAGER };

/** The demo catalog shipped with the project (`demo-modules/<module>/<version>/`). */
export const DEFAULT_CATALOG_DIR = fileURLToPath(new URL('../../../demo-modules/', import.meta.url));

/** Files the landscape keeps in its data dir (besides the API server's own). */
export const DataDirFiles = {
  /** Admin kubeconfig of the KCP (same as the API server's `kubeconfig`). */
  kcpKubeconfig: 'kcp.kubeconfig',
  /** Admin kubeconfig of the garden cluster (the infrastructure manager's Gardener kubeconfig). */
  gardenKubeconfig: 'garden.kubeconfig',
  /** Written by the API server for the default logical cluster. */
  apiserverKubeconfig: 'kubeconfig',
  /** Where the API server and the registry listened last time (reused when free). */
  state: 'landscape.json',
  /** Marker of the published demo catalog: registry and digests. */
  catalog: 'catalog.json',
  /** JSON logs of the controllers and simulators (unless a logger is given). */
  log: 'kcp.log',
  /** Registry content. */
  registry: 'registry',
  /** URL and pid of the running API server, as `kcp apiserver` writes it. */
  apiserverInfo: 'apiserver.json',
} as const;

export interface EmbeddedLandscapeOptions {
  dataDir: string;
  /** Port of the API server; 0 or undefined: the previous run's port when free, else any free port. */
  port?: number;
  /** Port of the registry; 0 or undefined: the previous run's port when free, else any free port. */
  registryPort?: number;
  /** `auto` (default): docker-registry when installed, else the in-process read-only registry. */
  registry?: 'auto' | RegistryKind;
  /** Module directories to publish once (`<dir>/<module>/<version>/`); null: none. Default: demo-modules/. */
  catalogDir?: string | null;
  /** Gardener project (default kyma-dev). */
  project?: string;
  /** Simulated Gardener durations; default `embeddedSimulatorOptions` (a Shoot takes about 5 s). */
  simulator?: Omit<GardenerSimulatorConfig, 'hooks' | 'onError' | 'logger'>;
  kubelet?: Partial<KubeletOptions>;
  /**
   * Also simulate kubelets (with Nodes of their own) in logical clusters whose names start with one
   * of these, besides the shoot clusters: e.g. `skr-` for runtimes a benchmark attaches without
   * Gardener (`PUT /_kcp/clusters/skr-<id>`). Plain data, so it crosses to the landscape process.
   */
  kubeletClusterPrefixes?: string[];
  /** How long simulated module operators take to report their CR Ready (default 500 ms). */
  moduleOperatorDelayMs?: number;
  /** Start the API server on a damaged store with the records that can be read (`kcp up --recover-store`). */
  recoverStore?: boolean;
  /** Logger of the simulators (and, in `kcp up`, the controllers); default: lines into `<dataDir>/kcp.log`. */
  logger?: Logger;
  /** Level of the default file logger (default info). */
  logLevel?: LogLevel;
  /** Format of the default file logger (default json; the `kcp up` command defaults to text). */
  logFormat?: LogFormat;
  /** Also hands every line of the default file logger to this (e.g. stderr for `kcp up --verbose`). */
  echoLog?: LogSink;
  signal?: AbortSignal;
}

export interface EmbeddedLandscape {
  server: RunningApiServer;
  dataDir: string;
  /** Absolute paths of the files in the data dir. */
  files: { kcpKubeconfig: string; gardenKubeconfig: string; apiserverKubeconfig: string; log?: string };
  /** Admin client of the KCP. */
  kcp: Client;
  /** Admin client of the garden cluster. */
  garden: Client;
  project: string;
  projectNamespace: string;
  simulator: GardenerSimulator;
  kubelet: KubeletSimulator;
  moduleOperators: ModuleOperators;
  /** The demo `functions` module's manager: ModuleConfigs -> SyncResources, with a KCP client of its own. */
  functionsModuleManager: RunningModuleManager;
  /** Serves the runtime watcher's webhook of every runtime (the pods the landscape does not have). */
  skrWebhooks: SkrWebhookHost;
  registry: LandscapeRegistry;
  catalog: CatalogState;
  /** The API server's URL differed from the previous run's: kubeconfig Secrets were asked to rotate. */
  urlChanged: boolean;
  /** The logger the landscape writes to (the file logger unless one was given). */
  logger: Logger;
  /** Milliseconds from the call until everything ran and the catalog was there. */
  startupMs: number;
  stop(): Promise<void>;
}

interface RememberedState {
  apiPort?: number;
  apiUrl?: string;
  registryPort?: number;
  /** Every address the registry had, oldest first: ModuleTemplates linking one of them are relinked. */
  registryHosts?: string[];
}

/** How many earlier registry addresses are remembered. */
const REMEMBERED_REGISTRY_HOSTS = 20;

export async function startEmbeddedLandscape(opts: EmbeddedLandscapeOptions): Promise<EmbeddedLandscape> {
  const started = performance.now();
  const dataDir = path.resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const file = (name: string) => path.join(dataDir, name);
  refuseWhenInUse(file(DataDirFiles.apiserverInfo));
  const remembered = readJson<RememberedState>(file(DataDirFiles.state)) ?? {};

  // Undo in reverse order what was started, when a later step fails or at stop().
  const stoppers: (() => Promise<void> | void)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const s of stoppers.splice(0).reverse()) {
      try {
        await s();
      } catch {
        // keep stopping the rest
      }
    }
  };

  const fileLog = opts.logger ? undefined : openLogFile(file(DataDirFiles.log), { level: opts.logLevel, format: opts.logFormat, echo: opts.echoLog });
  if (fileLog) stoppers.push(() => fileLog.close());
  const logger = opts.logger ?? (fileLog as LogFile).logger;

  try {
    // The registry starts in the background: it is only needed for the catalog.
    const registryStarting = startRegistry(opts, file(DataDirFiles.registry), remembered.registryPort, logger);
    registryStarting.catch(() => undefined);
    stoppers.push(async () => (await registryStarting.catch(() => undefined))?.stop());

    const port = opts.port || ((await portFree(remembered.apiPort)) ? remembered.apiPort : 0);
    const clusterClass = (name: string) => (name === DEFAULT_CLUSTER ? 'kcp' : name === GARDEN_CLUSTER ? 'garden' : 'runtime');
    const server = await startApiServer({ port, dataDir, recoverStore: opts.recoverStore, log: storeLog(logger), clusterClass });
    stoppers.push(() => server.stop());
    const urlChanged = remembered.apiUrl !== undefined && remembered.apiUrl !== server.url;

    const kcp = clientFromKubeconfig(server.clusterAccess('default').kubeconfig);
    stoppers.push(() => kcp.close());
    await installControlPlane(server, kcp);

    const garden: GardenLandscape = await startGardenLandscape(server, {
      project: opts.project ?? DEFAULT_PROJECT,
      simulator: { ...embeddedSimulatorOptions, ...opts.simulator, onError: (err) => logger.error('gardener simulator failed', { error: err }) },
      kubelet: opts.kubelet,
      ...(opts.kubeletClusterPrefixes?.length ? { extraKubeletClusters: (name: string) => opts.kubeletClusterPrefixes?.some((p) => name.startsWith(p)) ?? false } : {}),
      logger,
      signal: opts.signal,
    });
    stoppers.push(() => garden.stop());
    const gardenClient = clientFromKubeconfig(garden.gardenKubeconfig);
    stoppers.push(() => gardenClient.close());

    const moduleOperators = startModuleOperators({ server, delayMs: opts.moduleOperatorDelayMs ?? 500, isRuntime: (name) => name.startsWith('shoot--'), logger: logger.child('module-operators') });
    stoppers.push(() => moduleOperators.stop());

    const skrWebhooks = new SkrWebhookHost(server, { log: logger.child('skr-webhook') });
    await skrWebhooks.start();
    stoppers.push(() => skrWebhooks.stop());

    // A module team's manager talks to the KCP over HTTPS with a client of its own, as it would from
    // its own cluster (the control plane's controllers get theirs from src/up).
    const functionsClient = clientFromKubeconfig(server.clusterAccess('default').kubeconfig);
    stoppers.push(() => functionsClient.close());
    const functionsModuleManager = await startFunctionsModuleManager({ client: functionsClient, logger: logger.child(FUNCTIONS_MODULE_MANAGER) });
    stoppers.push(() => functionsModuleManager.stop());

    const registry = await registryStarting;
    const marker = readJson<CatalogMarker>(file(DataDirFiles.catalog));
    const earlierHosts = [...new Set([...(remembered.registryHosts ?? []), ...(remembered.registryPort ? [`127.0.0.1:${remembered.registryPort}`] : []), ...(marker ? [marker.registry] : [])])];
    const ensured = await ensureCatalog({ kcp, registry, dir: opts.catalogDir === undefined ? DEFAULT_CATALOG_DIR : opts.catalogDir, marker, earlierHosts, logger, signal: opts.signal });
    if (ensured.marker) writeJson(file(DataDirFiles.catalog), ensured.marker);
    const catalog = ensured.state;
    if (urlChanged) await forceKubeconfigRotation(kcp, opts.signal);

    const files = {
      kcpKubeconfig: file(DataDirFiles.kcpKubeconfig),
      gardenKubeconfig: file(DataDirFiles.gardenKubeconfig),
      apiserverKubeconfig: file(DataDirFiles.apiserverKubeconfig),
      ...(fileLog ? { log: file(DataDirFiles.log) } : {}),
    };
    writePrivate(files.kcpKubeconfig, server.clusterAccess('default').kubeconfig);
    writePrivate(files.gardenKubeconfig, server.clusterAccess(GARDEN_CLUSTER).kubeconfig);
    const registryHosts = [...earlierHosts.filter((h) => h !== registry.host), registry.host].slice(-REMEMBERED_REGISTRY_HOSTS);
    writeJson(file(DataDirFiles.state), { apiPort: server.port, apiUrl: server.url, registryPort: Number(registry.host.split(':')[1]), registryHosts } satisfies RememberedState);
    // What `kcp apiserver cluster ... --data-dir` looks for to reach the running server.
    writeJson(file(DataDirFiles.apiserverInfo), { url: server.url, pid: process.pid });
    stoppers.push(() => rmSync(file(DataDirFiles.apiserverInfo), { force: true }));

    const startupMs = Math.round(performance.now() - started);
    logger.info('embedded landscape running', { url: server.url, registry: registry.host, registryKind: registry.kind, startupMs, catalogPublishedNow: catalog.publishedNow });
    let stopping: Promise<void> | undefined;
    return {
      server,
      dataDir,
      files,
      kcp,
      garden: gardenClient,
      project: garden.project,
      projectNamespace: garden.projectNamespace,
      simulator: garden.simulator,
      kubelet: garden.kubelet,
      moduleOperators,
      functionsModuleManager,
      skrWebhooks,
      registry,
      catalog,
      urlChanged,
      logger,
      startupMs,
      stop: () => (stopping ??= stopAll()),
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/**
 * The registry the options ask for, on the remembered port when it is free. `auto` takes
 * docker-registry when installed and falls back to the in-process one when it does not start.
 */
async function startRegistry(opts: EmbeddedLandscapeOptions, storage: string, rememberedPort: number | undefined, logger: Logger): Promise<LandscapeRegistry> {
  const auto = opts.registry === undefined || opts.registry === 'auto';
  const kind: RegistryKind = auto ? (dockerRegistryInstalled() ? 'docker-registry' : 'in-process') : (opts.registry as RegistryKind);
  // The two kinds keep different layouts; each gets its own subdirectory.
  const dockerStorage = path.join(storage, 'docker-registry');
  // A registry a killed run left behind would hold the remembered port.
  if (dockerRegistryInstalled()) await endLeftoverDockerRegistries(dockerStorage, { logger: logger.child('registry') });
  const port = opts.registryPort || ((await portFree(rememberedPort)) ? rememberedPort : 0);
  const inProcess = () => startInProcessRegistry({ storage: path.join(storage, 'oci'), port });
  if (kind === 'in-process') return inProcess();
  try {
    try {
      return await startDockerRegistry({ storage: dockerStorage, port, logger: logger.child('registry') });
    } catch (e) {
      // The remembered port taken by something else: another port (the catalog's links follow, see ensureCatalog).
      if (!isAddressInUse(e) || opts.registryPort || !port) throw e;
      logger.warn('the registry\'s remembered port is in use; starting it on another port', { port, error: e });
      return await startDockerRegistry({ storage: dockerStorage, port: 0, logger: logger.child('registry') });
    }
  } catch (e) {
    if (!auto) throw e;
    logger.warn('docker-registry did not start; using the in-process read-only registry', { error: e });
    return inProcess();
  }
}

/** After the API server moved (another port), every kubeconfig Secret names the old URL: fetch new ones. */
async function forceKubeconfigRotation(kcp: Client, signal?: AbortSignal): Promise<void> {
  const clusters = await kcp.list(GardenerCluster, { namespace: Namespaces.ControlPlane, signal });
  for (const gc of clusters.items) {
    await kcp.patch(GardenerCluster, { namespace: Namespaces.ControlPlane, name: gc.metadata.name ?? '' }, 'merge', { metadata: { annotations: { [AnnotationForceKubeconfigRotation]: 'true' } } }, { signal });
  }
}

/** The API server's store reports into the landscape's log; warnings (damage dropped by --recover-store) also on stderr. */
function storeLog(logger: Logger): StoreLog {
  const log = logger.child('apiserver-store');
  return (level, message, fields) => {
    log[level](message, fields);
    if (level !== 'info') process.stderr.write(`kcp up: ${message}\n`);
  };
}

/** Two processes must not share a data dir (both would append to the same object log). */
function refuseWhenInUse(infoPath: string): void {
  const pid = readJson<{ pid?: number }>(infoPath)?.pid;
  // Gone (or exited and not yet reaped): a leftover of a run that did not stop cleanly.
  if (!pid || pid === process.pid || !processAlive(pid)) return;
  throw new Error(`the data dir ${path.dirname(infoPath)} is in use by process ${pid} (stop it first, or remove ${infoPath} if that is not kcp)`);
}

/** Whether a TCP port on 127.0.0.1 can be bound now (false for undefined or 0). */
function portFree(port: number | undefined): Promise<boolean> {
  if (!port) return Promise.resolve(false);
  return new Promise((resolve) => {
    const srv = createNetServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

function readJson<T>(p: string): T | undefined {
  if (!existsSync(p)) return undefined;
  try {
    return JSON.parse(readFileSync(p, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

function writeJson(p: string, value: unknown): void {
  const tmp = `${p}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, p);
}

function writePrivate(p: string, text: string): void {
  writeFileSync(p, text, { mode: 0o600 });
}
