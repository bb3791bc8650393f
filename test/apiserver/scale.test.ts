// The scale subresource: autoscaling/v1 Scale for Deployments, ReplicaSets, StatefulSets and custom
// resources that declare one; reads, PUT and every patch type, field ownership of the replicas as
// upstream tracks it (its integration test's sequence), preconditions, validation, discovery, webhooks.
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createCA, createServingCert } from '../../src/apiserver/pki.js';
import { decodeObject, encodeObject } from '../../src/apiserver/protobuf/codec.js';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { KubeClient } from '../conformance/http.js';

interface Scale {
  kind: string;
  apiVersion: string;
  metadata: { name: string; namespace?: string; uid: string; resourceVersion: string; creationTimestamp: string; managedFields?: unknown };
  spec: { replicas?: number };
  status: { replicas: number; selector?: string };
}
interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsV1: { 'f:spec'?: Record<string, unknown> };
  subresource?: string;
}
interface Obj {
  metadata: { uid: string; resourceVersion: string; generation: number; managedFields?: Entry[] };
  spec: { replicas?: number };
}

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'pools.scale.example.com' },
  spec: {
    group: 'scale.example.com',
    scope: 'Namespaced',
    names: { plural: 'pools', singular: 'pool', kind: 'Pool' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.ready', labelSelectorPath: '.status.selector' } },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
              status: { type: 'object', properties: { ready: { type: 'integer' }, selector: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

function workload(kind: string, name: string, replicas = 1): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind,
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }] },
      template: { metadata: { labels: { app: name, tier: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
      ...(kind === 'StatefulSet' ? { serviceName: name } : {}),
    },
  });
}

/** Managers that own the replicas field (spec.replicas, or the CR's spec.size). */
function replicasOwners(o: Obj, field = 'f:replicas'): string[] {
  return (o.metadata.managedFields ?? []).filter((e) => e.fieldsV1['f:spec']?.[field] !== undefined).map((e) => e.manager).sort();
}

describe('scale subresource', () => {
  let server: RunningApiServer;
  let c: KubeClient;
  before(async () => {
    server = await startApiServer({ port: 0 });
    c = new KubeClient({ url: server.url, token: server.adminToken, caPem: server.caPem });
    assert.equal((await c.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(CRD) })).status, 201);
  });
  after(async () => {
    c.close();
    await server.stop();
  });

  const json = async <T>(method: string, path: string, opts: { body?: string; contentType?: string } = {}, status = 200): Promise<T> => {
    const r = await c.request(method, path, opts);
    assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
    return JSON.parse(r.text) as T;
  };
  const merge = (body: unknown) => ({ body: JSON.stringify(body), contentType: 'application/merge-patch+json' });
  const apply = (body: unknown) => ({ body: JSON.stringify(body), contentType: 'application/apply-patch+yaml' });
  const scaleBody = (replicas: number) => ({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'test', namespace: 'default' }, spec: { replicas } });

  for (const [kind, resource] of [
    ['Deployment', 'deployments'],
    ['StatefulSet', 'statefulsets'],
    ['ReplicaSet', 'replicasets'],
  ]) {
    it(`${kind}: ownership of replicas moves as upstream's integration test expects`, async () => {
      const base = `/apis/apps/v1/namespaces/default/${resource}/test`;
      const get = () => json<Obj>('GET', base);
      await json('PATCH', `${base}?fieldManager=apply_test`, apply(JSON.parse(workload(kind, 'test'))), 201);
      assert.deepEqual(replicasOwners(await get()), ['apply_test']);

      await json('PATCH', `${base}/scale?fieldManager=scale_test`, merge({ spec: { replicas: 5 } }));
      let o = await get();
      assert.equal(o.spec.replicas, 5);
      assert.deepEqual(replicasOwners(o), ['scale_test']);
      const entry = o.metadata.managedFields!.find((e) => e.manager === 'scale_test')!;
      assert.deepEqual({ ...entry, fieldsV1: undefined }, { manager: 'scale_test', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: undefined, subresource: 'scale' });
      assert.equal(entry.time, undefined, 'upstream gives a scale updater no time on the parent');

      const conflict = await c.request('PATCH', `${base}?fieldManager=apply_test`, apply(JSON.parse(workload(kind, 'test'))));
      assert.equal(conflict.status, 409, 'applying the old replicas conflicts with the scaler');
      assert.match(conflict.text, /scale_test/);
      await json('PATCH', `${base}?fieldManager=apply_test&force=true`, apply(JSON.parse(workload(kind, 'test'))));
      o = await get();
      assert.equal(o.spec.replicas, 1);
      assert.deepEqual(replicasOwners(o), ['apply_test']);

      const scaleConflict = await c.request('PATCH', `${base}/scale?fieldManager=apply_scale`, apply(scaleBody(17)));
      assert.equal(scaleConflict.status, 409);
      assert.match(JSON.parse(scaleConflict.text).message, /conflict with "apply_test"/);
      await json('PATCH', `${base}/scale?fieldManager=apply_scale&force=true`, apply(scaleBody(17)));
      o = await get();
      assert.equal(o.spec.replicas, 17);
      assert.deepEqual(replicasOwners(o), ['apply_scale']);

      await json('PUT', `${base}/scale?fieldManager=replace_test`, { body: JSON.stringify(scaleBody(7)) });
      o = await get();
      assert.equal(o.spec.replicas, 7);
      assert.deepEqual(replicasOwners(o), ['replace_test']);

      await json('PATCH', `${base}/scale?fieldManager=co_owning_test`, apply(scaleBody(7)));
      assert.deepEqual(replicasOwners(await get()), ['co_owning_test', 'replace_test'], 'applying the same value shares the field');

      await json('PATCH', `${base}/scale?fieldManager=scale_test`, merge({ spec: { replicas: 5 } }));
      o = await get();
      assert.equal(o.spec.replicas, 5);
      assert.deepEqual(replicasOwners(o), ['scale_test']);
    });
  }

  it('changing only status through scale changes nothing of the parent', async () => {
    const base = '/apis/apps/v1/namespaces/default/deployments/only-status';
    await json('PATCH', `${base}?fieldManager=apply_test`, apply(JSON.parse(workload('Deployment', 'only-status'))), 201);
    const before = await json<Obj>('GET', base);
    const scale = await json<Scale>('PATCH', `${base}/scale?fieldManager=scale_test`, merge({ status: { replicas: 42 } }));
    assert.equal(scale.spec.replicas, 1);
    assert.equal(scale.status.replicas, 0);
    const o = await json<Obj>('GET', base);
    assert.equal(o.spec.replicas, 1);
    assert.deepEqual(replicasOwners(o), ['apply_test']);
    assert.equal(o.metadata.generation, before.metadata.generation);
  });

  it('reads a Scale with the object identity, replicas and selector string, in Go field order', async () => {
    const created = await json<Obj>('POST', '/apis/apps/v1/namespaces/default/deployments', { body: workload('Deployment', 'reader', 3) }, 201);
    const r = await c.request('GET', '/apis/apps/v1/namespaces/default/deployments/reader/scale');
    assert.equal(r.status, 200);
    const s = JSON.parse(r.text) as Scale;
    assert.deepEqual(Object.keys(s), ['kind', 'apiVersion', 'metadata', 'spec', 'status']);
    assert.deepEqual(Object.keys(s.metadata), ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp']);
    assert.equal(s.kind, 'Scale');
    assert.equal(s.apiVersion, 'autoscaling/v1');
    assert.equal(s.metadata.uid, created.metadata.uid);
    assert.equal(s.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.deepEqual(s.spec, { replicas: 3 });
    assert.deepEqual(s.status, { replicas: 0, selector: 'app=reader,tier in (api,web)' });
    const zero = await json<Scale>('PATCH', '/apis/apps/v1/namespaces/default/deployments/reader/scale', merge({ spec: { replicas: 0 } }));
    assert.deepEqual(zero.spec, {}, 'zero replicas are left out (omitempty)');
  });

  it('strategic merge and JSON patches; a scale to the same replicas is a no-op', async () => {
    const base = '/apis/apps/v1/namespaces/default/deployments/reader';
    const s1 = await json<Scale>('PATCH', `${base}/scale`, { body: JSON.stringify({ spec: { replicas: 2 } }), contentType: 'application/strategic-merge-patch+json' });
    assert.equal(s1.spec.replicas, 2);
    const s2 = await json<Scale>('PATCH', `${base}/scale`, { body: JSON.stringify([{ op: 'replace', path: '/spec/replicas', value: 4 }]), contentType: 'application/json-patch+json' });
    assert.equal(s2.spec.replicas, 4);
    assert.ok(Number(s2.metadata.resourceVersion) > Number(s1.metadata.resourceVersion));
    const o = await json<Obj>('GET', base);
    assert.equal(o.spec.replicas, 4);
    const again = await json<Scale>('PATCH', `${base}/scale`, { body: JSON.stringify([{ op: 'replace', path: '/spec/replicas', value: 4 }]), contentType: 'application/json-patch+json' });
    assert.equal(again.metadata.resourceVersion, s2.metadata.resourceVersion, 'nothing changed, nothing written');
  });

  it('bumps the generation, and answers conflicts, preconditions, validation and missing objects as upstream', async () => {
    const base = '/apis/apps/v1/namespaces/default/deployments/reader';
    const o = await json<Obj>('GET', base);
    const scaled = await json<Scale>('PUT', `${base}/scale`, { body: JSON.stringify({ ...scaleBody(6), metadata: { name: 'reader', resourceVersion: o.metadata.resourceVersion } }) });
    assert.equal(scaled.spec.replicas, 6);
    assert.equal((await json<Obj>('GET', base)).metadata.generation, o.metadata.generation + 1);
    const stale = await c.request('PUT', `${base}/scale`, { body: JSON.stringify({ ...scaleBody(8), metadata: { name: 'reader', resourceVersion: o.metadata.resourceVersion } }) });
    assert.equal(stale.status, 409);
    assert.equal(JSON.parse(stale.text).message, 'Operation cannot be fulfilled on deployments.apps "reader": the object has been modified; please apply your changes to the latest version and try again');
    const uid = await c.request('PUT', `${base}/scale`, { body: JSON.stringify({ ...scaleBody(8), metadata: { name: 'reader', uid: 'not-the-uid' } }) });
    assert.equal(uid.status, 409);
    assert.match(JSON.parse(uid.text).message, /^Operation cannot be fulfilled on deployments\/scale.apps "reader": Precondition failed: UID in precondition: not-the-uid, UID in object meta: /);
    const negative = await c.request('PATCH', `${base}/scale`, merge({ spec: { replicas: -1 } }));
    assert.equal(negative.status, 422);
    assert.deepEqual(JSON.parse(negative.text), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Scale.autoscaling "reader" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      reason: 'Invalid',
      details: { name: 'reader', group: 'autoscaling', kind: 'Scale', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.replicas' }] },
      code: 422,
    });
    const missing = await c.request('GET', '/apis/apps/v1/namespaces/default/deployments/nope/scale');
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.text).message, 'deployments/scale.apps "nope" not found');
    assert.equal((await c.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/nope/scale', merge({ spec: { replicas: 1 } }))).status, 404);
    assert.equal((await c.request('GET', '/apis/apps/v1/namespaces/default/daemonsets/x/scale')).status, 404, 'DaemonSets have no scale');
    assert.equal((await c.request('DELETE', `${base}/scale`)).status, 405);
  });

  it('lists the scale subresources in discovery as autoscaling/v1 Scale', async () => {
    const apps = await json<{ resources: Record<string, unknown>[] }>('GET', '/apis/apps/v1');
    const names = apps.resources.map((r) => r.name);
    for (const r of ['deployments', 'replicasets', 'statefulsets']) {
      assert.deepEqual(apps.resources.find((x) => x.name === `${r}/scale`), { name: `${r}/scale`, singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
      assert.equal(names.indexOf(`${r}/scale`), names.indexOf(r) + 1, 'scale sorts before status');
    }
    assert.ok(!names.includes('daemonsets/scale'));
    const pools = await json<{ resources: Record<string, unknown>[] }>('GET', '/apis/scale.example.com/v1');
    assert.deepEqual(pools.resources.map((r) => r.name), ['pools', 'pools/status', 'pools/scale']);
    assert.deepEqual(pools.resources[2], { name: 'pools/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
  });

  it('custom resources: the CRD paths, ownership, missing replicas and validation', async () => {
    const base = '/apis/scale.example.com/v1/namespaces/default/pools';
    const pool = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'scale.example.com/v1', kind: 'Pool', metadata: { name }, spec });
    await json('PATCH', `${base}/p1?fieldManager=creator`, apply(JSON.parse(pool('p1', { size: 2, color: 'red' }))), 201);
    await json('PATCH', `${base}/p1/status`, merge({ status: { ready: 1, selector: 'app=p1' } }));
    const s = await json<Scale>('GET', `${base}/p1/scale`);
    assert.deepEqual({ spec: s.spec, status: s.status, kind: s.kind }, { spec: { replicas: 2 }, status: { replicas: 1, selector: 'app=p1' }, kind: 'Scale' });
    const scaled = await json<Scale>('PATCH', `${base}/p1/scale?fieldManager=scaler`, merge({ spec: { replicas: 4 } }));
    assert.equal(scaled.spec.replicas, 4);
    const o = await json<Obj & { spec: { size: number; color: string } }>('GET', `${base}/p1`);
    assert.deepEqual(o.spec, { color: 'red', size: 4 });
    assert.deepEqual(replicasOwners(o, 'f:size'), ['scaler']);
    assert.equal(o.metadata.managedFields!.find((e) => e.manager === 'scaler')!.apiVersion, 'scale.example.com/v1');
    assert.equal((await c.request('PATCH', `${base}/p1/scale`, { body: '{"spec":{"replicas":1}}', contentType: 'application/strategic-merge-patch+json' })).status, 415);

    await json('POST', base, { body: pool('empty', { color: 'blue' }) }, 201);
    const noReplicas = await c.request('GET', `${base}/empty/scale`);
    assert.equal(noReplicas.status, 500);
    assert.equal(JSON.parse(noReplicas.text).message, 'Internal error occurred: the spec replicas field ".spec.size" does not exist');
    const emptyWrite = await c.request('PATCH', `${base}/empty/scale`, merge({ metadata: { labels: { a: 'b' } } }));
    assert.equal(emptyWrite.status, 400);
    assert.equal(JSON.parse(emptyWrite.text).message, 'the spec replicas field ".spec.size" cannot be empty');
    assert.equal((await json<Scale>('PATCH', `${base}/empty/scale`, merge({ spec: { replicas: 3 } }))).spec.replicas, 3);

    const negative = await c.request('PATCH', `${base}/p1/scale`, merge({ spec: { replicas: -2 } }));
    assert.equal(negative.status, 422);
    assert.equal(JSON.parse(negative.text).message, 'Pool.scale.example.com "p1" is invalid: .spec.size: Invalid value: -2: should be a non-negative integer');
    const direct = await c.request('POST', base, { body: pool('bad', { size: -1 }) });
    assert.equal(direct.status, 422, 'the replicas path is checked on every write of the custom resource');
    assert.match(JSON.parse(direct.text).message, /\.spec\.size: Invalid value: -1: should be a non-negative integer/);
    assert.equal((await c.request('GET', `${base}/none/scale`)).status, 404);
    assert.equal(JSON.parse((await c.request('GET', `${base}/none/scale`)).text).message, 'pools.scale.example.com "none" not found');
  });

  it('shows webhooks for <resource>/scale the Scale objects', async () => {
    const ca = await createCA('scale-webhook-ca');
    const cert = await createServingCert(ca, { commonName: '127.0.0.1', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const reviews: { request: { kind: unknown; resource: unknown; subResource?: string; object: Scale; oldObject: Scale } }[] = [];
    const hook = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (d: string) => (text += d));
      req.on('end', () => {
        const review = JSON.parse(text) as (typeof reviews)[number] & { request: { uid: string } };
        reviews.push(review);
        const allowed = (review.request.object.spec.replicas ?? 0) <= 10;
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed, status: allowed ? undefined : { message: 'at most 10 replicas' } } }));
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://127.0.0.1:${(hook.address() as AddressInfo).port}/validate`;
      const config = {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'scale-limit' },
        webhooks: [
          {
            name: 'scale-limit.example.com',
            clientConfig: { url, caBundle: Buffer.from(ca.certPem).toString('base64') },
            rules: [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments/scale'] }],
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            failurePolicy: 'Fail',
          },
        ],
      };
      await json('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: JSON.stringify(config) }, 201);
      const base = '/apis/apps/v1/namespaces/default/deployments/reader/scale';
      assert.equal((await json<Scale>('PATCH', base, merge({ spec: { replicas: 9 } }))).spec.replicas, 9);
      const denied = await c.request('PATCH', base, merge({ spec: { replicas: 11 } }));
      assert.equal(denied.status, 403);
      assert.match(JSON.parse(denied.text).message, /admission webhook "scale-limit.example.com" denied the request: at most 10 replicas/);
      assert.equal(reviews.length, 2);
      const r = reviews[0].request;
      assert.deepEqual(r.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
      assert.deepEqual(r.resource, { group: 'apps', version: 'v1', resource: 'deployments' });
      assert.equal(r.subResource, 'scale');
      assert.equal(r.object.kind, 'Scale');
      assert.equal(r.object.spec.replicas, 9);
      assert.equal(r.oldObject.kind, 'Scale');
      assert.equal((await json<Obj>('GET', '/apis/apps/v1/namespaces/default/deployments/reader')).spec.replicas, 9);
      await json('DELETE', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/scale-limit');
    } finally {
      await new Promise<void>((resolve) => hook.close(() => resolve()));
    }
  });

  it('reads and writes a Scale in protobuf for a client that prefers it', async () => {
    const url = new URL(`${server.url}/apis/apps/v1/namespaces/default/deployments/reader/scale`);
    const body = encodeObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'reader', namespace: 'default' }, spec: { replicas: 2 } });
    const answer = await new Promise<{ type: string | undefined; bytes: Buffer }>((resolve, reject) => {
      const req = https.request(
        url,
        {
          method: 'PUT',
          ca: server.caPem,
          headers: { Authorization: `Bearer ${server.adminToken}`, 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/vnd.kubernetes.protobuf, application/json', 'Content-Length': body.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('end', () => resolve({ type: res.headers['content-type'], bytes: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(answer.type, 'application/vnd.kubernetes.protobuf');
    const scale = decodeObject(answer.bytes) as unknown as Scale;
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.spec.replicas, 2);
    assert.equal((await json<Obj>('GET', '/apis/apps/v1/namespaces/default/deployments/reader')).spec.replicas, 2);
  });
});
