// Gardener's admission for Shoots, served the way the embedded API server calls admission: an
// HTTPS validating webhook on 127.0.0.1 (self-signed certificate) registered in the garden cluster
// by a ValidatingWebhookConfiguration. Create and update are validated (see validation.ts); delete
// needs the deletion confirmation annotation.
import { jsonEqual } from '../../kube/json.js';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GARDENER_CORE_GROUP, GARDENER_CORE_VERSION, Shoot, type ShootObject } from '../../api/gardener/index.js';
import type { LogicalCluster } from '../../apiserver/cluster.js';
import { invalid } from '../../apiserver/errors.js';
import { createSelfSigned } from '../../apiserver/pki.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { AnnotationRefuseSpecUpdates, SHOOT_WEBHOOK_NAME } from '../constants.js';
import type { GardenerSimulatorOptions } from './options.js';
import { deletionRefusal, validateShoot } from './validation.js';
import { closeServer, listen } from '../../util/servers.js';

export const WEBHOOK_CONFIGURATION_NAME = 'gardener-simulator';
const WEBHOOK_PATH = '/validate-shoots';

interface AdmissionRequest {
  uid?: string;
  operation?: string;
  name?: string;
  object?: ObjectWithMeta | null;
  oldObject?: ObjectWithMeta | null;
}

type Verdict = { allowed: true } | { allowed: false; status: { code: number; reason: string; message: string } };

export class ShootAdmissionWebhook {
  private constructor(
    private readonly server: https.Server,
    readonly url: string,
    readonly caBundle: string,
  ) {}

  static async start(settings: Pick<GardenerSimulatorOptions, 'providerTypes' | 'regions'>): Promise<ShootAdmissionWebhook> {
    const cert = await createSelfSigned({ commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], days: 365 });
    const server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => answer(req, res, settings));
    server.keepAliveTimeout = 5_000;
    const { port } = await listen(server, 0, '127.0.0.1');
    return new ShootAdmissionWebhook(server, `https://127.0.0.1:${port}${WEBHOOK_PATH}`, Buffer.from(cert.certPem).toString('base64'));
  }

  /** Creates or refreshes the ValidatingWebhookConfiguration pointing at this webhook. */
  async register(garden: LogicalCluster): Promise<void> {
    const t = garden.resolve('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations');
    if (!t) throw new Error('the garden cluster does not serve ValidatingWebhookConfigurations');
    const config: ObjectWithMeta = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: WEBHOOK_CONFIGURATION_NAME, labels: { 'app.kubernetes.io/managed-by': 'gardener-simulator' } },
      webhooks: [
        {
          name: SHOOT_WEBHOOK_NAME,
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          timeoutSeconds: 10,
          clientConfig: { url: this.url, caBundle: this.caBundle },
          rules: [{ apiGroups: [GARDENER_CORE_GROUP], apiVersions: [GARDENER_CORE_VERSION], operations: ['CREATE', 'UPDATE', 'DELETE'], resources: [Shoot.plural], scope: 'Namespaced' }],
        },
      ],
    };
    const existing = garden.tryGet(t, '', WEBHOOK_CONFIGURATION_NAME);
    const opts = { internal: true, fieldManager: 'gardener-simulator' };
    if (existing) await garden.update(t, '', WEBHOOK_CONFIGURATION_NAME, { ...config, metadata: { ...existing.metadata, ...config.metadata } }, opts);
    else await garden.create(t, '', config, opts);
  }

  stop(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return closeServer(this.server);
  }
}

function answer(req: IncomingMessage, res: ServerResponse, settings: Pick<GardenerSimulatorOptions, 'providerTypes' | 'regions'>): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let request: AdmissionRequest = {};
    let verdict: Verdict;
    try {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request?: AdmissionRequest };
      request = review.request ?? {};
      verdict = judge(request, settings);
    } catch (err) {
      verdict = { allowed: false, status: { code: 400, reason: 'BadRequest', message: `cannot read the AdmissionReview: ${(err as Error).message}` } };
    }
    const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: request.uid ?? '', ...verdict } });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
}

/** Gardener's decision on one request. */
export function judge(request: AdmissionRequest, settings: Pick<GardenerSimulatorOptions, 'providerTypes' | 'regions'>): Verdict {
  const name = request.name ?? request.object?.metadata.name ?? '';
  if (request.operation === 'DELETE') {
    const old = request.oldObject;
    const refusal = old ? deletionRefusal(old) : undefined;
    if (!refusal) return { allowed: true };
    return { allowed: false, status: { code: 403, reason: 'Forbidden', message: `${Shoot.plural}.${GARDENER_CORE_GROUP} "${name}" is forbidden: ${refusal}` } };
  }
  const shoot = request.object as ShootObject | null | undefined;
  if (!shoot || (request.operation !== 'CREATE' && request.operation !== 'UPDATE')) return { allowed: true };
  const old = (request.oldObject ?? undefined) as ShootObject | undefined;
  // Metadata-only updates (finalizers, annotations) are not held to today's spec rules.
  if (old && jsonEqual(old.spec, shoot.spec)) return { allowed: true };
  const refusal = old ? injectedRefusal(old, name) : undefined;
  if (refusal) return refusal;
  const errors = validateShoot(shoot, old, settings);
  if (errors.length === 0) return { allowed: true };
  return { allowed: false, status: { code: 422, reason: 'Invalid', message: invalid(Shoot.kind, GARDENER_CORE_GROUP, name, errors).message } };
}

const refusalReasons: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 409: 'Conflict', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable' };

/** The answer asked for with `AnnotationRefuseSpecUpdates` on the stored Shoot, if any. */
function injectedRefusal(old: ShootObject, name: string): Verdict | undefined {
  const value = old.metadata.annotations?.[AnnotationRefuseSpecUpdates];
  const code = value === undefined ? NaN : Number(value);
  if (!Number.isInteger(code) || code < 400 || code > 599) return undefined;
  const reason = refusalReasons[code] ?? 'InternalError';
  return { allowed: false, status: { code, reason, message: `${Shoot.plural}.${GARDENER_CORE_GROUP} "${name}": update refused on request (${AnnotationRefuseSpecUpdates}: ${code} ${reason})` } };
}
