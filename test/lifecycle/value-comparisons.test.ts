// "Changed?" is decided by value: each comparison the lifecycle manager makes before a write gives
// the same answer for an equal object whose keys come in another order (as a real kube-apiserver
// returns custom resources: keys sorted), and still sees a change of value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Kyma, type KymaObject, type KymaStatus, Manifest, type ManifestObject, ModuleReleaseMeta, type ModuleReleaseMetaObject, ModuleTemplate, type ModuleTemplateObject, Namespaces } from '../../src/api/operator/index.js';
import { desiredCatalog } from '../../src/lifecycle/catalog/sync.js';
import { buildManifest, manifestUpToDate } from '../../src/lifecycle/kyma/manifest-builder.js';
import { statusFingerprint } from '../../src/lifecycle/kyma/status.js';
import { hashObjects } from '../../src/lifecycle/manifest/render.js';
import { mirrorStatus } from '../../src/lifecycle/remote/kyma.js';
import type { Client } from '../../src/runtime/client/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { reversedKeys } from '../support/reorder.js';

const NS = Namespaces.ControlPlane;

const kyma: KymaObject = { apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: 'k1', namespace: NS, uid: 'uid-k1' }, spec: { channel: 'regular', modules: [{ name: 'keda' }] } };

const template: ModuleTemplateObject = {
  apiVersion: ModuleTemplate.apiVersion,
  kind: ModuleTemplate.kind,
  metadata: { name: 'keda-1.0.0', namespace: NS, labels: { 'operator.kyma-project.io/module-name': 'keda' } },
  spec: {
    moduleName: 'keda',
    version: '1.0.0',
    resources: [{ name: 'rawManifest', link: 'https://modules.test/keda/1.0.0.yaml' }],
    data: { apiVersion: 'operator.kyma-project.io/v1alpha1', kind: 'Keda', metadata: { name: 'default', namespace: 'kyma-system' }, spec: { replicas: 1, logging: { level: 'info' } } },
  },
};

const status: KymaStatus = {
  state: 'Ready',
  activeChannel: 'regular',
  lastOperation: { operation: 'kyma is ready', lastUpdateTime: '2026-01-01T00:00:00Z' },
  conditions: [{ type: 'Modules', status: 'True', reason: 'Ready', message: 'modules are ready', lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 1 }],
  modules: [{ name: 'keda', version: '1.0.0', channel: 'regular', state: 'Ready', manifest: { apiVersion: Manifest.apiVersion, kind: Manifest.kind, metadata: { name: 'k1-keda', namespace: NS } } }],
};

test('Kyma status: the fingerprint that decides the KCP status write ignores key order, not values', () => {
  assert.equal(statusFingerprint(reversedKeys(status)), statusFingerprint(status));
  assert.notEqual(statusFingerprint({ ...status, state: 'Processing' }), statusFingerprint(status));
  assert.notEqual(statusFingerprint(reversedKeys({ ...status, modules: [{ ...status.modules![0], version: '1.1.0' }] })), statusFingerprint(status));
});

test('runtime Kyma status: mirrored only when it differs by value', async () => {
  const patches: unknown[] = [];
  const remote = { patch: (...args: unknown[]) => Promise.resolve(patches.push(args)) } as unknown as Client;
  const remoteKyma = (s: KymaStatus): KymaObject => ({ ...kyma, metadata: { name: 'default', namespace: Namespaces.Remote }, status: s });
  const signal = new AbortController().signal;
  await mirrorStatus(remote, remoteKyma(reversedKeys(status)), status, signal);
  assert.equal(patches.length, 0, 'the same status with its keys in another order is not written');
  await mirrorStatus(remote, remoteKyma(reversedKeys({ ...status, state: 'Processing' })), status, signal);
  assert.equal(patches.length, 1, 'a different status is written');
});

test('Manifest: up to date (no apply) when the stored one equals the built one by value', () => {
  const desired = buildManifest({ kyma, moduleName: 'keda', template, version: '1.0.0', fqdn: 'kyma-project.io/module/keda', channel: 'regular' });
  // As stored: keys reordered, plus what the server and other writers add.
  const stored: ManifestObject = reversedKeys({
    ...desired,
    metadata: { ...desired.metadata, uid: 'uid-m', resourceVersion: '7', labels: { ...desired.metadata.labels, 'other.io/label': 'x' }, finalizers: ['declarative.kyma-project.io/finalizer'] },
    status: { state: 'Ready' },
  } as ManifestObject);
  assert.ok(manifestUpToDate(stored, desired));

  assert.ok(!manifestUpToDate(undefined, desired), 'a missing Manifest is applied');
  const newer = buildManifest({ kyma, moduleName: 'keda', template, version: '1.1.0', fqdn: 'kyma-project.io/module/keda', channel: 'regular' });
  assert.ok(!manifestUpToDate(stored, newer), 'a new version is applied');
  const unmanaged = buildManifest({ kyma, moduleName: 'keda', template, version: '1.0.0', fqdn: 'kyma-project.io/module/keda', channel: 'regular', unmanaged: true });
  assert.ok(!manifestUpToDate(stored, unmanaged), 'an annotation to add is applied');
  const storedUnmanaged = reversedKeys({ ...unmanaged, metadata: { ...unmanaged.metadata, uid: 'uid-m' } });
  assert.ok(manifestUpToDate(storedUnmanaged, unmanaged));
  assert.ok(!manifestUpToDate(storedUnmanaged, desired), 'an annotation buildManifest no longer sets is removed by an apply');
  const pinned = buildManifest({ kyma, moduleName: 'keda', template, version: '1.0.0', fqdn: 'kyma-project.io/module/keda' });
  assert.ok(!manifestUpToDate(stored, pinned), 'a channel label to drop is applied');
  const otherResource = buildManifest({ kyma, moduleName: 'keda', template: { ...template, spec: { ...template.spec, data: { ...template.spec.data!, spec: { replicas: 2 } } } }, version: '1.0.0', fqdn: 'kyma-project.io/module/keda', channel: 'regular' });
  assert.ok(!manifestUpToDate(stored, otherResource), 'a changed default CR is applied');
  assert.ok(!manifestUpToDate({ ...stored, metadata: { ...stored.metadata, ownerReferences: [] } }, desired), 'a missing owner reference is applied');
});

test('Manifest render hash: the same objects in another key order hash the same', () => {
  const objects: KubeObject[] = [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'kyma-system', labels: { x: '1', y: '2' } }, data: { b: '1', a: '2' } },
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'kyma-system' }, spec: { replicas: 1, template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } },
  ];
  assert.equal(hashObjects(reversedKeys(objects)), hashObjects(objects));
  assert.notEqual(hashObjects([objects[0], { ...objects[1], spec: { replicas: 2 } }]), hashObjects(objects));
});

test('catalog copies: the hash that decides the runtime apply ignores the key order the KCP sent', () => {
  const meta: ModuleReleaseMetaObject = { apiVersion: ModuleReleaseMeta.apiVersion, kind: ModuleReleaseMeta.kind, metadata: { name: 'keda', namespace: NS }, spec: { moduleName: 'keda', channels: [{ channel: 'regular', version: '1.0.0' }] } };
  const hashes = (t: ModuleTemplateObject, m: ModuleReleaseMetaObject) =>
    desiredCatalog(kyma, { templates: () => [t], releaseMetas: () => [m] }).map((o) => `${o.kind}:${o.metadata.annotations?.['operator.kyma-project.io/catalog-hash'] ?? ''}`);
  const original = hashes(template, meta);
  assert.equal(original.length, 2);
  assert.deepEqual(hashes(reversedKeys(template), reversedKeys(meta)), original);
  assert.notDeepEqual(hashes({ ...template, spec: { ...template.spec, version: '1.0.1' } }, meta), original);
});
