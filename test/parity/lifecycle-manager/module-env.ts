// The landscape of the upstream scenario tests (tests/e2e of kyma-project/lifecycle-manager), built on
// the Kyma controller harness (test/lifecycle/kyma-env.ts): modules shaped like upstream's
// template-operator (a CRD, a namespace, a manager Deployment or StatefulSet whose name carries the
// version, and a default CR `kyma-system/sample-yaml`), the simulated kubelet making the managers
// available and the simulated module operators reporting the module CRs' state. Unlike
// template-operator.ts (managers as ConfigMaps, states written by the test), the scenarios here
// need managers that roll out, stop and fail like workloads.
import assert from 'node:assert/strict';
import { Labels, Manifest, Namespaces, type KymaObject, type ManifestObject, type State } from '../../../src/api/operator/index.js';
import { KubeletSimulator } from '../../../src/landscape/kubelet.js';
import { startModuleOperators, type ModuleOperators } from '../../../src/landscape/module-operators.js';
import { findObject } from '../../../src/runtime/client/index.js';
import type { Client } from '../../../src/runtime/client/interface.js';
import type { ControlPlaneConfig } from '../../../src/controlplane/index.js';
import { namespacedName } from '../../../src/kube/keys.js';
import type { KindRef, KubeObject } from '../../../src/kube/object.js';
import { startKymaEnv, waitFor, NS, type KymaEnv } from '../../lifecycle/kyma-env.js';
import { countReconciles } from '../../support/metrics.js';
import { sampleCrd } from './template-operator.js';
import { sleep } from '../../../src/util/sleep.js';

export { NS, waitFor };

export const DEPLOYMENT: KindRef = { apiVersion: 'apps/v1', kind: 'Deployment' };
export const STATEFULSET: KindRef = { apiVersion: 'apps/v1', kind: 'StatefulSet' };
/** The default CR's name, as upstream's template-operator names it. */
export const MODULE_CR_NAME = 'sample-yaml';

export function sampleKind(module: string): KindRef {
  return { apiVersion: `${module}.modules.test/v1alpha1`, kind: 'Sample' };
}

/** The module's manager: its name carries the version, so an upgrade replaces it (upstream's older/newer Deployment names). */
export function managerName(module: string, version: string): string {
  return `${module}-manager-${version.replace(/\./g, '-')}`;
}

export function moduleNamespace(module: string): string {
  return `${module}-system`;
}

/** The default CR a template carries in `spec.data`. */
export function defaultCR(module: string): Record<string, unknown> {
  const k = sampleKind(module);
  return { apiVersion: k.apiVersion, kind: k.kind, metadata: { name: MODULE_CR_NAME }, spec: { greeting: 'hello' } };
}

export interface ModuleShape {
  manager?: 'Deployment' | 'StatefulSet';
  /**
   * A manager that cannot start (upstream's misconfigured image): its pods select a node that does
   * not exist, so they stay Pending. The embedded landscape pulls no images.
   */
  misconfigured?: boolean;
}

/** The objects of one module version. */
export function moduleObjects(module: string, version: string, shape: ModuleShape = {}): KubeObject[] {
  const k = sampleKind(module);
  const group = k.apiVersion.split('/')[0] ?? '';
  const labels = { app: `${module}-manager` };
  const podSpec = { containers: [{ name: 'manager', image: `example.test/${module}:${version}` }], ...(shape.misconfigured ? { nodeSelector: { 'example.test/no-such-node': 'true' } } : {}) };
  const manager: KubeObject =
    shape.manager === 'StatefulSet'
      ? { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: managerName(module, version), namespace: moduleNamespace(module) }, spec: { replicas: 1, serviceName: module, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } } }
      : { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: managerName(module, version), namespace: moduleNamespace(module) }, spec: { replicas: 1, progressDeadlineSeconds: 600, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } } };
  return [
    sampleCrd({ group }),
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: moduleNamespace(module) } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${module}-config`, namespace: moduleNamespace(module) }, data: { version } },
    manager,
  ];
}

export interface ParityEnv extends KymaEnv {
  operators: ModuleOperators;
  /** How often the controllers took a key up to reconcile it (`kyma` / `manifest`, `namespace/name`). */
  reconciles(controller: string, key: string): number;
  /** Module shapes by module name (default: a Deployment manager). */
  shapes: Map<string, ModuleShape>;
  kymaState(name: string): Promise<State | undefined>;
  moduleEntry(kyma: string, module: string): Promise<NonNullable<NonNullable<KymaObject['status']>['modules']>[number] | undefined>;
  manifestOf(kyma: string, module: string): Promise<ManifestObject | undefined>;
  /** The module CR in the runtime, or undefined. */
  moduleCR(remote: Client, module: string): Promise<KubeObject | undefined>;
}

/**
 * Starts the landscape. Every published module's manifest carries `moduleObjects` (through the
 * harness fetcher's `extraObjects`, next to its `<module>-info` ConfigMap), shaped by `shapes`.
 */
export async function startParityEnv(config: Partial<ControlPlaneConfig> = {}): Promise<ParityEnv> {
  const base = await startKymaEnv(config);
  const shapes = new Map<string, ModuleShape>();
  const publish: KymaEnv['publish'] = async (module, versions, opts) => {
    base.fetcher.extraObjects.set(module, (version) => moduleObjects(module, version, shapes.get(module)));
    await base.publish(module, versions, opts);
  };
  const kubelet = new KubeletSimulator(base.api.server, { readyDelayMs: 50, scanIntervalMs: 50, clusters: (name) => name.startsWith('skr-') });
  kubelet.start();
  const operators = startModuleOperators({ server: base.api.server, delayMs: 50, discoverEveryMs: 50 });
  const reconciles = countReconciles(base.lm.manager);
  const env: ParityEnv = {
    ...base,
    publish,
    operators,
    reconciles,
    shapes,
    kymaState: async (name) => (await base.kyma(name)).status?.state,
    moduleEntry: async (kyma, module) => (await base.kyma(kyma)).status?.modules?.find((m) => m.name === module),
    manifestOf: async (kyma, module) => (await base.manifests(kyma)).find((m) => m.metadata.labels?.[Labels.ModuleName] === module),
    moduleCR: (remote, module) => findObject(remote, sampleKind(module), { namespace: Namespaces.Remote, name: MODULE_CR_NAME }),
    async stop() {
      operators.stop();
      await kubelet.stop();
      await base.stop();
    },
  };
  return env;
}

/** A ready Deployment or StatefulSet in the runtime (readyReplicas reached), or undefined. */
export async function managerReady(remote: Client, module: string, version: string, kind: KindRef = DEPLOYMENT): Promise<boolean> {
  const o = await findObject<KubeObject & { status?: { readyReplicas?: number } }>(remote, kind, { namespace: moduleNamespace(module), name: managerName(module, version) });
  return (o?.status?.readyReplicas ?? 0) >= 1;
}

export async function managerExists(remote: Client, module: string, version: string, kind: KindRef = DEPLOYMENT): Promise<boolean> {
  return (await findObject(remote, kind, { namespace: moduleNamespace(module), name: managerName(module, version) })) !== undefined;
}

/**
 * Sets or removes upstream's skip-reconciliation label on a Manifest (SetSkipLabelToManifest), and
 * returns once a pass of the Manifest controller has begun with the change in its cache. A pass that
 * read the Manifest before its watch delivered the label acts on the older copy, as upstream's
 * would; a step that follows at once (stopping a manager, say) must not race that pass. Passes of
 * one key never overlap, so a pass begun after the cache holds the label follows any such pass.
 */
export async function setManifestSkip(env: Pick<ParityEnv, 'kcp' | 'lm' | 'reconciles'>, manifest: ManifestObject, skip: boolean): Promise<void> {
  // The controllers watch the Manifests of the control plane's namespace only.
  assert.equal(manifest.metadata.namespace, NS);
  const key = { namespace: NS, name: manifest.metadata.name ?? '' };
  await env.kcp.patch(Manifest, key, 'merge', { metadata: { labels: { [Labels.SkipReconciliation]: skip ? 'true' : null } } });
  const cached = env.lm.manager.cache<ManifestObject>(Manifest, { namespace: NS });
  await waitFor(`the controllers' cache sees the skip label ${skip ? 'set' : 'removed'}`, () => (cached.get(namespacedName(key))?.metadata.labels?.[Labels.SkipReconciliation] === 'true') === skip);
  const passes = env.reconciles('manifest', namespacedName(key));
  await waitFor('a Manifest pass with the label in the cache', () => env.reconciles('manifest', namespacedName(key)) > passes);
}

/**
 * Upstream's `Consistently`: `check` holds at every poll until the controller took `key` up
 * `passes` more times (proof that the code under test ran while it held); throws when it fails once.
 */
export async function consistently(env: ParityEnv, what: string, check: () => Promise<boolean>, key: { controller: string; name: string }, passes = 3, timeoutMs = 20_000): Promise<void> {
  const ref = `${NS}/${key.name}`;
  const target = env.reconciles(key.controller, ref) + passes + 1;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!(await check())) throw new Error(`did not hold: ${what}`);
    if (env.reconciles(key.controller, ref) >= target) return;
    if (Date.now() > deadline) throw new Error(`${key.controller} ${ref} was not reconciled ${passes} more times while checking: ${what}`);
    await sleep(25);
  }
}
