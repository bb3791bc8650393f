// Processes of `kcp up` under SIGKILL: whatever is killed, in whatever order, nothing the landscape
// started (the landscape process, docker-registry) keeps running; a registry an earlier run left
// behind is ended at the next start; a registry that dies while running is started again on its
// address. `kcp up` runs as a real process here, with a data dir of its own.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { startEmbeddedLandscape } from '../../src/landscape/embedded.js';
import { DOCKER_REGISTRY_BINARY, probeHttp, startDockerRegistry } from '../../src/landscape/registry.js';
import { parentDeathSignalAvailable } from '../../src/util/bound-child.js';
import { fastLandscapeOptions } from '../support/fast-landscape.js';
import { RecordingLogger } from '../support/log.js';
import { descendants, processRunning } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
/** How long killed processes may take to be gone: a liveness bound, not a performance figure. */
const GONE_WITHIN_MS = 30_000;

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kcp-kill-'));
  dirs.push(dir);
  return dir;
}

function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

const isRegistry = (pid: number): boolean => commandLine(pid)[0] === DOCKER_REGISTRY_BINARY;

interface RunningUp {
  child: ChildProcess;
  exitCode: Promise<number | null>;
  output: () => string;
  /** The landscape process (pid) when it runs apart from kcp up. */
  landscapePid?: number;
  /** Every process kcp up started, its children included. */
  processes: number[];
}

/** `kcp up` with its own data dir, once its banner says it is ready. */
async function startKcpUp(extraArgs: string[] = []): Promise<RunningUp> {
  const child = spawn(process.execPath, [MAIN, 'up', '--data-dir', join(tempDir(), '.kcp'), '--port', '0', ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exitCode = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  await waitFor('kcp up to print its ready banner', () => out.includes('kcp up: ready'), 90_000, 100).catch((e: unknown) => {
    child.kill('SIGKILL');
    throw new Error(`${String(e)}\n--- kcp up output:\n${out}`);
  });
  const landscape = /with the API server, pid (\d+)/.exec(out)?.[1];
  const processes = await waitFor('the registry among kcp up\'s processes', () => {
    const pids = descendants(child.pid as number);
    return pids.some(isRegistry) ? pids : undefined;
  }, 10_000, 50);
  return { child, exitCode, output: () => out, ...(landscape ? { landscapePid: Number(landscape) } : {}), processes };
}

async function assertAllGone(what: string, pids: number[]): Promise<void> {
  await waitFor(`${what}: processes ${pids.map((p) => `${p} (${commandLine(p)[0] ?? 'gone'})`).join(', ')} to be gone`, () => pids.every((pid) => !processRunning(pid)), GONE_WITHIN_MS, 50);
}

describe('kcp up under SIGKILL', () => {
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  for (const layout of [
    { name: 'the landscape in its own process (default)', args: [] as string[] },
    { name: '--landscape-in-process', args: ['--landscape-in-process'] },
  ]) {
    it(`SIGKILL of kcp up leaves none of its processes running: ${layout.name}`, { timeout: 150_000 }, async () => {
      const up = await startKcpUp(layout.args);
      try {
        assert.equal(up.landscapePid !== undefined, layout.args.length === 0, `the landscape runs in a process of its own only by default: ${up.output()}`);
        up.child.kill('SIGKILL');
        await up.exitCode;
        await assertAllGone('after SIGKILL of kcp up', up.processes);
      } finally {
        up.child.kill('SIGKILL');
      }
    });
  }

  it('SIGKILL of kcp up and its landscape process at once leaves no registry running', { timeout: 150_000 }, async () => {
    // Without it only the kill orders that leave a process to clean up are covered.
    assert.equal(parentDeathSignalAvailable(), true, 'setpriv --pdeathsig (util-linux 2.33 or newer) binds the registry to its parent');
    const up = await startKcpUp();
    try {
      assert.ok(up.landscapePid, up.output());
      // Neither can clean up after the other: the kernel ends the registry with its parent.
      process.kill(up.landscapePid, 'SIGKILL');
      up.child.kill('SIGKILL');
      await assertAllGone('after SIGKILL of both', up.processes);
    } finally {
      up.child.kill('SIGKILL');
    }
  });

  it('SIGKILL of the landscape process alone: kcp up exits 1 saying so, and the registry is gone', { timeout: 150_000 }, async () => {
    const up = await startKcpUp();
    try {
      assert.ok(up.landscapePid, up.output());
      process.kill(up.landscapePid, 'SIGKILL');
      assert.equal(await up.exitCode, 1, up.output());
      assert.match(up.output(), new RegExp(`kcp up: the landscape process \\(pid ${up.landscapePid}\\) exited with signal SIGKILL; stopping`));
      await assertAllGone('after SIGKILL of the landscape process', up.processes);
    } finally {
      up.child.kill('SIGKILL');
    }
  });

  it('a registry an earlier run left serving the data dir is ended, and the registry keeps its address', { timeout: 120_000 }, async () => {
    const dataDir = tempDir();
    const options = { ...fastLandscapeOptions(dataDir), port: 0, registry: 'docker-registry' as const, catalogDir: null };
    let land = await startEmbeddedLandscape(options);
    const host = land.registry.host;
    await land.stop();
    // What a run killed before this change left: the registry, unbound, still holding the port.
    const leftover = spawn(DOCKER_REGISTRY_BINARY, ['serve', join(land.registry.storage, 'config.yml')], { stdio: 'ignore', detached: true });
    try {
      await waitFor('the leftover registry to answer', async () => (await probeHttp(`http://${host}/v2/`)) === 200, 20_000, 50);
      land = await startEmbeddedLandscape(options);
      try {
        assert.equal(land.registry.host, host, 'the registry came back on its remembered address');
        assert.equal(processRunning(leftover.pid as number), false, 'the leftover registry was ended');
        assert.equal(await probeHttp(`http://${host}/v2/`), 200);
      } finally {
        await land.stop();
      }
    } finally {
      leftover.kill('SIGKILL');
    }
  });

  it('a registry that dies while running is started again on the same address, and says so in the log', { timeout: 60_000 }, async () => {
    const logger = new RecordingLogger();
    const registry = await startDockerRegistry({ storage: join(tempDir(), 'registry'), logger, restartDelayMs: 50 });
    try {
      const first = registry.pid() as number;
      process.kill(first, 'SIGKILL');
      const second = await waitFor('the registry to run again', () => {
        const pid = registry.pid();
        return pid !== undefined && pid !== first && processRunning(pid) ? pid : undefined;
      }, 30_000, 50);
      await waitFor('the registry to answer again', async () => (await probeHttp(`http://${registry.host}/v2/`)) === 200, 20_000, 50);
      const exited = logger.records.find((r) => r.msg === 'docker-registry exited; starting it again on the same address');
      assert.deepEqual(exited && { level: exited.level, host: exited.fields.host, exit: exited.fields.exit }, { level: 'error', host: registry.host, exit: 'signal SIGKILL' });
      await registry.stop();
      assert.equal(processRunning(second), false, 'stop() ends the restarted registry');
    } finally {
      await registry.stop();
    }
  });
  it('a registry whose port is busy for a moment when it starts waits for it, on the same address', { timeout: 60_000 }, async () => {
    // What a port just released looks like when something else holds it briefly (the source port
    // of another connection): the first start fails with "address already in use".
    const held: Socket[] = [];
    const holder = createServer((socket) => held.push(socket)); // the start's readiness probes connect here, unanswered
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        holder.close();
        for (const s of held) s.destroy();
        resolve();
      }, 600),
    );
    const registry = await startDockerRegistry({ storage: join(tempDir(), 'registry'), port });
    try {
      await released;
      assert.equal(registry.host, `127.0.0.1:${port}`);
      assert.equal(await probeHttp(`http://${registry.host}/v2/`), 200);
    } finally {
      await registry.stop();
    }
  });
});
