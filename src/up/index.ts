// `kcp up` as a library: the embedded landscape (src/landscape/embedded.ts) with the control plane's
// composition root (src/controlplane) pointed at it, exactly as `kcp run` points it at real
// clusters. Tests and benchmarks start the same thing.
//
//   const up = await startUp({ dataDir: '.kcp', port: 6443, controlPlane: { metrics: { host: '127.0.0.1', port: 0 } } });
//   up.landscape.kcp; up.controlPlane.metricsUrl; ...
//   await up.stop();
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type ControlPlane, type ControlPlaneConfig, defaultControlPlaneConfig, startControlPlane } from '../controlplane/index.js';
import { type ConverterConfig, loadConverterConfig } from '../infrastructure/converter/index.js';
import { type EmbeddedLandscape, type EmbeddedLandscapeOptions, startEmbeddedLandscape } from '../landscape/embedded.js';
import { OciArtifactFetcher } from '../lifecycle/artifacts/fetcher.js';
import type { ArtifactFetcher } from '../lifecycle/artifacts/types.js';
import { type Client, clientFromKubeconfig, type ClientOptions } from '../runtime/client/index.js';

export const DEFAULT_CONVERTER_CONFIG = fileURLToPath(new URL('../../../config/converter-config.json', import.meta.url));

/** The Runtime-to-Shoot converter configuration in a file (default: the one shipped in config/). */
export function readConverterConfig(path: string = DEFAULT_CONVERTER_CONFIG): ConverterConfig {
  return loadConverterConfig(readFileSync(path, 'utf8'));
}

export interface UpOptions extends EmbeddedLandscapeOptions {
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
  landscape: EmbeddedLandscape;
  controlPlane: ControlPlane;
  /** Milliseconds from the call until the landscape ran and the controllers were ready. */
  startupMs: number;
  /** Stops the controllers, then the landscape. */
  stop(): Promise<void>;
}

export async function startUp(opts: UpOptions): Promise<Up> {
  const started = performance.now();
  const converterConfig = readConverterConfig(opts.converterConfigPath);
  const landscape = await startEmbeddedLandscape(opts);
  // The controllers get clients of their own, from the kubeconfig files, as `kcp run` builds them.
  const clients: Client[] = [];
  const closeClients = (): void => {
    for (const c of clients.splice(0)) c.close();
  };
  let controlPlane: ControlPlane | undefined;
  try {
    const kcp = clientFromKubeconfig(readFileSync(landscape.files.kcpKubeconfig, 'utf8'), opts.kcpClient);
    clients.push(kcp);
    const garden = clientFromKubeconfig(readFileSync(landscape.files.gardenKubeconfig, 'utf8'), opts.gardenClient);
    clients.push(garden);
    controlPlane = await startControlPlane({
      config: { ...defaultControlPlaneConfig(), ...opts.controlPlane },
      kcp,
      garden,
      gardenerProject: landscape.project,
      converterConfig,
      fetcher: opts.fetcher ?? new OciArtifactFetcher({ insecureRegistries: [landscape.registry.host] }),
      logger: landscape.logger,
      signal: opts.signal,
    });
    await controlPlane.ready();
  } catch (e) {
    // Undo what started; the first error is the one to report.
    await controlPlane?.stop();
    closeClients();
    await landscape.stop().catch((stopError: unknown) => landscape.logger.error('stopping the landscape failed', { error: stopError }));
    throw e;
  }
  const running = controlPlane;
  const startupMs = Math.round(performance.now() - started);
  landscape.logger.info('kcp up running', { url: landscape.server.url, startupMs, metrics: running.metricsUrl, health: running.healthUrl });
  let stopping: Promise<void> | undefined;
  return {
    landscape,
    controlPlane: running,
    startupMs,
    stop: () =>
      (stopping ??= (async () => {
        await running.stop();
        closeClients();
        await landscape.stop();
      })()),
  };
}
