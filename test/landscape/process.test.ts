// The landscape in a process of its own, as `kcp up` runs it (src/landscape/process.ts): the
// controllers in this process serve a Runtime through it; stop() leaves no process behind, nor does a
// parent killed with SIGKILL; a landscape that cannot start says why, and one that dies later is
// reported (by startUp and by `kcp up`, which then exits non-zero).
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { Runtime, type RuntimeObject } from '../../src/api/infrastructuremanager/index.js';
import { Namespaces } from '../../src/api/operator/index.js';
import { processRss } from '../../src/landscape/process.js';
import { clientFromKubeconfig } from '../../src/runtime/client/index.js';
import { startUp, type UpOptions } from '../../src/up/index.js';
import { testRuntime } from '../infrastructure/runtime-harness.js';
import { fastUpOptions } from '../support/fast-landscape.js';
import { descendants, processRunning } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./up-process-script.js', import.meta.url));
const NS = Namespaces.ControlPlane;

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kcp-landscape-process-'));
  dirs.push(dir);
  return dir;
}

/** The landscape in its own process with short simulated durations and fast controllers; no catalog. */
function processOptions(dataDir: string): UpOptions {
  return { ...fastUpOptions(dataDir), landscapeMode: 'process', catalogDir: null };
}

function listen(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      resolve({ server, port: typeof addr === 'object' && addr ? addr.port : 0 });
    });
  });
}

describe('the landscape in a process of its own', () => {
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('serves the controllers in this process: a Runtime goes Ready; stop() leaves no process behind', { timeout: 120_000 }, async () => {
    const up = await startUp(processOptions(tempDir()));
    const info = up.landscapeInfo;
    let stopped = false;
    try {
      assert.notEqual(info.pid, process.pid, 'the landscape runs in another process');
      const started = descendants(process.pid);
      assert.ok(started.includes(info.pid), `the landscape process ${info.pid} is a child of this one (children: ${started.join(', ')})`);
      assert.ok(info.files.log, 'the landscape writes its log file');
      const memory = processRss(info.pid);
      assert.ok(memory && memory.rss > 0 && memory.peakRss >= memory.rss, `the landscape process's memory can be read: ${JSON.stringify(memory)}`);

      // Through the kubeconfig file, as any client: the controllers here provision it via the simulator there.
      const kcp = clientFromKubeconfig(readFileSync(info.files.kcpKubeconfig, 'utf8'));
      try {
        await kcp.create(testRuntime('rt-proc'));
        await waitFor('Runtime rt-proc Ready', async () => (await kcp.get<RuntimeObject>(Runtime, { namespace: NS, name: 'rt-proc' })).status?.state === 'Ready', 60_000, 100);
      } finally {
        kcp.close();
      }
      const log = readFileSync(info.files.log, 'utf8');
      assert.match(log, /"msg":"embedded landscape running"/, 'the landscape process logs into the data dir');

      await up.stop();
      stopped = true;
      await up.landscapeDone; // resolves: the stop was asked for
      for (const pid of started) assert.equal(processRunning(pid), false, `process ${pid} (started with the landscape) is gone after stop()`);
    } finally {
      if (!stopped) await up.stop();
    }
  });

  it('writes --log-format text from both processes into the data dir', { timeout: 60_000 }, async () => {
    const dataDir = tempDir();
    // No logger given: the controllers here and the landscape there both append to kcp.log.
    const up = await startUp({ ...processOptions(dataDir), logger: undefined, logFormat: 'text' });
    await up.stop();
    const lines = readFileSync(join(dataDir, 'kcp.log'), 'utf8').split('\n').filter(Boolean);
    assert.ok(lines.some((l) => / INFO {2}kcp {2}embedded landscape running {2}url=https:/.test(l)), `the landscape process writes text: ${lines.slice(0, 5).join('\n')}`);
    assert.ok(lines.some((l) => / INFO {2}kcp {2}kcp up running {2}url=https:/.test(l)), 'the controllers\' process writes text');
    for (const l of lines) assert.match(l, /^\d{4}-\d\d-\d\dT[\d:.]+Z (DEBUG|INFO |WARN |ERROR) /, 'no JSON line');
  });

  it('reports a landscape process that dies, and ends what it had started', { timeout: 60_000 }, async () => {
    const up = await startUp(processOptions(tempDir()));
    const started = descendants(up.landscapeInfo.pid);
    process.kill(up.landscapeInfo.pid, 'SIGKILL');
    await assert.rejects(up.landscapeDone, new RegExp(`the landscape process \\(pid ${up.landscapeInfo.pid}\\) exited with signal SIGKILL`));
    await up.stop();
    // What the killed process had started (its docker-registry) goes with it.
    await waitFor(`the landscape's own processes ${started.join(', ')} to exit`, () => started.every((pid) => !processRunning(pid)), 10_000, 50);
  });

  it('leaves no process behind when the parent is killed with SIGKILL', { timeout: 60_000 }, async () => {
    const parent = spawn(process.execPath, [SCRIPT, join(tempDir(), '.kcp')], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<void>((resolve) => parent.once('exit', () => resolve()));
    let out = '';
    parent.stdout.on('data', (c: Buffer) => (out += c.toString()));
    try {
      const pids = await waitFor('the script to print its pids', () => (out.includes('\n') ? (JSON.parse(out.split('\n')[0] ?? '') as { pid: number; landscapePid: number }) : undefined), 30_000, 50);
      const underParent = descendants(pids.pid);
      assert.ok(underParent.includes(pids.landscapePid), `the landscape process ${pids.landscapePid} runs under the script (its processes: ${underParent.join(', ')})`);
      parent.kill('SIGKILL');
      await exited;
      await waitFor(`the landscape's processes ${underParent.join(', ')} to exit after their parent was killed`, () => underParent.every((pid) => !processRunning(pid)), 30_000, 100);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('rejects with the landscape process\'s error when it cannot start (port in use)', { timeout: 60_000 }, async () => {
    const { server, port } = await listen();
    try {
      const before = descendants(process.pid);
      await assert.rejects(startUp({ ...processOptions(tempDir()), port }), /EADDRINUSE/);
      const left = descendants(process.pid).filter((pid) => !before.includes(pid));
      assert.deepEqual(left, [], 'no landscape process is left');
    } finally {
      server.close();
    }
  });

  it('kcp up exits with the landscape\'s error when it cannot start, and non-zero when it dies later', { timeout: 90_000 }, async () => {
    const { server, port } = await listen();
    try {
      const failed = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
        execFile(process.execPath, [MAIN, 'up', '--data-dir', join(tempDir(), '.kcp'), '--port', String(port)], { timeout: 60_000 }, (err, _stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stderr: String(stderr) }),
        ),
      );
      assert.equal(failed.code, 1);
      assert.match(failed.stderr, /^kcp: .*EADDRINUSE/m);
    } finally {
      server.close();
    }

    const up = spawn(process.execPath, [MAIN, 'up', '--data-dir', join(tempDir(), '.kcp'), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exitCode = new Promise<number | null>((resolve) => up.once('exit', (code) => resolve(code)));
    let output = '';
    up.stdout.on('data', (c: Buffer) => (output += c.toString()));
    up.stderr.on('data', (c: Buffer) => (output += c.toString()));
    try {
      const landscapePid = await waitFor('kcp up to print its ready banner', () => /with the API server, pid (\d+)/.exec(output)?.[1], 60_000, 100).catch((e: unknown) => {
        throw new Error(`${String(e)}\n--- kcp up output:\n${output}`);
      });
      process.kill(Number(landscapePid), 'SIGKILL');
      assert.equal(await exitCode, 1, output);
      assert.match(output, new RegExp(`kcp up: the landscape process \\(pid ${landscapePid}\\) exited with signal SIGKILL; stopping`));
    } finally {
      up.kill('SIGKILL');
    }
  });
});
