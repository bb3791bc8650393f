// The README's quick start, end to end, with the compiled CLI in a fresh directory: `kcp up`, a runtime,
// a module enabled and disabled, a restart of `kcp up` that keeps everything, and the runtime deleted.
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import yaml from 'js-yaml';
import { freePort } from '../../src/landscape/registry.js';
import { kubectl } from '../support/kubectl.js';
import { processRunning } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const DEMO_MODULES = fileURLToPath(new URL('../../../demo-modules/', import.meta.url));
/** Environment of the children: no KUBECONFIG of the developer's, so the CLI finds `.kcp/kcp.kubeconfig`. */
const childEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'KUBECONFIG'));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function kcp(cwd: string, args: string[], timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { cwd, env: childEnv, timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

async function kcpOk(cwd: string, args: string[], timeoutMs?: number): Promise<Run> {
  const r = await kcp(cwd, args, timeoutMs);
  if (r.code !== 0) throw new Error(`kcp ${args.join(' ')} failed (${r.code}):\n${r.stderr}${r.stdout}`);
  return r;
}

/** `kcp up` in the background; resolves once it printed its ready line. */
class Up {
  private output = '';
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number | null>;

  constructor(cwd: string, extraArgs: string[] = []) {
    this.child = spawn(process.execPath, [MAIN, 'up', '--data-dir', '.kcp', '--port', '0', ...extraArgs], { cwd, env: childEnv });
    this.child.stdout.on('data', (c: Buffer) => (this.output += c.toString()));
    this.child.stderr.on('data', (c: Buffer) => (this.output += c.toString()));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  async ready(timeoutMs = 90_000): Promise<void> {
    let gone = false;
    // `exited` only resolves (with the exit code).
    this.exited.then(
      () => (gone = true),
      () => (gone = true),
    );
    try {
      await waitFor(
        'kcp up to print its ready line',
        () => {
          if (gone) throw new Error('kcp up exited early');
          return /^kcp up: ready/m.test(this.output);
        },
        timeoutMs,
        100,
      );
    } catch (e) {
      // What kcp up printed says why it did not come up.
      throw new Error(`${e instanceof Error ? e.message : String(e)}\n--- kcp up output:\n${this.output}`, { cause: e });
    }
  }

  /** What kcp up printed so far. */
  get printed(): string {
    return this.output;
  }

  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }
}

/** The demo module to enable: the first in `demo-modules/` offered in channel regular, with its manager Deployment. */
function demoModule(): { name: string; deployment: string; namespace: string } {
  for (const name of readdirSync(DEMO_MODULES).sort()) {
    for (const version of readdirSync(join(DEMO_MODULES, name)).sort()) {
      const file = join(DEMO_MODULES, name, version, 'module.yaml');
      if (!existsSync(file)) continue;
      const def = yaml.load(readFileSync(file, 'utf8')) as { name: string; channels?: string[]; manager?: { kind: string; name: string; namespace?: string } };
      if (def.channels?.includes('regular') && def.manager?.kind === 'Deployment') return { name: def.name, deployment: def.manager.name, namespace: def.manager.namespace ?? 'kyma-system' };
    }
  }
  throw new Error(`no demo module with a manager Deployment in channel regular under ${DEMO_MODULES}`);
}

describe('quick start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kcp-quickstart-'));
  let up: Up | undefined;
  after(async () => {
    await up?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kcp up, a runtime with a module, a restart that keeps it, and its deletion', { timeout: 300_000 }, async () => {
    const module = demoModule();
    const [metricsPort, healthPort] = [await freePort(), await freePort()];
    up = new Up(dir, ['--metrics-bind-address', `127.0.0.1:${metricsPort}`, '--health-probe-bind-address', `127.0.0.1:${healthPort}`]);
    await up.ready();
    assert.ok(existsSync(join(dir, '.kcp', 'kcp.kubeconfig')), 'kcp up writes .kcp/kcp.kubeconfig');
    // The banner says where metrics and probes are served, and they answer there.
    assert.match(up.printed, new RegExp(`^  metrics +http://127\\.0\\.0\\.1:${metricsPort}/metrics$`, 'm'));
    assert.match(up.printed, new RegExp(`^  health +http://127\\.0\\.0\\.1:${healthPort}/healthz, http://127\\.0\\.0\\.1:${healthPort}/readyz$`, 'm'));
    // The API server and the simulators run in a process of their own, which stops with kcp up.
    const landscapePid = Number(/^ {2}simulators .*\(with the API server, pid (\d+)\)$/m.exec(up.printed)?.[1]);
    assert.ok(landscapePid > 0 && landscapePid !== up.child.pid && processRunning(landscapePid), `the banner names the landscape's running process:\n${up.printed}`);

    // A runtime, provisioned through the simulated Gardener.
    const created = await kcpOk(dir, ['runtime', 'create', 'r1', '--provider', 'aws', '--region', 'eu-central-1', '--wait', '--timeout', '120s']);
    assert.match(created.stdout, /runtime r1 is Ready/);
    assert.match(created.stderr, /runtime Pending/);
    assert.match((await kcpOk(dir, ['runtime', 'list'])).stdout, /\nr1\s+aws\s+eu-central-1\s+Ready\s/);

    // kubectl with the runtime's kubeconfig, as the README shows it.
    const ns = await new Promise<Run>((resolve) => {
      execFile('bash', ['-c', `kubectl --kubeconfig "$("${process.execPath}" "${MAIN}" kubeconfig r1 --path)" get ns`], { cwd: dir, env: childEnv, timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? 1 : 0, stdout: String(stdout), stderr: String(stderr) }),
      );
    });
    assert.equal(ns.code, 0, ns.stderr);
    assert.match(ns.stdout, /\nkyma-system\s+Active/);
    const runtimeKubeconfig = join(dir, 'r1.kubeconfig');
    writeFileSync(runtimeKubeconfig, (await kcpOk(dir, ['kubeconfig', 'r1'])).stdout);

    // A module, enabled as a runtime admin would, installed into the runtime, then removed.
    assert.match((await kcp(dir, ['module', 'enable', 'r1', 'no-such-module'])).stderr, /^kcp: unknown module "no-such-module": available modules: .*\n$/);
    const enabled = await kcpOk(dir, ['module', 'enable', 'r1', module.name, '--wait', '--timeout', '120s']);
    assert.match(enabled.stdout, new RegExp(`module ${module.name} is Ready in runtime r1`));
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    assert.match(metrics, /^controller_runtime_reconcile_total\{controller="manifest",result="[a-z_]+"\} [1-9]/m, 'the Manifest controller reconciled');
    assert.match(metrics, /^workqueue_adds_total\{controller="runtime",name="runtime"\} [1-9]/m);
    assert.equal((await fetch(`http://127.0.0.1:${healthPort}/healthz`)).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status, 200);
    const deployment = await kubectl(runtimeKubeconfig, ['get', 'deployment', module.deployment, '-n', module.namespace, '-o', 'json']);
    assert.equal(deployment.code, 0, `the module's Deployment is in the runtime: ${deployment.stderr}`);
    const modules = JSON.parse((await kcpOk(dir, ['module', 'list', '--runtime', 'r1', '-o', 'json'])).stdout) as { name: string; state: string }[];
    assert.deepEqual(modules.map((m) => [m.name, m.state]), [[module.name, 'Ready']]);
    await kcpOk(dir, ['module', 'disable', 'r1', module.name, '--wait', '--timeout', '120s']);
    const gone = await kubectl(runtimeKubeconfig, ['get', 'deployment', module.deployment, '-n', module.namespace]);
    assert.notEqual(gone.code, 0, 'the Deployment is gone from the runtime');
    assert.match(gone.stderr, /NotFound|not found/);

    // Module resource synchronization with no CLI involved: the runtime admin edits the functions
    // module's CR with kubectl; the lifecycle manager copies it into the ModuleConfig, the demo
    // functions module manager answers with a SyncResource, and its ConfigMap follows in the runtime.
    await kcpOk(dir, ['module', 'enable', 'r1', 'functions', '--wait', '--timeout', '120s']);
    const configMap = async (): Promise<Record<string, string> | undefined> => {
      const r = await kubectl(runtimeKubeconfig, ['get', 'configmap', 'functions-config', '-n', 'kyma-system', '-o', 'json']);
      return r.code === 0 ? (JSON.parse(r.stdout) as { data?: Record<string, string> }).data : undefined;
    };
    assert.deepEqual(await waitFor('functions-config from the default CR', configMap, 30_000, 250), { defaultReplicas: '1' });
    const patched = await kubectl(runtimeKubeconfig, ['patch', 'functions', 'default', '-n', 'kyma-system', '--type', 'merge', '-p', '{"spec":{"defaultReplicas":4}}']);
    assert.equal(patched.code, 0, patched.stderr);
    await waitFor('functions-config following the edit', async () => (await configMap())?.defaultReplicas === '4', 30_000, 250);
    const withSync = JSON.parse((await kcpOk(dir, ['module', 'list', '--runtime', 'r1', '-o', 'json'])).stdout) as { name: string; moduleConfig?: { state: string }; syncResources?: { state: string }[] }[];
    const functions = withSync.find((m) => m.name === 'functions');
    assert.equal(functions?.moduleConfig?.state, 'Ready');
    assert.deepEqual(functions?.syncResources?.map((s) => s.state), ['Ready']);
    await kcpOk(dir, ['module', 'disable', 'r1', 'functions', '--wait', '--timeout', '120s']);
    await waitFor('functions-config removed with the module', async () => (await configMap()) === undefined, 30_000, 250);

    // Stop and start again in the same directory: the runtime is still there and Ready.
    assert.equal(await up.stop(), 0, 'kcp up stops cleanly on SIGTERM');
    assert.equal(processRunning(landscapePid), false, 'the landscape process stopped with kcp up');
    up = new Up(dir);
    await up.ready();
    const afterRestart = await waitFor(
      'runtime r1 Ready after the restart',
      async () => {
        const list = JSON.parse((await kcpOk(dir, ['runtime', 'list', '-o', 'json'])).stdout) as { name: string; state: string; kymaState: string }[];
        return list.find((r) => r.name === 'r1' && r.state === 'Ready' && r.kymaState === 'Ready');
      },
      60_000,
      1_000,
    );
    assert.ok(afterRestart);
    writeFileSync(runtimeKubeconfig, (await kcpOk(dir, ['kubeconfig', 'r1'])).stdout);
    assert.equal((await kubectl(runtimeKubeconfig, ['get', 'ns', 'kyma-system'])).code, 0, 'the runtime cluster answers after the restart');

    // Delete the runtime: its cluster goes.
    const deleted = await kcpOk(dir, ['runtime', 'delete', 'r1', '--wait', '--timeout', '120s']);
    assert.match(deleted.stdout, /runtime r1 deleted/);
    assert.match((await kcpOk(dir, ['runtime', 'list'])).stdout, /No runtimes/);
    const unreachable = await kubectl(runtimeKubeconfig, ['get', 'ns', '--request-timeout', '5s'], undefined, 20_000);
    assert.notEqual(unreachable.code, 0, 'the runtime cluster is gone');
    assert.match((await kcp(dir, ['kubeconfig', 'r1'])).stderr, /^kcp: unknown runtime "r1"/);
  });
});
