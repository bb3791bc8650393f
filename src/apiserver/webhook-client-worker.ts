// The embedded API server's webhook calls, in a worker thread (see webhook-client-thread.ts): one
// WebhookClient, fed encoded AdmissionReviews by the main thread, answering with the response's
// text or the call's error text.
import { parentPort, workerData } from 'node:worker_threads';
import type { FromWebhookClientThread, ToWebhookClientThread } from './webhook-client-thread.js';
import { WebhookClient, type WebhookPoolLimits } from './webhook-client.js';

const port = parentPort;
if (!port) throw new Error('webhook-client-worker runs as a worker thread');

const client = new WebhookClient((workerData as { limits?: WebhookPoolLimits } | undefined)?.limits);

function reply(m: { t: 'answer'; id: number; text: string } | { t: 'failed'; id: number; message: string }): void {
  port!.postMessage({ ...m, connections: client.stats.connections, resumed: client.stats.resumed } satisfies FromWebhookClientThread);
}

port.on('message', (m: ToWebhookClientThread) => {
  if (m.t === 'close') {
    client.destroy();
    // Ends this thread only; answers still being awaited are failed by the main thread.
    process.exit(0);
  }
  client.postText({ ...m.target, connect: new URL(m.target.connect) }, m.json, m.timeoutMs).then(
    (text) => reply({ t: 'answer', id: m.id, text }),
    (e: unknown) => reply({ t: 'failed', id: m.id, message: e instanceof Error ? e.message : String(e) }),
  );
});
