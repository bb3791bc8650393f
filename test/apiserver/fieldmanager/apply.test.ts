import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusError } from '../../../src/apiserver/errors.js';
import type { JsonObject } from '../../../src/kube/json.js';
import type { ObjectWithMeta, ManagedFieldsEntry } from '../../../src/kube/object.js';
import type { ApplyParams } from '../../../src/apiserver/fieldmanager/managed.js';
import { applyPatch, recordUpdate } from '../../../src/apiserver/fieldmanager/managed.js';
import { builtinSchema, schemaFromOpenAPI } from '../../../src/apiserver/fieldmanager/schema.js';

const time = '2026-11-22T10:00:00Z';
const cmSchema = builtinSchema('', 'ConfigMap');

function apply(live: ObjectWithMeta | undefined, applied: ObjectWithMeta, manager: string, extra: Partial<ApplyParams> = {}): ObjectWithMeta {
  return applyPatch({
    live,
    applied,
    previous: live?.metadata.managedFields ?? [],
    manager,
    apiVersion: 'v1',
    time,
    force: false,
    schema: cmSchema,
    ...extra,
  });
}

function cm(data: JsonObject, labels?: Record<string, string>): ObjectWithMeta {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...(labels ? { labels } : {}) }, data };
}

function conflictOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return e;
  }
  assert.fail('expected a conflict');
}

test('several conflicts are listed per manager, one line each', () => {
  let live = apply(undefined, cm({ a: '1', b: '1' }), 'alpha');
  live = apply(live, cm({ c: '1' }, { x: '1' }), 'beta');
  const err = conflictOf(() => apply(live, cm({ a: '2', b: '2', c: '2' }, { x: '2' }), 'gamma'));
  assert.equal(err.code, 409);
  assert.equal(err.message, 'Apply failed with 4 conflicts: conflicts with "alpha":\n- .data.a\n- .data.b\nconflicts with "beta":\n- .data.c\n- .metadata.labels.x');
  assert.deepStrictEqual(err.toStatus().details?.causes?.map((c) => `${c.reason} ${c.message} ${c.field}`), [
    'FieldManagerConflict conflict with "alpha" .data.a',
    'FieldManagerConflict conflict with "alpha" .data.b',
    'FieldManagerConflict conflict with "beta" .data.c',
    'FieldManagerConflict conflict with "beta" .metadata.labels.x',
  ]);
});

test('a conflict with an Update manager names its version', () => {
  const created = cm({ a: '1' });
  created.metadata.managedFields = recordUpdate({ oldObject: undefined, newObject: created, previous: [], manager: 'editor', apiVersion: 'v1', time, schema: cmSchema });
  const err = conflictOf(() => apply(created, cm({ a: '2' }), 'alpha'));
  assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "editor" using v1: .data.a');
});

test('a no-op apply returns the live object with its managedFields unchanged', () => {
  const live = apply(undefined, cm({ a: '1' }), 'alpha');
  const again = apply(live, cm({ a: '1' }), 'alpha', { time: '2031-01-01T00:00:00Z' });
  assert.deepStrictEqual(again, live);
});

test('an applier owning nothing any more loses its entry; the fields it alone owned go whole', () => {
  const live = apply(undefined, cm({ a: '1' }, { l: 'x' }), 'alpha');
  const out = apply(live, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, 'alpha');
  // data and metadata.labels are declared fields: released with everything below them, they go
  // rather than stay empty (structured-merge-diff's EnsureNamedFieldsAreMembers); metadata stays.
  assert.equal(out.data, undefined);
  assert.equal(out.metadata.labels, undefined);
  assert.equal(out.metadata.name, 'c');
  assert.equal(out.metadata.managedFields?.length ?? 0, 0);
});

const embeddingSchema = schemaFromOpenAPI({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        version: { type: 'string' },
        resource: { type: 'object', nullable: true, 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  },
});

function embedding(resource?: JsonObject): ObjectWithMeta {
  return { apiVersion: 'conf.example.com/v1', kind: 'Holder', metadata: { name: 'h' }, spec: { version: '1', ...(resource ? { resource } : {}) } };
}

test('a declared field dropped from an apply goes whole, unless another manager owns something below it', () => {
  const opts = { apiVersion: 'conf.example.com/v1', schema: embeddingSchema };
  const cr = { apiVersion: 'x.example.com/v1', kind: 'Sample', metadata: { name: 'default', namespace: 'kyma-system' }, spec: { size: 1 } };
  const live = apply(undefined, embedding(cr), 'kyma', opts);
  const dropped = apply(live, embedding(), 'kyma', opts);
  assert.deepStrictEqual(dropped.spec, { version: '1' });

  // Someone else's field below it keeps the field, and only what the applier alone owned goes.
  const shared = apply(live, { apiVersion: 'conf.example.com/v1', kind: 'Holder', metadata: { name: 'h' }, spec: { resource: { spec: { size: 1 } } } }, 'other', opts);
  const kept = apply(shared, embedding(), 'kyma', opts);
  assert.deepStrictEqual(kept.spec, { version: '1', resource: { spec: { size: 1 } } });
});

const deploymentSchema = builtinSchema('apps', 'Deployment');

function deployment(containers: JsonObject[], extraSpec: JsonObject = {}): ObjectWithMeta {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { ...extraSpec, template: { spec: { containers } } } };
}

function containersOf(o: ObjectWithMeta): JsonObject[] {
  return ((o.spec as JsonObject).template as { spec: { containers: JsonObject[] } }).spec.containers;
}

test('ports are keyed by containerPort and protocol, protocol defaulting to TCP', () => {
  const p = { manager: 'a', apiVersion: 'apps/v1', schema: deploymentSchema };
  const live = apply(undefined, deployment([{ name: 'app', ports: [{ containerPort: 80 }] }]), 'a', p);
  (containersOf(live)[0].ports as JsonObject[])[0].protocol = 'TCP'; // server default
  const out = apply(live, deployment([{ name: 'app', ports: [{ containerPort: 80, name: 'http' }] }]), 'a', p);
  assert.deepStrictEqual(containersOf(out)[0].ports, [{ containerPort: 80, protocol: 'TCP', name: 'http' }]);
  const fields = (out.metadata.managedFields as ManagedFieldsEntry[])[0].fieldsV1 as JsonObject;
  const spec = ((((fields['f:spec'] as JsonObject)['f:template'] as JsonObject)['f:spec'] as JsonObject)['f:containers'] as JsonObject)['k:{"name":"app"}'] as JsonObject;
  assert.deepStrictEqual(Object.keys(spec['f:ports'] as JsonObject), ['k:{"containerPort":80,"protocol":"TCP"}']);
});

test('atomic lists are replaced whole and owned as one field', () => {
  const p = { apiVersion: 'apps/v1', schema: deploymentSchema };
  const live = apply(undefined, deployment([{ name: 'app', args: ['a', 'b'] }]), 'one', p);
  const out = apply(live, deployment([{ name: 'app', args: ['c'] }]), 'one', p);
  assert.deepStrictEqual(containersOf(out)[0].args, ['c']);
  const fields = JSON.stringify(out.metadata.managedFields);
  assert.ok(fields.includes('"f:args":{}'), fields);
});

test('a container released by its applier goes, with the defaults the server added to it', () => {
  const p = { apiVersion: 'apps/v1', schema: deploymentSchema };
  const live = apply(undefined, deployment([{ name: 'a', image: 'a' }, { name: 'b', image: 'b' }]), 'one', p);
  containersOf(live)[1].imagePullPolicy = 'IfNotPresent';
  const out = apply(live, deployment([{ name: 'a', image: 'a' }]), 'one', p);
  assert.deepStrictEqual(containersOf(out), [{ name: 'a', image: 'a' }]);
});

test('finalizers merge as a set across appliers', () => {
  const withFinalizers = (f: string[]): ObjectWithMeta => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', finalizers: f } });
  const live = apply(undefined, withFinalizers(['x/a']), 'one');
  const out = apply(live, withFinalizers(['x/b']), 'two');
  assert.deepStrictEqual(out.metadata.finalizers, ['x/a', 'x/b']);
  const released = apply(out, withFinalizers([]), 'one');
  assert.deepStrictEqual(released.metadata.finalizers, ['x/b']);
});

const widgetSchema = schemaFromOpenAPI({
  type: 'object',
  properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } }, status: { type: 'object', properties: { state: { type: 'string' } } } },
});

test('status in a configuration for the main resource is ignored when the kind has a status subresource', () => {
  const widget = (state: string): ObjectWithMeta => ({ apiVersion: 'conf.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 }, status: { state } });
  const out = apply(undefined, widget('Ready'), 'one', { apiVersion: 'conf.example.com/v1', schema: widgetSchema, statusSubresource: true });
  assert.equal(out.status, undefined);
  assert.deepStrictEqual((out.metadata.managedFields as ManagedFieldsEntry[])[0].fieldsV1, { 'f:spec': { 'f:size': {} } });
  const viaStatus = apply(out, widget('Ready'), 'two', { apiVersion: 'conf.example.com/v1', schema: widgetSchema, subresource: 'status', statusSubresource: true });
  assert.deepStrictEqual(viaStatus.status, { state: 'Ready' });
  const entry = (viaStatus.metadata.managedFields as ManagedFieldsEntry[]).find((e) => e.manager === 'two');
  assert.deepStrictEqual(entry, { manager: 'two', operation: 'Apply', apiVersion: 'conf.example.com/v1', time, fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:state': {} } }, subresource: 'status' });
});

test('entries come in the server order: Apply before Update, then by time and manager', () => {
  let live = apply(undefined, cm({ a: '1' }), 'zeta');
  const updated = cm({ a: '1', b: '1' });
  updated.metadata.managedFields = recordUpdate({ oldObject: live, newObject: updated, previous: live.metadata.managedFields ?? [], manager: 'alpha', apiVersion: 'v1', time: '2026-11-22T09:00:00Z', schema: cmSchema });
  live = apply(updated, cm({ c: '1' }), 'beta');
  assert.deepStrictEqual(live.metadata.managedFields?.map((e) => `${e.operation}:${e.manager}`), ['Apply:beta', 'Apply:zeta', 'Update:alpha']);
});

test('applying to an object without managedFields first gives its fields to before-first-apply', () => {
  const untracked = cm({ a: '1', b: '1' });
  const err = conflictOf(() => apply(untracked, cm({ a: '2' }), 'alpha'));
  assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a');
  const shared = apply(untracked, cm({ a: '1' }), 'alpha');
  assert.deepStrictEqual(shared.metadata.managedFields?.map((e) => [e.manager, e.operation, e.fieldsV1]), [
    ['alpha', 'Apply', { 'f:data': { 'f:a': {} } }],
    ['before-first-apply', 'Update', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } }],
  ]);
});
