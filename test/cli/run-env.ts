// A real-cluster setup for `kcp run` tests: the embedded landscape (KCP with the control-plane
// CRDs, a garden cluster with the Shoot CRD and the Gardener simulator) reached only through
// kubeconfig files, and the command's own flag parsing and startup, in-process.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from '../../src/cli/args.js';
import { parseRunConfig, RUN_FLAG_TABLE, type RunDeps, type RunningControllers, startControllers } from '../../src/cli/run.js';
import { createLogger } from '../../src/runtime/log.js';
import { DEFAULT_CONVERTER_CONFIG } from '../../src/up/index.js';
import { type Landscape, startLandscape } from '../support/landscape.js';

export const CONVERTER_CONFIG = DEFAULT_CONVERTER_CONFIG;

/** Short requeues and lease timings so a scenario runs in seconds. */
export const FAST_FLAGS = [
  '--gardener-requeue-interval=300ms',
  '--control-plane-requeue-interval=200ms',
  '--kyma-requeue-success-interval=500ms',
  '--kyma-requeue-busy-interval=200ms',
  '--kyma-requeue-error-interval=200ms',
  '--manifest-requeue-success-interval=1s',
  '--manifest-requeue-busy-interval=200ms',
  '--manifest-requeue-error-interval=200ms',
  '--leader-election-lease-duration=2s',
  '--leader-election-renew-deadline=1500ms',
  '--leader-election-retry-period=300ms',
  '--purge-finalizer-timeout=30s',
  '--graceful-shutdown-timeout=2s',
  '--k8s-client-qps=0',
  '--gardener-ratelimiter-qps=0',
  '--metrics-bind-address=127.0.0.1:0',
  '--health-probe-bind-address=127.0.0.1:0',
  '--runtime-admission-bind-address=127.0.0.1:0',
];

export interface RunEnv {
  land: Landscape;
  dir: string;
  /** The files the command reads. */
  kcpKubeconfigFile: string;
  gardenKubeconfigFile: string;
  /** Flags naming the clusters, the project and the converter config. */
  clusterFlags: string[];
  running: RunningControllers;
  stop(): Promise<void>;
}

export function writeFiles(land: Landscape, dir: string, kcpKubeconfig = land.kcpKubeconfig): { kcp: string; garden: string; flags: string[] } {
  const kcp = join(dir, 'kcp.kubeconfig');
  const garden = join(dir, 'garden.kubeconfig');
  writeFileSync(kcp, kcpKubeconfig);
  writeFileSync(garden, land.gardenKubeconfig);
  return {
    kcp,
    garden,
    flags: [`--kubeconfig=${kcp}`, `--gardener-kubeconfig=${garden}`, `--gardener-project=${land.project}`, `--converter-config=${CONVERTER_CONFIG}`],
  };
}

export interface RunEnvOptions {
  /** The KCP kubeconfig `kcp run` is given (default: the landscape's admin one). */
  kcpKubeconfig?: (land: Landscape) => Promise<string>;
}

export async function startRunEnv(extraFlags: string[] = [], deps: RunDeps = {}, opts: RunEnvOptions = {}): Promise<RunEnv> {
  const land = await startLandscape();
  const dir = mkdtempSync(join(tmpdir(), 'kcp-run-'));
  try {
    const files = writeFiles(land, dir, opts.kcpKubeconfig ? await opts.kcpKubeconfig(land) : land.kcpKubeconfig);
    const config = parseRunConfig(parseArgs([...files.flags, ...FAST_FLAGS, ...extraFlags], RUN_FLAG_TABLE, { lastWins: true }));
    const logSink = process.env.TEST_LOG ? undefined : () => undefined;
    const running = await startControllers(config, { logSink, ...deps });
    return {
      land,
      dir,
      kcpKubeconfigFile: files.kcp,
      gardenKubeconfigFile: files.garden,
      clusterFlags: files.flags,
      running,
      async stop() {
        await running.stop();
        await land.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await land.stop();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

export const quietLogger = createLogger({ level: 'error', sink: () => undefined });

/** GET a URL; returns the status and body (status 0 when nothing answers). */
export async function httpGet(url: string): Promise<{ status: number; body: string }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return { status: res.status, body: await res.text() };
  } catch {
    return { status: 0, body: '' };
  }
}
