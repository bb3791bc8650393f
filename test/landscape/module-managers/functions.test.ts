// The demo functions module manager against the embedded API server, through its own HTTPS client:
// a ModuleConfig becomes a SyncResource owned by it, a changed module CR is followed, an update that
// changes nothing it reads writes nothing, a ModuleConfig without a resource leaves the last
// SyncResource, and garbage collection removes the SyncResource with its ModuleConfig. The manager
// runs as a ServiceAccount bound to deploy/manifests/module-manager-rbac.yaml, which the server
// enforces: nothing it asked was refused.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { Kyma, Labels, ModuleConfig, type ModuleConfigObject, SyncResource, type SyncResourceObject, validateSyncResource } from '../../../src/api/operator/index.js';
import { type RunningApiServer, startApiServer } from '../../../src/apiserver/server.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { installControlPlane } from '../../../src/landscape/control-plane.js';
import {
  configMapData,
  FUNCTIONS_MODULE_MANAGER,
  functionsSyncResource,
  type RunningModuleManager,
  startFunctionsModuleManager,
} from '../../../src/landscape/module-managers/functions.js';
import { type Client, clientFromKubeconfig, findObject, isForbidden } from '../../../src/runtime/client/index.js';
import { silentLogger } from '../../../src/runtime/log.js';
import { recordingClient, type RecordedRequest } from '../../support/recording-client.js';
import { forbiddenAnswers, serviceAccountKubeconfig } from '../../support/service-account.js';
import { waitFor } from '../../support/wait.js';

const NS = 'kcp-system';
const MANAGER_NS = 'functions-system';
const MANAGER_SA = 'functions-module-manager';

/** The shipped ClusterRole, and the manager's namespace, ServiceAccount and RoleBinding from its example. */
function managerRbac(): KubeObject[] {
  const [role] = yaml.loadAll(readFileSync(`${root}deploy/manifests/module-manager-rbac.yaml`, 'utf8')) as KubeObject[];
  return [
    role,
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: MANAGER_NS } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: MANAGER_SA, namespace: MANAGER_NS } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: MANAGER_SA, namespace: NS },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name ?? '' },
      subjects: [{ kind: 'ServiceAccount', name: MANAGER_SA, namespace: MANAGER_NS }],
    } as KubeObject,
  ];
}
const root = fileURLToPath(new URL('../../../../', import.meta.url));

function moduleConfig(kyma: string, spec: Record<string, unknown> | undefined, extraLabels: Record<string, string> = {}): ModuleConfigObject {
  return {
    apiVersion: ModuleConfig.apiVersion,
    kind: ModuleConfig.kind,
    metadata: { name: `${kyma}-functions`, namespace: NS, labels: { [Labels.KymaName]: kyma, [Labels.ModuleName]: 'functions', ...extraLabels } },
    spec: {
      kyma,
      module: 'functions',
      ...(spec ? { resource: { apiVersion: 'functions.demo.example/v1alpha1', kind: 'Functions', metadata: { name: 'default', namespace: 'kyma-system' }, spec } } : {}),
    },
  };
}

function configMapOf(sr: SyncResourceObject): KubeObject & { data?: Record<string, string> } {
  assert.equal(sr.spec.items.length, 1);
  return sr.spec.items[0].resource as KubeObject & { data?: Record<string, string> };
}

describe('configMapData and functionsSyncResource', () => {
  it('mirror the spec: strings as they are, other values as JSON, keys a ConfigMap cannot hold left out', () => {
    assert.deepEqual(configMapData({ logLevel: 'debug', defaultReplicas: 2, enabled: false, runtimes: ['nodejs20'], limits: { cpu: '1' }, none: null, 'bad key': 'x' }), {
      defaultReplicas: '2',
      enabled: 'false',
      limits: '{"cpu":"1"}',
      logLevel: 'debug',
      none: 'null',
      runtimes: '["nodejs20"]',
    });
    assert.deepEqual(configMapData(undefined), {});
    assert.deepEqual(configMapData('text'), {});
  });

  it('no resource in the ModuleConfig: no SyncResource to write', () => {
    assert.equal(functionsSyncResource(moduleConfig('k0', undefined)), undefined);
  });
});

describe('the functions module manager', () => {
  let server: RunningApiServer;
  let admin: Client;
  let own: Client;
  let running: RunningModuleManager;
  const requests: RecordedRequest[] = [];
  let refusedBefore = 0;
  /** Keys the manager started reconciling, in order. */
  const reconciled: string[] = [];

  const getSync = (kyma: string) => findObject<SyncResourceObject>(admin, SyncResource, { namespace: NS, name: `${kyma}-functions` });
  const appliesTo = (kyma: string) => requests.filter((r) => r.verb === 'patch' && r.kind.kind === 'SyncResource' && r.name === `${kyma}-functions`).length;

  /**
   * Waits until the manager's cache holds the SyncResource of `kyma` as the server has it and nothing is
   * queued or in flight: a reconcile of that Kyma after this is caused by what the test does next.
   */
  async function settled(kyma: string): Promise<SyncResourceObject> {
    const current = await waitFor(`the SyncResource of ${kyma}`, () => getSync(kyma));
    const cached = running.manager.cache<SyncResourceObject>(SyncResource, { namespace: NS, labelSelector: `${Labels.ModuleName}=functions` });
    await waitFor(`the manager to be idle with ${kyma}'s SyncResource in its cache`, () => {
      const q = running.controller.queue;
      return cached.get(`${NS}/${kyma}-functions`)?.metadata.resourceVersion === current.metadata.resourceVersion && q.length === 0 && q.inFlight === 0 && q.delayed === 0;
    });
    return current;
  }

  before(async () => {
    server = await startApiServer({ port: 0 });
    const kubeconfig = server.clusterAccess('default').kubeconfig;
    admin = clientFromKubeconfig(kubeconfig, { qps: 0 });
    await installControlPlane(server, admin);
    // The manager runs as its own ServiceAccount, bound to the shipped ClusterRole in the KCP
    // namespace as deploy/manifests/module-manager-rbac.yaml's example binds it: the server enforces it.
    for (const o of managerRbac()) await admin.apply(o, { fieldManager: 'test', force: true });
    own = clientFromKubeconfig(await serviceAccountKubeconfig(server, 'default', MANAGER_NS, MANAGER_SA), { qps: 0 });
    refusedBefore = await forbiddenAnswers(server);
    running = await startFunctionsModuleManager({ client: recordingClient(own, requests), logger: silentLogger });
    running.controller.onReconcileStart = (key) => reconciled.push(key);
  });
  after(async () => {
    await running?.stop();
    own?.close();
    admin?.close();
    await server?.stop();
  });

  it('answers a ModuleConfig with a SyncResource it controls, carrying the CR spec as a ConfigMap', async () => {
    const config = await admin.create(moduleConfig('k1', { defaultReplicas: 1, logLevel: 'info', runtimes: ['nodejs20', 'python312'] }));
    const sr = await waitFor('the SyncResource of k1', () => getSync('k1'));
    assert.deepEqual(validateSyncResource(sr), []);
    assert.deepEqual(sr.metadata.labels, { [Labels.KymaName]: 'k1', [Labels.ModuleName]: 'functions' });
    assert.deepEqual(sr.metadata.ownerReferences, [{ apiVersion: ModuleConfig.apiVersion, kind: 'ModuleConfig', name: 'k1-functions', uid: config.metadata.uid, controller: true }]);
    assert.equal(sr.spec.kyma, 'k1');
    assert.equal(sr.spec.module, 'functions');
    assert.deepEqual(
      sr.spec.items.map((i) => [i.name, i.strategy]),
      [['functions-config', 'CreateAndSync']],
    );
    assert.deepEqual(configMapOf(sr), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'functions-config', namespace: 'kyma-system', labels: { 'app.kubernetes.io/managed-by': 'functions-module-manager' } },
      data: { defaultReplicas: '1', logLevel: 'info', runtimes: '["nodejs20","python312"]' },
    });
    assert.ok(sr.metadata.managedFields?.some((f) => f.manager === FUNCTIONS_MODULE_MANAGER && f.operation === 'Apply'), 'written with server-side apply by its own field manager');
  });

  it('follows a change of the module CR\'s spec', async () => {
    await admin.patch(ModuleConfig, { namespace: NS, name: 'k1-functions' }, 'merge', { spec: { resource: { spec: { defaultReplicas: 3, logLevel: null, runtimes: ['nodejs22'] } } } });
    const sr = await waitFor('the SyncResource of k1 to follow', async () => {
      const s = await getSync('k1');
      return s && configMapOf(s).data?.defaultReplicas === '3' ? s : undefined;
    });
    assert.deepEqual(configMapOf(sr).data, { defaultReplicas: '3', runtimes: '["nodejs22"]' });
  });

  it('writes nothing for an update of the ModuleConfig that does not change the SyncResource (a label added)', async () => {
    const before = await settled('k1');
    const appliesBefore = appliesTo('k1');
    const startsBefore = reconciled.length;

    await admin.patch(ModuleConfig, { namespace: NS, name: 'k1-functions' }, 'merge', { metadata: { labels: { 'example.com/touched': 'true' } } });
    // A second ModuleConfig after it: its events come through the same watch, after the label change, and
    // the manager has one worker, so once k2's SyncResource exists the label change of k1 was handled.
    await admin.create(moduleConfig('k2', { defaultReplicas: 2 }));
    await waitFor('the SyncResource of k2', () => getSync('k2'));

    const order = reconciled.slice(startsBefore);
    assert.ok(order.includes(`${NS}/k1-functions`), `k1 was reconciled after the label change (reconciled: ${order.join(', ')})`);
    assert.ok(order.indexOf(`${NS}/k1-functions`) < order.indexOf(`${NS}/k2-functions`), `k1 before k2 (reconciled: ${order.join(', ')})`);
    assert.equal(appliesTo('k1'), appliesBefore, 'no write of k1\'s SyncResource');
    assert.equal((await getSync('k1'))?.metadata.resourceVersion, before.metadata.resourceVersion);
  });

  it('leaves the last SyncResource when the ModuleConfig holds no resource (the module CR is not in the runtime)', async () => {
    const before = await settled('k2');
    const startsBefore = reconciled.length;
    await admin.patch(ModuleConfig, { namespace: NS, name: 'k2-functions' }, 'merge', { spec: { resource: null } });
    assert.equal((await admin.get<ModuleConfigObject>(ModuleConfig, { namespace: NS, name: 'k2-functions' })).spec.resource, undefined);
    await admin.create(moduleConfig('k3', { defaultReplicas: 3 }));
    await waitFor('the SyncResource of k3', () => getSync('k3'));
    const order = reconciled.slice(startsBefore);
    assert.ok(order.indexOf(`${NS}/k2-functions`) >= 0 && order.indexOf(`${NS}/k2-functions`) < order.indexOf(`${NS}/k3-functions`), `k2 handled before k3 (reconciled: ${order.join(', ')})`);
    const after = await getSync('k2');
    assert.equal(after?.metadata.resourceVersion, before.metadata.resourceVersion);
    assert.deepEqual(after && configMapOf(after).data, { defaultReplicas: '2' });
  });

  it('writes a SyncResource deleted by someone else again', async () => {
    const old = await waitFor('the SyncResource of k3', () => getSync('k3'));
    await admin.delete(SyncResource, { namespace: NS, name: 'k3-functions' });
    const again = await waitFor('the SyncResource of k3 written again', async () => {
      const s = await getSync('k3');
      return s && s.metadata.uid !== old.metadata.uid ? s : undefined;
    });
    assert.deepEqual(configMapOf(again).data, { defaultReplicas: '3' });
  });

  it('loses the SyncResource with the ModuleConfig (garbage collection)', async () => {
    await admin.delete(ModuleConfig, { namespace: NS, name: 'k1-functions' });
    await waitFor('the SyncResource of k1 to be gone', async () => (await getSync('k1')) === undefined);
    assert.ok(await getSync('k2'), 'other Kymas keep theirs');
  });

  it('was refused nothing by the server enforcing the module managers\' ClusterRole, and made only requests it allows', async () => {
    assert.equal((await forbiddenAnswers(server)) - refusedBefore, 0, 'no request of the manager was refused');
    // Control: the manager's identity is the restricted one (it may not touch a Kyma).
    await assert.rejects(own.list(Kyma, { namespace: NS }), (e: unknown) => isForbidden(e));
    const [role] = yaml.loadAll(readFileSync(`${root}deploy/manifests/module-manager-rbac.yaml`, 'utf8')) as { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] }[];
    const denied = new Set<string>();
    const made = new Set<string>();
    for (const r of requests) {
      const info = await admin.resourceFor(r.kind);
      const resource = r.subresource ? `${info.resource}/${r.subresource}` : info.resource;
      const what = `${r.verb} ${info.group || 'core'}/${resource} in ${r.namespace ?? 'all namespaces'}`;
      made.add(what);
      const allowed = r.namespace === NS && role.rules.some((rule) => rule.apiGroups.includes(info.group) && rule.resources.includes(resource) && rule.verbs.includes(r.verb));
      if (!allowed) denied.add(what);
    }
    assert.deepEqual([...denied], []);
    for (const expected of ['list operator.kyma-project.io/moduleconfigs', 'watch operator.kyma-project.io/moduleconfigs', 'patch operator.kyma-project.io/syncresources']) {
      assert.ok(made.has(`${expected} in ${NS}`), `made "${expected}" (made: ${[...made].join('; ')})`);
    }
  });
});
