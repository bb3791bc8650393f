// `kcp up` as a library: the embedded landscape (src/landscape/embedded.ts) with the control plane's
// composition root (src/controlplane) pointed at it, exactly as `kcp run` points it at real
// clusters. Tests and benchmarks start the same thing.
//
// The landscape runs in this process (default: tests reach into `up.landscape`) or, with
// `landscapeMode: 'process'` as `kcp up` runs it, in a child process of its own
// (src/landscape/process.ts): the API server and the simulators on one core, the controllers on
// the other, talking over HTTPS as in production.
//
//   const up = await startUp({ dataDir: '.kcp', port: 6443, controlPlane: { metrics: { host: '127.0.0.1', port: 0 } } });
//   up.landscape.kcp; up.landscapeInfo.url; up.controlPlane.metricsUrl; ...
//   await up.stop();
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ControlPlane, type ControlPlaneConfig, defaultControlPlaneConfig, startControlPlane } from '../controlplane/index.js';
import { type ConverterConfig, loadConverterConfig } from '../infrastructure/converter/index.js';
import { DataDirFiles, type EmbeddedLandscape, type EmbeddedLandscapeOptions, startEmbeddedLandscape } from '../landscape/embedded.js';
import { openLogFile } from '../landscape/log-file.js';
import { type LandscapeInfo, landscapeInfo, startLandscapeProcess } from '../landscape/process.js';
import { OciArtifactFetcher } from '../lifecycle/artifacts/fetcher.js';
import type { ArtifactFetcher } from '../lifecycle/artifacts/types.js';
import { type Client, clientFromKubeconfig, type ClientOptions } from '../runtime/client/index.js';
import type { Logger } from '../runtime/log.js';

export const DEFAULT_CONVERTER_CONFIG = fileURLToPath(new URL('../../../config/converter-config.json', import.meta.url));

/** The Runtime-to-Shoot converter configuration in a file (default: the one shipped in config/). */
export function readConverterConfig(path: string = DEFAULT_CONVERTER_CONFIG): ConverterConfig {
  return loadConverterConfig(readFileSync(path, 'utf8'));
}

export type LandscapeMode = 'in-process' | 'process';

export interface UpOptions extends EmbeddedLandscapeOptions {
  /**
   * Where the landscape runs: `in-process` (default; `up.landscape` is there) or `process`, a child
   * process of its own. In `process` mode `logger` is the controllers' only (the landscape writes
   * `<data-dir>/kcp.log`, and hands its lines to `echoLog`), and the kubelet options take no functions.
   */
  landscapeMode?: LandscapeMode;
  /** In `process` mode: Node flags for the landscape's process (e.g. its own heap limit). */
  landscapeExecArgv?: readonly string[];
  /** The controllers' settings over the defaults (upstream's; no metrics or health endpoints). */
  controlPlane?: Partial<ControlPlaneConfig>;
  /** The Runtime-to-Shoot converter configuration (default config/converter-config.json). */
  converterConfigPath?: string;
  /** Fetches module manifests (default: OCI registries, the landscape's plain-http registry included). */
  fetcher?: ArtifactFetcher;
  /** Client-side rate limits of the controllers' own KCP and garden clients (default 50 QPS, burst 100, as `kcp run`). */
  kcpClient?: ClientOptions;
  gardenClient?: ClientOptions;
}

export interface Up {
  /** Where the landscape serves and keeps its files, in either mode (`pid`: its process). */
  landscapeInfo: LandscapeInfo;
  controlPlane: ControlPlane;
  /** Milliseconds from the call until the landscape ran and the controllers were ready. */
  startupMs: number;
  /** Settles when the landscape has ended: resolves after stop(), rejects when it ended by itself (its process died). */
  landscapeDone: Promise<void>;
  /** Stops the controllers, then the landscape. */
  stop(): Promise<void>;
}

/** With the landscape in this process: its clients, simulators and server, for tests to reach into. */
export interface InProcessUp extends Up {
  landscape: EmbeddedLandscape;
}

/** The landscape as the controllers see it, in either mode. */
interface RunningLandscape {
  info: LandscapeInfo;
  embedded?: EmbeddedLandscape;
  /** Where the controllers log. */
  logger: Logger;
  done: Promise<void>;
  stop(): Promise<void>;
}

export function startUp(opts: UpOptions & { landscapeMode?: 'in-process' }): Promise<InProcessUp>;
export function startUp(opts: UpOptions): Promise<Up>;
export async function startUp(opts: UpOptions): Promise<Up> {
  const started = performance.now();
  const converterConfig = readConverterConfig(opts.converterConfigPath);
  const landscape = opts.landscapeMode === 'process' ? await landscapeInProcessOfItsOwn(opts) : await landscapeInThisProcess(opts);
  const { info, logger } = landscape;
  // The controllers get clients of their own, from the kubeconfig files, as `kcp run` builds them.
  const clients: Client[] = [];
  const closeClients = (): void => {
    for (const c of clients.splice(0)) c.close();
  };
  let controlPlane: ControlPlane | undefined;
  try {
    const kcp = clientFromKubeconfig(readFileSync(info.files.kcpKubeconfig, 'utf8'), opts.kcpClient);
    clients.push(kcp);
    const garden = clientFromKubeconfig(readFileSync(info.files.gardenKubeconfig, 'utf8'), opts.gardenClient);
    clients.push(garden);
    controlPlane = await startControlPlane({
      config: { ...defaultControlPlaneConfig(), ...opts.controlPlane },
      kcp,
      garden,
      gardenerProject: info.project,
      converterConfig,
      fetcher: opts.fetcher ?? new OciArtifactFetcher({ insecureRegistries: [info.registry.host] }),
      logger,
      signal: opts.signal,
    });
    await controlPlane.ready();
  } catch (e) {
    // Undo what started; the first error is the one to report.
    await controlPlane?.stop();
    closeClients();
    await landscape.stop().catch((stopError: unknown) => logger.error('stopping the landscape failed', { error: stopError }));
    throw e;
  }
  const running = controlPlane;
  const startupMs = Math.round(performance.now() - started);
  logger.info('kcp up running', { url: info.url, startupMs, landscapePid: info.pid, metrics: running.metricsUrl, health: running.healthUrl });
  let stopping: Promise<void> | undefined;
  return {
    ...(landscape.embedded ? { landscape: landscape.embedded } : {}),
    landscapeInfo: info,
    controlPlane: running,
    startupMs,
    landscapeDone: landscape.done,
    stop: () =>
      (stopping ??= (async () => {
        await running.stop();
        closeClients();
        await landscape.stop();
      })()),
  };
}

async function landscapeInThisProcess(opts: UpOptions): Promise<RunningLandscape> {
  const embedded = await startEmbeddedLandscape(opts);
  let stopped: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  return {
    info: landscapeInfo(embedded),
    embedded,
    logger: embedded.logger,
    done,
    stop: async () => {
      await embedded.stop();
      stopped();
    },
  };
}

async function landscapeInProcessOfItsOwn(opts: UpOptions): Promise<RunningLandscape> {
  const { logger: given, echoLog, signal, landscapeMode: _mode, landscapeExecArgv, controlPlane: _cp, converterConfigPath: _cc, fetcher: _f, kcpClient: _k, gardenClient: _g, kubelet, ...options } = opts;
  if (kubelet?.clusters || kubelet?.onError || kubelet?.registerNodes) throw new Error('the kubelet options clusters, onError and registerNodes cannot cross to the landscape process');
  const child = await startLandscapeProcess({ ...options, ...(kubelet ? { kubelet } : {}), echoLog, signal, ...(landscapeExecArgv ? { execArgv: landscapeExecArgv } : {}) });
  // The controllers log into the same file as the landscape, unless given a logger.
  const dataDir = path.resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const logFile = given ? undefined : openLogFile(path.join(dataDir, DataDirFiles.log), { level: opts.logLevel, format: opts.logFormat, echo: echoLog });
  return {
    info: child.info,
    logger: given ?? (logFile as NonNullable<typeof logFile>).logger,
    done: child.done,
    stop: async () => {
      try {
        await child.stop();
      } finally {
        await logFile?.close();
      }
    },
  };
}
