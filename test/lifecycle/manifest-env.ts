// A landscape for Manifest controller tests: an embedded API server with the operator CRDs, a
// KCP client, runtime clusters with kubeconfig Secrets, a fake artifact fetcher, the Manifest
// controller with short intervals, and the simulated module operators.
import { Kyma, KymaConditionTypes, type KymaObject, Manifest, type ManifestObject } from '../../src/api/operator/index.js';
import { type RunningApiServer } from '../../src/apiserver/server.js';
import { startModuleOperators, type ModuleOperators, type ModuleOperatorsOptions } from '../../src/landscape/module-operators.js';
import { ArtifactError, type ArtifactFetcher, type FetchedManifest } from '../../src/lifecycle/artifacts/types.js';
import { type ManifestControllerOptions, type ManifestReconciler, setupManifestController, type RequeueIntervals } from '../../src/lifecycle/manifest/index.js';
import { clientFromKubeconfig, type HttpClient, isNotFound } from '../../src/runtime/client/index.js';
import type { Client } from '../../src/runtime/client/interface.js';
import { type Logger, silentLogger } from '../../src/runtime/log.js';
import { Manager } from '../../src/runtime/manager.js';
import { RemoteClusterCache } from '../../src/runtime/remote/cache.js';
import type { KindRef, KubeObject } from '../../src/kube/object.js';
import { type AnyKind, startWithKinds } from '../support/api.js';
import { createTestRuntime } from '../support/skr.js';
import { countingClient } from '../support/counting-client.js';
import { countReconciles } from '../support/metrics.js';
import { waitFor } from '../support/wait.js';
import { contentDigest } from '../support/artifacts.js';

export const NS = 'kcp-system';
export const DEPLOYMENT: KindRef = { apiVersion: 'apps/v1', kind: 'Deployment' };
export const CONFIGMAP: KindRef = { apiVersion: 'v1', kind: 'ConfigMap' };
export const SERVICE: KindRef = { apiVersion: 'v1', kind: 'Service' };
export const CRD: KindRef = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
export const SAMPLE: KindRef = { apiVersion: 'sample.kyma-project.io/v1alpha1', kind: 'Sample' };
export const CLUSTER_SAMPLE: KindRef = { apiVersion: 'sample.kyma-project.io/v1alpha1', kind: 'ClusterSample' };
export const MODULE_NS = 'sample-system';

export { countingClient, waitFor };

/** A fetcher serving fixed answers per link: objects, or an ArtifactError. */
export class FakeFetcher implements ArtifactFetcher {
  readonly answers = new Map<string, FetchedManifest | ArtifactError>();
  calls = 0;

  set(link: string, answer: KubeObject[] | ArtifactError): void {
    this.answers.set(link, answer instanceof ArtifactError ? answer : { objects: answer, digest: contentDigest(answer) });
  }

  fetchManifest(link: string): Promise<FetchedManifest> {
    this.calls++;
    const a = this.answers.get(link);
    if (!a) return Promise.reject(new ArtifactError('NotFound', `${link}: manifest unknown`));
    if (a instanceof ArtifactError) return Promise.reject(a);
    return Promise.resolve(structuredClone(a));
  }
}

// ---- the sample module ----------------------------------------------------------------------

function crd(kind: string, plural: string, scope: 'Namespaced' | 'Cluster'): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.sample.kyma-project.io` },
    spec: {
      group: 'sample.kyma-project.io',
      scope,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

export interface ModuleOptions {
  /** Replaces the ConfigMap's data (a new version). */
  version?: string;
  /** Leaves out the ConfigMap and the Service (an upgrade that removes objects). */
  withoutExtras?: boolean;
}

/** The sample module's objects: CRDs, namespace, RBAC, ConfigMap, Service and the manager Deployment. */
export function sampleModule(opts: ModuleOptions = {}): KubeObject[] {
  const labels = { app: 'sample-manager' };
  const objects: KubeObject[] = [
    crd('Sample', 'samples', 'Namespaced'),
    crd('ClusterSample', 'clustersamples', 'Cluster'),
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: MODULE_NS } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sample-manager', namespace: MODULE_NS } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'sample-manager' },
      rules: [{ apiGroups: ['sample.kyma-project.io'], resources: ['samples', 'clustersamples'], verbs: ['*'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'sample-manager' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'sample-manager' },
      subjects: [{ kind: 'ServiceAccount', name: 'sample-manager', namespace: MODULE_NS }],
    },
  ];
  if (!opts.withoutExtras) {
    objects.push(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sample-config', namespace: MODULE_NS }, data: { version: opts.version ?? '1.0.0' } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'sample-metrics', namespace: MODULE_NS }, spec: { selector: labels, ports: [{ port: 8080, targetPort: 8080 }] } },
    );
  }
  objects.push({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'sample-manager', namespace: MODULE_NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { serviceAccountName: 'sample-manager', containers: [{ name: 'manager', image: `europe-docker.pkg.dev/kyma-project/prod/sample-manager:${opts.version ?? '1.0.0'}` }] } },
    },
  });
  return objects;
}

export const DEFAULT_CR = { apiVersion: SAMPLE.apiVersion, kind: SAMPLE.kind, metadata: { name: 'default', namespace: MODULE_NS }, spec: { replicas: 1 } };

// ---- the landscape --------------------------------------------------------------------------

export interface Env {
  server: RunningApiServer;
  kcp: HttpClient;
  fetcher: FakeFetcher;
  manager: Manager;
  reconciler: ManifestReconciler;
  operators: ModuleOperators;
  /** Requests of the Manifest controller to each runtime, by Kyma name. */
  requests: Map<string, { count: (method?: string, kind?: string) => number; reset: () => void }>;
  /** How often the Manifest controller took up this Manifest (a reconcile started). */
  reconciles(name: string): number;
  /** Waits until the Manifest controller has completed `n` more reconciles of this Manifest. */
  moreReconciles(name: string, n: number): Promise<void>;
  runtime(kymaName: string): Promise<HttpClient>;
  /** The Kyma's runtime webhook works, as the Kyma controller reports it (SKRWebhook True), and the Manifest controller's cache has it. */
  webhookHealthy(kymaName: string): Promise<void>;
  createManifest(name: string, kymaName: string, link: string, extra?: Partial<ManifestObject['spec']>): Promise<void>;
  manifest(name: string): Promise<ManifestObject | undefined>;
  waitState(name: string, state: string, timeoutMs?: number): Promise<ManifestObject>;
  stop(): Promise<void>;
}

/** `driftCheckMs`: as with the runtime watcher (drift checks on events, or at this interval, while the Kyma's SKRWebhook condition holds). */
export async function startEnv(
  opts: {
    operators?: Omit<ModuleOperatorsOptions, 'server'>;
    logger?: Logger;
    driftCheckMs?: number;
    intervals?: Partial<RequeueIntervals>;
    /** Wraps the KCP client the Manifest controller writes with (the informers read through the plain one). */
    controllerKcp?: (kcp: HttpClient) => HttpClient;
    /** The runtime watcher's part, handed in by the test: the keys its events bring and their marks. */
    watcher?: Pick<ManifestControllerOptions, 'watcherEvents' | 'driftChecks' | 'readinessChecks' | 'eventRecheckMs'>;
    /** Parallel reconciles (default: the controller's). */
    workers?: number;
    /** Wraps the client the Manifest controller reaches a runtime with. */
    remoteClient?: (kymaName: string, client: Client) => Client;
    /** How long a fetched manifest is reused for its link (the controller's default: 10 min). */
    refetchAfterMs?: number;
  } = {},
): Promise<Env> {
  const api = await startWithKinds([Manifest, Kyma] as unknown as AnyKind[], [NS]);
  const server = api.server;
  const kcp = clientFromKubeconfig(server.clusterAccess('default').kubeconfig, { qps: 0 });
  const fetcher = new FakeFetcher();
  const remote = new RemoteClusterCache({ client: kcp, kubeconfigFor: (kyma) => ({ namespace: NS, name: `kubeconfig-${kyma}` }), clientOptions: { qps: 0 } });
  const requests = new Map<string, ReturnType<typeof countingClient>>();
  const manager = new Manager({ client: kcp, logger: opts.logger ?? silentLogger, informerBackoff: { initialMs: 20, maxMs: 200 } });
  const reconciles = countReconciles(manager);
  const { controller, reconciler } = setupManifestController(manager, {
    kcp: opts.controllerKcp ? opts.controllerKcp(kcp) : kcp,
    namespace: NS,
    fetcher,
    remoteClients: (kyma) => {
      let c = requests.get(kyma);
      if (!c) {
        c = countingClient(opts.remoteClient ? opts.remoteClient(kyma, remote.client(kyma)) : remote.client(kyma));
        requests.set(kyma, c);
      }
      return c.client;
    },
    intervals: { successMs: 400, busyMs: 100, errorMs: 200, warningMs: 400, ...opts.intervals },
    crdEstablishTimeoutMs: 5_000,
    driftCheckMs: opts.driftCheckMs,
    ...opts.watcher,
    ...(opts.workers ? { maxConcurrentReconciles: opts.workers } : {}),
    ...(opts.refetchAfterMs !== undefined ? { refetchAfterMs: opts.refetchAfterMs } : {}),
  });
  const operators = startModuleOperators({ server, delayMs: 50, discoverEveryMs: 100, ...opts.operators });
  const ac = new AbortController();
  const running = manager.start(ac.signal);
  await manager.ready();
  const runtimes = new Map<string, HttpClient>();

  const env: Env = {
    server,
    kcp,
    fetcher,
    manager,
    reconciler,
    operators,
    requests,
    reconciles: (name) => reconciles(controller.name, `${NS}/${name}`),
    async moreReconciles(name, n) {
      // One more start than completions: the reconcile that started last may still run.
      const target = env.reconciles(name) + n + 1;
      await waitFor(`${n} more reconciles of Manifest ${name}`, () => env.reconciles(name) >= target);
    },
    async runtime(kymaName) {
      let c = runtimes.get(kymaName);
      if (!c) {
        const rt = await createTestRuntime(server, kcp, kymaName, NS);
        operators.attach(rt.cluster);
        await kcp.create({ apiVersion: Kyma.apiVersion, kind: 'Kyma', metadata: { name: kymaName, namespace: NS }, spec: { channel: 'regular' } });
        c = clientFromKubeconfig(server.clusterAccess(rt.cluster).kubeconfig, { qps: 0 });
        runtimes.set(kymaName, c);
      }
      return c;
    },
    async webhookHealthy(kymaName) {
      const condition = { type: KymaConditionTypes.SKRWebhook, status: 'True', reason: 'Ready', message: 'ok', lastTransitionTime: new Date().toISOString() };
      await kcp.patch(Kyma, { namespace: NS, name: kymaName }, 'merge', { status: { conditions: [condition] } }, { subresource: 'status' });
      const kymas = manager.cache<KymaObject>(Kyma, { namespace: NS });
      await waitFor('the webhook condition in the cache', () => kymas.get(`${NS}/${kymaName}`)?.status?.conditions?.some((c) => c.type === KymaConditionTypes.SKRWebhook && c.status === 'True') ?? false);
    },
    async createManifest(name, kymaName, link, extra = {}) {
      await kcp.create({
        apiVersion: Manifest.apiVersion,
        kind: 'Manifest',
        metadata: { name, namespace: NS, labels: { 'operator.kyma-project.io/kyma-name': kymaName, 'operator.kyma-project.io/module-name': 'sample' } },
        spec: { remote: true, version: '1.0.0', install: { name: 'raw-manifest', source: { url: link } }, ...extra },
      });
    },
    async manifest(name) {
      try {
        return await kcp.get<ManifestObject>(Manifest, { namespace: NS, name });
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    },
    async waitState(name, state, timeoutMs = 15_000) {
      return waitFor(`Manifest ${name} in state ${state}`, async () => {
        const m = await env.manifest(name);
        return m?.status?.state === state ? m : undefined;
      }, timeoutMs);
    },
    async stop() {
      operators.stop();
      ac.abort();
      await running;
      remote.close();
      for (const c of runtimes.values()) c.close();
      kcp.close();
      await api.stop();
    },
  };
  return env;
}

/** Marks a Deployment available, as the deployment controller and kubelet would. */
export async function markDeploymentReady(runtime: Client, namespace: string, name: string): Promise<void> {
  const d = await runtime.get(DEPLOYMENT, { namespace, name });
  await runtime.patch(DEPLOYMENT, { namespace, name }, 'merge', {
    status: {
      observedGeneration: d.metadata.generation,
      replicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      updatedReplicas: 1,
      conditions: [
        { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
        { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet has successfully progressed.' },
      ],
    },
  }, { subresource: 'status' });
}

export async function exists(client: Client, kind: KindRef, name: string, namespace?: string): Promise<boolean> {
  try {
    await client.get(kind, { namespace, name });
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}
