// The runtime's ValidatingWebhookConfiguration `skr-webhook`, built from the KCP's Watchers as
// upstream does (internal/service/watcher/resources): one webhook per Watcher. A pure function: the
// runtime side (which applies it into every runtime) decides when and where.
import { LabelValues, Labels, OPERATOR_GROUP, type WatcherObject } from '../api/operator/index.js';
import { SKR_WEBHOOK_NAME, SKR_WEBHOOK_NAMESPACE, SKR_WEBHOOK_PORT, SKR_WEBHOOK_TIMEOUT_SECONDS } from './constants.js';
import { managerOf, watcherProblems } from './validate.js';

export interface ValidatingWebhook {
  name: string;
  objectSelector: { matchLabels: Record<string, string> };
  rules: { operations: string[]; apiGroups: string[]; apiVersions: string[]; resources: string[]; scope: string }[];
  clientConfig: { service: { name: string; namespace: string; path: string; port: number }; caBundle: string };
  failurePolicy: 'Ignore';
  matchPolicy: 'Equivalent';
  sideEffects: 'NoneOnDryRun';
  timeoutSeconds: number;
  admissionReviewVersions: string[];
}

export interface ValidatingWebhookConfiguration {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'ValidatingWebhookConfiguration';
  metadata: { name: string; labels: Record<string, string> };
  webhooks: ValidatingWebhook[];
}

/** `<namespace>.<name>.operator.kyma-project.io`, the webhook of one Watcher. */
export function webhookName(w: WatcherObject): string {
  return `${w.metadata.namespace ?? ''}.${w.metadata.name ?? ''}.${OPERATOR_GROUP}`;
}

/**
 * The `skr-webhook` configuration for these Watchers: one webhook each, sorted by name; Watchers being
 * deleted and Watchers the controller reports as invalid (their webhook would not work) are left out.
 * Fields upstream leaves to the API server's defaults (port, scope, matchPolicy) are written with
 * those defaults, so that what is applied equals what the server returns.
 */
export function webhookConfigurationFor(watchers: WatcherObject[], caBundlePem: string): ValidatingWebhookConfiguration {
  const caBundle = Buffer.from(caBundlePem, 'utf8').toString('base64');
  const webhooks = watchers
    .filter((w) => !w.metadata.deletionTimestamp && watcherProblems(w).length === 0)
    .map((w): ValidatingWebhook => {
      const r = w.spec.resourceToWatch;
      return {
        name: webhookName(w),
        objectSelector: { matchLabels: { ...w.spec.labelsToWatch } },
        rules: [
          {
            operations: ['CREATE', 'UPDATE', 'DELETE'],
            apiGroups: [r.group],
            apiVersions: [r.version],
            resources: [w.spec.field === 'status' ? `${r.resource}/status` : r.resource],
            scope: '*',
          },
        ],
        clientConfig: {
          service: { name: SKR_WEBHOOK_NAME, namespace: SKR_WEBHOOK_NAMESPACE, path: `/validate/${managerOf(w) ?? ''}`, port: SKR_WEBHOOK_PORT },
          caBundle,
        },
        failurePolicy: 'Ignore',
        matchPolicy: 'Equivalent',
        sideEffects: 'NoneOnDryRun',
        timeoutSeconds: SKR_WEBHOOK_TIMEOUT_SECONDS,
        admissionReviewVersions: ['v1'],
      };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: SKR_WEBHOOK_NAME, labels: { [Labels.ManagedBy]: LabelValues.Kyma } },
    webhooks,
  };
}
