// The CRDs in config/crd and docs/api.md are generated from src/api: they must not be stale, and
// every CRD and every sample must be accepted by the embedded API server (and by kubectl).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import yaml from 'js-yaml';
import { generatedFiles } from '../../src/api/generate.js';
import { allKinds } from '../../src/api/index.js';
import { repoRoot } from '../conformance/corpus.js';
import { type ApiTestEnv, startWithKinds } from '../support/api.js';
import { kubectlOk } from '../support/kubectl.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

const root = repoRoot();

describe('generated API files', () => {
  it('config/crd and docs/api.md match the schemas (run `npm run generate` after changing src/api)', () => {
    const files = generatedFiles();
    for (const [path, text] of files) assert.equal(readFileSync(join(root, path), 'utf8'), text, `${path} is stale`);
    const onDisk = readdirSync(join(root, 'config', 'crd')).filter((f) => f.endsWith('.yaml'));
    assert.deepEqual(onDisk.sort(), [...files.keys()].filter((p) => p.startsWith('config')).map((p) => p.split('/').pop()).sort());
  });
});

describe('samples against the embedded API server', () => {
  let env: ApiTestEnv;
  before(async () => {
    env = await startWithKinds(allKinds);
  });
  after(() => env.stop());

  it('kubectl applies every sample in config/samples', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kcp-samples-'));
    try {
      const kc = join(dir, 'kubeconfig');
      writeFileSync(kc, env.server.clusterAccess('default').kubeconfig);
      const samples = readdirSync(join(root, 'config', 'samples')).filter((f) => f.endsWith('.yaml'));
      assert.ok(samples.length >= allKinds.length - 1, 'a sample for (almost) every kind');
      const out = await kubectlOk(kc, ['apply', '-f', join(root, 'config', 'samples')]);
      const docs = samples.flatMap((f) => yaml.loadAll(readFileSync(join(root, 'config', 'samples', f), 'utf8')).filter(Boolean));
      assert.equal(out.trim().split('\n').length, docs.length, out);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
