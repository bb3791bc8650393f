// recordUpdate on single writes of the corpus: the objects the real server stored, and the managedFields it wrote.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type JsonObject, type JsonValue, isPlainObject } from '../../../src/kube/json.js';
import type { ObjectWithMeta, ManagedFieldsEntry } from '../../../src/kube/object.js';
import { loadGolden } from '../../conformance/corpus.js';
import { recordUpdate } from '../../../src/apiserver/fieldmanager/managed.js';
import { builtinSchema } from '../../../src/apiserver/fieldmanager/schema.js';

const time = '2026-11-22T10:00:00Z';

/** The managedFields of the first object in a golden step's answer (or admission review). */
function goldenManaged(scenario: string, stepId: string): ManagedFieldsEntry[] {
  const step = (loadGolden(scenario).steps as unknown as JsonObject[]).find((s) => s.id === stepId);
  assert.ok(step, `${scenario}/${stepId} not in the golden`);
  const found = findManaged(step as JsonValue);
  assert.ok(found, `${scenario}/${stepId} has no managedFields`);
  return found;
}

function findManaged(v: JsonValue): ManagedFieldsEntry[] | undefined {
  if (Array.isArray(v)) {
    for (const x of v) {
      const f = findManaged(x);
      if (f) return f;
    }
  } else if (isPlainObject(v)) {
    if (Array.isArray(v.managedFields)) return v.managedFields as unknown as ManagedFieldsEntry[];
    for (const x of Object.values(v)) {
      const f = findManaged(x);
      if (f) return f;
    }
  }
  return undefined;
}

function withoutTimes(entries: ManagedFieldsEntry[]): JsonValue {
  return entries.map((e) => ({ ...e, time: '<time>' })) as unknown as JsonValue;
}

function create(group: string, kind: string, obj: ObjectWithMeta, apiVersion: string, manager = 'unknown'): ManagedFieldsEntry[] {
  return recordUpdate({ oldObject: undefined, newObject: obj, previous: [], manager, apiVersion, time, schema: builtinSchema(group, kind) });
}

test('Namespace create: the defaulted name label is owned (spec and status are set after the field manager)', () => {
  const ns: ObjectWithMeta = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kc-nslife-{{ns}}', labels: { 'kubernetes.io/metadata.name': 'kc-nslife-{{ns}}' } }, spec: {}, status: {} };
  assert.deepStrictEqual(withoutTimes(create('', 'Namespace', ns, 'v1')), withoutTimes(goldenManaged('namespace-lifecycle', 'create')));
});

test('ClusterRoleBinding create: generateName is tracked, roleRef and subjects are atomic', () => {
  const crb: ObjectWithMeta = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { generateName: 'admin-', name: 'admin-x1', labels: { 'reconciler.kyma-project.io/managed-by': 'kc-{{ns}}' } },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'admin@example.com' }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  };
  const got = create('rbac.authorization.k8s.io', 'ClusterRoleBinding', crb, 'rbac.authorization.k8s.io/v1');
  const want = goldenManaged('cluster-scoped-rbac', 'list');
  assert.deepStrictEqual(got[0].fieldsV1, want[0].fieldsV1);
});

test('events.k8s.io Event create: regarding is one atomic field, no "." markers at the top', () => {
  const ev: ObjectWithMeta = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'e1' },
    eventTime: '2026-01-01T00:00:00.000000Z',
    reportingController: 'lifecycle-manager',
    reportingInstance: 'lm-0',
    action: 'Reconcile',
    reason: 'ModuleReady',
    note: 'module keda is Ready',
    type: 'Normal',
    regarding: { apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Kyma', name: 'k1', namespace: '{{ns}}' },
  };
  assert.deepStrictEqual(withoutTimes(create('events.k8s.io', 'Event', ev, 'events.k8s.io/v1')), withoutTimes(goldenManaged('events', 'newEvent')));
});

test('Lease create: spec is in the zero object, so it gets no "." marker', () => {
  const lease: ObjectWithMeta = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'leader' },
    spec: { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:00.000000Z', leaseTransitions: 0 },
  };
  assert.deepStrictEqual(withoutTimes(create('coordination.k8s.io', 'Lease', lease, 'coordination.k8s.io/v1')), withoutTimes(goldenManaged('leases', 'create')));
});

test('Secret create and merge of stringData: data keys and the defaulted type are owned', () => {
  const secret: ObjectWithMeta = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', labels: { 'operator.kyma-project.io/kyma-name': 'k1' } }, data: { config: 'YXBpVmVyc2lvbjogdjEKa2luZDogQ29uZmlnCg==' }, type: 'Opaque' };
  const created = create('', 'Secret', secret, 'v1');
  assert.deepStrictEqual(withoutTimes(created), withoutTimes(goldenManaged('core-secret-stringdata', 'create')));
  const merged: ObjectWithMeta = { ...secret, data: { ...(secret.data as JsonObject), extra: 'eA==' } };
  const updated = recordUpdate({ oldObject: { ...secret, metadata: { ...secret.metadata, managedFields: created } }, newObject: merged, previous: created, manager: 'unknown', apiVersion: 'v1', time, schema: builtinSchema('', 'Secret') });
  assert.deepStrictEqual(withoutTimes(updated), withoutTimes(goldenManaged('core-secret-stringdata', 'mergeStringData')));
});

test('an update by another manager takes the changed field; the creator keeps the emptied map node', () => {
  const cm: ObjectWithMeta = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w1', labels: { 'operator.kyma-project.io/watched-by': 'kyma' } }, data: { a: '1' } };
  const created = create('', 'ConfigMap', cm, 'v1');
  const updated = recordUpdate({
    oldObject: cm,
    newObject: { ...cm, data: { a: '2' } },
    previous: created,
    manager: 'editor',
    apiVersion: 'v1',
    time,
    schema: builtinSchema('', 'ConfigMap'),
  });
  const want = (goldenManaged('webhook-validating-requests', 'afterUpdate') as unknown as JsonObject[]).map((e) => ({ ...e, time: '<time>' }));
  const got = withoutTimes(updated) as JsonObject[];
  const byManager = (a: JsonObject, b: JsonObject): number => String(a.manager).localeCompare(String(b.manager));
  assert.deepStrictEqual([...got].sort(byManager), [...want].sort(byManager));
});

test('an update that changes nothing returns the previous entries untouched (times included)', () => {
  const cm: ObjectWithMeta = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } };
  const previous = create('', 'ConfigMap', cm, 'v1');
  const again = recordUpdate({ oldObject: cm, newObject: { ...cm, metadata: { ...cm.metadata, resourceVersion: '9' } }, previous, manager: 'other', apiVersion: 'v1', time: '2030-01-01T00:00:00Z', schema: builtinSchema('', 'ConfigMap') });
  assert.equal(again, previous);
});

test('Deployment create: containers start as null in the zero object, items and added maps get "." markers', () => {
  const d: ObjectWithMeta = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', labels: { app: 'd' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'd' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: { metadata: { creationTimestamp: null, labels: { app: 'd' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', resources: {} }] } },
    },
    status: {},
  };
  const [entry] = create('apps', 'Deployment', d, 'apps/v1', 'kubectl-create');
  assert.deepStrictEqual(entry.fieldsV1, {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': {
      'f:replicas': {},
      'f:selector': {},
      'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
      'f:template': {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:resources': {} } } },
      },
    },
  });
});
