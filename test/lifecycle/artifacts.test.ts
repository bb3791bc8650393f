// Module artifacts against a real OCI registry (Debian's docker-registry): push, pull by digest and
// by tag, digest verification, missing layers, invalid YAML, caching and in-flight de-duplication.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256Digest } from '../../src/lifecycle/artifacts/digest.js';
import { OciArtifactFetcher } from '../../src/lifecycle/artifacts/fetcher.js';
import { DEFAULT_CR_LAYER, MODULE_CONFIG, OCI_MANIFEST, RAW_MANIFEST_LAYER } from '../../src/lifecycle/artifacts/media-types.js';
import { readModuleDir } from '../../src/lifecycle/artifacts/module-dir.js';
import { packageModule, pushModule } from '../../src/lifecycle/artifacts/push.js';
import { AuthCache } from '../../src/lifecycle/artifacts/auth.js';
import { RegistryClient } from '../../src/lifecycle/artifacts/registry-client.js';
import { ArtifactError } from '../../src/lifecycle/artifacts/types.js';
import { type RegistryProxy, startRegistry, startRegistryProxy, type TestRegistry, writeSampleModule } from '../support/registry.js';

/** Pushes a hand-made artifact: a config blob and the given layers. Returns its `oci://...@digest` link. */
async function pushRaw(registry: string, repository: string, layers: { mediaType: string; text: string }[]): Promise<string> {
  const client = new RegistryClient({ registry, plainHttp: true, timeoutMs: 10_000, authCache: new AuthCache() });
  const config = Buffer.from('{}');
  await client.pushBlob(repository, config);
  const descriptors = [];
  for (const l of layers) {
    const bytes = Buffer.from(l.text);
    descriptors.push({ mediaType: l.mediaType, digest: await client.pushBlob(repository, bytes), size: bytes.length });
  }
  const manifest = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: OCI_MANIFEST, config: { mediaType: MODULE_CONFIG, digest: sha256Digest(config), size: config.length }, layers: descriptors }));
  const digest = await client.putManifest(repository, 'test', manifest, OCI_MANIFEST);
  return `oci://${registry}/${repository}@${digest}`;
}

function rejectsWith(reason: ArtifactError['reason']) {
  return (e: unknown) => {
    assert.ok(e instanceof ArtifactError, `expected an ArtifactError, got ${String(e)}`);
    assert.equal(e.reason, reason, e.message);
    return true;
  };
}

describe('module artifacts in an OCI registry', () => {
  let registry: TestRegistry;
  let proxy: RegistryProxy;
  before(async () => {
    registry = await startRegistry();
    proxy = await startRegistryProxy(registry);
  });
  after(async () => {
    await proxy?.stop();
    await registry?.stop();
  });

  it('a pushed module is pulled back by digest and by tag with the objects of its manifest.yaml', async () => {
    const mod = writeSampleModule({ name: 'round-trip', version: '1.2.3' });
    try {
      const source = readModuleDir(mod.dir);
      const artifact = packageModule(source);
      assert.deepEqual(
        artifact.manifest.layers.map((l) => l.mediaType),
        [RAW_MANIFEST_LAYER, DEFAULT_CR_LAYER],
      );
      const pushed = await pushModule(artifact, '1.2.3', { registry: registry.host, repository: 'kyma-modules/round-trip', plainHttp: true });
      assert.equal(pushed.link, `oci://${registry.host}/kyma-modules/round-trip@${artifact.manifestDigest}`);

      const byDigest = await new OciArtifactFetcher().fetchManifest(pushed.link);
      assert.deepEqual(byDigest.objects, source.objects);
      assert.deepEqual(
        byDigest.objects.map((o) => o.kind),
        ['CustomResourceDefinition', 'Deployment', 'ConfigMap'],
      );
      assert.equal(byDigest.digest, sha256Digest(Buffer.from(mod.files['manifest.yaml'])));

      const byTag = await new OciArtifactFetcher().fetchManifest(`oci://${registry.host}/kyma-modules/round-trip:1.2.3`);
      assert.deepEqual(byTag, byDigest);

      // Pushing the same directory again gives the same digest (blobs already there are skipped).
      const again = await pushModule(packageModule(readModuleDir(mod.dir)), '1.2.3', { registry: registry.host, repository: 'kyma-modules/round-trip', plainHttp: true });
      assert.equal(again.digest, pushed.digest);
    } finally {
      mod.remove();
    }
  });

  it('a tampered layer or manifest is rejected as DigestMismatch', async () => {
    const mod = writeSampleModule({ name: 'tampered' });
    try {
      const pushed = await pushModule(packageModule(readModuleDir(mod.dir)), '1.0.0', { registry: registry.host, repository: 'kyma-modules/tampered', plainHttp: true });
      const viaProxy = pushed.link.replace(registry.host, proxy.host);
      proxy.tamperBlobs = true;
      await assert.rejects(new OciArtifactFetcher().fetchManifest(viaProxy), rejectsWith('DigestMismatch'));
      proxy.tamperBlobs = false;
      proxy.tamperManifests = true;
      await assert.rejects(new OciArtifactFetcher().fetchManifest(viaProxy), rejectsWith('DigestMismatch'));
      proxy.tamperManifests = false;
      assert.equal((await new OciArtifactFetcher().fetchManifest(viaProxy)).objects.length, 3);
    } finally {
      proxy.tamperBlobs = false;
      proxy.tamperManifests = false;
      mod.remove();
    }
  });

  it('an artifact without a raw-manifest layer reports MissingLayer naming the layers it has', async () => {
    const link = await pushRaw(registry.host, 'kyma-modules/no-manifest', [{ mediaType: DEFAULT_CR_LAYER, text: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n' }]);
    await assert.rejects(new OciArtifactFetcher().fetchManifest(link), (e: unknown) => rejectsWith('MissingLayer')(e) && (e as Error).message.includes(DEFAULT_CR_LAYER));
  });

  it('a plain application/x-yaml layer is accepted as the raw manifest', async () => {
    const link = await pushRaw(registry.host, 'kyma-modules/plain-yaml', [{ mediaType: 'application/x-yaml', text: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n---\n' }]);
    const fetched = await new OciArtifactFetcher().fetchManifest(link);
    assert.deepEqual(fetched.objects, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain' } }]);
  });

  it('a raw manifest that is not valid YAML, or holds non-objects, reports InvalidYAML', async () => {
    const broken = await pushRaw(registry.host, 'kyma-modules/broken', [{ mediaType: RAW_MANIFEST_LAYER, text: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [unclosed\n' }]);
    await assert.rejects(new OciArtifactFetcher().fetchManifest(broken), rejectsWith('InvalidYAML'));
    const noKind = await pushRaw(registry.host, 'kyma-modules/broken', [{ mediaType: RAW_MANIFEST_LAYER, text: 'apiVersion: v1\nmetadata: {name: x}\n' }]);
    await assert.rejects(new OciArtifactFetcher().fetchManifest(noKind), rejectsWith('InvalidYAML'));
  });

  it('unknown repositories and tags report NotFound; malformed links InvalidLink; oversized layers TooLarge', async () => {
    const fetcher = new OciArtifactFetcher({ maxLayerBytes: 100 });
    await assert.rejects(fetcher.fetchManifest(`oci://${registry.host}/kyma-modules/nothing:1.0.0`), rejectsWith('NotFound'));
    await assert.rejects(fetcher.fetchManifest(`oci://${registry.host}/kyma-modules/nothing`), rejectsWith('InvalidLink'));
    await assert.rejects(fetcher.fetchManifest(`oci://${registry.host}/kyma-modules/x@sha256:abc`), rejectsWith('InvalidLink'));
    await assert.rejects(fetcher.fetchManifest('http://registry.example.com/manifest.yaml'), rejectsWith('InvalidLink'));
    const big = await pushRaw(registry.host, 'kyma-modules/big', [{ mediaType: RAW_MANIFEST_LAYER, text: `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata: {x: "${'x'.repeat(200)}"}\n` }]);
    await assert.rejects(fetcher.fetchManifest(big), rejectsWith('TooLarge'));
  });

  it('a cached digest is served without touching the registry, and concurrent fetches share one download', async () => {
    const mod = writeSampleModule({ name: 'cached' });
    try {
      const pushed = await pushModule(packageModule(readModuleDir(mod.dir)), '1.0.0', { registry: registry.host, repository: 'kyma-modules/cached', plainHttp: true });
      const link = pushed.link.replace(registry.host, proxy.host);
      const fetcher = new OciArtifactFetcher();
      proxy.requests.length = 0;
      const [a, b, c] = await Promise.all([fetcher.fetchManifest(link), fetcher.fetchManifest(link), fetcher.fetchManifest(link)]);
      assert.deepEqual(a, b);
      assert.deepEqual(b, c);
      assert.deepEqual(proxy.requests.filter((r) => r.includes('/manifests/')).length, 1, proxy.requests.join('\n'));
      assert.deepEqual(proxy.requests.filter((r) => r.includes('/blobs/')).length, 1, proxy.requests.join('\n'));

      const before = proxy.requests.length;
      const cached = await fetcher.fetchManifest(link);
      assert.equal(proxy.requests.length, before, 'a cached digest must not reach the registry');
      assert.deepEqual(cached, a);
      // Callers get their own copies: changing one does not change the cache.
      cached.objects[0].metadata.name = 'changed';
      assert.notEqual((await fetcher.fetchManifest(link)).objects[0].metadata.name, 'changed');
      assert.deepEqual(fetcher.cacheSize.entries, 1);
    } finally {
      mod.remove();
    }
  });

  it('a caller that aborts is released at once without failing the others waiting on the same fetch', async () => {
    const mod = writeSampleModule({ name: 'aborted' });
    try {
      const pushed = await pushModule(packageModule(readModuleDir(mod.dir)), '1.0.0', { registry: registry.host, repository: 'kyma-modules/aborted', plainHttp: true });
      const fetcher = new OciArtifactFetcher();
      const controller = new AbortController();
      const abandoned = fetcher.fetchManifest(pushed.link, { signal: controller.signal });
      const kept = fetcher.fetchManifest(pushed.link);
      controller.abort();
      await assert.rejects(abandoned, (e: unknown) => e instanceof Error && e.name === 'AbortError');
      assert.equal((await kept).objects.length, 3);
    } finally {
      mod.remove();
    }
  });
});
