// The landscape's registry: the in-process read-only registry (used when docker-registry is not
// installed) speaks the distribution API for pulls, refuses pushes, keeps its content on disk; the
// embedded landscape installs modules from it, and when the next start uses docker-registry instead it
// pushes the demo artifacts there and relinks the templates (the catalog is not published again).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Kyma, type KymaObject, Labels, ModuleTemplate, type ModuleTemplateObject, Namespaces } from '../../src/api/operator/index.js';
import { OciArtifactFetcher } from '../../src/lifecycle/artifacts/fetcher.js';
import { readModuleDir } from '../../src/lifecycle/artifacts/module-dir.js';
import { packageModule, pushModule } from '../../src/lifecycle/artifacts/push.js';
import { ArtifactError } from '../../src/lifecycle/artifacts/types.js';
import { DEFAULT_CATALOG_DIR, type EmbeddedLandscape, startEmbeddedLandscape } from '../../src/landscape/embedded.js';
import { startInProcessRegistry } from '../../src/landscape/registry.js';
import { silentLogger } from '../../src/runtime/log.js';
import type { ControlPlaneConfig } from '../../src/controlplane/index.js';
import { type InProcessUp, startUp } from '../../src/up/index.js';
import { fastTiming, testRuntime } from '../infrastructure/runtime-harness.js';
import { waitFor } from '../support/wait.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(host: string, method: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`http://${host}${path}`, { method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

const errorCode = (a: Answer) => (JSON.parse(a.body) as { errors: { code: string }[] }).errors[0]?.code;

describe('in-process registry', () => {
  const storage = mkdtempSync(join(tmpdir(), 'kcp-oci-'));
  after(() => rmSync(storage, { recursive: true, force: true }));
  const source = readModuleDir(join(DEFAULT_CATALOG_DIR, 'autoscaler', '1.0.0'));
  const artifact = packageModule(source);

  it('serves a published artifact by digest and by tag, which the lifecycle manager\'s fetcher pulls and verifies', async () => {
    const registry = await startInProcessRegistry({ storage });
    try {
      const digest = await registry.publish('kyma-modules/autoscaler', '1.0.0', artifact);
      assert.equal(digest, artifact.manifestDigest);
      const fetcher = new OciArtifactFetcher();
      const byDigest = await fetcher.fetchManifest(`oci://${registry.host}/kyma-modules/autoscaler@${digest}`);
      assert.deepEqual(byDigest.objects.map((o) => o.kind), ['CustomResourceDefinition', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Service']);
      const byTag = await new OciArtifactFetcher().fetchManifest(`oci://${registry.host}/kyma-modules/autoscaler:1.0.0`);
      assert.equal(byTag.digest, byDigest.digest);

      const head = await call(registry.host, 'HEAD', `/v2/kyma-modules/autoscaler/manifests/1.0.0`);
      assert.equal(head.status, 200);
      assert.equal(head.headers['docker-content-digest'], digest);
      assert.equal(Number(head.headers['content-length']), artifact.manifestBytes.length);
      assert.equal(head.body, '');
    } finally {
      await registry.stop();
    }
  });

  it('refuses pushes with 405 UNSUPPORTED and answers unknown names with the distribution error codes', async () => {
    const registry = await startInProcessRegistry({ storage });
    try {
      await assert.rejects(pushModule(artifact, '9.9.9', { registry: registry.host, repository: 'kyma-modules/autoscaler', plainHttp: true }));
      const put = await call(registry.host, 'PUT', '/v2/kyma-modules/autoscaler/manifests/9.9.9');
      assert.equal(put.status, 405);
      assert.equal(errorCode(put), 'UNSUPPORTED');
      const upload = await call(registry.host, 'POST', '/v2/kyma-modules/autoscaler/blobs/uploads/');
      assert.equal(upload.status, 405);
      assert.equal(errorCode(await call(registry.host, 'GET', '/v2/kyma-modules/autoscaler/manifests/9.9.9')), 'MANIFEST_UNKNOWN');
      assert.equal(errorCode(await call(registry.host, 'GET', `/v2/kyma-modules/autoscaler/blobs/sha256:${'0'.repeat(64)}`)), 'BLOB_UNKNOWN');
      assert.equal(errorCode(await call(registry.host, 'GET', '/v2/kyma-modules/nothing/manifests/1.0.0')), 'NAME_UNKNOWN');
      await assert.rejects(new OciArtifactFetcher().fetchManifest(`oci://${registry.host}/kyma-modules/autoscaler:9.9.9`), (e: unknown) => e instanceof ArtifactError && e.reason === 'NotFound');
    } finally {
      await registry.stop();
    }
  });
});

describe('embedded landscape with the in-process registry', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kcp-up-inproc-'));
  let land: EmbeddedLandscape | undefined;
  after(async () => {
    await up?.stop();
    await land?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const options = {
    dataDir,
    simulator: { pendingMs: 100, createMs: 400, reconcileMs: 200, deleteMs: 200, progressSteps: 2 },
    kubelet: { readyDelayMs: 50, scanIntervalMs: 100 },
    moduleOperatorDelayMs: 50,
    logger: silentLogger,
  };
  const fastControllers: Partial<ControlPlaneConfig> = {
    gardenerRequeueMs: fastTiming.gardenerRequeueMs,
    controlPlaneRequeueMs: fastTiming.controlPlaneRequeueMs,
    runtimeTiming: fastTiming,
    missingShootRetryMs: 200,
    gracefulShutdownTimeoutMs: 2_000,
    kymaIntervals: { readyMs: 300, busyMs: 150, warningMs: 300, errorMs: 150 },
    manifestIntervals: { successMs: 500, busyMs: 100, errorMs: 200, warningMs: 500 },
  };
  let up: InProcessUp | undefined;

  it('installs a demo module pulled from the in-process registry', async () => {
    up = await startUp({ ...options, port: 0, registry: 'in-process', controlPlane: fastControllers });
    land = up.landscape;
    assert.equal(land.registry.kind, 'in-process');
    await land.kcp.create(testRuntime('rt-inproc'));
    await land.kcp.create({
      apiVersion: Kyma.apiVersion,
      kind: Kyma.kind,
      metadata: { name: 'rt-inproc', namespace: Namespaces.ControlPlane, labels: { [Labels.KymaName]: 'rt-inproc' } },
      spec: { channel: 'fast', modules: [{ name: 'functions' }] },
    });
    await waitFor(
      'the functions module 1.1.0 to be Ready',
      async () => {
        const kyma = await land!.kcp.get<KymaObject>(Kyma, { namespace: Namespaces.ControlPlane, name: 'rt-inproc' });
        return kyma.status?.state === 'Ready' && kyma.status.modules?.some((m) => m.name === 'functions' && m.version === '1.1.0' && m.state === 'Ready');
      },
      30_000,
    );
  });

  it('when the next start uses another registry kind, the demo artifacts go into its storage and the templates link to it', async () => {
    assert.ok(up);
    await up.stop();
    up = undefined;
    land = await startEmbeddedLandscape({ ...options, registry: 'docker-registry' });
    assert.equal(land.registry.kind, 'docker-registry');
    assert.equal(land.catalog.publishedNow, false);
    const template = await land.kcp.get<ModuleTemplateObject>(ModuleTemplate, { namespace: Namespaces.ControlPlane, name: 'functions-1.1.0' });
    const link = template.spec.resources?.[0]?.link ?? '';
    assert.ok(link.startsWith(`oci://${land.registry.host}/`), `${link} links the new registry`);
    const fetched = await new OciArtifactFetcher().fetchManifest(link);
    assert.ok(fetched.objects.some((o) => o.kind === 'Deployment' && o.metadata.name === 'functions-manager'));
  });
});
