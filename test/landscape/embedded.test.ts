// `kcp up` as a library: the embedded landscape publishes the demo catalog into its registry, provisions
// a Runtime through the simulated Gardener and installs a demo module from the registry into the
// runtime cluster; a second start in the same data dir carries on without publishing again.
//
// Every scenario runs twice, once per way of running the controllers, both through the one
// composition root: as `kcp up` wires them (src/up), and as `kcp run` does from its flags, pointed
// at the landscape's kubeconfig files like at real clusters.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Runtime, type RuntimeObject } from '../../src/api/infrastructuremanager/index.js';
import {
  DEFAULT_REMOTE_KYMA_NAME,
  Kyma,
  type KymaObject,
  Labels,
  ModuleConfig,
  type ModuleConfigObject,
  ModuleReleaseMeta,
  type ModuleReleaseMetaObject,
  ModuleTemplate,
  Namespaces,
  SyncResource,
  type SyncResourceObject,
} from '../../src/api/operator/index.js';
import { parseArgs } from '../../src/cli/args.js';
import { clientLimitsFrom, controlPlaneConfigFrom, FlagReader } from '../../src/cli/controller-flags.js';
import { parseRunConfig, RUN_FLAG_TABLE, startControllers } from '../../src/cli/run.js';
import { UP_FLAG_TABLE, UP_FLAGS } from '../../src/cli/up.js';
import { type EmbeddedLandscape, type EmbeddedLandscapeOptions, startEmbeddedLandscape } from '../../src/landscape/embedded.js';
import { DemoModuleGroups, shootClusterName } from '../../src/landscape/index.js';
import { freePort } from '../../src/landscape/registry.js';
import { clientFromKubeconfig, findObject, isNotFound } from '../../src/runtime/client/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { DEFAULT_CONVERTER_CONFIG, startUp } from '../../src/up/index.js';
import { FAST_FLAGS, httpGet } from '../cli/run-env.js';
import { fastLandscapeOptions } from '../support/fast-landscape.js';
import { testRuntime } from '../infrastructure/runtime-harness.js';
import { waitFor } from '../support/wait.js';

const NS = Namespaces.ControlPlane;
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };
const AUTOSCALER = { apiVersion: `${DemoModuleGroups.autoscaler}/v1alpha1`, kind: 'Autoscaler' };

/** The same short requeues for both ways, given as flags (metrics and probes on loopback, any port). */
const CONTROLLER_FLAGS = [...FAST_FLAGS, '--kubeconfig-expiration-time=10m'];

/** The landscape with controllers running; `stop` stops both. */
interface Running {
  land: EmbeddedLandscape;
  metricsUrl?: string;
  healthUrl?: string;
  stop(): Promise<void>;
}

const waysToRun: { name: string; start: (opts: EmbeddedLandscapeOptions) => Promise<Running> }[] = [
  {
    name: 'kcp up',
    start: async (opts) => {
      const flags = new FlagReader(parseArgs(CONTROLLER_FLAGS, UP_FLAG_TABLE, { lastWins: true }), UP_FLAGS, 'kcp up');
      const up = await startUp({ ...opts, controlPlane: controlPlaneConfigFrom(flags, NS), ...clientLimitsFrom(flags) });
      return { land: up.landscape, metricsUrl: up.controlPlane.metricsUrl, healthUrl: up.controlPlane.healthUrl, stop: () => up.stop() };
    },
  },
  {
    name: 'kcp run',
    start: async (opts) => {
      const land = await startEmbeddedLandscape(opts);
      try {
        const files = [`--kubeconfig=${land.files.kcpKubeconfig}`, `--gardener-kubeconfig=${land.files.gardenKubeconfig}`, `--gardener-project=${land.project}`, `--converter-config=${DEFAULT_CONVERTER_CONFIG}`];
        const running = await startControllers(parseRunConfig(parseArgs([...files, ...CONTROLLER_FLAGS], RUN_FLAG_TABLE, { lastWins: true })), { logSink: () => undefined });
        return {
          land,
          metricsUrl: running.metricsUrl,
          healthUrl: running.healthUrl,
          stop: async () => {
            await running.stop();
            await land.stop();
          },
        };
      } catch (e) {
        await land.stop();
        throw e;
      }
    },
  },
];


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

for (const way of waysToRun) describe(`embedded landscape, controllers as ${way.name} runs them`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kcp-up-'));
  let running: Running | undefined;
  let land: EmbeddedLandscape | undefined;
  const start = async (opts: EmbeddedLandscapeOptions): Promise<EmbeddedLandscape> => {
    running = await way.start(opts);
    return running.land;
  };
  const stop = async (): Promise<void> => {
    await running?.stop();
    running = undefined;
    land = undefined;
  };
  after(async () => {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('publishes the demo catalog, provisions a Runtime and installs a demo module pulled from its registry', async () => {
    land = await start({ ...fastLandscapeOptions(dataDir), port: 0 });
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
    await stop();

    land = await start(fastLandscapeOptions(dataDir));
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
    await stop();
    land = await start({ ...fastLandscapeOptions(dataDir), port: await freePort() });
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

  it('runs the demo functions module manager: a ModuleConfig of functions gets its SyncResource', async () => {
    assert.ok(land, 'the earlier tests started the landscape');
    const l = land;
    // Written by hand as the lifecycle manager writes them, for a Kyma of its own so that nothing else touches it.
    const config: ModuleConfigObject = {
      apiVersion: ModuleConfig.apiVersion,
      kind: ModuleConfig.kind,
      metadata: { name: 'mm-check-functions', namespace: NS, labels: { [Labels.KymaName]: 'mm-check', [Labels.ModuleName]: 'functions' } },
      spec: { kyma: 'mm-check', module: 'functions', resource: { apiVersion: 'functions.demo.example/v1alpha1', kind: 'Functions', metadata: { name: 'default', namespace: 'kyma-system' }, spec: { defaultReplicas: 1 } } },
    };
    await l.kcp.create(config);
    try {
      const sr = await waitFor('the SyncResource of mm-check', () => findObject<SyncResourceObject>(l.kcp, SyncResource, { namespace: NS, name: 'mm-check-functions' }));
      assert.deepEqual(sr.spec.items.map((i) => [i.name, (i.resource as { data?: unknown }).data]), [['functions-config', { defaultReplicas: '1' }]]);
    } finally {
      await l.kcp.delete(ModuleConfig, { namespace: NS, name: 'mm-check-functions' });
    }
  });

  it('serves controller metrics and health probes', async () => {
    assert.ok(running, 'the earlier tests started the landscape');
    assert.ok(running.metricsUrl && running.healthUrl, 'both endpoints are on');
    const metrics = await httpGet(`${running.metricsUrl}/metrics`);
    assert.equal(metrics.status, 200);
    for (const controller of ['runtime', 'gardener-cluster', 'kyma', 'manifest']) {
      assert.match(metrics.body, new RegExp(`^controller_runtime_reconcile_total\\{controller="${controller}",result="[a-z_]+"\\} [1-9]`, 'm'), `reconciles of ${controller}`);
    }
    assert.match(metrics.body, /^workqueue_adds_total\{controller="kyma",name="kyma"\} [1-9]/m);
    assert.equal((await httpGet(`${running.healthUrl}/healthz`)).status, 200);
    assert.equal((await httpGet(`${running.healthUrl}/readyz`)).status, 200);
  });
});
