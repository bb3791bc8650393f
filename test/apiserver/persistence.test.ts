// Durability: every write the server acknowledged survives kill -9, and resourceVersions keep
// growing after a restart.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { KubeClient } from '../conformance/http.js';
import { waitFor } from '../support/wait.js';

const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

async function startProcess(dataDir: string, extraArgs: string[] = []): Promise<{ child: ChildProcess; client: KubeClient }> {
  const child = spawn(process.execPath, [cli, 'apiserver', '--port', '0', '--data-dir', dataDir, ...extraArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (https:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`apiserver exited early with ${code}: ${out}`)));
  });
  const tokens = JSON.parse(readFileSync(join(dataDir, 'tokens.json'), 'utf8')) as { adminToken: string };
  const client = new KubeClient({ url, token: tokens.adminToken, caPem: readFileSync(join(dataDir, 'ca.crt'), 'utf8') });
  // Fails (instead of carrying on with a server that never became ready) when /readyz never says 200.
  await waitFor('the apiserver ready', async () => (await client.request('GET', '/readyz').catch(() => undefined))?.status === 200);
  return { child, client };
}

describe('persistence', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kcp-persist-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every acknowledged write across kill -9 and resumes resourceVersions', async () => {
    const first = await startProcess(dir);
    const acked: string[] = [];
    let lastRv = 0;
    let stop = false;
    // Several writers in parallel; the process is killed while they are busy.
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const name = `w${w}-${i}`;
        const r = await first.client
          .request('POST', '/api/v1/namespaces/default/configmaps', { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { i: String(i) } }) })
          .catch(() => undefined);
        if (!r) return;
        if (r.status === 201) {
          acked.push(name);
          lastRv = Math.max(lastRv, Number((JSON.parse(r.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion));
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    // Killed once a burst has been acknowledged (counted, not timed), with the writers still busy.
    await waitFor('a burst of acknowledged writes', () => acked.length >= 200);
    first.child.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    first.client.close();
    assert.ok(acked.length > 50, `a burst of writes was acknowledged before the kill (${acked.length})`);

    const second = await startProcess(dir);
    const list = JSON.parse((await second.client.request('GET', '/api/v1/namespaces/default/configmaps')).text) as { metadata: { resourceVersion: string }; items: { metadata: { name: string } }[] };
    const present = new Set(list.items.map((i) => i.metadata.name));
    const lost = acked.filter((n) => !present.has(n));
    assert.deepEqual(lost, [], 'no acknowledged write is lost');
    assert.ok(Number(list.metadata.resourceVersion) >= lastRv, 'the resourceVersion does not go backwards');
    const created = await second.client.request('POST', '/api/v1/namespaces/default/configmaps', { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-restart' } }) });
    assert.equal(created.status, 201);
    assert.ok(Number((JSON.parse(created.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion) > lastRv);
    second.child.kill('SIGTERM');
    second.client.close();
    await new Promise((r) => second.child.once('exit', r));
  });

  it('keeps custom resource definitions and their objects across a restart', async () => {
    const d2 = mkdtempSync(join(tmpdir(), 'kcp-persist-crd-'));
    try {
      const a = await startProcess(d2);
      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.p.example.com' },
        spec: { group: 'p.example.com', scope: 'Namespaced', names: { plural: 'things', singular: 'thing', kind: 'Thing' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
      };
      assert.equal((await a.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(crd) })).status, 201);
      const thing = { apiVersion: 'p.example.com/v1', kind: 'Thing', metadata: { name: 't1' }, spec: { x: 1 } };
      assert.equal((await a.client.request('POST', '/apis/p.example.com/v1/namespaces/default/things', { body: JSON.stringify(thing) })).status, 201);
      a.child.kill('SIGKILL');
      a.client.close();
      await new Promise((r) => a.child.once('exit', r));
      const b = await startProcess(d2);
      const got = await b.client.request('GET', '/apis/p.example.com/v1/namespaces/default/things/t1');
      assert.equal(got.status, 200);
      assert.deepEqual((JSON.parse(got.text) as { spec: unknown }).spec, { x: 1 });
      b.child.kill('SIGTERM');
      b.client.close();
      await new Promise((r) => b.child.once('exit', r));
    } finally {
      rmSync(d2, { recursive: true, force: true });
    }
  });

  it('kcp apiserver refuses a damaged store and says how to recover; --recover-store starts with the rest', async () => {
    const d3 = mkdtempSync(join(tmpdir(), 'kcp-persist-damaged-'));
    try {
      const a = await startProcess(d3);
      for (const name of ['kept', 'damaged']) {
        const r = await a.client.request('POST', '/api/v1/namespaces/default/configmaps', { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value: name } }) });
        assert.equal(r.status, 201);
      }
      a.child.kill('SIGTERM');
      a.client.close();
      await new Promise((r) => a.child.once('exit', r));
      const segment = join(d3, 'store', 'wal-00000001.log');
      const bytes = readFileSync(segment);
      // One byte of the object's text (the record stays JSON; only its checksum tells).
      bytes[bytes.indexOf('value', bytes.indexOf('"n":"damaged"'))] = 'V'.charCodeAt(0);
      writeFileSync(segment, bytes);

      const refused = await new Promise<{ code: number; stderr: string }>((resolve) =>
        execFile(process.execPath, [cli, 'apiserver', '--port', '0', '--data-dir', d3], (err, _out, stderr) => resolve({ code: err ? Number((err as { code?: number }).code) : 0, stderr })),
      );
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /store in .* is damaged: 1 record\(s\) cannot be read/);
      assert.match(refused.stderr, /checksum mismatch \(put, cluster default, resource \/configmaps, default\/damaged\)/);
      assert.match(refused.stderr, /run again with --recover-store/);

      const b = await startProcess(d3, ['--recover-store']);
      assert.equal((await b.client.request('GET', '/api/v1/namespaces/default/configmaps/kept')).status, 200);
      assert.equal((await b.client.request('GET', '/api/v1/namespaces/default/configmaps/damaged')).status, 404);
      const aside = readdirSync(join(d3, 'store')).filter((f) => f.startsWith('damaged-'));
      assert.deepEqual(readdirSync(join(d3, 'store', aside[0])), ['wal-00000001.log']);
      b.child.kill('SIGTERM');
      b.client.close();
      await new Promise((r) => b.child.once('exit', r));
    } finally {
      rmSync(d3, { recursive: true, force: true });
    }
  });
});
