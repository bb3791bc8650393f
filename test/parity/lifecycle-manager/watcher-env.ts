// The landscape of the watcher and metrics parity scenarios (upstream's watcher-*, *-metric and
// kyma-metrics targets): the in-memory landscape, whose runtimes get their skr-webhook served with
// their own certificate, and the control plane with the runtime watcher on. Modules come from a
// fetcher shaped like upstream's template-operator: a CRD `Sample`, the operator's Deployment, and a
// default CR. Kymas carry the shoot and instance-id labels upstream's metrics read.
import { Kyma, Labels, ModuleReleaseMeta, ModuleTemplate, Namespaces, type KymaObject } from '../../../src/api/operator/index.js';
import { type ControlPlane, type ControlPlaneConfig, startControlPlane } from '../../../src/controlplane/index.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { type Landscape, startInMemoryLandscape } from '../../../src/landscape/in-memory.js';
import { attachRuntimeCluster } from '../../../src/landscape/runtime-cluster.js';
import type { ArtifactFetcher, FetchedManifest } from '../../../src/lifecycle/artifacts/types.js';
import { clientFromKubeconfig, type HttpClient } from '../../../src/runtime/client/index.js';
import { silentLogger } from '../../../src/runtime/log.js';
import { Registry } from '../../../src/runtime/metrics.js';
import type { WatcherConfig } from '../../../src/controlplane/watcher.js';
import { waitFor } from '../../support/wait.js';
import { eventDrivenConfig } from '../../support/event-driven-config.js';
import { sampleCrd } from './template-operator.js';
import { contentDigest } from '../../support/artifacts.js';

export const NS = Namespaces.ControlPlane;
export const MODULE = 'template-operator';
export const SAMPLE = { apiVersion: 'operator.kyma-project.io/v1alpha1', kind: 'Sample' };
export const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };
export const SECRET = { apiVersion: 'v1', kind: 'Secret' };

/** Module `template-operator`: the Sample CRD and the operator's Deployment in kyma-system. */
class TemplateOperatorFetcher implements ArtifactFetcher {
  fetchManifest(): Promise<FetchedManifest> {
    const objects: KubeObject[] = [
      sampleCrd(),
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'template-operator-controller-manager', namespace: Namespaces.Remote },
        spec: { replicas: 1, selector: { matchLabels: { app: MODULE } }, template: { metadata: { labels: { app: MODULE } }, spec: { containers: [{ name: 'manager', image: 'template-operator:1' }] } } },
      } as KubeObject,
    ];
    return Promise.resolve({ objects, digest: contentDigest(objects) });
  }
}

/** The value of the series of `name` whose labels include `labels` (by value), from Prometheus text; undefined when there is none. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) have[l[1]] = l[2];
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

export interface WatcherEnv {
  land: Landscape;
  cp: ControlPlane;
  /** What every runtime's skr-webhook counts (its /metrics). */
  webhookMetrics: Registry;
  /** The controllers' /metrics text. */
  metrics(): string;
  /** A runtime cluster and its KCP Kyma (labels: runtime-id, shoot, instance-id); resolves once the Kyma is Ready with SKRWebhook True. */
  runtime(id: string): Promise<HttpClient>;
  kyma(id: string): Promise<KymaObject>;
  stop(): Promise<void>;
}

export interface WatcherEnvOptions {
  /** Watcher settings beyond the listener (PKI lifetimes, refresh, expiry window). */
  watcher?: Partial<WatcherConfig>;
  config?: Partial<ControlPlaneConfig>;
}

/** Ready Kymas and Manifests requeue only hourly: whatever converges in seconds was woken by an event or a short runtime check. */

export async function startWatcherEnv(opts: WatcherEnvOptions = {}): Promise<WatcherEnv> {
  const webhookMetrics = new Registry();
  const land = await startInMemoryLandscape({ extraKubeletClusters: (n) => n.startsWith('skr-'), kubelet: { readyDelayMs: 50, scanIntervalMs: 100 }, skrWebhookRegistry: webhookMetrics });
  const remotes: HttpClient[] = [];
  let cp: ControlPlane | undefined;
  try {
    await land.kcp.create({
      apiVersion: ModuleTemplate.apiVersion,
      kind: ModuleTemplate.kind,
      metadata: { name: `${MODULE}-1.0.0`, namespace: NS, labels: { [Labels.ModuleName]: MODULE } },
      spec: {
        moduleName: MODULE,
        version: '1.0.0',
        data: { apiVersion: SAMPLE.apiVersion, kind: SAMPLE.kind, metadata: { name: 'sample-yaml', namespace: Namespaces.Remote }, spec: { resourceFilePath: './module-data/yaml' } },
        resources: [{ name: 'rawManifest', link: `https://modules.test/${MODULE}/1.0.0.yaml` }],
      },
    });
    await land.kcp.create({ apiVersion: ModuleReleaseMeta.apiVersion, kind: ModuleReleaseMeta.kind, metadata: { name: MODULE, namespace: NS }, spec: { moduleName: MODULE, channels: [{ channel: 'regular', version: '1.0.0' }, { channel: 'fast', version: '1.0.0' }] } });
    cp = await startControlPlane({
      config: eventDrivenConfig(opts.config, opts.watcher),
      kcp: land.kcp,
      fetcher: new TemplateOperatorFetcher(),
      logger: silentLogger,
    });
    await cp.ready();
  } catch (e) {
    await cp?.stop();
    await land.stop();
    throw e;
  }
  const plane = cp;
  const kyma = (id: string) => land.kcp.get<KymaObject>(Kyma, { namespace: NS, name: id });
  return {
    land,
    cp: plane,
    webhookMetrics,
    metrics: () => plane.manager.registry.render(),
    kyma,
    async runtime(id) {
      const rt = await attachRuntimeCluster(land.server, land.kcp, id);
      const remote = clientFromKubeconfig(land.server.clusterAccess(rt.cluster).kubeconfig, { retries: 1 });
      remotes.push(remote);
      await land.kcp.create({
        apiVersion: Kyma.apiVersion,
        kind: Kyma.kind,
        metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id, [Labels.RuntimeID]: id, [Labels.ShootName]: `shoot-${id}`, [Labels.InstanceID]: `instance-${id}` } },
        spec: { channel: 'regular', modules: [] },
      });
      await waitFor(`Kyma ${id} Ready with its webhook`, async () => {
        const k = await kyma(id);
        return k.status?.state === 'Ready' && k.status.conditions?.some((c) => c.type === 'SKRWebhook' && c.status === 'True');
      }, 30_000);
      return remote;
    },
    async stop() {
      await plane.stop();
      for (const r of remotes) r.close();
      await land.stop();
    },
  };
}
