// The API server speaks Kubernetes protobuf for built-in kinds the type catalog describes: request
// bodies (objects and DeleteOptions), answers (objects, lists, Status), and watch streams; custom
// resources and Tables stay JSON, as with kube-apiserver.
import assert from 'node:assert/strict';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { decodeObject, encodeObject } from '../../../src/apiserver/protobuf/codec.js';
import { decodeBody } from '../../../src/apiserver/protobuf/http.js';
import { messageType } from '../../../src/apiserver/protobuf/messages.js';
import { BUILTIN_TYPES } from '../../../src/apiserver/resources.js';
import { type RunningApiServer, startApiServer } from '../../../src/apiserver/server.js';
import { waitFor } from '../../support/wait.js';
import { valueAt } from '../../support/value-at.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
/** What client-go sends for built-in kinds when told to use protobuf (kubectl 1.32's typed clients). */
const KUBECTL_ACCEPT = `${PROTOBUF},application/json`;

interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
}

describe('protobuf over HTTP', () => {
  let server: RunningApiServer;

  function call(method: string, path: string, opts: { body?: Buffer | string; contentType?: string; accept?: string } = {}): Promise<Answer> {
    const url = new URL(path, server.url);
    const headers: Record<string, string> = { Authorization: `Bearer ${server.adminToken}` };
    if (opts.accept) headers.Accept = opts.accept;
    if (opts.body !== undefined) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(opts.body));
    }
    return new Promise((resolve, reject) => {
      const req = https.request(url, { method, headers, ca: server.caPem }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(opts.body);
    });
  }

  /** The JSON object of an answer, whichever encoding it came in. */
  function objectOf(a: Answer): Record<string, unknown> {
    return a.contentType === PROTOBUF ? decodeObject(a.body) : (JSON.parse(a.body.toString('utf8')) as Record<string, unknown>);
  }

  before(async () => {
    server = await startApiServer({ port: 0 });
    const ns = await call('POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pb' } }) });
    assert.equal(ns.status, 201, ns.body.toString());
    await server.idle(); // its kube-root-ca.crt is written
  });

  after(async () => {
    await server.stop();
  });

  it('creates a ConfigMap from a protobuf body and answers in protobuf', async () => {
    const body = encodeObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'one', labels: { app: 'x' } }, immutable: false, data: { a: 'b' }, binaryData: { raw: Buffer.from([0, 1, 254]).toString('base64') } });
    const created = await call('POST', '/api/v1/namespaces/pb/configmaps', { body, contentType: PROTOBUF, accept: KUBECTL_ACCEPT });
    assert.equal(created.status, 201, created.body.toString());
    assert.equal(created.contentType, PROTOBUF);
    const obj = decodeObject(created.body) as { metadata: Record<string, unknown>; immutable: boolean; data: unknown; binaryData: unknown };
    assert.equal(obj.metadata.namespace, 'pb');
    assert.match(String(obj.metadata.uid), /^[0-9a-f-]{36}$/);
    assert.equal(obj.immutable, false, 'a pointer set to false stays set');
    assert.deepEqual(obj.binaryData, { raw: 'AAH+' });
    // The same object read as JSON.
    const json = await call('GET', '/api/v1/namespaces/pb/configmaps/one', { accept: 'application/json' });
    assert.equal(json.contentType, 'application/json');
    assert.deepEqual(JSON.parse(json.body.toString()), obj);
    const pb = await call('GET', '/api/v1/namespaces/pb/configmaps/one', { accept: KUBECTL_ACCEPT });
    assert.equal(pb.contentType, PROTOBUF);
    assert.deepEqual(decodeObject(pb.body), obj);
  });

  it('updates from a protobuf body', async () => {
    const current = objectOf(await call('GET', '/api/v1/namespaces/pb/configmaps/one', { accept: KUBECTL_ACCEPT })) as { metadata: Record<string, unknown> };
    const body = encodeObject({ ...current, data: { a: 'changed' } });
    const updated = await call('PUT', '/api/v1/namespaces/pb/configmaps/one', { body, contentType: PROTOBUF, accept: KUBECTL_ACCEPT });
    assert.equal(updated.status, 200, updated.body.toString());
    const obj = decodeObject(updated.body) as { data: unknown; metadata: { resourceVersion: string } };
    assert.deepEqual(obj.data, { a: 'changed' });
    assert.notEqual(obj.metadata.resourceVersion, current.metadata.resourceVersion);
  });

  it('lists in protobuf as a ConfigMapList', async () => {
    await call('POST', '/api/v1/namespaces/pb/configmaps', { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two' } }) });
    const list = await call('GET', '/api/v1/namespaces/pb/configmaps', { accept: KUBECTL_ACCEPT });
    assert.equal(list.contentType, PROTOBUF);
    const obj = decodeObject(list.body) as { kind: string; metadata: { resourceVersion: string }; items: { metadata: { name: string } }[] };
    assert.equal(obj.kind, 'ConfigMapList');
    assert.match(obj.metadata.resourceVersion, /^\d+$/);
    assert.deepEqual(obj.items.map((i) => i.metadata.name), ['kube-root-ca.crt', 'one', 'two'], "the namespace's kube-root-ca.crt and ours");
    const json = JSON.parse((await call('GET', '/api/v1/namespaces/pb/configmaps')).body.toString()) as { items: unknown[] };
    assert.deepEqual(obj.items, json.items);
  });

  it('answers errors with a protobuf Status', async () => {
    const missing = await call('GET', '/api/v1/namespaces/pb/configmaps/nope', { accept: KUBECTL_ACCEPT });
    assert.equal(missing.status, 404);
    assert.equal(missing.contentType, PROTOBUF);
    assert.deepEqual(decodeObject(missing.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', kind: 'configmaps' },
      code: 404,
    });
    const again = await call('POST', '/api/v1/namespaces/pb/configmaps', { body: encodeObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'one' } }), contentType: PROTOBUF, accept: KUBECTL_ACCEPT });
    assert.equal(again.status, 409);
    assert.equal((decodeObject(again.body) as { reason: string }).reason, 'AlreadyExists');
  });

  it('reads protobuf DeleteOptions and answers the delete with a protobuf Status', async () => {
    const wrongUid = encodeObject({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } });
    const refused = await call('DELETE', '/api/v1/namespaces/pb/configmaps/two', { body: wrongUid, contentType: PROTOBUF, accept: KUBECTL_ACCEPT });
    assert.equal(refused.status, 409, objectOf(refused).message as string);
    assert.match(String(decodeObject(refused.body).message), /the UID in the precondition \(not-the-uid\) does not match/);
    const current = objectOf(await call('GET', '/api/v1/namespaces/pb/configmaps/two')) as { metadata: { uid: string } };
    const options = encodeObject({ kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: current.metadata.uid }, propagationPolicy: 'Background' });
    const deleted = await call('DELETE', '/api/v1/namespaces/pb/configmaps/two', { body: options, contentType: PROTOBUF, accept: KUBECTL_ACCEPT });
    assert.equal(deleted.status, 200, deleted.body.toString());
    assert.deepEqual(decodeObject(deleted.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'two', kind: 'configmaps', uid: current.metadata.uid } });
  });

  it('streams a watch as length-prefixed WatchEvent frames', async () => {
    const frames: { type: string; object: Record<string, unknown> }[] = [];
    let contentType = '';
    let response: IncomingMessage | undefined;
    const req = https.request(new URL('/api/v1/namespaces/pb/configmaps?watch=true', server.url), { headers: { Authorization: `Bearer ${server.adminToken}`, Accept: KUBECTL_ACCEPT }, ca: server.caPem }, (res) => {
      response = res;
      contentType = String(res.headers['content-type']);
      let pending = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
          const size = pending.readUInt32BE(0);
          const event = messageType('io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent').decode(pending.subarray(4, 4 + size)) as unknown as { type: string; object: { raw: Uint8Array } };
          frames.push({ type: event.type, object: decodeObject(event.object.raw) });
          pending = pending.subarray(4 + size);
        }
      });
    });
    req.end();
    try {
      // The current state first (the namespace's kube-root-ca.crt and one), then a change made while watching.
      await waitFor('the initial ADDED events', () => frames.length >= 2);
      const created = await call('POST', '/api/v1/namespaces/pb/configmaps', { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' }, data: { k: 'v' } }) });
      assert.equal(created.status, 201);
      await waitFor('the ADDED event of the new ConfigMap', () => frames.length >= 3);
      assert.equal(contentType, `${PROTOBUF};stream=watch`);
      assert.deepEqual(frames.map((f) => [f.type, f.object.kind, (f.object.metadata as { name: string }).name]), [
        ['ADDED', 'ConfigMap', 'kube-root-ca.crt'],
        ['ADDED', 'ConfigMap', 'one'],
        ['ADDED', 'ConfigMap', 'watched'],
      ]);
      assert.deepEqual(frames[2].object.data, { k: 'v' });
    } finally {
      response?.destroy();
      req.destroy();
    }
  });

  it('carries a Deployment with inline structs, IntOrStrings and quantities the same as JSON does', async () => {
    const deployment = (name: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, labels: { app: 'web' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '10%' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            // configMap and emptyDir are fields of Volume's inline volumeSource; the probes' httpGet and exec of their inline handler.
            volumes: [{ name: 'cfg', configMap: { name: 'settings', defaultMode: 420 } }, { name: 'tmp', emptyDir: { sizeLimit: '1Gi' } }],
            containers: [
              {
                name: 'c',
                image: 'nginx',
                ports: [{ containerPort: 80, name: 'http' }],
                env: [{ name: 'A', value: '1' }, { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'k', optional: true } } }],
                resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m' } },
                readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 },
                livenessProbe: { exec: { command: ['true'] } },
                volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg', readOnly: true }],
              },
            ],
            tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 30 }],
          },
        },
      },
    });
    const path = '/apis/apps/v1/namespaces/pb/deployments';
    assert.equal((await call('POST', path, { body: JSON.stringify(deployment('from-json')) })).status, 201);
    const created = await call('POST', path, { body: encodeObject(deployment('from-protobuf')), contentType: PROTOBUF, accept: KUBECTL_ACCEPT });
    assert.equal(created.status, 201, created.body.toString());
    const json = objectOf(await call('GET', `${path}/from-json`));
    const viaProtobuf = objectOf(await call('GET', `${path}/from-json`, { accept: KUBECTL_ACCEPT }));
    assert.deepEqual(viaProtobuf, json, 'read in protobuf as in JSON');
    const fromProtobuf = objectOf(await call('GET', `${path}/from-protobuf`));
    assert.deepEqual({ ...fromProtobuf, metadata: undefined }, { ...json, metadata: undefined }, 'stored from protobuf as from JSON');
    assert.equal(valueAt(json, 'spec.template.spec.volumes.0.configMap.name'), 'settings');
    assert.equal(valueAt(json, 'spec.template.spec.containers.0.readinessProbe.httpGet.port'), 'http');
  });

  it('stays JSON for JSON clients, clients preferring JSON, and Tables', async () => {
    assert.equal((await call('GET', '/api/v1/namespaces/pb/configmaps/one')).contentType, 'application/json');
    assert.equal((await call('GET', '/api/v1/namespaces/pb/configmaps/one', { accept: `application/json, ${PROTOBUF}` })).contentType, 'application/json');
    const table = await call('GET', '/api/v1/namespaces/pb/configmaps', { accept: `application/json;as=Table;v=v1;g=meta.k8s.io,${KUBECTL_ACCEPT}` });
    assert.equal(table.contentType, 'application/json');
    assert.equal((JSON.parse(table.body.toString()) as { kind: string }).kind, 'Table');
  });

  it('refuses bodies it cannot read with kube\'s 415 and 400 messages', async () => {
    const text = await call('POST', '/api/v1/namespaces/pb/configmaps', { body: 'x', contentType: 'text/plain' });
    assert.equal(text.status, 415);
    assert.equal(objectOf(text).message, `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, ${PROTOBUF}`);
    const garbage = await call('POST', '/api/v1/namespaces/pb/configmaps', { body: '{"kind":"ConfigMap"}', contentType: PROTOBUF, accept: KUBECTL_ACCEPT });
    assert.equal(garbage.status, 400);
    assert.match(String(objectOf(garbage).message), /^the object provided is unrecognized \(must be of type ConfigMap\): provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\]/);
  });

  it('answers 415 to a protobuf body for a kind without catalog facts', () => {
    const widget = { ...BUILTIN_TYPES[0], group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', listKind: 'WidgetList' };
    assert.throws(
      () => decodeBody(widget, encodeObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x' } })),
      (e: Error & { code?: number }) => e.code === 415 && e.message === 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
    );
  });

  describe('custom resources (no protobuf in kube either)', () => {
    const GADGETS = '/apis/pb.example.com/v1/namespaces/pb/gadgets';

    before(async () => {
      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'gadgets.pb.example.com' },
        spec: {
          group: 'pb.example.com',
          scope: 'Namespaced',
          names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
        },
      };
      const r = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(crd) });
      assert.equal(r.status, 201, r.body.toString());
      await waitFor('the gadget resource', async () => (await call('GET', GADGETS)).status === 200);
    });

    it('answers 415 to a protobuf body', async () => {
      const body = encodeObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'g' } });
      const r = await call('POST', GADGETS, { body, contentType: PROTOBUF, accept: KUBECTL_ACCEPT });
      assert.equal(r.status, 415);
      assert.equal(r.contentType, 'application/json');
      assert.equal(objectOf(r).message, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
    });

    it('answers JSON when JSON is acceptable too, 406 when only protobuf is', async () => {
      assert.equal((await call('GET', GADGETS, { accept: KUBECTL_ACCEPT })).contentType, 'application/json');
      const r = await call('GET', GADGETS, { accept: PROTOBUF });
      assert.equal(r.status, 406);
      assert.deepEqual(objectOf(r), {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'only the following media types are accepted: application/json, application/yaml',
        reason: 'NotAcceptable',
        code: 406,
      });
    });
  });
});
