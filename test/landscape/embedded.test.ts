// `kcp up` as a library: the embedded landscape publishes the demo catalog into its registry, provisions
// a Runtime through the simulated Gardener and installs a demo module from the registry into the
// runtime cluster; a second start in the same data dir carries on without publishing again.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Runtime, type RuntimeObject } from '../../src/api/infrastructuremanager/index.js';
import { DEFAULT_REMOTE_KYMA_NAME, Kyma, type KymaObject, Labels, ModuleReleaseMeta, type ModuleReleaseMetaObject, ModuleTemplate, Namespaces } from '../../src/api/operator/index.js';
import { type EmbeddedLandscape, type EmbeddedLandscapeOptions, startEmbeddedLandscape } from '../../src/landscape/embedded.js';
import { DemoModuleGroups, shootClusterName } from '../../src/landscape/index.js';
import { freePort } from '../../src/landscape/registry.js';
import { clientFromKubeconfig, isNotFound } from '../../src/runtime/client/index.js';
import { silentLogger } from '../../src/runtime/log.js';
import type { KubeObject } from '../../src/kube/object.js';
import { fastTiming, testRuntime } from '../infrastructure/runtime-harness.js';
import { waitFor } from '../support/wait.js';

const NS = Namespaces.ControlPlane;
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };
const AUTOSCALER = { apiVersion: `${DemoModuleGroups.autoscaler}/v1alpha1`, kind: 'Autoscaler' };

/** Short simulated durations; everything else as `kcp up` runs it. */
function fastOptions(dataDir: string): EmbeddedLandscapeOptions {
  return {
    dataDir,
    simulator: { pendingMs: 100, createMs: 400, reconcileMs: 200, deleteMs: 200, progressSteps: 2, recoverAfterMs: 500 },
    kubelet: { readyDelayMs: 50, scanIntervalMs: 100 },
    moduleOperatorDelayMs: 50,
    infrastructure: { timing: fastTiming, kubeconfigExpirationSeconds: 600, gardenerCluster: { missingShootRetryMs: 200 }, gracefulShutdownTimeoutMs: 2_000 },
    lifecycle: {
      intervals: { readyMs: 300, busyMs: 150, warningMs: 300, errorMs: 150 },
      manifestIntervals: { successMs: 500, busyMs: 100, errorMs: 200, warningMs: 500 },
      remoteRequestTimeoutMs: 2_000,
    },
    logger: silentLogger,
  };
}

function kymaFor(id: string, modules: { name: string; channel?: string }[]): KymaObject {
  return {
    apiVersion: Kyma.apiVersion,
    kind: Kyma.kind,
    metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id, 'kyma-project.io/runtime-id': id } },
    spec: { channel: 'regular', modules },
  };
}

async function runtimeState(land: EmbeddedLandscape, name: string): Promise<string | undefined> {
  return (await land.kcp.get<RuntimeObject>(Runtime, { namespace: NS, name })).status?.state;
}

/** Waits until the Kyma's state and its modules read `want` (`<state> <name>@<version>:<state>,...`). */
async function waitForModules(land: EmbeddedLandscape, name: string, want: string): Promise<void> {
  let seen = '';
  await waitFor(`Kyma ${name} to read "${want}"`, async () => {
    const kyma = await land.kcp.get<KymaObject>(Kyma, { namespace: NS, name });
    const modules = (kyma.status?.modules ?? []).map((m) => `${m.name}@${m.version ?? ''}:${m.state ?? ''}`).sort();
    seen = `${kyma.status?.state ?? ''} ${modules.join(',')}`;
    return seen === want;
  }, 30_000).catch((e: unknown) => {
    throw new Error(`${(e as Error).message}; last seen "${seen}"`);
  });
}

describe('embedded landscape (kcp up)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kcp-up-'));
  let land: EmbeddedLandscape | undefined;
  after(async () => {
    await land?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('publishes the demo catalog, provisions a Runtime and installs a demo module pulled from its registry', async () => {
    land = await startEmbeddedLandscape({ ...fastOptions(dataDir), port: 0 });
    assert.equal(land.catalog.publishedNow, true);
    assert.ok(existsSync(land.files.kcpKubeconfig) && existsSync(land.files.gardenKubeconfig));

    // The kubeconfig written into the data dir opens the KCP, where the catalog is.
    const viaFile = clientFromKubeconfig(readFileSync(land.files.kcpKubeconfig, 'utf8'));
    try {
      const templates = (await viaFile.list(ModuleTemplate, { namespace: NS })).items.map((t) => t.metadata.name).sort();
      assert.deepEqual(templates, ['autoscaler-1.0.0', 'autoscaler-1.1.0', 'functions-1.0.0', 'functions-1.1.0', 'gateway-1.0.0', 'gateway-1.1.0']);
      const autoscaler = await viaFile.get<ModuleReleaseMetaObject>(ModuleReleaseMeta, { namespace: NS, name: 'autoscaler' });
      assert.deepEqual(autoscaler.spec.channels, [
        { channel: 'fast', version: '1.1.0' },
        { channel: 'regular', version: '1.0.0' },
      ]);
    } finally {
      viaFile.close();
    }
    for (const m of land.catalog.modules) assert.match(m.link, new RegExp(`^oci://${land.registry.host}/kyma-modules/${m.name}@sha256:[a-f0-9]{64}$`));

    await land.kcp.create(testRuntime('rt-demo'));
    await land.kcp.create(kymaFor('rt-demo', [{ name: 'autoscaler' }]));
    await waitFor('the Runtime to be Ready', async () => (await runtimeState(land!, 'rt-demo')) === 'Ready', 30_000);
    await waitForModules(land, 'rt-demo', 'Ready autoscaler@1.0.0:Ready');

    const shoot = clientFromKubeconfig(land.server.clusterAccess(shootClusterName(land.projectNamespace, 'c-rt-demo')).kubeconfig);
    try {
      const manager = await shoot.get(DEPLOYMENT, { namespace: 'kyma-system', name: 'autoscaler-manager' });
      assert.equal(manager.metadata.labels?.['app.kubernetes.io/version'], '1.0.0');
      assert.equal((manager.status as { readyReplicas?: number } | undefined)?.readyReplicas, 1);
      const cr = await shoot.get<KubeObject & { status?: { state?: string } }>(AUTOSCALER, { namespace: 'kyma-system', name: 'default' });
      assert.equal(cr.status?.state, 'Ready');
    } finally {
      shoot.close();
    }
  });

  it('after a restart in the same data dir the Runtime is still Ready, the catalog is not published again, and modules still install', async () => {
    assert.ok(land, 'the first test started the landscape');
    const url = land.server.url;
    const metaVersion = (await land.kcp.get(ModuleReleaseMeta, { namespace: NS, name: 'gateway' })).metadata.resourceVersion;
    await land.stop();
    land = undefined;

    land = await startEmbeddedLandscape(fastOptions(dataDir));
    assert.equal(land.catalog.publishedNow, false);
    assert.equal(land.server.url, url, 'the previous port is reused');
    assert.equal(land.urlChanged, false);
    assert.equal((await land.kcp.get(ModuleReleaseMeta, { namespace: NS, name: 'gateway' })).metadata.resourceVersion, metaVersion);
    assert.equal((await land.kcp.list(ModuleTemplate, { namespace: NS })).items.length, 6);
    assert.equal(await runtimeState(land, 'rt-demo'), 'Ready');

    // Still reconciling: a module a runtime admin enables in the runtime's Kyma (fast channel) comes
    // from the registry's persisted content.
    const shoot = clientFromKubeconfig(land.server.clusterAccess(shootClusterName(land.projectNamespace, 'c-rt-demo')).kubeconfig);
    try {
      await shoot.patch(Kyma, { namespace: Namespaces.Remote, name: DEFAULT_REMOTE_KYMA_NAME }, 'merge', { spec: { modules: [{ name: 'autoscaler' }, { name: 'gateway', channel: 'fast' }] } });
      await waitForModules(land, 'rt-demo', 'Ready autoscaler@1.0.0:Ready,gateway@1.1.0:Ready');
      const gateway = await waitFor('the gateway manager to be ready', async () => {
        const d = await shoot.get(DEPLOYMENT, { namespace: 'kyma-system', name: 'gateway-manager' });
        return (d.status as { readyReplicas?: number } | undefined)?.readyReplicas === 1 ? d : undefined;
      });
      assert.equal(gateway.metadata.labels?.['app.kubernetes.io/version'], '1.1.0');
    } finally {
      shoot.close();
    }
  });

  it('when the API server comes back on another port, runtime kubeconfigs are rotated to the new URL', async () => {
    assert.ok(land, 'the earlier tests started the landscape');
    await land.stop();
    land = undefined;
    land = await startEmbeddedLandscape({ ...fastOptions(dataDir), port: await freePort() });
    assert.equal(land.urlChanged, true);
    const url = land.server.url;
    await waitFor('the kubeconfig Secret to name the new URL', async () => {
      const secret = await land!.kcp.get<KubeObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NS, name: 'kubeconfig-rt-demo' });
      return Buffer.from(secret.data?.config ?? '', 'base64').toString('utf8').includes(`server: ${url}/`);
    });
    // The lifecycle manager reaches the runtime again: disabling a module removes it there.
    const shoot = clientFromKubeconfig(land.server.clusterAccess(shootClusterName(land.projectNamespace, 'c-rt-demo')).kubeconfig);
    try {
      await shoot.patch(Kyma, { namespace: Namespaces.Remote, name: DEFAULT_REMOTE_KYMA_NAME }, 'merge', { spec: { modules: [{ name: 'autoscaler' }] } });
      await waitForModules(land, 'rt-demo', 'Ready autoscaler@1.0.0:Ready');
      await waitFor('the gateway manager to be removed', () => shoot.get(DEPLOYMENT, { namespace: 'kyma-system', name: 'gateway-manager' }).then(() => false, (e: unknown) => isNotFound(e)));
    } finally {
      shoot.close();
    }
  });
});
