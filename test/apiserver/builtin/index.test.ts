import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { invalid } from '../../../src/apiserver/errors.js';
import type { ObjectWithMeta } from '../../../src/kube/object.js';
import { applyBuiltinDefaults, dropEmptyFields, eventFromCore, eventToCore, prepareForCreate, prepareForUpdate, validateBuiltin, validateName } from '../../../src/apiserver/builtin/index.js';

interface Step {
  id: string;
  request?: { body?: unknown };
  response?: { status: number; body: unknown };
}

function golden(name: string): Map<string, Step> {
  const url = new URL(`../../../../test/fixtures/kube-conformance/golden/${name}.json`, import.meta.url);
  // Stand in a real namespace name for the transcript's placeholder.
  const g = JSON.parse(readFileSync(url, 'utf8').replace(/\{\{ns\}\}/g, 'kc-test')) as { steps: Step[] };
  return new Map(g.steps.map((s) => [s.id, s]));
}

function body(step: Step | undefined): ObjectWithMeta {
  return JSON.parse(JSON.stringify(step?.request?.body)) as ObjectWithMeta;
}

const ctx = { allocateClusterIP: () => '10.96.0.10' };

/** What the core does around our hooks on create. */
function create(group: string, kind: string, obj: ObjectWithMeta, ns?: string): ObjectWithMeta {
  if (ns) obj.metadata.namespace = ns;
  obj.metadata.uid = '0b5c7d9e-1111-4222-8333-444455556666';
  prepareForCreate(group, kind, obj, ctx);
  applyBuiltinDefaults(group, kind, obj);
  dropEmptyFields(group, kind, obj);
  return obj;
}

function message(group: string, kind: string, obj: ObjectWithMeta, old?: ObjectWithMeta): string {
  const errs = validateBuiltin(group, kind, obj, old);
  return invalid(kind, group, obj.metadata.name ?? '', errs).message;
}

test('Deployment gets the defaults a real server stores (ssa-builtin-lists)', () => {
  const steps = golden('ssa-builtin-lists');
  const obj = create('apps', 'Deployment', body(steps.get('upgrade')), 'kc-test');
  // The golden spec also holds env B, which another field manager added earlier.
  const expected = JSON.parse(JSON.stringify(steps.get('upgrade')?.response?.body)) as { template: { spec: { containers: { env?: unknown[] }[] } } };
  expected.template.spec.containers[0].env?.pop();
  assert.deepEqual(obj.spec, expected);
  assert.deepEqual(obj.status, {});
  assert.deepEqual(validateBuiltin('apps', 'Deployment', obj), []);
});

test('Deployment validation: selector must match template labels, replicas >= 0, containers need an image', () => {
  const obj = create('apps', 'Deployment', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: { replicas: -1, selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'y' } }, spec: { containers: [{ name: 'c' }] } } },
  }, 'ns');
  assert.equal(
    message('apps', 'Deployment', obj),
    'Deployment.apps "d" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.template.metadata.labels: Invalid value: map[string]string{"app":"y"}: `selector` does not match template `labels`, spec.template.spec.containers[0].image: Required value]',
  );
  const changed = JSON.parse(JSON.stringify(obj)) as ObjectWithMeta;
  (changed.spec as { replicas: number }).replicas = 1;
  (changed.spec as { selector: unknown }).selector = { matchLabels: { app: 'y' } };
  const errs = validateBuiltin('apps', 'Deployment', changed, obj);
  assert.equal(errs.at(-1)?.message, 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"y"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable');
});

test('image pull policy: Always for latest or untagged images', () => {
  const obj = create('', 'Pod', { metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'reg:5000/nginx:latest' }, { name: 'c', image: 'reg:5000/nginx:1.2' }, { name: 'd', image: 'nginx@sha256:abc' }] } }, 'ns');
  const policies = (obj.spec as { containers: { imagePullPolicy: string }[] }).containers.map((c) => c.imagePullPolicy);
  assert.deepEqual(policies, ['Always', 'Always', 'IfNotPresent', 'IfNotPresent']);
  assert.deepEqual(obj.status, { phase: 'Pending', qosClass: 'BestEffort' });
});

test('Secret: stringData folds into data, type defaults to Opaque (core-secret-stringdata)', () => {
  const steps = golden('core-secret-stringdata');
  const obj = create('', 'Secret', body(steps.get('create')), 'kc-test');
  const expected = steps.get('create')?.response?.body as ObjectWithMeta;
  assert.deepEqual(obj.data, expected.data);
  assert.equal(obj.type, 'Opaque');
  assert.equal(obj.stringData, undefined);

  const patched = JSON.parse(JSON.stringify(obj)) as ObjectWithMeta;
  patched.stringData = { extra: 'x' };
  prepareForUpdate('', 'Secret', patched, obj);
  assert.deepEqual(patched.data, (steps.get('mergeStringData')?.response?.body as ObjectWithMeta).data);
});

test('Secret: type is immutable and kubernetes.io/tls needs its keys (core-secret-stringdata)', () => {
  const steps = golden('core-secret-stringdata');
  const old = create('', 'Secret', body(steps.get('create')), 'kc-test');
  const next = { ...JSON.parse(JSON.stringify(old)), type: 'kubernetes.io/tls' } as ObjectWithMeta;
  const expected = steps.get('immutableType')?.response?.body as { message: string };
  assert.equal(message('', 'Secret', next, old), expected.message);
});

test('immutable ConfigMap keeps its data', () => {
  const old: ObjectWithMeta = { metadata: { name: 'c', namespace: 'ns', uid: 'u' }, data: { a: '1' }, immutable: true };
  const next: ObjectWithMeta = { metadata: { name: 'c', namespace: 'ns', uid: 'u' }, data: { a: '2' }, immutable: true };
  assert.equal(message('', 'ConfigMap', next, old), 'ConfigMap "c" is invalid: data: Forbidden: field is immutable when `immutable` is set');
});

test('ClusterRoleBinding roleRef must be a ClusterRole (cluster-scoped-rbac)', () => {
  const steps = golden('cluster-scoped-rbac');
  const obj = create('rbac.authorization.k8s.io', 'ClusterRoleBinding', body(steps.get('badRoleRef')));
  const expected = steps.get('badRoleRef')?.response?.body as { message: string };
  assert.equal(message('rbac.authorization.k8s.io', 'ClusterRoleBinding', obj), expected.message.replace(/\{\{ns\}\}/g, 'kc-test'));
  assert.equal(obj.subjects, undefined, 'empty subjects are dropped');

  const good = create('rbac.authorization.k8s.io', 'ClusterRoleBinding', body(steps.get('create')));
  assert.deepEqual(validateBuiltin('rbac.authorization.k8s.io', 'ClusterRoleBinding', good), []);
  const changed = JSON.parse(JSON.stringify(good)) as ObjectWithMeta;
  changed.roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' };
  assert.equal(validateBuiltin('rbac.authorization.k8s.io', 'ClusterRoleBinding', changed, good).at(-1)?.message, 'Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"view"}: cannot change roleRef');
});

test('RBAC names are path segments', () => {
  assert.deepEqual(validateName('rbac.authorization.k8s.io', 'ClusterRole', 'system:controller:x'), []);
  assert.deepEqual(validateName('rbac.authorization.k8s.io', 'Role', 'a/b'), ["may not contain '/'"]);
});

test('events.k8s.io Event: stored form, core view and the odd type message (events)', () => {
  const steps = golden('events');
  const obj = create('events.k8s.io', 'Event', body(steps.get('newEvent')), 'kc-test');
  const stored = steps.get('newEvent')?.response?.body as ObjectWithMeta;
  const { metadata: _m, kind: _k, apiVersion: _a, ...expectedRest } = stored;
  // The server stores the core form and answers with its events.k8s.io view.
  const { metadata: _m2, kind: _k2, apiVersion: _a2, ...actualRest } = eventFromCore(eventToCore(obj));
  assert.deepEqual(actualRest, expectedRest);
  assert.deepEqual(validateBuiltin('events.k8s.io', 'Event', obj), []);

  const asCore = steps.get('asCore')?.response?.body as ObjectWithMeta;
  const { metadata: _m3, ...coreExpected } = asCore;
  const { metadata: _m4, ...coreActual } = eventToCore(obj);
  assert.deepEqual(coreActual, coreExpected);

  const bad = create('events.k8s.io', 'Event', body(steps.get('badType')), 'kc-test');
  // The real server names the internal (core) kind: `Event "e2"`, not `Event.events.k8s.io "e2"`.
  const errs = validateBuiltin('events.k8s.io', 'Event', bad);
  assert.equal(invalid('Event', '', 'e2', errs).message, (steps.get('badType')?.response?.body as { message: string }).message);
});

test('Lease: create and takeover validate (leases)', () => {
  const steps = golden('leases');
  const obj = create('coordination.k8s.io', 'Lease', body(steps.get('create')), 'kc-test');
  assert.deepEqual(obj.spec, (steps.get('create')?.response?.body as ObjectWithMeta).spec);
  assert.deepEqual(validateBuiltin('coordination.k8s.io', 'Lease', obj), []);
  const next = body(steps.get('takeover'));
  next.metadata = { ...obj.metadata };
  assert.deepEqual(validateBuiltin('coordination.k8s.io', 'Lease', next, obj), []);
  (next.spec as { leaseDurationSeconds: number }).leaseDurationSeconds = 0;
  assert.equal(message('coordination.k8s.io', 'Lease', next, obj), 'Lease.coordination.k8s.io "leader" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0');
});

test('Namespace: finalizer, phase and name label on create; kept on update (namespace-lifecycle)', () => {
  const steps = golden('namespace-lifecycle');
  const obj = create('', 'Namespace', body(steps.get('create')));
  const expected = steps.get('create')?.response?.body as ObjectWithMeta;
  assert.deepEqual(obj.spec, expected.spec);
  assert.deepEqual(obj.status, expected.status);
  assert.deepEqual(obj.metadata.labels, expected.metadata.labels);
  const next: ObjectWithMeta = { metadata: { name: obj.metadata.name, labels: { 'kubernetes.io/metadata.name': 'other', a: 'b' } }, spec: { finalizers: [] }, status: { phase: 'Terminating' } };
  prepareForUpdate('', 'Namespace', next, obj);
  assert.deepEqual(next.spec, { finalizers: ['kubernetes'] });
  assert.deepEqual(next.status, { phase: 'Active' });
  assert.equal(next.metadata.labels?.['kubernetes.io/metadata.name'], obj.metadata.name);
  assert.deepEqual(validateName('', 'Namespace', 'a.b'), [
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ]);
});

test('ValidatingWebhookConfiguration defaults as stored (webhook-validating-requests)', () => {
  const steps = golden('webhook-validating-requests');
  const obj = create('admissionregistration.k8s.io', 'ValidatingWebhookConfiguration', body(steps.get('register')));
  const hooks = obj.webhooks as { clientConfig: unknown }[];
  const expected = steps.get('register')?.response?.body as { clientConfig: unknown }[];
  assert.deepEqual(hooks.map((h) => ({ ...h, clientConfig: undefined })), expected.map((h) => ({ ...h, clientConfig: undefined })));
  assert.deepEqual(validateBuiltin('admissionregistration.k8s.io', 'ValidatingWebhookConfiguration', obj), []);

  const bare = create('admissionregistration.k8s.io', 'ValidatingWebhookConfiguration', {
    metadata: { name: 'w' },
    webhooks: [{ name: 'short.io', clientConfig: { url: 'http://x' }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }],
  });
  const hook = (bare.webhooks as Record<string, unknown>[])[0];
  assert.equal(hook.timeoutSeconds, 10);
  assert.deepEqual(hook.namespaceSelector, {});
  assert.equal((hook.rules as { scope: string }[])[0].scope, '*');
  assert.deepEqual(
    validateBuiltin('admissionregistration.k8s.io', 'ValidatingWebhookConfiguration', bare).map((e) => `${e.field}: ${e.message}`),
    [
      'webhooks[0].name: Invalid value: "short.io": should be a domain with at least three segments separated by dots',
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
      'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
    ],
  );
});

test('name rules: subdomain for most kinds, DNS-1035 for Services (core-create-errors)', () => {
  const steps = golden('core-create-errors');
  const expected = (steps.get('invalidName')?.response?.body as { details: { causes: { message: string }[] } }).details.causes[0].message;
  assert.deepEqual(validateName('', 'ConfigMap', 'Bad_Name').map((m) => `Invalid value: "Bad_Name": ${m}`), [expected]);
  assert.deepEqual(validateName('example.com', 'Widget', 'ok.name'), []);
  assert.equal(validateName('', 'Service', '1abc').length, 1);
  assert.match(validateName('', 'Service', '1abc')[0], /^a DNS-1035 label/);
  assert.deepEqual(validateName('batch', 'CronJob', 'x'.repeat(53)), ['must be no more than 52 characters']);
});

test('Service: defaults, cluster IP allocation, kept on update, immutable', () => {
  const obj = create('', 'Service', { metadata: { name: 's' }, spec: { selector: { app: 'a' }, ports: [{ port: 80 }] } }, 'ns');
  assert.deepEqual(obj.spec, {
    selector: { app: 'a' },
    ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    type: 'ClusterIP',
    sessionAffinity: 'None',
    internalTrafficPolicy: 'Cluster',
    clusterIP: '10.96.0.10',
    clusterIPs: ['10.96.0.10'],
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
  });
  assert.deepEqual(obj.status, { loadBalancer: {} });
  const next: ObjectWithMeta = { metadata: { ...obj.metadata }, spec: { selector: { app: 'b' }, ports: [{ port: 80 }] } };
  prepareForUpdate('', 'Service', next, obj);
  applyBuiltinDefaults('', 'Service', next);
  assert.equal((next.spec as { clusterIP: string }).clusterIP, '10.96.0.10');
  assert.deepEqual(validateBuiltin('', 'Service', next, obj), []);
  (next.spec as { clusterIP: string }).clusterIP = '10.96.0.99';
  prepareForUpdate('', 'Service', next, obj);
  assert.equal(message('', 'Service', next, obj), 'Service "s" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.0.99"}: may not change once set');
});

test('labels and annotations syntax', () => {
  const obj: ObjectWithMeta = { metadata: { name: 'c', namespace: 'ns', labels: { 'a/b/c': 'x', ok: 'bad value' } } };
  const fields = validateBuiltin('', 'ConfigMap', obj).map((e) => e.field);
  assert.deepEqual(fields, ['metadata.labels', 'metadata.labels']);
});

test('Job: selector generated from the uid, restartPolicy must not be Always', () => {
  const obj = create('batch', 'Job', { metadata: { name: 'j' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } }, 'ns');
  const spec = obj.spec as Record<string, unknown>;
  assert.deepEqual(spec.selector, { matchLabels: { 'controller-uid': '0b5c7d9e-1111-4222-8333-444455556666' } });
  assert.equal(spec.backoffLimit, 6);
  assert.equal(spec.completions, 1);
  assert.equal(message('batch', 'Job', obj), 'Job.batch "j" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"');
});

test('dropEmptyFields drops empty maps that omitempty would', () => {
  const obj: ObjectWithMeta = { metadata: { name: 'c', labels: {}, annotations: {} }, data: {} };
  dropEmptyFields('', 'ConfigMap', obj);
  assert.deepEqual(obj, { metadata: { name: 'c' } });
});
