// A fresh landscape for Kyma controller scenarios: an embedded API server with the operator CRDs,
// the control plane's composition root running the lifecycle manager against it with short requeue
// intervals, a fake ArtifactFetcher
// serving module manifests by link, and helpers to publish modules and create runtimes + Kymas.
import { operatorKinds, Kyma, Labels, Manifest, ModuleReleaseMeta, ModuleTemplate, Namespaces, type KymaObject, type KymaModule, type ManifestObject } from '../../src/api/operator/index.js';
import type { ArtifactFetcher, FetchedManifest } from '../../src/lifecycle/artifacts/types.js';
import { ArtifactError } from '../../src/lifecycle/artifacts/types.js';
import { type ControlPlane, type ControlPlaneConfig, defaultControlPlaneConfig, startControlPlane } from '../../src/controlplane/index.js';
import { clientFromKubeconfig, type Client, type HttpClient } from '../../src/runtime/client/index.js';
import { type Logger, silentLogger } from '../../src/runtime/log.js';
import type { KubeObject } from '../../src/kube/object.js';
import { startWithKinds, type AnyKind, type ApiTestEnv } from '../support/api.js';
import { createTestRuntime, type TestRuntime } from '../support/skr.js';
import { waitFor } from '../support/wait.js';
import { contentDigest } from '../support/artifacts.js';

export const NS = Namespaces.ControlPlane;

export { waitFor };

/** Module manifests by link: a ConfigMap naming the module's version (and, with a CRD, the CRD itself). */
export class FakeFetcher implements ArtifactFetcher {
  readonly fetched: string[] = [];
  /** More objects of a module's manifest, by module name (scenarios that need a CRD, a manager, RBAC). */
  readonly extraObjects = new Map<string, (version: string) => KubeObject[]>();
  /** `other` fetches every link that is not a `https://modules.test/` one (e.g. a real registry's). */
  constructor(private readonly other?: ArtifactFetcher) {}
  fetchManifest(link: string, opts?: Parameters<ArtifactFetcher['fetchManifest']>[1]): Promise<FetchedManifest> {
    this.fetched.push(link);
    const m = /^https:\/\/modules\.test\/([a-z-]+)\/([^/]+)\.yaml$/.exec(link);
    if (!m && this.other) return this.other.fetchManifest(link, opts);
    if (!m) return Promise.reject(new ArtifactError('NotFound', `no module at ${link}`));
    const [, module, version] = m;
    const objects: KubeObject[] = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${module}-info`, namespace: Namespaces.Remote }, data: { module, version } },
      ...(this.extraObjects.get(module)?.(version) ?? []),
    ];
    return Promise.resolve({ objects, digest: contentDigest(objects) });
  }
}

export function moduleLink(module: string, version: string): string {
  return `https://modules.test/${module}/${version}.yaml`;
}

export interface KymaEnv {
  api: ApiTestEnv;
  kcp: HttpClient;
  /** The control plane, lifecycle manager only. */
  lm: ControlPlane;
  fetcher: FakeFetcher;
  publish(module: string, versions: string[], opts?: { channels?: Record<string, string>; beta?: boolean; internal?: boolean; mandatory?: string; data?: Record<string, unknown> }): Promise<void>;
  setChannels(module: string, channels: Record<string, string>): Promise<void>;
  runtime(id: string, spec?: { channel?: string; modules?: KymaModule[] }, labels?: Record<string, string>): Promise<TestRuntime & { remote: HttpClient }>;
  kyma(name: string): Promise<KymaObject>;
  remoteKyma(rt: { remote: HttpClient }): Promise<KymaObject>;
  setRemoteModules(rt: { remote: HttpClient }, modules: KymaModule[]): Promise<void>;
  manifests(kyma: string): Promise<ManifestObject[]>;
  stop(): Promise<void>;
}

/**
 * `config` overrides the control plane's settings, `logger` receives the controllers' logs (default:
 * none), `artifacts` the fetcher of links the fake one does not serve, `wrapKcp` wraps the controllers'
 * KCP client (to count its calls, say); `kcpClient`: options of the
 * controllers' KCP client. The Manifest controller always runs: the scenarios rely on it to install
 * modules and report them Ready.
 */
export async function startKymaEnv(
  config: Partial<ControlPlaneConfig> & { logger?: Logger; artifacts?: ArtifactFetcher; wrapKcp?: (client: Client) => Client } = {},
  kcpClient: { qps?: number; burst?: number } = {},
): Promise<KymaEnv> {
  const { logger, artifacts, wrapKcp, ...settings } = config;
  const api = await startWithKinds([...operatorKinds] as unknown as AnyKind[]);
  const kcp = clientFromKubeconfig(api.server.clusterAccess('default').kubeconfig, { retries: 1, ...kcpClient });
  const fetcher = new FakeFetcher(artifacts);
  const controlPlane = await startControlPlane({
    config: {
      ...defaultControlPlaneConfig(),
      infrastructureManager: false,
      kymaIntervals: { readyMs: 300, busyMs: 150, warningMs: 300, errorMs: 150 },
      manifestIntervals: { successMs: 500, busyMs: 100, errorMs: 200, warningMs: 500 },
      remoteRequestTimeoutMs: 2_000,
      ...settings,
    },
    kcp: wrapKcp ? wrapKcp(kcp) : kcp,
    fetcher,
    logger: logger ?? silentLogger,
  });
  await controlPlane.ready();
  const lm = controlPlane;
  const remotes: HttpClient[] = [];

  const env: KymaEnv = {
    api,
    kcp,
    lm,
    fetcher,
    async publish(module, versions, o = {}) {
      for (const version of versions) {
        await kcp.create({
          apiVersion: ModuleTemplate.apiVersion,
          kind: ModuleTemplate.kind,
          metadata: { name: `${module}-${version}`, namespace: NS, labels: { [Labels.ModuleName]: module } },
          spec: { moduleName: module, version, resources: [{ name: 'rawManifest', link: moduleLink(module, version) }], ...(o.data ? { data: o.data } : {}) },
        });
      }
      const spec = o.mandatory
        ? { moduleName: module, mandatory: { version: o.mandatory } }
        : { moduleName: module, channels: Object.entries(o.channels ?? { regular: versions[0] }).map(([channel, version]) => ({ channel, version })), beta: o.beta ?? false, internal: o.internal ?? false };
      await kcp.create({ apiVersion: ModuleReleaseMeta.apiVersion, kind: ModuleReleaseMeta.kind, metadata: { name: module, namespace: NS }, spec });
    },
    async setChannels(module, channels) {
      await kcp.patch(ModuleReleaseMeta, { namespace: NS, name: module }, 'merge', { spec: { channels: Object.entries(channels).map(([channel, version]) => ({ channel, version })) } });
    },
    async runtime(id, spec = {}, labels = {}) {
      const rt = await createTestRuntime(api.server, kcp, id);
      const remote = clientFromKubeconfig(api.server.clusterAccess(rt.cluster).kubeconfig, { retries: 1 });
      remotes.push(remote);
      await kcp.create({
        apiVersion: Kyma.apiVersion,
        kind: Kyma.kind,
        metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id, ...labels } },
        spec: { channel: spec.channel ?? 'regular', modules: spec.modules ?? [] },
      });
      return { ...rt, remote };
    },
    kyma: (name) => kcp.get<KymaObject>(Kyma, { namespace: NS, name }),
    remoteKyma: (rt) => rt.remote.get<KymaObject>(Kyma, { namespace: Namespaces.Remote, name: 'default' }),
    async setRemoteModules(rt, modules) {
      await waitFor('the runtime Kyma', () => env.remoteKyma(rt));
      await rt.remote.patch(Kyma, { namespace: Namespaces.Remote, name: 'default' }, 'merge', { spec: { modules } });
    },
    async manifests(kyma) {
      return (await kcp.list<ManifestObject>(Manifest, { namespace: NS, labelSelector: `${Labels.KymaName}=${kyma}` })).items;
    },
    async stop() {
      await lm.stop();
      for (const r of remotes) r.close();
      kcp.close();
      await api.stop();
    },
  };
  return env;
}
