// Which Manifest updates wake their Kyma: those that change what the Kyma controller reads of the
// Manifest (its module entry, whether the Manifest is up to date, the deletion), not the Manifest
// controller's finalizers or condition and inventory details.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Finalizers, Manifest, type ManifestObject } from '../../src/api/operator/index.js';
import { manifestChangedForKyma } from '../../src/lifecycle/kyma/modules.js';
import { admits } from '../../src/runtime/predicates.js';

function manifest(change: (m: ManifestObject) => void = () => {}): ManifestObject {
  const m = {
    apiVersion: Manifest.apiVersion,
    kind: 'Manifest',
    metadata: {
      name: 'kyma-1-sample',
      namespace: 'kcp-system',
      generation: 2,
      labels: { 'operator.kyma-project.io/kyma-name': 'kyma-1', 'operator.kyma-project.io/module-name': 'sample' },
      ownerReferences: [{ apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Kyma', name: 'kyma-1', uid: 'u1', controller: true }],
    },
    spec: { version: '1.0.0' },
    status: {
      state: 'Processing',
      lastOperation: { operation: 'waiting for resources to become ready', lastUpdateTime: '2026-11-29T10:00:00Z' },
      conditions: [{ type: 'Installation', status: 'False', reason: 'Ready', message: 'installation is not ready', observedGeneration: 2, lastTransitionTime: '2026-11-29T10:00:00Z' }],
      synced: [],
    },
  } as unknown as ManifestObject;
  change(m);
  return m;
}

const wakes = (change: (m: ManifestObject) => void): boolean => admits(manifestChangedForKyma, { type: 'update', oldObject: manifest(), object: manifest(change) });

test('the Manifest controller finalizers, condition details and inventory do not wake the Kyma', () => {
  assert.equal(wakes((m) => (m.metadata.finalizers = [Finalizers.Manifest, Finalizers.LabelRemoval])), false, 'finalizers added');
  assert.equal(wakes((m) => (m.status!.conditions![0].lastTransitionTime = '2026-11-29T10:05:00Z')), false, 'a condition time');
  assert.equal(wakes((m) => m.status!.conditions!.push({ type: 'Resources', status: 'True', reason: 'ResourcesAvailable', message: 'resources are parsed and ready for use', observedGeneration: 2, lastTransitionTime: '2026-11-29T10:00:00Z' })), false, 'a condition added');
  assert.equal(wakes((m) => (m.status!.synced = [{ group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'x', name: 'y' }])), false, 'the inventory');
  assert.equal(wakes((m) => (m.status!.lastOperation!.lastUpdateTime = '2026-11-29T10:05:00Z')), false, 'the operation time alone');
  assert.equal(wakes((m) => (m.metadata.labels = { 'operator.kyma-project.io/module-name': 'sample', 'operator.kyma-project.io/kyma-name': 'kyma-1' })), false, 'labels in another key order');
});

test('what the Kyma reports or compares wakes it', () => {
  assert.equal(wakes((m) => (m.status!.state = 'Ready')), true, 'state');
  assert.equal(wakes((m) => (m.status!.lastOperation!.operation = 'module CR state not found')), true, 'operation');
  assert.equal(wakes((m) => (m.metadata.generation = 3)), true, 'a new spec (the status is of the previous one now)');
  assert.equal(wakes((m) => (m.status!.conditions![0].observedGeneration = 1)), true, 'the status speaks of an older generation');
  assert.equal(wakes((m) => (m.metadata.deletionTimestamp = '2026-11-29T10:06:00Z')), true, 'deletion');
  assert.equal(wakes((m) => (m.metadata.labels!['operator.kyma-project.io/channel'] = 'fast')), true, 'a label');
  assert.equal(wakes((m) => (m.metadata.annotations = { 'operator.kyma-project.io/is-cluster-scoped': 'false' })), true, 'an annotation');
  assert.equal(wakes((m) => (m.metadata.ownerReferences = [])), true, 'the owner reference');
  assert.equal(admits(manifestChangedForKyma, { type: 'create', object: manifest() }), true, 'created');
  assert.equal(admits(manifestChangedForKyma, { type: 'delete', object: manifest() }), true, 'deleted');
});
