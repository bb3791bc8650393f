// The module CR's state as the Manifest reads it: a CR without a state is Processing, and Warning
// only once it has had none for 5 minutes since the module began installing (the later of the
// Manifest's and the CR's creation).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ManifestObject } from '../../src/api/operator/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { moduleCRState } from '../../src/lifecycle/manifest/readiness.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const minutesAgo = (m: number) => new Date(NOW - m * 60_000).toISOString();
const manifest = (createdMinutesAgo: number) => ({ apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Manifest', metadata: { name: 'm', namespace: 'kcp-system', creationTimestamp: minutesAgo(createdMinutesAgo) }, spec: {} }) as unknown as ManifestObject;
const cr = (createdMinutesAgo: number, state?: string) => ({ apiVersion: 'test.kyma-project.io/v1', kind: 'Sample', metadata: { name: 'default', creationTimestamp: minutesAgo(createdMinutesAgo) }, ...(state ? { status: { state } } : {}) }) as KubeObject;

test('a module CR without a state is Processing until it has had none for 5 minutes, counted from the later creation', () => {
  assert.equal(moduleCRState(manifest(1), cr(1), NOW).state, 'Processing');
  assert.equal(moduleCRState(manifest(6), cr(6), NOW).state, 'Warning', 'both older than 5 minutes');
  assert.deepEqual(moduleCRState(manifest(6), cr(6), NOW), { state: 'Warning', info: 'module CR state not found' });
  // The Manifest waited 20 minutes in the queue, its CR was created a minute ago: not late yet.
  assert.equal(moduleCRState(manifest(20), cr(1), NOW).state, 'Processing');
  // A CR that existed before the Manifest (the user's): the Manifest's creation counts.
  assert.equal(moduleCRState(manifest(2), cr(30), NOW).state, 'Processing');
});

test('a module CR with a state reports it; an unknown one is Warning', () => {
  assert.deepEqual(moduleCRState(manifest(20), cr(20, 'Ready'), NOW), { state: 'Ready' });
  assert.equal(moduleCRState(manifest(1), cr(1, 'Error'), NOW).state, 'Error');
  assert.equal(moduleCRState(manifest(1), cr(1, 'Sleeping'), NOW).state, 'Warning');
});
