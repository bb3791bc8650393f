// webhookConfigurationFor: the runtime's skr-webhook configuration, one webhook per usable Watcher.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WatcherObject } from '../../src/api/operator/index.js';
import { defaultWatchers, DEFAULT_LISTENER, webhookConfigurationFor } from '../../src/watcher/index.js';
import { sampleWatcher } from './sample-watcher.js';
import { startApiServer } from '../../src/apiserver/server.js';
import { KubeClient } from '../conformance/http.js';
import { AdmissionWebhook } from '../conformance/webhook.js';
import { waitFor } from '../support/wait.js';

/** The sample Watcher's resource as a CRD (samples.sample.kyma-project.io, v1alpha1, namespaced). */
function sampleCrd(): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'samples.sample.kyma-project.io' },
    spec: {
      group: 'sample.kyma-project.io',
      scope: 'Namespaced',
      names: { plural: 'samples', singular: 'sample', kind: 'Sample', listKind: 'SampleList' },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } }, status: { type: 'object', properties: { size: { type: 'integer' } } } } } },
        },
      ],
    },
  };
}

const CA = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';

const watcher = (name: string, edit?: (w: WatcherObject) => void): WatcherObject => sampleWatcher(name, 'kcp-system', edit);

test('one webhook per Watcher, shaped as upstream builds it, with the CA base64-encoded', () => {
  const config = webhookConfigurationFor([watcher('sample')], CA);
  assert.deepEqual(config, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'skr-webhook', labels: { 'operator.kyma-project.io/managed-by': 'kyma' } },
    webhooks: [
      {
        name: 'kcp-system.sample.operator.kyma-project.io',
        objectSelector: { matchLabels: { 'sample.kyma-project.io/watched': 'true' } },
        rules: [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: ['sample.kyma-project.io'], apiVersions: ['v1alpha1'], resources: ['samples'], scope: '*' }],
        clientConfig: { service: { name: 'skr-webhook', namespace: 'kyma-system', path: '/validate/sample-manager', port: 443 }, caBundle: Buffer.from(CA).toString('base64') },
        failurePolicy: 'Ignore',
        matchPolicy: 'Equivalent',
        sideEffects: 'NoneOnDryRun',
        timeoutSeconds: 15,
        admissionReviewVersions: ['v1'],
      },
    ],
  });
  assert.equal(Buffer.from(config.webhooks[0].clientConfig.caBundle, 'base64').toString('utf8'), CA);
});

test('field status watches the status subresource; the deprecated managed-by label names the manager when spec.manager is empty', () => {
  const w = watcher('status-watcher', (x) => {
    x.spec.field = 'status';
    delete x.spec.manager;
    x.metadata.labels = { 'operator.kyma-project.io/managed-by': 'legacy-manager' };
  });
  const [hook] = webhookConfigurationFor([w], CA).webhooks;
  assert.deepEqual(hook.rules[0].resources, ['samples/status']);
  assert.equal(hook.clientConfig.service.path, '/validate/legacy-manager');
});

test('Watchers being deleted and Watchers the controller reports invalid get no webhook; the rest are sorted by name', () => {
  const config = webhookConfigurationFor(
    [
      watcher('zeta'),
      watcher('deleting', (x) => (x.metadata.deletionTimestamp = '2026-08-01T00:00:00Z')),
      watcher('no-manager', (x) => delete x.spec.manager),
      watcher('alpha'),
      ...defaultWatchers('kcp-system', DEFAULT_LISTENER),
    ],
    CA,
  );
  assert.deepEqual(
    config.webhooks.map((h) => h.name),
    [
      'kcp-system.alpha.operator.kyma-project.io',
      'kcp-system.klm-module-resources.operator.kyma-project.io',
      'kcp-system.klm-module-status.operator.kyma-project.io',
      'kcp-system.klm-watcher.operator.kyma-project.io',
      'kcp-system.zeta.operator.kyma-project.io',
    ],
  );
  const modules = config.webhooks.find((h) => h.name.includes('klm-module-resources'));
  assert.deepEqual(modules?.rules[0], { operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: '*' });
  assert.deepEqual(modules?.objectSelector, { matchLabels: { 'operator.kyma-project.io/managed-by': 'kyma', 'app.kubernetes.io/part-of': 'Kyma' } });
  assert.equal(modules?.clientConfig.service.path, '/validate/lifecycle-manager-resources');
  // The status of everything managed-by kyma (the manager's availability, the module CR's state; the
  // runtime Kyma too, which the router drops) goes to a manager of its own (readiness only).
  const status = config.webhooks.find((h) => h.name.includes('klm-module-status'));
  assert.deepEqual(status?.rules[0], { operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/status'], scope: '*' });
  assert.deepEqual(status?.objectSelector, { matchLabels: { 'operator.kyma-project.io/managed-by': 'kyma' } });
  assert.equal(status?.clientConfig.service.path, '/validate/lifecycle-manager-module-status');
});

test('no Watchers: the configuration has no webhooks', () => {
  assert.deepEqual(webhookConfigurationFor([], CA).webhooks, []);
});

test('with ignored writers, the webhooks of the managers they are ignored for leave those writes out by a matchCondition; the others are unchanged', () => {
  const other = watcher('other', (x) => {
    x.spec.manager = 'other-manager';
  });
  const config = webhookConfigurationFor([watcher('sample'), other], CA, { fieldManagers: ['b-applier', 'a-applier'], forManagers: ['sample-manager'] });
  const [otherHook, sampleHook] = config.webhooks;
  assert.equal(otherHook.clientConfig.service.path, '/validate/other-manager');
  assert.equal(otherHook.matchConditions, undefined);
  assert.deepEqual(sampleHook.matchConditions, [
    {
      name: 'exclude-lifecycle-manager-writes',
      expression: '!has(request.options) || request.options == null || !has(request.options.fieldManager) || !(request.options.fieldManager in ["a-applier", "b-applier"])',
    },
  ]);
  assert.deepEqual(webhookConfigurationFor([watcher('sample')], CA, { fieldManagers: [], forManagers: ['sample-manager'] }).webhooks[0].matchConditions, undefined, 'no field managers: no condition');
});

test('the ignored writers\' matchCondition, evaluated by the API server: their writes call no webhook, anyone else\'s and every delete do', async (t) => {
  const served = await AdmissionWebhook.start('skr', { allowed: true });
  t.after(() => served.stop());
  const server = await startApiServer({ port: 0 });
  t.after(() => server.stop());
  const client = new KubeClient({ url: server.url, token: server.adminToken, caPem: server.caPem });
  t.after(() => client.close());
  // A spec Watcher and a status Watcher of the same manager, as the lifecycle manager's module Watchers.
  const statusWatcher = watcher('sample-status', (x) => {
    x.spec.field = 'status';
  });
  const config = webhookConfigurationFor([watcher('sample'), statusWatcher], CA, { fieldManagers: ['declarative.kyma-project.io/applier'], forManagers: ['sample-manager'] });
  // Served at the test webhook's URL rather than the runtime's Service.
  const hooks = config.webhooks.map((w) => ({ ...w, clientConfig: { url: `${served.url}${w.clientConfig.service.path}`, caBundle: served.caBundle } }));
  const crd = sampleCrd();
  assert.equal((await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(crd) })).status, 201);
  await waitFor('the CRD is served', async () => (await client.request('GET', '/apis/sample.kyma-project.io/v1alpha1/namespaces/default/samples')).status === 200);
  const registered = await client.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: JSON.stringify({ ...config, webhooks: hooks }) });
  assert.equal(registered.status, 201, registered.text);
  const path = '/apis/sample.kyma-project.io/v1alpha1/namespaces/default/samples';
  const sample = (name: string) => ({ apiVersion: 'sample.kyma-project.io/v1alpha1', kind: 'Sample', metadata: { name, labels: { 'sample.kyma-project.io/watched': 'true' } }, spec: { size: 1 } });
  const calls = async (write: () => Promise<{ status: number; text: string }>, status: number): Promise<number> => {
    const seen = served.reviews().length;
    const r = await write();
    assert.equal(r.status, status, r.text);
    return served.reviews().length - seen;
  };
  const applier = 'fieldManager=declarative.kyma-project.io%2Fapplier';
  assert.equal(await calls(() => client.request('PATCH', `${path}/mine?${applier}&force=true`, { body: JSON.stringify(sample('mine')), contentType: 'application/apply-patch+yaml' }), 201), 0, 'the applier\'s create');
  assert.equal(await calls(() => client.request('PATCH', `${path}/mine?${applier}`, { body: JSON.stringify({ spec: { size: 2 } }), contentType: 'application/merge-patch+json' }), 200), 0, 'the applier\'s update');
  assert.equal(await calls(() => client.request('PATCH', `${path}/mine?fieldManager=kubectl-edit`, { body: JSON.stringify({ spec: { size: 3 } }), contentType: 'application/merge-patch+json' }), 200), 1, 'a person\'s edit');
  assert.equal(await calls(() => client.request('POST', path, { body: JSON.stringify(sample('theirs')) }), 201), 1, 'a create without a field manager');
  const status = (size: number) => JSON.stringify({ status: { size } });
  assert.equal(await calls(() => client.request('PATCH', `${path}/mine/status?${applier}`, { body: status(1), contentType: 'application/merge-patch+json' }), 200), 0, "the applier's status write");
  assert.equal(await calls(() => client.request('PATCH', `${path}/mine/status?fieldManager=module-operator`, { body: status(2), contentType: 'application/merge-patch+json' }), 200), 1, "the module operator's status write");
  assert.equal(await calls(() => client.request('DELETE', `${path}/mine`), 200), 1, 'a delete');
});
