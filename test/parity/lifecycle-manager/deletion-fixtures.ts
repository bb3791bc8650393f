// The module upstream's deletion scenarios use, modelled here: template-operator (a Sample CRD, a
// namespace, RBAC and its manager Deployment, default CR `kyma-system/sample-yaml`), published in
// versions that differ as upstream's test setups make them differ (the Deployment's name, the
// Sample API version, the CRD's scope). A landscape for the scenarios: the lifecycle manager
// (kyma-env) plus the simulated module operators, which report the module CR's state (Ready, and
// Deleting while a finalizer holds it, as template-operator does).
import { Annotations, Labels, ModuleReleaseMeta, ModuleTemplate, Namespaces, type KymaModule, type ManifestObject } from '../../../src/api/operator/index.js';
import { startModuleOperators, type ModuleOperators } from '../../../src/landscape/module-operators.js';
import { isNotFound, type HttpClient } from '../../../src/runtime/client/index.js';
import type { KindRef, KubeObject } from '../../../src/kube/object.js';
import { moduleLink, NS, startKymaEnv, waitFor, type KymaEnv } from '../../lifecycle/kyma-env.js';
import { exists, markDeploymentReady } from '../../lifecycle/manifest-env.js';
import { SAMPLE, sampleCrd } from './template-operator.js';

export { exists, NS, waitFor };

export const GROUP = 'operator.kyma-project.io';
export { SAMPLE };
export const DEPLOYMENT: KindRef = { apiVersion: 'apps/v1', kind: 'Deployment' };
export const SERVICE_ACCOUNT: KindRef = { apiVersion: 'v1', kind: 'ServiceAccount' };
/** Upstream's TestModuleCRName in RemoteNamespace. */
export const DEFAULT_CR_NAME = 'sample-yaml';
export const REMOTE_NS = Namespaces.Remote;
/** Upstream's TestModuleResourceNamespace. */
export const MODULE_NS = 'template-operator-system';
export const MANAGER_SA = 'template-operator-controller-manager';

export interface ModuleVersion {
  version: string;
  /** Name of the manager Deployment (upstream's setups rename it per version). */
  deployment: string;
  /** API version of the Sample CRD's storage version and of the default CR (default v1alpha1; v1beta1 adds it to the CRD, v1alpha1 still served). */
  sampleVersion?: 'v1alpha1' | 'v1beta1';
  /** The Sample CRD cluster-scoped, the default CR too (upstream's cluster-scoped setup). */
  clusterScoped?: boolean;
}

function sampleCrdOf(v: ModuleVersion): KubeObject {
  return sampleCrd({ group: GROUP, clusterScoped: v.clusterScoped, storageVersion: v.sampleVersion });
}

/** The raw manifest of one version. */
export function moduleObjects(v: ModuleVersion): KubeObject[] {
  const labels = { app: 'template-operator' };
  return [
    sampleCrdOf(v),
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: MODULE_NS } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: MANAGER_SA, namespace: MODULE_NS } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'template-operator-manager-role' },
      rules: [{ apiGroups: [GROUP], resources: ['samples'], verbs: ['*'] }],
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: v.deployment, namespace: MODULE_NS },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { serviceAccountName: MANAGER_SA, containers: [{ name: 'manager', image: `europe-docker.pkg.dev/kyma-project/prod/template-operator:${v.version}` }] } },
      },
    },
  ];
}

export interface DeletionEnv extends KymaEnv {
  operators: ModuleOperators;
  /** Publishes a module: one ModuleTemplate per version (default CR in `spec.data`) and a ModuleReleaseMeta. */
  publishModule(module: string, versions: ModuleVersion[], channels: Record<string, string>): Promise<void>;
  /** A runtime with an empty Kyma (upstream's InitEmptyKymaBeforeAll). */
  emptyRuntime(id: string): Promise<Runtime>;
  /** Sets the modules of the runtime Kyma, where upstream's EnableModule/DisableModule write. */
  setModules(rt: Runtime, modules: KymaModule[]): Promise<void>;
  /** The Manifest of a module of a Kyma, if any. */
  manifestOf(kyma: string, module: string): Promise<ManifestObject | undefined>;
  /** Waits for the Deployment and marks it available, as the deployment controller would. */
  deploymentReady(rt: Runtime, name: string): Promise<void>;
  kymaState(kyma: string, state: string): Promise<void>;
  manifestState(kyma: string, module: string, state: string): Promise<ManifestObject>;
}

export type Runtime = Awaited<ReturnType<KymaEnv['runtime']>>;

export async function startDeletionEnv(config: Parameters<typeof startKymaEnv>[0] = {}): Promise<DeletionEnv> {
  const env = await startKymaEnv(config);
  const operators = startModuleOperators({ server: env.api.server, delayMs: 20, discoverEveryMs: 100 });
  const stop = env.stop.bind(env);
  const d: DeletionEnv = Object.assign(env, {
    operators,
    async publishModule(module: string, versions: ModuleVersion[], channels: Record<string, string>) {
      // The fetcher serves these next to its own ConfigMap of the module.
      env.fetcher.extraObjects.set(module, (version) => {
        const v = versions.find((x) => x.version === version);
        return v ? moduleObjects(v) : [];
      });
      for (const v of versions) {
        const link = moduleLink(module, v.version);
        const defaultCR = { apiVersion: `${GROUP}/${v.sampleVersion ?? 'v1alpha1'}`, kind: 'Sample', metadata: { name: DEFAULT_CR_NAME, ...(v.clusterScoped ? {} : { namespace: REMOTE_NS }) }, spec: { resourceFilePath: './module-data/yaml' } };
        await env.kcp.create({
          apiVersion: ModuleTemplate.apiVersion,
          kind: ModuleTemplate.kind,
          metadata: { name: `${module}-${v.version}`, namespace: NS, labels: { [Labels.ModuleName]: module }, ...(v.clusterScoped ? { annotations: { [Annotations.IsClusterScoped]: 'true' } } : {}) },
          spec: { moduleName: module, version: v.version, data: defaultCR, resources: [{ name: 'rawManifest', link }] },
        });
      }
      await env.kcp.create({
        apiVersion: ModuleReleaseMeta.apiVersion,
        kind: ModuleReleaseMeta.kind,
        metadata: { name: module, namespace: NS },
        spec: { moduleName: module, channels: Object.entries(channels).map(([channel, version]) => ({ channel, version })) },
      });
    },
    async emptyRuntime(id: string) {
      const rt = await env.runtime(id);
      operators.attach(rt.cluster);
      await waitFor('the runtime Kyma', () => env.remoteKyma(rt));
      return rt;
    },
    setModules: (rt: Runtime, modules: KymaModule[]) => env.setRemoteModules(rt, modules),
    async manifestOf(kyma: string, module: string) {
      return (await env.manifests(kyma)).find((m) => m.metadata.labels?.[Labels.ModuleName] === module);
    },
    async deploymentReady(rt: Runtime, name: string) {
      await waitFor(`Deployment ${name}`, () => exists(rt.remote, DEPLOYMENT, name, MODULE_NS));
      await markDeploymentReady(rt.remote, MODULE_NS, name);
    },
    async kymaState(kyma: string, state: string) {
      await waitFor(`Kyma ${kyma} ${state}`, async () => (await env.kyma(kyma)).status?.state === state).catch(async (e: unknown) => {
        // What the Kyma and its Manifests say, to tell why.
        const last = { kyma: (await env.kyma(kyma)).status?.lastOperation?.operation, manifests: (await env.manifests(kyma)).map((m) => m.status?.lastOperation?.operation) };
        throw new Error(`${(e as Error).message}: ${JSON.stringify(last)}`);
      });
    },
    async manifestState(kyma: string, module: string, state: string) {
      return waitFor(`the Manifest of ${module} ${state}`, async () => {
        const m = await d.manifestOf(kyma, module);
        return m?.status?.state === state ? m : undefined;
      });
    },
    async stop() {
      operators.stop();
      await stop();
    },
  });
  return d;
}

/** The kind of an entry of `status.synced`. */
export function kindOfRef(r: { group: string; version: string; kind: string }): KindRef {
  return { apiVersion: r.group ? `${r.group}/${r.version}` : r.version, kind: r.kind };
}

/** Whether every resource the Manifest lists in `status.synced` exists in the runtime (`true`) or none does (`false`); undefined for a mix. */
export async function syncedResources(remote: HttpClient, m: ManifestObject): Promise<boolean | undefined> {
  const found = await Promise.all((m.status?.synced ?? []).map((r) => exists(remote, kindOfRef(r), r.name, r.namespace || undefined)));
  if (found.every(Boolean)) return true;
  if (found.every((f) => !f)) return false;
  return undefined;
}

/** The module CR as the runtime has it, or undefined. */
export async function sampleCR(remote: HttpClient, name: string, namespace: string | undefined): Promise<KubeObject | undefined> {
  try {
    return await remote.get(SAMPLE, { namespace, name });
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}
