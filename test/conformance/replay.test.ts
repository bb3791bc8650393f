import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCA, createServingCert } from '../../src/apiserver/pki.js';
import { replayScenario, replayScenarioRaw } from './replay.js';
import { JsonDocumentSplitter } from './http.js';
import { selectPath } from './select.js';
import { renderBody, renderPath, type TemplateContext } from './template.js';
import type { JsonValue, Scenario } from './types.js';

interface FakeServer {
  url: string;
  caPem: string;
  headers: IncomingHttpHeaders[];
  bodies: string[];
  paths: string[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => resolve(text));
  });
}

function json(res: ServerResponse, status: number, body: JsonValue): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Calls a webhook the way the API server does: POST an AdmissionReview, trusting its caBundle. */
function callWebhook(url: string, caBundle: string, review: JsonValue): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${url}?timeout=5s`, { method: 'POST', ca: Buffer.from(caBundle, 'base64').toString(), agent: false }, (res) =>
      {
        readBody(res).then(resolve, reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(review));
  });
}

/** Just enough of an API server to exercise the replayer. */
async function startFake(): Promise<FakeServer> {
  const ca = await createCA('fake-ca');
  const serving = await createServingCert(ca, { commonName: 'fake', dnsNames: [], ipAddresses: ['127.0.0.1'] });
  const seen = { headers: [] as IncomingHttpHeaders[], bodies: [] as string[], paths: [] as string[] };
  let flaky = 0;
  let hook: { url: string; caBundle: string } | undefined;
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    (async () => {
      const body = await readBody(req);
      const path = req.url ?? '';
      seen.headers.push(req.headers);
      seen.bodies.push(body);
      seen.paths.push(`${req.method} ${path}`);
      if (req.headers.authorization !== 'Bearer secret') return json(res, 401, { reason: 'Unauthorized' });
      if (req.method === 'POST' && path === '/api/v1/namespaces') {
        flaky = 0;
        return json(res, 201, JSON.parse(body) as JsonValue);
      }
      if (req.method === 'DELETE' && path.startsWith('/api/v1/namespaces/')) return json(res, 200, {});
      if (path.endsWith('/configmaps/cm')) {
        return json(res, 200, { kind: 'ConfigMap', metadata: { name: 'cm', uid: '0b1c-77', resourceVersion: '1001', selfLink: '/x' } });
      }
      if (path === '/flaky') return json(res, ++flaky < 3 ? 404 : 200, { attempt: flaky });
      if (path === '/echo') return json(res, 200, { contentType: req.headers['content-type'] ?? null, accept: req.headers.accept ?? null, body });
      if (path.includes('watch=1')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"type":"ADDED","object":{"metadata":{"name":"b","resourceVersion":"1002"}}}\n{"type":"ADDED",');
        setTimeout(() => res.write('"object":{"metadata":{"name":"a","resourceVersion":"1003"}}}\n'), 50);
        return;
      }
      if (path === '/register') {
        hook = JSON.parse(body) as { url: string; caBundle: string };
        return json(res, 201, { clientConfig: hook as unknown as JsonValue });
      }
      if (path === '/admit' && hook) {
        const answer = await callWebhook(hook.url, hook.caBundle, { kind: 'AdmissionReview', request: { uid: 'req-1', name: 'x' } }).catch(
          (err: Error) => JSON.stringify({ error: err.message }),
        );
        return json(res, 200, JSON.parse(answer) as JsonValue);
      }
      json(res, 404, { reason: 'NotFound' });
    })().catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caPem: ca.certPem,
    ...seen,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

test('replay: namespace, headers, templating, select, omitBody, record:false, retry, watch, webhook', async () => {
  const fake = await startFake();
  try {
    const scenario: Scenario = {
      name: 'fake',
      steps: [
        { id: 'get', path: '/api/v1/namespaces/{{ns}}/configmaps/cm' },
        { id: 'hidden', path: '/api/v1/namespaces/{{ns}}/configmaps/cm', record: false },
        { id: 'echo', method: 'PATCH', path: '/echo', contentType: 'application/merge-patch+json', accept: 'application/json;as=Table', body: { rv: '{{get.body.metadata.resourceVersion}}', n: '{{get.status}}', s: 'in {{ns}}' } },
        { id: 'omitted', path: '/api/v1/namespaces/{{ns}}/configmaps/cm', omitBody: true },
        { id: 'selected', path: '/api/v1/namespaces/{{ns}}/configmaps/cm', select: 'metadata.name' },
        { id: 'retried', path: '/flaky', retry: { untilStatus: 200, timeoutMs: 5000 } },
        { id: 'w', watch: '/api/v1/namespaces/{{ns}}/configmaps?watch=1&resourceVersion={{get.body.metadata.resourceVersion}}' },
        { id: 'events', collect: 'w', count: 2, timeoutMs: 3000, close: true, select: 'metadata', unordered: true },
        { id: 'hook', webhook: { respond: { allowed: false, status: { message: 'no' } } } },
        { id: 'register', method: 'POST', path: '/register', body: { url: '{{hook.url}}/validate', caBundle: '{{hook.caBundle}}' } },
        { id: 'admit', method: 'POST', path: '/admit', body: {} },
        { id: 'reviews', reviews: 'hook', count: 1, select: 'request.name' },
        { webhookStop: 'hook' },
        { id: 'admitStopped', method: 'POST', path: '/admit', body: {} },
        { sleepMs: 10 },
      ],
    };
    const raw = await replayScenarioRaw({ url: fake.url, token: 'secret', caPem: fake.caPem }, scenario);
    assert.match(raw.namespace, /^kc-[a-z0-9]{10}$/);
    assert.equal(fake.paths[0], 'POST /api/v1/namespaces');
    assert.equal(fake.paths.at(-1), `DELETE /api/v1/namespaces/${raw.namespace}`);
    for (const headers of fake.headers) {
      assert.equal(headers['user-agent'], undefined);
      assert.equal(headers.authorization, 'Bearer secret');
    }
    const echoIndex = fake.paths.indexOf('PATCH /echo');
    assert.deepEqual(JSON.parse(fake.bodies[echoIndex]), { rv: '1001', n: 200, s: `in ${raw.namespace}` });

    const normalized = await replayScenario({ url: fake.url, token: 'secret', caPem: fake.caPem }, scenario);
    const byId = new Map(normalized.steps.map((s) => [s.id, s]));
    const responseOf = (id: string) => {
      const step = byId.get(id);
      return step && 'response' in step ? step.response : undefined;
    };
    assert.deepEqual([...byId.keys()], ['get', 'echo', 'omitted', 'selected', 'retried', 'w', 'events', 'register', 'admit', 'reviews', 'admitStopped']);
    assert.deepEqual(byId.get('get'), {
      id: 'get',
      request: { method: 'GET', path: '/api/v1/namespaces/{{ns}}/configmaps/cm' },
      response: { status: 200, body: { kind: 'ConfigMap', metadata: { name: 'cm', uid: 'uid#1', resourceVersion: 'rv#1' } } },
    });
    assert.deepEqual(responseOf('echo'), {
      status: 200,
      body: { contentType: 'application/merge-patch+json', accept: 'application/json;as=Table', body: '{"rv":"1001","n":200,"s":"in {{ns}}"}' },
    });
    assert.deepEqual(responseOf('omitted'), { status: 200, body: '<omitted>' });
    assert.deepEqual(responseOf('selected'), { status: 200, body: 'cm' });
    assert.deepEqual(responseOf('retried'), { status: 200, body: { attempt: 3 } });
    assert.deepEqual(byId.get('w'), { id: 'w', watch: '/api/v1/namespaces/{{ns}}/configmaps?watch=1&resourceVersion=<rv>', status: 200 });
    assert.deepEqual(byId.get('events'), {
      id: 'events',
      collect: 'w',
      events: [
        { type: 'ADDED', object: { name: 'a', resourceVersion: 'rv#3' } },
        { type: 'ADDED', object: { name: 'b', resourceVersion: 'rv#2' } },
      ],
    });
    assert.deepEqual(responseOf('register'), {
      status: 201,
      body: { clientConfig: { url: '{{hook.url}}/validate', caBundle: '{{hook.caBundle}}' } },
    });
    assert.deepEqual(responseOf('admit'), {
      status: 200,
      body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'uid#2', allowed: false, status: { message: 'no' } } },
    });
    assert.deepEqual(byId.get('reviews'), { id: 'reviews', reviews: [{ path: '/validate?timeout=5s', review: 'x' }] });
    const stopped = responseOf('admitStopped')?.body as { error?: string } | undefined;
    assert.match(stopped?.error ?? '', /ECONNREFUSED|socket hang up|ECONNRESET/);
  } finally {
    await fake.close();
  }
});

test('select: dot paths, [key=value] filters, and the recorder\'s split at every dot', () => {
  const body: JsonValue = { groups: [{ name: 'a', v: 1 }, { name: 'b', v: 2 }], items: [{ metadata: { name: 'x' } }], meta: { name: 'm' } };
  assert.equal(selectPath(body, 'meta.name'), 'm');
  assert.deepEqual(selectPath(body, 'groups[name=b]'), [{ name: 'b', v: 2 }]);
  assert.deepEqual(selectPath(body, 'groups.[v=1]'), [{ name: 'a', v: 1 }]);
  assert.equal(selectPath(body, 'items.0.metadata.name'), 'x');
  assert.equal(selectPath(body, 'groups[name=conf.example.com]'), undefined);
  assert.equal(selectPath(body, 'missing.field'), undefined);
  assert.equal(selectPath('404 page not found', 'items'), undefined);
});

test('templates: whole-string references keep their type, paths are URL-encoded, unknown steps fail', () => {
  const ctx: TemplateContext = {
    namespace: 'kc-abc',
    responses: new Map([['page1', { status: 200, body: { metadata: { continue: 'a+b/c=', count: 3 } } }]]),
    webhooks: new Map([['hook', { url: 'https://127.0.0.1:1', caBundle: 'Q0E=' }]]),
  };
  assert.deepEqual(renderBody({ n: '{{page1.body.metadata.count}}', s: 'x-{{ns}}', u: '{{hook.url}}/v' }, ctx), {
    n: 3,
    s: 'x-kc-abc',
    u: 'https://127.0.0.1:1/v',
  });
  assert.equal(renderPath('/api/v1/namespaces/{{ns}}/cm?continue={{page1.body.metadata.continue}}', ctx), '/api/v1/namespaces/kc-abc/cm?continue=a%2Bb%2Fc%3D');
  assert.throws(() => renderPath('/{{nope.body.x}}', ctx), /no earlier step "nope"/);
});

test('the watch splitter handles chunks cut anywhere, strings with braces and concatenated documents', () => {
  const splitter = new JsonDocumentSplitter();
  const text = '{"type":"ADDED","object":{"s":"}{\\"x"}}\n{"type":"DELETED","object":{}}{"type":"BOOKMARK"}';
  const out: string[] = [];
  for (const ch of text) out.push(...splitter.push(ch));
  assert.deepEqual(out.map((t) => (JSON.parse(t) as { type: string }).type), ['ADDED', 'DELETED', 'BOOKMARK']);
});
