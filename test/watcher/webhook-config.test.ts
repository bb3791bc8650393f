// webhookConfigurationFor: the runtime's skr-webhook configuration, one webhook per usable Watcher.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WatcherObject } from '../../src/api/operator/index.js';
import { defaultWatchers, DEFAULT_LISTENER, webhookConfigurationFor } from '../../src/watcher/index.js';
import { sampleWatcher } from './sample-watcher.js';

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
