// A validating admission webhook for scenarios: HTTPS on 127.0.0.1 with a fresh self-signed
// certificate; records every AdmissionReview and answers with the scenario's `respond`.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPlainObject } from '../../src/kube/json.js';
import { createSelfSigned } from '../../src/apiserver/pki.js';
import { parseBody } from './http.js';
import type { JsonObject, JsonValue, RecordedReview } from './types.js';
import { sleep } from '../../src/util/sleep.js';

export class AdmissionWebhook {
  private readonly received: RecordedReview[] = [];
  private consumed = 0;

  private constructor(
    readonly id: string,
    private readonly server: https.Server,
    readonly url: string,
    readonly caBundle: string,
    private respond: JsonObject,
  ) {}

  static async start(id: string, respond: JsonObject): Promise<AdmissionWebhook> {
    const cert = await createSelfSigned({ commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], days: 1 });
    const server = https.createServer({ cert: cert.certPem, key: cert.keyPem });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const hook = new AdmissionWebhook(id, server, `https://127.0.0.1:${port}`, Buffer.from(cert.certPem).toString('base64'), respond);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (text += chunk));
      req.on('end', () => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(hook.answer(req.url ?? '', parseBody(text))));
      });
    });
    return hook;
  }

  private answer(path: string, review: JsonValue): JsonObject {
    this.received.push({ path, review });
    const request = isPlainObject(review) && isPlainObject(review.request) ? review.request : {};
    const uid = (request.uid as JsonValue | undefined) ?? '';
    return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, ...this.respond } };
  }

  /** Every review received so far (calls are made within the request, so this is current once a write answered). */
  reviews(): readonly RecordedReview[] {
    return this.received;
  }

  setRespond(respond: JsonObject): void {
    this.respond = respond;
  }

  /**
   * Waits until `count` reviews arrived since the last call (at most `timeoutMs`), then 300 ms more
   * for stragglers, and returns everything received since the last call.
   */
  async takeReviews(count: number, timeoutMs: number): Promise<RecordedReview[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length - this.consumed < count && Date.now() < deadline) await sleep(25);
    await sleep(300);
    const reviews = this.received.slice(this.consumed);
    this.consumed = this.received.length;
    return reviews;
  }

  /** Closes the listener and every open connection, so that the API server cannot reach it any more. */
  stop(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
