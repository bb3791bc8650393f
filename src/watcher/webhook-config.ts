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
  matchConditions?: { name: string; expression: string }[];
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

/** Writes the webhook has no event for: these field managers' on the paths of these event managers (webhook.ts). */
export interface IgnoredWriters {
  fieldManagers: readonly string[];
  forManagers: readonly string[];
}

/** The name of the matchCondition that leaves the ignored field managers' writes out. */
export const IGNORED_WRITERS_CONDITION = 'exclude-lifecycle-manager-writes';

/**
 * A CEL matchCondition that is false for a write under one of these field managers, so that the
 * runtime's API server does not call the webhook for what it would answer without an event anyway
 * (on by default since Kubernetes 1.28; where the feature is off the field is dropped, the API
 * server calls, and the webhook drops the write as before).
 */
export function ignoredWritersCondition(fieldManagers: readonly string[]): { name: string; expression: string } {
  const list = [...fieldManagers].sort().map((m) => JSON.stringify(m)).join(', ');
  return {
    name: IGNORED_WRITERS_CONDITION,
    // kube-apiserver always sets options, but as null when a request has none: both are guarded.
    expression: `!has(request.options) || request.options == null || !has(request.options.fieldManager) || !(request.options.fieldManager in [${list}])`,
  };
}

/**
 * The `skr-webhook` configuration for these Watchers: one webhook each, sorted by name; Watchers being
 * deleted and Watchers the controller reports as invalid (their webhook would not work) are left out.
 * Fields upstream leaves to the API server's defaults (port, scope, matchPolicy) are written with
 * those defaults, so that what is applied equals what the server returns.
 */
export function webhookConfigurationFor(watchers: WatcherObject[], caBundlePem: string, ignored?: IgnoredWriters): ValidatingWebhookConfiguration {
  const caBundle = Buffer.from(caBundlePem, 'utf8').toString('base64');
  const condition = ignored && ignored.fieldManagers.length > 0 ? ignoredWritersCondition(ignored.fieldManagers) : undefined;
  const webhooks = watchers
    .filter((w) => !w.metadata.deletionTimestamp && watcherProblems(w).length === 0)
    .map((w): ValidatingWebhook => {
      const r = w.spec.resourceToWatch;
      const manager = managerOf(w) ?? '';
      const excludeIgnored = condition !== undefined && ignored!.forManagers.includes(manager);
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
          service: { name: SKR_WEBHOOK_NAME, namespace: SKR_WEBHOOK_NAMESPACE, path: `/validate/${manager}`, port: SKR_WEBHOOK_PORT },
          caBundle,
        },
        failurePolicy: 'Ignore',
        matchPolicy: 'Equivalent',
        sideEffects: 'NoneOnDryRun',
        timeoutSeconds: SKR_WEBHOOK_TIMEOUT_SECONDS,
        admissionReviewVersions: ['v1'],
        ...(excludeIgnored ? { matchConditions: [condition] } : {}),
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
