// The embedded landscape as `kcp up` runs it, with short simulated durations and fast controllers,
// for tests that need the whole thing to settle in seconds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { Namespaces } from '../../src/api/operator/index.js';
import { parseArgs } from '../../src/cli/args.js';
import { clientLimitsFrom, controlPlaneConfigFrom, FlagReader } from '../../src/cli/controller-flags.js';
import { UP_FLAG_TABLE, UP_FLAGS } from '../../src/cli/up.js';
import type { EmbeddedLandscapeOptions } from '../../src/landscape/embedded.js';
import { silentLogger } from '../../src/runtime/log.js';
import { type InProcessUp, startUp, type UpOptions } from '../../src/up/index.js';
import { FAST_FLAGS } from '../cli/run-env.js';

/** Short simulated durations (a Shoot is ready in about half a second); no logs. */
export function fastLandscapeOptions(dataDir: string): EmbeddedLandscapeOptions {
  return {
    dataDir,
    simulator: { pendingMs: 100, createMs: 400, reconcileMs: 200, deleteMs: 200, progressSteps: 2, recoverAfterMs: 500 },
    kubelet: { readyDelayMs: 50, scanIntervalMs: 100 },
    moduleOperatorDelayMs: 50,
    logger: silentLogger,
  };
}

/** `kcp up`'s options: the fast landscape on any port, its controllers configured from FAST_FLAGS plus `extraFlags`. */
export function fastUpOptions(dataDir: string, extraFlags: string[] = []): UpOptions & { landscapeMode?: 'in-process' } {
  const flags = new FlagReader(parseArgs([...FAST_FLAGS, ...extraFlags], UP_FLAG_TABLE, { lastWins: true }), UP_FLAGS, 'kcp up');
  return { ...fastLandscapeOptions(dataDir), port: 0, controlPlane: controlPlaneConfigFrom(flags, Namespaces.ControlPlane), ...clientLimitsFrom(flags) };
}

/**
 * `kcp up` for one suite (call it inside `describe`): a temp data dir, a signal for what the tests
 * run beside it (informers), and after the suite everything stopped and the data dir removed.
 */
export function upForSuite(prefix: string): { lifetime: AbortSignal; start(extra?: Partial<UpOptions>): Promise<InProcessUp> } {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const lifetime = new AbortController();
  let up: InProcessUp | undefined;
  after(async () => {
    lifetime.abort();
    await up?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    lifetime: lifetime.signal,
    async start(extra = {}) {
      const started = await startUp({ ...fastUpOptions(dataDir), ...extra, landscapeMode: 'in-process' });
      up = started;
      return started;
    },
  };
}
