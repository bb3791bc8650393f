// Server-side field validation: fields a kind does not declare are rejected (Strict), warned about
// (Warn, the default) or dropped (Ignore), never stored; with kube-apiserver's messages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { gadgetCrd } from '../support/gadget-crd.js';
import { rawRequest } from '../support/https-raw.js';

const CRD = gadgetCrd({ size: { type: 'integer' }, parts: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } });

const CM = '/api/v1/namespaces/default/configmaps';
const GADGETS = '/apis/demo.example.com/v1/namespaces/default/gadgets';

describe('server-side field validation', () => {
  let server: RunningApiServer;
  let t: { url: string; token: string; caPem: string };
  const send = (method: string, path: string, body: unknown, contentType = 'application/json') =>
    rawRequest(t, method, path, { body: JSON.stringify(body), headers: { 'Content-Type': contentType } });
  const message = (r: { body: Buffer }) => (JSON.parse(r.body.toString()) as { message: string }).message;

  before(async () => {
    server = await startApiServer({ port: 0 });
    t = { url: server.url, token: server.adminToken, caPem: server.caPem };
    assert.equal((await send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD)).status, 201);
  });

  after(async () => {
    await server.stop();
  });

  it('rejects unknown fields of a built-in kind under Strict, naming each by its path', async () => {
    const r = await send('POST', `${CM}?fieldValidation=Strict`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'strict', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', bogus: true }] },
      data: { a: '1' },
      extra: 1,
    });
    assert.equal(r.status, 400);
    assert.equal(message(r), 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.ownerReferences[0].bogus", unknown field "extra"');
    assert.equal((await rawRequest(t, 'GET', `${CM}/strict`)).status, 404);
  });

  it('warns by default and drops the field; Ignore drops it silently', async () => {
    const warned = await send('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'warned' }, extra: 1 });
    assert.equal(warned.status, 201);
    assert.equal(warned.headers.warning, '299 - "unknown field \\"extra\\""');
    assert.equal((JSON.parse(warned.body.toString()) as Record<string, unknown>).extra, undefined);
    const ignored = await send('POST', `${CM}?fieldValidation=Ignore`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ignored' }, extra: 1 });
    assert.equal(ignored.status, 201);
    assert.equal(ignored.headers.warning, undefined);
    const stored = JSON.parse((await rawRequest(t, 'GET', `${CM}/ignored`)).body.toString()) as Record<string, unknown>;
    assert.equal(stored.extra, undefined);
    const bad = await send('POST', `${CM}?fieldValidation=Loose`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' } });
    assert.equal(bad.status, 422);
    assert.equal(message(bad), 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"');
  });

  it('rejects a patch that adds an unknown field, showing the patch or the patched object', async () => {
    const merge = await send('PATCH', `${CM}/warned?fieldValidation=Strict`, { extra: 2 }, 'application/merge-patch+json');
    assert.equal(merge.status, 422);
    assert.match(message(merge), /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",\\"extra\\":2,\\"kind\\":\\"ConfigMap\\",.*": strict decoding error: unknown field "extra"$/);
    const strategic = await send('PATCH', `${CM}/warned?fieldValidation=Strict`, { data: { b: '2' }, extra: 2 }, 'application/strategic-merge-patch+json');
    assert.equal(strategic.status, 422);
    assert.equal(message(strategic), ' "" is invalid: patch: Invalid value: "map[data:map[b:2] extra:2]": strict decoding error: unknown field "extra"');
    const apply = await rawRequest(t, 'PATCH', `${CM}/warned?fieldManager=test&fieldValidation=Strict`, {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'warned' }, extra: 2 }),
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    assert.equal(apply.status, 500);
    assert.equal(message(apply), 'Internal error occurred: failed to create typed patch object (default/warned; /v1, Kind=ConfigMap): .extra: field not declared in schema');
  });

  it('checks custom resources against their schema and ObjectMeta', async () => {
    const body = { apiVersion: 'demo.example.com/v1', kind: 'Gadget', metadata: { name: 'g', labelz: {} }, spec: { size: 1, colour: 'red', parts: [{ name: 'a', weight: 2 }] } };
    const strict = await send('POST', `${GADGETS}?fieldValidation=Strict`, body);
    assert.equal(strict.status, 400);
    assert.equal(message(strict), 'Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "metadata.labelz", unknown field "spec.colour", unknown field "spec.parts[0].weight"');
    const warned = await send('POST', GADGETS, body);
    assert.equal(warned.status, 201);
    assert.deepEqual(warned.headers.warning, '299 - "unknown field \\"metadata.labelz\\"", 299 - "unknown field \\"spec.colour\\"", 299 - "unknown field \\"spec.parts[0].weight\\""');
    const stored = JSON.parse((await rawRequest(t, 'GET', `${GADGETS}/g`)).body.toString()) as { metadata: Record<string, unknown>; spec: unknown };
    assert.deepEqual(stored.spec, { parts: [{ name: 'a' }], size: 1 });
    assert.equal(stored.metadata.labelz, undefined);
  });
});
