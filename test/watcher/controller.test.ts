// The Watcher controller against the in-memory landscape: first a KCP without Istio (a listener served
// directly makes Watchers Ready; invalid ones are Error), then Istio's CRDs installed while it runs
// (VirtualServices appear, bound to the default Gateway, and go with their Watchers).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Finalizers, Watcher, type WatcherObject } from '../../src/api/operator/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { clusterRules, namespacedRules, type PolicyRule } from '../../src/cli/install.js';
import { isNotFound } from '../../src/runtime/client/errors.js';
import { findObject } from '../../src/runtime/client/find.js';
import type { Client } from '../../src/runtime/client/interface.js';
import { silentLogger } from '../../src/runtime/log.js';
import { sampleWatcher } from './sample-watcher.js';
import { recordingClient, type RecordedRequest } from '../support/recording-client.js';
import { Manager } from '../../src/runtime/manager.js';
import {
  DEFAULT_LISTENER,
  DEFAULT_WATCHER_NAME,
  defaultWatchers,
  ensureDefaultWatchers,
  MODULE_RESOURCE_EVENTS,
  MODULE_RESOURCES_WATCHER_NAME,
  MODULE_STATUS_EVENTS,
  MODULE_STATUS_WATCHER_NAME,
  setupWatcherController,
  type VirtualServiceObject,
  WATCHER_CONTROLLER_NAME,
} from '../../src/watcher/index.js';
import { type Landscape, startLandscape } from '../support/landscape.js';
import { countReconciles } from '../support/metrics.js';
import { waitFor } from '../support/wait.js';
import { GATEWAY, gateway, ISTIO_CRDS, VIRTUAL_SERVICE } from './istio-crds.js';

const NS = 'kcp-system';
/** A namespace where a second controller runs with a listener that expects an Istio gateway. */
const GATEWAY_NS = 'kcp-gateway';
const ADDRESS = 'https://listener.kcp.test:8443';

let land: Landscape;
let manager: Manager;
let reconciles: (controller: string, key: string) => number;
const stop = new AbortController();
let running: Promise<void>;

/** Every request the controller (and ensureDefaultWatchers) made to the KCP. */
const requests: RecordedRequest[] = [];
/** Status writes of the controller to a Watcher, as noted by the recording client. */
const statusWrites = (name: string): number =>
  requests.filter((r) => r.verb === 'patch' && r.kind.kind === Watcher.kind && r.subresource === 'status' && r.name === name).length;

let kcp: Client;

before(async () => {
  land = await startLandscape({ kcpNamespaces: [GATEWAY_NS] });
  kcp = recordingClient(land.kcp, requests);
  manager = new Manager({ client: kcp, logger: silentLogger, informerBackoff: { initialMs: 20, maxMs: 200 } });
  reconciles = countReconciles(manager);
  setupWatcherController(manager, { namespace: NS, listener: { served: 'direct', address: ADDRESS }, requeueReadyMs: 300, requeueErrorMs: 200 });
  running = manager.start(stop.signal);
  await manager.ready();
});

after(async () => {
  stop.abort();
  await running;
  await land.stop();
});


const getWatcher = (name: string, namespace = NS) => findObject<WatcherObject>(land.kcp, Watcher, { namespace, name });
const condition = (w: WatcherObject | undefined) => w?.status?.conditions?.find((c) => c.type === 'VirtualService');

async function waitWatcher(name: string, what: string, check: (w: WatcherObject) => boolean, namespace = NS): Promise<WatcherObject> {
  return waitFor(`Watcher ${name} ${what}`, async () => {
    const w = await getWatcher(name, namespace);
    return w && check(w) ? w : undefined;
  });
}

async function moreReconciles(name: string, n: number): Promise<void> {
  // One more start than completions: the reconcile that started last may still run.
  const target = reconciles(WATCHER_CONTROLLER_NAME, `${NS}/${name}`) + n + 1;
  await waitFor(`${n} more reconciles of Watcher ${name}`, () => reconciles(WATCHER_CONTROLLER_NAME, `${NS}/${name}`) >= target);
}

test('without Istio, a Watcher gets the finalizer and is Ready; its condition says the listener terminates mTLS itself', async () => {
  await land.kcp.create(sampleWatcher('sample'));
  const w = await waitWatcher('sample', 'is Ready', (x) => x.status?.state === 'Ready');
  assert.ok(w.metadata.finalizers?.includes(Finalizers.Watcher));
  assert.equal(w.status?.observedGeneration, w.metadata.generation);
  const c = condition(w);
  assert.equal(c?.status, 'True');
  assert.equal(c?.reason, 'Ready');
  assert.match(c?.message ?? '', /^no Istio in the KCP: the listener terminates mTLS itself at https:\/\/listener\.kcp\.test:8443/);
});

test('a reconcile that changes nothing writes no status', async () => {
  const before = await waitWatcher('sample', 'is Ready', (x) => x.status?.state === 'Ready');
  const writes = statusWrites('sample');
  assert.ok(writes > 0, 'the Ready status was written through the noted client');
  await moreReconciles('sample', 2);
  const later = await getWatcher('sample');
  assert.equal(statusWrites('sample'), writes, 'no status write');
  assert.equal(later?.metadata.resourceVersion, before.metadata.resourceVersion, 'the Watcher was not written');
  assert.equal(condition(later)?.lastTransitionTime, condition(before)?.lastTransitionTime);
});

test('a Watcher without manager and without the deprecated managed-by label is Error, with a message naming both; the label fixes it', async () => {
  await land.kcp.create(sampleWatcher('no-manager', NS, (w) => delete w.spec.manager));
  const w = await waitWatcher('no-manager', 'is Error', (x) => x.status?.state === 'Error');
  const c = condition(w);
  assert.equal(c?.status, 'False');
  assert.match(c?.message ?? '', /spec\.manager is empty and the deprecated label operator\.kyma-project\.io\/managed-by is missing/);
  await land.kcp.patch(Watcher, { namespace: NS, name: 'no-manager' }, 'merge', { metadata: { labels: { 'operator.kyma-project.io/managed-by': 'legacy-manager' } } });
  const fixed = await waitWatcher('no-manager', 'is Ready', (x) => x.status?.state === 'Ready');
  const fc = condition(fixed);
  assert.equal(fc?.status, 'True');
  assert.notEqual(fc?.lastTransitionTime, undefined);
});

test('a listener that expects an Istio gateway, in a KCP without Istio: the Watcher is Error and says why', async () => {
  const other = new Manager({ client: land.kcp, logger: silentLogger, informerBackoff: { initialMs: 20, maxMs: 200 } });
  setupWatcherController(other, { namespace: GATEWAY_NS, listener: { served: 'gateway' }, requeueReadyMs: 300, requeueErrorMs: 200 });
  const ac = new AbortController();
  const run = other.start(ac.signal);
  try {
    await other.ready();
    await land.kcp.create(sampleWatcher('behind-gateway', GATEWAY_NS));
    const w = await waitWatcher('behind-gateway', 'is Error', (x) => x.status?.state === 'Error', GATEWAY_NS);
    assert.match(condition(w)?.message ?? '', /served behind an Istio gateway, but the KCP has no Istio \(CRD virtualservices\.networking\.istio\.io not found\)/);
  } finally {
    ac.abort();
    await run;
  }
});

test('ensureDefaultWatchers creates the three defaults (the API accepts them and the controller makes them Ready) and never overwrites one a user changed', async () => {
  assert.deepEqual(await ensureDefaultWatchers(kcp, NS, DEFAULT_LISTENER), [DEFAULT_WATCHER_NAME, MODULE_RESOURCES_WATCHER_NAME, MODULE_STATUS_WATCHER_NAME]);
  const expected = defaultWatchers(NS, DEFAULT_LISTENER);
  for (const d of expected) {
    const w = await waitWatcher(d.metadata.name ?? '', 'is Ready', (x) => x.status?.state === 'Ready');
    assert.deepEqual(w.spec, d.spec);
    assert.deepEqual(w.metadata.labels, d.metadata.labels);
  }
  await land.kcp.patch(Watcher, { namespace: NS, name: DEFAULT_WATCHER_NAME }, 'merge', { spec: { labelsToWatch: { 'operator.kyma-project.io/watched-by': 'someone-else' } } });
  assert.deepEqual(await ensureDefaultWatchers(kcp, NS, DEFAULT_LISTENER), [], 'nothing to create');
  assert.deepEqual((await getWatcher(DEFAULT_WATCHER_NAME))?.spec.labelsToWatch, { 'operator.kyma-project.io/watched-by': 'someone-else' }, 'the change stays');
  // Deleted (without Istio: nothing to clean up but the finalizer), it comes back on the next call.
  await land.kcp.delete(Watcher, { namespace: NS, name: MODULE_RESOURCES_WATCHER_NAME });
  await waitFor('the deleted default Watcher is gone', async () => !(await getWatcher(MODULE_RESOURCES_WATCHER_NAME)));
  assert.deepEqual(await ensureDefaultWatchers(kcp, NS, DEFAULT_LISTENER), [MODULE_RESOURCES_WATCHER_NAME]);
  // klm-module-status as an earlier version created it (its events went to the resources' manager):
  // only its manager moves to its own; what a user changed in it stays.
  await land.kcp.patch(Watcher, { namespace: NS, name: MODULE_STATUS_WATCHER_NAME }, 'merge', {
    metadata: { labels: { 'operator.kyma-project.io/managed-by': MODULE_RESOURCE_EVENTS } },
    spec: { manager: MODULE_RESOURCE_EVENTS, labelsToWatch: { 'operator.kyma-project.io/managed-by': 'kyma', team: 'a' } },
  });
  assert.deepEqual(await ensureDefaultWatchers(kcp, NS, DEFAULT_LISTENER), [], 'nothing to create');
  const moved = await getWatcher(MODULE_STATUS_WATCHER_NAME);
  assert.equal(moved?.spec.manager, MODULE_STATUS_EVENTS);
  assert.equal(moved?.metadata.labels?.['operator.kyma-project.io/managed-by'], MODULE_STATUS_EVENTS);
  assert.deepEqual(moved?.spec.labelsToWatch, { 'operator.kyma-project.io/managed-by': 'kyma', team: 'a' }, 'the user\'s change stays');
});

// ---- Istio installed into the KCP while the controller runs --------------------------------------

test('Istio installed later: the VirtualService of each Watcher appears, bound to the default Gateway, shaped as upstream', async () => {
  for (const crd of ISTIO_CRDS) await land.kcp.create(crd);
  await waitFor('Istio Gateways are served', async () => (await land.kcp.list(GATEWAY, { namespace: NS })).items.length >= 0);
  await land.kcp.create(gateway('klm-watcher', NS, { 'operator.kyma-project.io/watcher-gateway': 'default' }, ['listener.kcp.test']));
  await land.kcp.create(gateway('unrelated', NS, { app: 'other' }, ['other.kcp.test']));
  const w = await waitWatcher('sample', 'has its VirtualService', (x) => condition(x)?.message === 'VirtualService is configured');
  assert.equal(w.status?.state, 'Ready');
  const vs = await land.kcp.get<VirtualServiceObject>(VIRTUAL_SERVICE, { namespace: NS, name: 'sample' });
  assert.deepEqual(vs.metadata.ownerReferences, [{ apiVersion: Watcher.apiVersion, kind: 'Watcher', name: 'sample', uid: w.metadata.uid }]);
  assert.deepEqual(vs.spec, {
    gateways: [`${NS}/klm-watcher`],
    hosts: ['listener.kcp.test'],
    http: [{ name: `${NS}/sample`, match: [{ uri: { prefix: '/v2/sample-manager/event' } }], route: [{ destination: { host: `sample-listener.${NS}.svc.cluster.local`, port: { number: 9090 } } }] }],
  });
  const klm = await waitFor('the VirtualService of klm-watcher', () => findObject<VirtualServiceObject>(land.kcp, VIRTUAL_SERVICE, { namespace: NS, name: DEFAULT_WATCHER_NAME }));
  assert.deepEqual(klm.spec.http[0].match, [{ uri: { prefix: '/v2/lifecycle-manager/event' } }]);
  assert.deepEqual(klm.spec.http[0].route, [{ destination: { host: `klm-controller-manager-events.${NS}.svc.cluster.local`, port: { number: 8082 } } }]);
});

test('a changed VirtualService is put back', async () => {
  const vs = await land.kcp.get<VirtualServiceObject>(VIRTUAL_SERVICE, { namespace: NS, name: 'sample' });
  await land.kcp.update({ ...vs, spec: { ...vs.spec, hosts: ['hijacked.example.com'] } } as KubeObject);
  await waitFor('the VirtualService hosts are restored', async () => {
    const now = await land.kcp.get<VirtualServiceObject>(VIRTUAL_SERVICE, { namespace: NS, name: 'sample' });
    return now.spec.hosts.length === 1 && now.spec.hosts[0] === 'listener.kcp.test';
  });
});

test('a Watcher whose selector matches no Gateway is Error, with a message naming the selector', async () => {
  await land.kcp.create(sampleWatcher('no-gateway', NS, (w) => (w.spec.gateway.selector = { matchLabels: { 'operator.kyma-project.io/watcher-gateway': 'missing' } })));
  const w = await waitWatcher('no-gateway', 'is Error', (x) => x.status?.state === 'Error');
  assert.equal(condition(w)?.status, 'False');
  assert.match(condition(w)?.message ?? '', /no Istio Gateway in namespace kcp-system matches the selector "operator\.kyma-project\.io\/watcher-gateway=missing"/);
  assert.equal(await findObject(land.kcp, VIRTUAL_SERVICE, { namespace: NS, name: 'no-gateway' }), undefined, 'no VirtualService');
});

test('deleting a Watcher removes its VirtualService, then the finalizer', async () => {
  await land.kcp.delete(Watcher, { namespace: NS, name: 'sample' });
  await waitFor('the Watcher is gone', async () => !(await getWatcher('sample')));
  await assert.rejects(land.kcp.get(VIRTUAL_SERVICE, { namespace: NS, name: 'sample' }), (e: unknown) => isNotFound(e));
  assert.ok(await findObject(land.kcp, VIRTUAL_SERVICE, { namespace: NS, name: DEFAULT_WATCHER_NAME }), 'the other Watchers keep theirs');
});

function allows(rules: PolicyRule[], group: string, resource: string, verb: string): boolean {
  return rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));
}

test('every request the Watcher controller and ensureDefaultWatchers made is allowed by the RBAC kcp install applies', async () => {
  const denied = new Set<string>();
  const used = new Set<string>();
  for (const r of requests) {
    const info = await land.kcp.resourceFor(r.kind);
    const resource = r.subresource ? `${info.resource}/${r.subresource}` : info.resource;
    used.add(`${r.verb} ${info.group || 'core'}/${resource}`);
    const ok = info.namespaced && r.namespace === NS ? allows(namespacedRules(), info.group, resource, r.verb) : !info.namespaced && allows(clusterRules(), info.group, resource, r.verb);
    if (!ok) denied.add(`${r.verb} ${info.group || 'core'}/${resource} in ${r.namespace ?? 'the cluster'}`);
  }
  assert.deepEqual([...denied], [], 'requests the RBAC would deny');
  // The scenarios reached the writes the RBAC grants for (else the check above proves little).
  for (const expected of ['create operator.kyma-project.io/watchers', 'update operator.kyma-project.io/watchers', 'patch operator.kyma-project.io/watchers/status', 'get apiextensions.k8s.io/customresourcedefinitions', 'list networking.istio.io/gateways', 'create networking.istio.io/virtualservices', 'update networking.istio.io/virtualservices', 'delete networking.istio.io/virtualservices']) {
    assert.ok(used.has(expected), `the scenarios made "${expected}" (made: ${[...used].sort().join('; ')})`);
  }
});
