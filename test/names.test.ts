// Names only under domains the project may use (docs/api.md, "Names"): kcp.dev belongs to another
// open-source project, and nothing the project ships or documents may use it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, out);
    else out.push(path);
  }
  return out;
}

test('no file in src, config, deploy, docs or demo-modules names the kcp.dev domain', () => {
  const scanned = ['src', 'config', 'deploy', 'docs', 'demo-modules'].flatMap((d) => files(join(root, d)));
  assert.ok(scanned.length > 100, `the scan reads the tree (${scanned.length} files)`);
  const offending = scanned.filter((f) => /kcp\.dev/.test(readFileSync(f, 'utf8')));
  assert.deepEqual(offending, []);
});
