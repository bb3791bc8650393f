// The command-line contract of `kcp apiserver`.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { kubectlOk } from '../support/kubectl.js';

const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

describe('kcp apiserver command line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kcp-cli-'));
  let child: ChildProcess;
  let url = '';
  before(async () => {
    child = spawn(process.execPath, [cli, 'apiserver', '--port', '0', '--data-dir', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening on (https:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`exited with ${code}`)));
    });
  });
  after(async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves on 127.0.0.1 with a free port, answers /readyz with ok and writes a kubeconfig', async () => {
    assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(url.endsWith(':0'), true);
    const ready = await fetchText(`${url}/readyz`, readFileSync(join(dir, 'ca.crt'), 'utf8'));
    assert.equal(ready, 'ok');
    assert.ok(existsSync(join(dir, 'kubeconfig')));
    const ns = await kubectlOk(join(dir, 'kubeconfig'), ['get', 'namespaces', '-o', 'name']);
    assert.match(ns, /namespace\/default/);
  });

  it('creates, lists and deletes logical clusters, each with its own kubeconfig', async () => {
    const created = await run(['apiserver', 'cluster', 'create', 'skr-1', '--data-dir', dir]);
    assert.equal(created.code, 0, created.stderr);
    const kc = join(dir, 'clusters', 'skr-1.kubeconfig');
    assert.ok(existsSync(kc));
    assert.match(readFileSync(kc, 'utf8'), /\/clusters\/skr-1/);
    assert.match(await kubectlOk(kc, ['get', 'ns', '-o', 'name']), /namespace\/kube-system/);
    const listed = await run(['apiserver', 'cluster', 'list', '--data-dir', dir]);
    assert.match(listed.stdout, /skr-1/);
    const deleted = await run(['apiserver', 'cluster', 'delete', 'skr-1', '--data-dir', dir]);
    assert.equal(deleted.code, 0, deleted.stderr);
  });

  it('rejects a bad cluster name and unknown commands with a one-line error and a non-zero exit', async () => {
    const bad = await run(['apiserver', 'cluster', 'create', 'Bad_Name', '--data-dir', dir]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /^kcp: .*DNS label/);
    const unknown = await run(['frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
  });
});

async function fetchText(url: string, ca: string): Promise<string> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    request(url, { ca }, (res) => {
      let t = '';
      res.on('data', (c: Buffer) => (t += c.toString()));
      res.on('end', () => resolve(t));
    })
      .on('error', reject)
      .end();
  });
}
