// Routing of watcher events to the lifecycle manager's queues: only the sending runtime's Kyma or
// Manifests, and nothing for status events about the runtime Kyma itself (the manager's own mirror).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Labels, type KymaObject, type ManifestObject } from '../../src/api/operator/index.js';
import { Store } from '../../src/runtime/cache/store.js';
import { refKey, refOf } from '../../src/lifecycle/manifest/inventory.js';
import { objectKeyOf, WatcherEventRouter } from '../../src/lifecycle/watcher-events.js';

const NS = 'kcp-system';

function router() {
  const kymas = new Store<KymaObject>();
  const manifests = new Store<ManifestObject>();
  for (const name of ['rt-a', 'rt-b']) {
    kymas.upsert({ apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Kyma', metadata: { name, namespace: NS, labels: { [Labels.RuntimeID]: name } }, spec: { channel: 'regular' } } as KymaObject);
    for (const module of ['one', 'two']) {
      manifests.upsert({
        apiVersion: 'operator.kyma-project.io/v1beta2',
        kind: 'Manifest',
        metadata: { name: `${name}-${module}`, namespace: NS, labels: { [Labels.KymaName]: name } },
        spec: {
          remote: true,
          install: { name: module, source: {} },
          // The module's default CR.
          resource: { apiVersion: `${module}.example/v1`, kind: 'Settings', metadata: { name: 'default', namespace: 'kyma-system' } },
        },
        // What it applied: its manager Deployment.
        status: { synced: [{ group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'kyma-system', name: `${module}-manager` }] },
      } as unknown as ManifestObject);
    }
  }
  const r = new WatcherEventRouter(NS, kymas, manifests);
  const manifestKeys: string[] = [];
  r.manifestSource.on('key', (k) => void manifestKeys.push(String(k)));
  return { r, manifestKeys, manifests };
}

const gvk = (group: string, kind: string, watched?: { namespace: string; name: string }) => ({ watchedGvk: { group, kind }, ...(watched ? { watched } : {}) });

describe('watcher event routing', () => {
  it('wakes the Manifests of the sending runtime only for a module resource', () => {
    const { r, manifestKeys } = router();
    assert.equal(r.moduleResourceChanged({ runtimeId: 'rt-a', event: gvk('apps', 'Deployment') }), 'enqueued');
    assert.deepEqual(manifestKeys.sort(), [`${NS}/rt-a-one`, `${NS}/rt-a-two`]);
  });

  it('ignores status events about the runtime Kyma, which the lifecycle manager mirrors itself', () => {
    const { r, manifestKeys } = router();
    assert.equal(r.moduleResourceChanged({ runtimeId: 'rt-a', event: gvk('operator.kyma-project.io', 'Kyma') }), 'ignored');
    assert.deepEqual(manifestKeys, []);
    // In the same window, a module CR of the same runtime does wake its Manifests.
    assert.equal(r.moduleResourceChanged({ runtimeId: 'rt-a', event: gvk('one.example', 'One') }), 'enqueued');
    assert.equal(manifestKeys.length, 2);
  });

  it('refuses events of a runtime it does not know', () => {
    const { r, manifestKeys } = router();
    assert.equal(r.moduleResourceChanged({ runtimeId: 'rt-x', event: gvk('operator.kyma-project.io', 'Kyma') }), 'unknown-runtime');
    assert.equal(r.moduleResourceChanged({ runtimeId: 'rt-x', event: gvk('apps', 'Deployment') }), 'unknown-runtime');
    assert.deepEqual(manifestKeys, []);
  });

  it('wakes only the Manifest whose inventory or default CR names the object, and all of the Kyma\'s when none does', () => {
    const { r, manifestKeys } = router();
    r.moduleResourceChanged({ runtimeId: 'rt-a', event: gvk('apps', 'Deployment', { namespace: 'kyma-system', name: 'two-manager' }) });
    assert.deepEqual(manifestKeys, [`${NS}/rt-a-two`], 'the manager Deployment of module two');
    manifestKeys.length = 0;
    r.moduleResourceChanged({ runtimeId: 'rt-a', event: gvk('one.example', 'Settings', { namespace: 'kyma-system', name: 'default' }) });
    assert.deepEqual(manifestKeys, [`${NS}/rt-a-one`], 'the default CR of module one');
    manifestKeys.length = 0;
    r.moduleResourceChanged({ runtimeId: 'rt-a', event: gvk('apps', 'Deployment', { namespace: 'kyma-system', name: 'not-in-any-inventory' }) });
    assert.deepEqual(manifestKeys.sort(), [`${NS}/rt-a-one`, `${NS}/rt-a-two`], 'an object no inventory names yet');
  });

  it('marks the owner of a status change for a readiness read, and the owner of a spec change for a read-back', () => {
    const { r, manifestKeys } = router();
    assert.equal(r.moduleStatusChanged({ runtimeId: 'rt-a', event: gvk('apps', 'Deployment', { namespace: 'kyma-system', name: 'two-manager' }) }), 'enqueued');
    assert.deepEqual(manifestKeys, [`${NS}/rt-a-two`]);
    assert.equal(r.driftChecks.take(`${NS}/rt-a-two`), false, 'a status change asks for no read-back');
    assert.deepEqual([...(r.readinessChecks.take(`${NS}/rt-a-two`) ?? [])], ['apps/Deployment/kyma-system/two-manager'], 'it asks for readiness, naming the object');
    // An event without an object asks for every object (the reconciler reads them all back).
    r.moduleStatusChanged({ runtimeId: 'rt-a', event: gvk('apps', 'Deployment') });
    assert.deepEqual([...(r.readinessChecks.take(`${NS}/rt-a-one`) ?? [])], ['*']);
    r.readinessChecks.take(`${NS}/rt-a-two`);
    r.moduleResourceChanged({ runtimeId: 'rt-a', event: gvk('apps', 'Deployment', { namespace: 'kyma-system', name: 'two-manager' }) });
    assert.equal(r.readinessChecks.take(`${NS}/rt-a-two`), undefined);
    assert.equal(r.driftChecks.take(`${NS}/rt-a-two`), true, 'a spec change asks for a read-back');
    // The runtime Kyma's status (the lifecycle manager's own mirror) is dropped here too.
    manifestKeys.length = 0;
    assert.equal(r.moduleStatusChanged({ runtimeId: 'rt-a', event: gvk('operator.kyma-project.io', 'Kyma') }), 'ignored');
    assert.equal(r.moduleStatusChanged({ runtimeId: 'rt-x', event: gvk('apps', 'Deployment') }), 'unknown-runtime');
    assert.deepEqual(manifestKeys, []);
  });

  it('hands the keys of Manifests under way (reconciled before) to the first lane, and new ones to the other', () => {
    const { r, manifestKeys, manifests } = router();
    // rt-a-one has been reconciled (it has a state); rt-a-two has not.
    const one = manifests.get(`${NS}/rt-a-one`) as ManifestObject;
    manifests.upsert({ ...one, status: { ...one.status, state: 'Processing' } } as ManifestObject);
    const underWay: string[] = [];
    r.manifestUnderWaySource.on('key', (k) => void underWay.push(String(k)));
    r.moduleStatusChanged({ runtimeId: 'rt-a', event: gvk('apps', 'Deployment', { namespace: 'kyma-system', name: 'one-manager' }) });
    assert.deepEqual(underWay, [`${NS}/rt-a-one`]);
    assert.deepEqual(manifestKeys, []);
    // An object no inventory names goes to every Manifest of the Kyma, each in its lane.
    r.moduleStatusChanged({ runtimeId: 'rt-a', event: gvk('apps', 'Deployment', { namespace: 'kyma-system', name: 'three-manager' }) });
    assert.deepEqual(underWay, [`${NS}/rt-a-one`, `${NS}/rt-a-one`]);
    assert.deepEqual(manifestKeys, [`${NS}/rt-a-two`]);
    assert.deepEqual([...(r.readinessChecks.take(`${NS}/rt-a-two`) ?? [])], ['apps/Deployment/kyma-system/three-manager'], 'marked all the same');
    // Spec events too.
    r.moduleResourceChanged({ runtimeId: 'rt-a', event: gvk('apps', 'Deployment', { namespace: 'kyma-system', name: 'two-manager' }) });
    assert.deepEqual(manifestKeys, [`${NS}/rt-a-two`, `${NS}/rt-a-two`]);
    assert.equal(underWay.length, 2);
  });

  it('finds the Manifest whose pass here applied or is applying the object before any inventory names it, and hands it to the first lane', () => {
    const { r, manifestKeys } = router();
    const underWay: string[] = [];
    r.manifestUnderWaySource.on('key', (k) => void underWay.push(String(k)));
    const counted: string[] = [];
    r.onManifestKey = (found, lane) => void counted.push(`${found} ${lane}`);
    // Neither Manifest has a state; the reconciler is applying module two's new Deployment.
    const asked: string[] = [];
    r.applied = (manifest, object) => {
      asked.push(`${manifest.metadata.name} ${object}`);
      return manifest.metadata.name === 'rt-a-two' && object === 'apps/Deployment/kyma-system/two-webhook';
    };
    r.moduleStatusChanged({ runtimeId: 'rt-a', event: gvk('apps', 'Deployment', { namespace: 'kyma-system', name: 'two-webhook' }) });
    assert.deepEqual(underWay, [`${NS}/rt-a-two`], 'only its Manifest, in the first lane');
    assert.deepEqual(manifestKeys, []);
    assert.deepEqual([...(r.readinessChecks.take(`${NS}/rt-a-two`) ?? [])], ['apps/Deployment/kyma-system/two-webhook']);
    assert.equal(r.readinessChecks.take(`${NS}/rt-a-one`), undefined, 'the other Manifest is not marked');
    assert.ok(asked.includes('rt-a-one apps/Deployment/kyma-system/two-webhook'), 'the other Manifest was asked about too');
    // An object nothing names still goes to every Manifest of the Kyma, in their own lanes.
    r.moduleStatusChanged({ runtimeId: 'rt-a', event: gvk('apps', 'Deployment', { namespace: 'kyma-system', name: 'three-manager' }) });
    assert.deepEqual(manifestKeys.sort(), [`${NS}/rt-a-one`, `${NS}/rt-a-two`]);
    assert.deepEqual(counted, ['owner first', 'all normal', 'all normal']);
  });

  it('names an event\'s object as the Manifest reconciler names what it applies (namespaced, cluster-scoped, core group)', () => {
    const applied = [
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'one-manager', namespace: 'kyma-system' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one-config', namespace: 'kyma-system' } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'one-manager' } },
    ];
    // What the runtime's webhook sends for them: the group without the version, '' for the core group and for no namespace.
    const sent = [gvk('apps', 'Deployment', { namespace: 'kyma-system', name: 'one-manager' }), gvk('', 'ConfigMap', { namespace: 'kyma-system', name: 'one-config' }), gvk('rbac.authorization.k8s.io', 'ClusterRole', { namespace: '', name: 'one-manager' })];
    assert.deepEqual(
      sent.map((event) => objectKeyOf({ runtimeId: 'rt-a', event })),
      applied.map((o) => refKey(refOf(o))),
    );
  });

  it("hands events about the webhook's own objects to the Kyma, marked, and to no Manifest", () => {
    const { r, manifestKeys } = router();
    const underWay: string[] = [];
    r.manifestUnderWaySource.on('key', (k) => void underWay.push(String(k)));
    const kymaKeys: string[] = [];
    r.kymaSource.on('key', (k) => void kymaKeys.push(String(k)));
    // Its Deployment's status (the common case: it became available).
    assert.equal(r.moduleStatusChanged({ runtimeId: 'rt-a', event: gvk('apps', 'Deployment', { namespace: 'kyma-system', name: 'skr-webhook' }) }), 'enqueued');
    assert.deepEqual(kymaKeys, [`${NS}/rt-a`]);
    assert.equal(r.webhookChecks.take(`${NS}/rt-a`), true);
    assert.equal(r.webhookChecks.take(`${NS}/rt-a`), false, 'the mark is taken once');
    // Another of its objects (a Watcher that sees its Services' changes, say).
    assert.equal(r.moduleResourceChanged({ runtimeId: 'rt-b', event: gvk('', 'Service', { namespace: 'kyma-system', name: 'skr-webhook-metrics' }) }), 'enqueued');
    assert.deepEqual(kymaKeys, [`${NS}/rt-a`, `${NS}/rt-b`]);
    assert.equal(r.webhookChecks.take(`${NS}/rt-b`), true);
    // Same names elsewhere are module objects as any other.
    r.moduleStatusChanged({ runtimeId: 'rt-a', event: gvk('apps', 'Deployment', { namespace: 'default', name: 'skr-webhook' }) });
    assert.equal(kymaKeys.length, 2);
    assert.deepEqual(manifestKeys, [`${NS}/rt-a-one`, `${NS}/rt-a-two`]);
    assert.deepEqual(underWay, []);
    assert.equal(r.kymaEvents.take(`${NS}/rt-a`), false, 'not marked as a runtime Kyma event');
    assert.equal(r.moduleStatusChanged({ runtimeId: 'rt-x', event: gvk('apps', 'Deployment', { namespace: 'kyma-system', name: 'skr-webhook' }) }), 'unknown-runtime');
  });

  it("puts a CA rotation's wake-all on its own channel, apart from the events (which go first)", () => {
    const { r } = router();
    const events: string[] = [];
    r.kymaSource.on('key', (k) => void events.push(String(k)));
    const wakes: string[] = [];
    r.kymaWakeSource.on('key', (k) => void wakes.push(String(k)));
    r.wakeAll();
    assert.deepEqual(wakes.sort(), [`${NS}/rt-a`, `${NS}/rt-b`]);
    assert.equal(r.runtimeChecks.take(`${NS}/rt-a`), true);
    assert.equal(r.kymaChanged({ runtimeId: 'rt-b', event: gvk('operator.kyma-project.io', 'Kyma', { namespace: 'kyma-system', name: 'default' }) }), 'enqueued');
    assert.deepEqual(events, [`${NS}/rt-b`]);
    assert.equal(r.kymaEvents.take(`${NS}/rt-b`), true);
  });
});
