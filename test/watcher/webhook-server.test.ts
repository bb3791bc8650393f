// `kcp skr-webhook` as a runtime runs it: configured by upstream's environment variables, it answers
// admission reviews (always allowed) and reports the changes that matter to the KCP listener with
// the runtime's key pair.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { issueListenerCertificate, issueRuntimeCertificate, type CaState } from '../../src/watcher/certificates.js';
import { EventListener, type DeliveredEvent } from '../../src/watcher/listener.js';
import { startSkrWebhookServer, webhookConfigFromEnv, type RunningWebhookServer } from '../../src/watcher/webhook-server.js';
import { waitFor } from '../support/wait.js';
import { DAY, testCa } from './test-ca.js';

function review(operation: string, object: unknown, oldObject: unknown, subResource?: string, options?: Record<string, unknown>) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `uid-${operation}`,
      kind: { group: 'operator.kyma-project.io', version: 'v1beta2', kind: 'Kyma' },
      namespace: 'kyma-system',
      name: 'default',
      operation,
      object,
      oldObject,
      ...(subResource ? { subResource } : {}),
      ...(options ? { options } : {}),
    },
  };
}

describe('kcp skr-webhook', () => {
  let dir: string;
  let listener: EventListener;
  let server: RunningWebhookServer;
  let ca: CaState;
  const delivered: DeliveredEvent[] = [];

  before(async () => {
    ca = await testCa('watcher-ca');
    const serving = await issueListenerCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], validityMs: DAY });
    listener = new EventListener({ host: '127.0.0.1', port: 0, mode: { kind: 'mtls', tls: { certPem: serving.certPem, keyPem: serving.keyPem, clientCaPem: ca.trustedPem } } });
    listener.handle('lifecycle-manager', (e) => {
      delivered.push(e);
      return 'enqueued';
    });
    await listener.start();
    const runtime = await issueRuntimeCertificate(ca, { runtimeId: 'rt-1', dnsNames: ['skr-webhook.kyma-system.svc'], validityMs: DAY });
    dir = mkdtempSync(join(tmpdir(), 'skr-webhook-'));
    writeFileSync(join(dir, 'tls.crt'), runtime.certPem);
    writeFileSync(join(dir, 'tls.key'), runtime.keyPem);
    writeFileSync(join(dir, 'ca.crt'), runtime.caPem);
    const config = webhookConfigFromEnv(
      { WEBHOOK_PORT: '0', METRICS_PORT: '0', KCP_ADDR: `127.0.0.1:${listener.address.port}`, KCP_CONTRACT: 'v2', TLS_CERT: join(dir, 'tls.crt'), TLS_KEY: join(dir, 'tls.key'), CA_CERT: join(dir, 'ca.crt'), IGNORED_FIELD_MANAGERS: 'lifecycle-manager, declarative.kyma-project.io/applier,', IGNORED_FIELD_MANAGERS_FOR: 'lifecycle-manager' },
      '127.0.0.1',
    );
    server = await startSkrWebhookServer(config);
  });
  after(async () => {
    await server?.close();
    await listener?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function admit(body: unknown, manager = 'lifecycle-manager'): Promise<{ response: { uid: string; allowed: boolean } }> {
    return new Promise((resolve, reject) => {
      const req = request(new URL(`/validate/${manager}`, server.url), { method: 'POST', ca: ca.trustedPem, servername: 'skr-webhook.kyma-system.svc', headers: { 'content-type': 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { response: { uid: string; allowed: boolean } }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  }

  it('refuses an environment it cannot run with, naming what is wrong', () => {
    assert.throws(() => webhookConfigFromEnv({ KCP_CONTRACT: 'v2' }), /missing environment variables KCP_ADDR, TLS_CERT, TLS_KEY, CA_CERT/);
    assert.throws(() => webhookConfigFromEnv({ KCP_CONTRACT: 'v1', KCP_ADDR: 'x', TLS_CERT: 'a', TLS_KEY: 'b', CA_CERT: 'c' }), /KCP_CONTRACT=v1 is not supported/);
    const env = { KCP_ADDR: 'x', TLS_CERT: 'a', TLS_KEY: 'b', CA_CERT: 'c' };
    const ignored = webhookConfigFromEnv({ ...env, IGNORED_FIELD_MANAGERS: ' a ,b,,', IGNORED_FIELD_MANAGERS_FOR: 'm' }).ignoredWrites;
    assert.deepEqual([...ignored.fieldManagers], ['a', 'b']);
    assert.deepEqual([...(ignored.forManagers ?? [])], ['m']);
    assert.equal(webhookConfigFromEnv(env).ignoredWrites.fieldManagers.size, 0);
    assert.equal(webhookConfigFromEnv({ ...env, IGNORED_FIELD_MANAGERS: 'a' }).ignoredWrites.forManagers, undefined, 'unset: ignored on every path');
  });

  it('allows everything and reports spec changes, creates and deletes, not status or label updates', async () => {
    const kyma = (spec: unknown, labels: Record<string, string> = {}) => ({ metadata: { name: 'default', namespace: 'kyma-system', labels }, spec, status: { state: 'Ready' } });
    const answers = [
      await admit(review('UPDATE', kyma({ channel: 'regular' }, { team: 'a' }), kyma({ channel: 'regular' }))),
      await admit(review('UPDATE', { ...kyma({ channel: 'regular' }), status: { state: 'Error' } }, kyma({ channel: 'regular' }))),
      await admit(review('UPDATE', kyma({ channel: 'fast' }), kyma({ channel: 'regular' }))),
      await admit(review('DELETE', null, kyma({ channel: 'fast' }))),
    ];
    assert.ok(answers.every((a) => a.response.allowed), 'every request is allowed');
    assert.deepEqual(answers.map((a) => a.response.uid), ['uid-UPDATE', 'uid-UPDATE', 'uid-UPDATE', 'uid-DELETE']);
    // The webhook's own count, taken when it answered: two requests gave no event, two gave one.
    const metrics = await (await fetch(server.metricsUrl)).text();
    assert.match(metrics, /^watcher_webhook_requests_total\{manager="lifecycle-manager",event="false"\} 2$/m);
    assert.match(metrics, /^watcher_webhook_requests_total\{manager="lifecycle-manager",event="true"\} 2$/m);
    await waitFor('the two events at the listener', () => delivered.length === 2);
    assert.ok(delivered.every((e) => e.runtimeId === 'rt-1' && e.event.watched.name === 'default' && e.event.watchedGvk.kind === 'Kyma'));
  });

  it('sends no event for a write under an ignored field manager (the lifecycle manager\'s own) on the paths it is ignored for, and one for the same write by anyone else or on another path', async () => {
    const kyma = (channel: string) => ({ metadata: { name: 'default', namespace: 'kyma-system' }, spec: { channel } });
    const before = delivered.length;
    const answers = [
      await admit(review('CREATE', kyma('regular'), null, undefined, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'lifecycle-manager' })),
      await admit(review('UPDATE', kyma('fast'), kyma('regular'), undefined, { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'declarative.kyma-project.io/applier' })),
      await admit(review('UPDATE', kyma('fast'), kyma('regular'), undefined, { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kubectl-edit' })),
      // Another Watcher's path (a module's ModuleConfig watcher, say): the lifecycle manager's write is reported there.
      await admit(review('CREATE', kyma('regular'), null, undefined, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'lifecycle-manager' }), 'module-config'),
    ];
    assert.ok(answers.every((a) => a.response.allowed), 'every request is allowed');
    // The kubectl edit's event arrives; the two ignored writes were answered before it and sent nothing.
    await waitFor('the kubectl edit\'s event at the listener', () => delivered.length === before + 1);
    const metrics = await (await fetch(server.metricsUrl)).text();
    assert.match(metrics, /^watcher_webhook_requests_total\{manager="lifecycle-manager",event="false"\} 4$/m);
    assert.match(metrics, /^watcher_webhook_requests_total\{manager="lifecycle-manager",event="true"\} 3$/m);
    assert.match(metrics, /^watcher_webhook_requests_total\{manager="module-config",event="true"\} 1$/m);
  });
});
