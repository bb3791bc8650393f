// The module catalog across restarts of one data dir (src/landscape/catalog.ts): the demo catalog is
// published once and never over what a user published with `kcp module push` (their templates, a
// channel offering a newer version, a channel they moved back); the registry keeps its address; and
// when it must move, every template is relinked to the new address and a module installs from it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { Kyma, type KymaObject, Labels, Manifest, type ManifestObject, ModuleReleaseMeta, type ModuleReleaseMetaObject, ModuleTemplate, type ModuleTemplateObject, Namespaces } from '../../src/api/operator/index.js';
import { DEFAULT_CATALOG_DIR, type EmbeddedLandscape, startEmbeddedLandscape } from '../../src/landscape/embedded.js';
import { OciArtifactFetcher } from '../../src/lifecycle/artifacts/fetcher.js';
import type { Client } from '../../src/runtime/client/index.js';
import { type InProcessUp, startUp } from '../../src/up/index.js';
import { testRuntime } from '../infrastructure/runtime-harness.js';
import { fastUpOptions } from '../support/fast-landscape.js';
import { waitFor } from '../support/wait.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const NS = Namespaces.ControlPlane;

const dirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A user's version of a demo module: the demo's directory with another version (and a mark of its own). */
function userModule(name: string, fromVersion: string, version: string, channels: string[]): string {
  const dir = join(tempDir('kcp-user-module-'), name);
  cpSync(join(DEFAULT_CATALOG_DIR, name, fromVersion), dir, { recursive: true });
  const yaml = readFileSync(join(dir, 'module.yaml'), 'utf8')
    .replace(/^version: .*$/m, `version: ${version}`)
    .replace(/^channels: .*$/m, `channels: [${channels.join(', ')}]`)
    .replace(/^ {2}repository: .*$/m, '  repository: https://example.com/a-user/fork');
  writeFileSync(join(dir, 'module.yaml'), yaml);
  return dir;
}

/** `kcp module push DIR --apply`, as a module team runs it. */
function push(land: { registryHost: string; kubeconfig: string }, dir: string): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [MAIN, 'module', 'push', dir, '--registry', land.registryHost, '--apply', '--kubeconfig', land.kubeconfig], { timeout: 60_000 }, (err, _out, stderr) =>
      err ? reject(new Error(`kcp module push ${dir} failed: ${stderr}`)) : resolve(),
    ),
  );
}

interface Catalog {
  /** ModuleTemplate name -> labels and spec. */
  templates: Record<string, { labels: Record<string, string> | undefined; spec: ModuleTemplateObject['spec'] }>;
  /** ModuleReleaseMeta name -> spec. */
  releases: Record<string, ModuleReleaseMetaObject['spec']>;
}

async function catalogOf(kcp: Client): Promise<Catalog> {
  const templates = await kcp.list<ModuleTemplateObject>(ModuleTemplate, { namespace: NS });
  const releases = await kcp.list<ModuleReleaseMetaObject>(ModuleReleaseMeta, { namespace: NS });
  return {
    templates: Object.fromEntries(templates.items.map((t) => [t.metadata.name ?? '', { labels: t.metadata.labels, spec: t.spec }])),
    releases: Object.fromEntries(releases.items.map((r) => [r.metadata.name ?? '', r.spec])),
  };
}

const linkOf = (catalog: Catalog, template: string): string => catalog.templates[template]?.spec.resources?.[0]?.link ?? '';
const channelsOf = (catalog: Catalog, module: string): Record<string, string> => Object.fromEntries((catalog.releases[module]?.channels ?? []).map((c) => [c.channel, c.version]));

/** The catalog with every `oci://from/` link moved to `oci://to/`. */
function relinked(catalog: Catalog, from: string, to: string): Catalog {
  return JSON.parse(JSON.stringify(catalog).replaceAll(`oci://${from}/`, `oci://${to}/`)) as Catalog;
}

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('the module catalog across restarts', () => {
  const dataDir = tempDir('kcp-catalog-restart-');
  const options = { ...fastUpOptions(dataDir), registry: 'docker-registry' as const };
  const access = (land: EmbeddedLandscape) => ({ registryHost: land.registry.host, kubeconfig: land.files.kcpKubeconfig });
  let land: EmbeddedLandscape | undefined;
  let up: InProcessUp | undefined;
  after(async () => {
    await up?.stop();
    await land?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('the first publish keeps what users published before it: their templates, and channels offering newer versions', { timeout: 120_000 }, async () => {
    // Users publish before the demo catalog ever was: functions 1.2.0 on fast, their own gateway 1.1.0.
    land = await startEmbeddedLandscape({ ...options, catalogDir: null });
    await push(access(land), userModule('functions', '1.1.0', '1.2.0', ['fast']));
    await push(access(land), userModule('gateway', '1.1.0', '1.1.0', ['fast']));
    const users = await catalogOf(land.kcp);
    await land.stop();

    land = await startEmbeddedLandscape(options);
    assert.equal(land.catalog.publishedNow, true);
    const now = await catalogOf(land.kcp);
    // Published: what nobody had (the positive control), with channels only moving forward.
    assert.deepEqual(channelsOf(now, 'autoscaler'), { regular: '1.0.0', fast: '1.1.0' });
    assert.deepEqual(channelsOf(now, 'functions'), { regular: '1.0.0', fast: '1.2.0' }, 'fast keeps the user\'s newer 1.2.0');
    assert.deepEqual(channelsOf(now, 'gateway'), { regular: '1.0.0', fast: '1.1.0' });
    assert.ok(now.templates['functions-1.1.0'], 'the demo functions 1.1.0 is there, on no channel');
    // Kept: the user's templates, by value.
    assert.deepEqual(now.templates['functions-1.2.0'], users.templates['functions-1.2.0']);
    assert.deepEqual(now.templates['gateway-1.1.0'], users.templates['gateway-1.1.0']);
    assert.deepEqual(land.catalog.modules.map((m) => `${m.name}-${m.version}`).sort(), ['autoscaler-1.0.0', 'autoscaler-1.1.0', 'functions-1.0.0', 'functions-1.1.0', 'gateway-1.0.0']);
    // Nor was the user's tag in the registry moved to the demo's artifact.
    const fetcher = new OciArtifactFetcher();
    const byTag = await fetcher.fetchManifest(`oci://${land.registry.host}/kyma-modules/gateway:1.1.0`);
    const users110 = await fetcher.fetchManifest(linkOf(users, 'gateway-1.1.0'));
    assert.equal(byTag.digest, users110.digest);
  });

  it('a later start publishes nothing: what users changed since stays, and the registry keeps its address', { timeout: 120_000 }, async () => {
    assert.ok(land);
    await push(access(land), userModule('functions', '1.1.0', '1.3.0', ['fast']));
    // A user moves a channel back on purpose.
    await land.kcp.apply({ apiVersion: ModuleReleaseMeta.apiVersion, kind: ModuleReleaseMeta.kind, metadata: { name: 'autoscaler', namespace: NS }, spec: { moduleName: 'autoscaler', channels: [{ channel: 'fast', version: '1.0.0' }, { channel: 'regular', version: '1.0.0' }] } }, { fieldManager: 'a-user', force: true });
    const before = await catalogOf(land.kcp);
    assert.deepEqual(channelsOf(before, 'functions'), { regular: '1.0.0', fast: '1.3.0' });
    const host = land.registry.host;
    await land.stop();

    land = await startEmbeddedLandscape(options);
    assert.equal(land.catalog.publishedNow, false);
    assert.equal(land.registry.host, host, 'the registry is back on its address');
    assert.deepEqual(land.catalog.relinked, []);
    assert.deepEqual(await catalogOf(land.kcp), before);
  });

  it('when the registry must move, every template is relinked to the new address and a module installs from it', { timeout: 180_000 }, async () => {
    assert.ok(land);
    const before = await catalogOf(land.kcp);
    const oldHost = land.registry.host;
    await land.stop();
    land = undefined;
    // Something else holds the registry's port now.
    const squatter = await listen(Number(oldHost.split(':')[1]));
    try {
      up = await startUp({ ...options, landscapeMode: 'in-process' });
    } finally {
      squatter.close();
    }
    const kcp = up.landscape.kcp;
    const newHost = up.landscape.registry.host;
    assert.notEqual(newHost, oldHost);
    assert.equal(up.landscape.catalog.publishedNow, false);
    assert.deepEqual(up.landscape.catalog.relinked.sort(), Object.keys(before.templates).map((t) => `${NS}/${t}`).sort(), 'every template, the users\' too');
    assert.deepEqual(await catalogOf(kcp), relinked(before, oldHost, newHost));

    // The user's functions 1.3.0 on fast installs from the new address.
    await kcp.create(testRuntime('rt-relinked'));
    await kcp.create({
      apiVersion: Kyma.apiVersion,
      kind: Kyma.kind,
      metadata: { name: 'rt-relinked', namespace: NS, labels: { [Labels.KymaName]: 'rt-relinked' } },
      spec: { channel: 'fast', modules: [{ name: 'functions' }] },
    });
    await waitFor(
      'functions 1.3.0 to be Ready in rt-relinked',
      async () => {
        const kyma = await kcp.get<KymaObject>(Kyma, { namespace: NS, name: 'rt-relinked' });
        return kyma.status?.modules?.some((m) => m.name === 'functions' && m.version === '1.3.0' && m.state === 'Ready');
      },
      90_000,
      100,
    );
    const manifests = await kcp.list<ManifestObject>(Manifest, { namespace: NS, labelSelector: `${Labels.KymaName}=rt-relinked` });
    assert.deepEqual(
      manifests.items.map((m) => m.spec.install.source),
      [{ url: linkOf(relinked(before, oldHost, newHost), 'functions-1.3.0') }],
    );
  });
});
