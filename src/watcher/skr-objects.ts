// What the lifecycle manager installs into every runtime for the watcher, as upstream does (all in
// kyma-system, label operator.kyma-project.io/managed-by: kyma): the Secret skr-webhook-tls, the
// Services skr-webhook and skr-webhook-metrics, the Deployment skr-webhook, upstream's four
// NetworkPolicies around the webhook pod, and the ValidatingWebhookConfiguration skr-webhook (built
// from the Watchers, see webhookConfigurationFor).
import type { IgnoredWriters } from './webhook-config.js';
import { createHash } from 'node:crypto';
import { LabelValues, Labels, OPERATOR_GROUP } from '../api/operator/index.js';
import type { KubeObject } from '../kube/object.js';
import { SKR_WEBHOOK_NAME, SKR_WEBHOOK_NAMESPACE } from './constants.js';
import { CONTRACT_VERSION } from './event.js';

export { SKR_WEBHOOK_NAME, SKR_WEBHOOK_NAMESPACE };

export const SKR_WEBHOOK_METRICS_SERVICE = 'skr-webhook-metrics';
export const SKR_WEBHOOK_TLS_SECRET = 'skr-webhook-tls';
export const WEBHOOK_CONTAINER_PORT = 8443;
export const WEBHOOK_METRICS_PORT = 2112;
/** Pod label that changes with the certificate, so a new certificate restarts the webhook (upstream's name). */
export const POD_RESTART_TRIGGER = `${OPERATOR_GROUP}/pod-restart-trigger`;
/** Where the Deployment mounts skr-webhook-tls. */
export const CERT_DIR = '/app/etc/ssl';
/** The project's image (deploy/Dockerfile) carries `kcp skr-webhook`; upstream's runtime-watcher image speaks the same contract. */
export const DEFAULT_SKR_WEBHOOK_IMAGE = 'kcp-controllers:latest';
/** How the project's image starts the webhook (its entrypoint runs the controllers). */
export const DEFAULT_SKR_WEBHOOK_COMMAND = ['node', 'dist/src/cli/main.js', 'skr-webhook'];

export interface SkrWebhookSpec {
  image: string;
  /** The container's command; none runs the image's entrypoint (upstream's image). */
  command?: string[];
  /** The KCP listener's address as runtimes reach it (`host:port`). */
  kcpAddress: string;
  tls: { caPem: string; certPem: string; keyPem: string };
  /**
   * Writes that give no event (the lifecycle manager's own): their field managers (env
   * IGNORED_FIELD_MANAGERS), on the webhook paths of these event managers (IGNORED_FIELD_MANAGERS_FOR).
   */
  ignoredWrites?: IgnoredWriters;
}

const labels = { [Labels.ManagedBy]: LabelValues.Kyma };
const APP = { app: SKR_WEBHOOK_NAME };

function meta(name: string): KubeObject['metadata'] {
  return { name, namespace: SKR_WEBHOOK_NAMESPACE, labels: { ...labels, ...APP } };
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** The Secret, the Services and the Deployment (the ValidatingWebhookConfiguration is built apart). */
export function skrWebhookObjects(spec: SkrWebhookSpec): KubeObject[] {
  const trigger = createHash('sha256').update(spec.tls.certPem).update(spec.tls.caPem).digest('hex').slice(0, 16);
  const secret: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta(SKR_WEBHOOK_TLS_SECRET),
    type: 'Opaque',
    data: { 'ca.crt': b64(spec.tls.caPem), 'tls.crt': b64(spec.tls.certPem), 'tls.key': b64(spec.tls.keyPem) },
  } as KubeObject;
  const service: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(SKR_WEBHOOK_NAME),
    spec: { selector: APP, ports: [{ name: 'webhook', port: 443, targetPort: 'watcher-port', protocol: 'TCP' }] },
  } as KubeObject;
  const metricsService: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(SKR_WEBHOOK_METRICS_SERVICE),
    spec: { selector: APP, ports: [{ name: 'http-metrics', port: WEBHOOK_METRICS_PORT, targetPort: 'metrics-port', protocol: 'TCP' }] },
  } as KubeObject;
  const env = [
    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    { name: 'WEBHOOK_PORT', value: String(WEBHOOK_CONTAINER_PORT) },
    { name: 'METRICS_PORT', value: String(WEBHOOK_METRICS_PORT) },
    { name: 'TLS_SERVER', value: 'true' },
    { name: 'TLS_CALLBACK', value: 'true' },
    { name: 'TLS_KEY', value: `${CERT_DIR}/tls.key` },
    { name: 'TLS_CERT', value: `${CERT_DIR}/tls.crt` },
    { name: 'CA_CERT', value: `${CERT_DIR}/ca.crt` },
    { name: 'KCP_ADDR', value: spec.kcpAddress },
    { name: 'KCP_CONTRACT', value: CONTRACT_VERSION },
    // Both or neither: the second unset would mean every path.
    ...(spec.ignoredWrites?.fieldManagers.length && spec.ignoredWrites.forManagers.length
      ? [
          { name: 'IGNORED_FIELD_MANAGERS', value: [...spec.ignoredWrites.fieldManagers].sort().join(',') },
          { name: 'IGNORED_FIELD_MANAGERS_FOR', value: [...spec.ignoredWrites.forManagers].sort().join(',') },
        ]
      : []),
  ];
  const deployment: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(SKR_WEBHOOK_NAME),
    spec: {
      replicas: 1,
      selector: { matchLabels: APP },
      template: {
        metadata: { labels: { ...APP, [POD_RESTART_TRIGGER]: trigger } },
        spec: {
          containers: [
            {
              name: 'server',
              image: spec.image,
              ...(spec.command ? { command: spec.command } : {}),
              env,
              ports: [
                { name: 'watcher-port', containerPort: WEBHOOK_CONTAINER_PORT, protocol: 'TCP' },
                { name: 'metrics-port', containerPort: WEBHOOK_METRICS_PORT, protocol: 'TCP' },
              ],
              resources: { requests: { cpu: '10m', memory: '20Mi' }, limits: { cpu: '100m', memory: '200Mi' } },
              volumeMounts: [{ name: 'ssl', mountPath: CERT_DIR, readOnly: true }],
            },
          ],
          volumes: [{ name: 'ssl', secret: { secretName: SKR_WEBHOOK_TLS_SECRET } }],
        },
      },
    },
  } as KubeObject;
  return [secret, service, metricsService, ...networkPolicies(spec.kcpAddress), deployment];
}

/**
 * Upstream's NetworkPolicy names (lifecycle-manager internal/service/watcher/resources): the webhook
 * pod takes calls on its webhook port (from the API server, which reaches a Gardener shoot through
 * its VPN) and its metrics port, and talks only to the KCP listener's port and to DNS. As upstream,
 * the egress rule towards the KCP carries the port of KCP_ADDR.
 */
export const SKR_WEBHOOK_NETWORK_POLICIES = {
  SeedToWatcher: 'kyma-project.io--seed-to-watcher',
  WatcherToApiServer: 'kyma-project.io--watcher-to-apiserver',
  MetricsToWatcher: 'kyma-project.io--metrics-to-watcher',
  WatcherToDns: 'kyma-project.io--watcher-to-dns',
} as const;

/** Whether an object of a runtime is one of the webhook's own (these names in kyma-system are the lifecycle manager's). */
export function isSkrWebhookObject(group: string, kind: string, namespace: string | undefined, name: string): boolean {
  if (namespace !== SKR_WEBHOOK_NAMESPACE) return false;
  if (group === 'apps' && kind === 'Deployment') return name === SKR_WEBHOOK_NAME;
  if (group === '' && kind === 'Secret') return name === SKR_WEBHOOK_TLS_SECRET;
  if (group === '' && kind === 'Service') return name === SKR_WEBHOOK_NAME || name === SKR_WEBHOOK_METRICS_SERVICE;
  if (group === 'networking.k8s.io' && kind === 'NetworkPolicy') return (Object.values(SKR_WEBHOOK_NETWORK_POLICIES) as string[]).includes(name);
  return false;
}

function kcpPortOf(kcpAddress: string): number {
  const m = /:(\d{1,5})$/.exec(kcpAddress.replace(/^\[[^\]]*\]/, (v6) => v6.replace(/:/g, '')));
  return m ? Number(m[1]) : 443;
}

function networkPolicies(kcpAddress: string): KubeObject[] {
  const policy = (name: string, spec: Record<string, unknown>): KubeObject =>
    ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: meta(name), spec: { podSelector: { matchLabels: APP }, ...spec } }) as KubeObject;
  return [
    policy(SKR_WEBHOOK_NETWORK_POLICIES.SeedToWatcher, { policyTypes: ['Ingress'], ingress: [{ ports: [{ protocol: 'TCP', port: WEBHOOK_CONTAINER_PORT }] }] }),
    policy(SKR_WEBHOOK_NETWORK_POLICIES.MetricsToWatcher, { policyTypes: ['Ingress'], ingress: [{ ports: [{ protocol: 'TCP', port: WEBHOOK_METRICS_PORT }] }] }),
    policy(SKR_WEBHOOK_NETWORK_POLICIES.WatcherToApiServer, { policyTypes: ['Egress'], egress: [{ ports: [{ protocol: 'TCP', port: kcpPortOf(kcpAddress) }] }] }),
    policy(SKR_WEBHOOK_NETWORK_POLICIES.WatcherToDns, {
      policyTypes: ['Egress'],
      egress: [{ ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] }],
    }),
  ];
}

/** Reads the KCP address and contract back from a Deployment built above (the landscape "runs" it). */
export function webhookEnvOf(deployment: { spec?: unknown }): Record<string, string> {
  const spec = deployment.spec as { template?: { spec?: { containers?: { name?: string; env?: { name: string; value?: string }[] }[] } } } | undefined;
  const server = spec?.template?.spec?.containers?.find((c) => c.name === 'server');
  const out: Record<string, string> = {};
  for (const e of server?.env ?? []) if (typeof e.value === 'string') out[e.name] = e.value;
  return out;
}
