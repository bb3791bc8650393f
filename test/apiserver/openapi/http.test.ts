// /openapi/v2 and /openapi/v3 over HTTP: media types, ETags, the hash query and its caching
// headers, redirects of stale hashes, and each logical cluster seeing its own CRDs.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../../src/apiserver/server.js';
import { gadgetCrd } from '../../support/gadget-crd.js';
import { rawRequest } from '../../support/https-raw.js';

const CRD = gadgetCrd({ size: { type: 'integer' } });

type Discovery = { paths: Record<string, { serverRelativeURL: string }> };

describe('OpenAPI over HTTP', () => {
  let server: RunningApiServer;
  let admin: { url: string; token: string; caPem: string };
  let runtime: { url: string; token: string; caPem: string };

  before(async () => {
    server = await startApiServer({ port: 0 });
    admin = { url: server.url, token: server.adminToken, caPem: server.caPem };
    const access = await server.createCluster('runtime-1');
    runtime = { url: access.url, token: access.token, caPem: server.caPem };
    const created = await rawRequest(runtime, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(CRD) });
    assert.equal(created.status, 201, created.body.toString());
  });

  after(async () => {
    await server.stop();
  });

  it('answers /openapi/v3 with an ETag and 304 when it did not change', async () => {
    const first = await rawRequest(admin, 'GET', '/openapi/v3');
    assert.equal(first.status, 200);
    assert.equal(first.headers['content-type'], 'application/json');
    const etag = first.headers.etag;
    assert.match(String(etag), /^"[0-9A-F]{128}"$/);
    const again = await rawRequest(admin, 'GET', '/openapi/v3', { headers: { 'If-None-Match': String(etag) } });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
  });

  it('serves a group version document under its hash as immutable, and redirects a stale hash', async () => {
    const discovery = JSON.parse((await rawRequest(admin, 'GET', '/openapi/v3')).body.toString()) as Discovery;
    const url = discovery.paths['api/v1'].serverRelativeURL;
    const hash = new URL(url, 'https://x').searchParams.get('hash') ?? '';
    const doc = await rawRequest(admin, 'GET', url);
    assert.equal(doc.status, 200);
    assert.equal(createHash('sha512').update(doc.body).digest('hex').toUpperCase(), hash, 'the hash is the SHA-512 of the document');
    assert.equal(doc.headers.etag, `"${hash}"`);
    assert.equal(doc.headers['cache-control'], 'public, immutable');
    const expires = Date.parse(String(doc.headers.expires));
    assert.ok(expires > Date.now() + 300 * 24 * 3600 * 1000, `Expires a year ahead: ${doc.headers.expires}`);
    const plain = await rawRequest(admin, 'GET', '/openapi/v3/api/v1');
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['cache-control'], undefined, 'no caching promise without the hash');
    const stale = await rawRequest(admin, 'GET', '/openapi/v3/api/v1?hash=0123');
    assert.equal(stale.status, 301);
    assert.equal(stale.headers.location, url);
    const proto = await rawRequest(admin, 'GET', '/openapi/v3/api/v1', { headers: { Accept: 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf' } });
    assert.equal(proto.status, 406);
    assert.equal((await rawRequest(admin, 'GET', '/openapi/v3/apis/nothing.example.com/v1')).status, 404);
  });

  it('gives each logical cluster the documents of its own CRDs', async () => {
    const mine = JSON.parse((await rawRequest(runtime, 'GET', '/openapi/v3')).body.toString()) as Discovery;
    const theirs = JSON.parse((await rawRequest(admin, 'GET', '/openapi/v3')).body.toString()) as Discovery;
    assert.ok(mine.paths['apis/demo.example.com/v1']);
    assert.equal(theirs.paths['apis/demo.example.com/v1'], undefined);
    const url = mine.paths['apis/demo.example.com/v1'].serverRelativeURL;
    const doc = JSON.parse((await rawRequest(runtime, 'GET', url)).body.toString()) as { components: { schemas: Record<string, unknown> } };
    assert.ok(doc.components.schemas['com.example.demo.v1.Gadget']);
    const stale = await rawRequest(runtime, 'GET', '/openapi/v3/apis/demo.example.com/v1?hash=0');
    assert.equal(stale.status, 301);
    assert.equal(stale.headers.location, `/clusters/runtime-1${url}`, 'the redirect keeps the cluster prefix');
  });

  it('serves /openapi/v2 as JSON and in gnostic protobuf', async () => {
    const json = await rawRequest(runtime, 'GET', '/openapi/v2');
    assert.equal(json.headers['content-type'], 'application/json');
    const doc = JSON.parse(json.body.toString()) as { swagger: string; definitions: Record<string, unknown> };
    assert.equal(doc.swagger, '2.0');
    assert.ok(doc.definitions['com.example.demo.v1.Gadget']);
    assert.ok(doc.definitions['io.k8s.api.core.v1.ConfigMap']);
    const proto = await rawRequest(runtime, 'GET', '/openapi/v2', { headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    assert.equal(proto.status, 200);
    assert.equal(proto.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    assert.deepEqual([...proto.body.subarray(0, 5)], [0x0a, 3, ...Buffer.from('2.0')], 'Document.swagger (field 1) first');
    assert.ok(proto.body.includes(Buffer.from('com.example.demo.v1.Gadget')));
    assert.equal(proto.headers.etag, json.headers.etag);
    const unchanged = await rawRequest(runtime, 'GET', '/openapi/v2', { headers: { 'If-None-Match': String(json.headers.etag) } });
    assert.equal(unchanged.status, 304);
  });
});
