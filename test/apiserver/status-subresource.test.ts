// Updates through `/status`: a built-in kind keeps the request's metadata except what its status
// strategy resets (Deployment: labels; Pod: ownerReferences), and its stored spec; a custom resource
// keeps only the request's status. Field ownership follows (the status writer owns the metadata it
// changed). And a Deployment's generation moves with its annotations, a ReplicaSet's does not.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiTestEnv, startWithKinds } from '../support/api.js';

interface Entry {
  manager: string;
  operation: string;
  subresource?: string;
  fieldsV1: Record<string, Record<string, unknown> | undefined>;
}
interface Obj {
  metadata: {
    name: string;
    uid: string;
    resourceVersion: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: { uid: string; name: string }[];
    managedFields?: Entry[];
  };
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.status.example.com' },
  spec: {
    group: 'status.example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } }, status: { type: 'object', properties: { ready: { type: 'boolean' } } } },
          },
        },
      },
    ],
  },
};

function deployment(name: string, labels: Record<string, string> = { app: name }): unknown {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
    },
  };
}

/** The managedFields entry of a manager through an endpoint. */
function entryOf(o: Obj, manager: string, subresource?: string): Entry | undefined {
  return (o.metadata.managedFields ?? []).find((e) => e.manager === manager && e.subresource === subresource);
}

describe('status subresource', () => {
  let env: ApiTestEnv;
  before(async () => {
    env = await startWithKinds([], []);
    assert.equal((await env.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(CRD) })).status, 201);
  });
  after(() => env.stop());

  const call = async <T = Obj>(method: string, path: string, body?: unknown, contentType?: string, status = 200): Promise<T> => {
    const r = await env.client.request(method, path, body === undefined ? {} : { body: JSON.stringify(body), contentType });
    assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
    return JSON.parse(r.text) as T;
  };
  const deployments = '/apis/apps/v1/namespaces/default/deployments';

  it('a Deployment /status PUT keeps an annotation change, drops a label and a spec change, and its writer owns the annotation', async () => {
    const created = await call('POST', `${deployments}?fieldManager=creator`, deployment('web'), 'application/json', 201);
    const sent = structuredClone(created);
    sent.metadata.annotations = { 'deployment.kubernetes.io/revision': '1' };
    sent.metadata.labels = { app: 'web', extra: 'x' };
    sent.spec.replicas = 5;
    sent.status = { observedGeneration: 1, replicas: 1 };
    const written = await call('PUT', `${deployments}/web/status?fieldManager=deployment-controller`, sent, 'application/json');
    const got = await call('GET', `${deployments}/web`);
    for (const o of [written, got]) {
      assert.deepEqual(o.metadata.annotations, { 'deployment.kubernetes.io/revision': '1' }, 'annotations pass through /status');
      assert.deepEqual(o.metadata.labels, { app: 'web' }, "a Deployment's status strategy resets its labels");
      assert.equal(o.spec.replicas, 1, 'the spec stays as stored');
      assert.deepEqual(o.status, { observedGeneration: 1, replicas: 1 });
      assert.equal(o.metadata.generation, 1, 'a status write does not bump the generation');
      assert.equal(o.metadata.uid, created.metadata.uid);
    }
    const mine = entryOf(got, 'deployment-controller', 'status');
    assert.ok(mine, JSON.stringify(got.metadata.managedFields));
    assert.deepEqual(Object.keys(mine.fieldsV1).sort(), ['f:metadata', 'f:status']);
    assert.deepEqual(mine.fieldsV1['f:metadata'], { 'f:annotations': { '.': {}, 'f:deployment.kubernetes.io/revision': {} } });
    // The creator keeps its labels and spec: nothing it owned changed.
    const creator = entryOf(got, 'creator');
    assert.ok(creator?.fieldsV1['f:metadata']?.['f:labels'] !== undefined);
    assert.ok(creator?.fieldsV1['f:spec']?.['f:replicas'] !== undefined);
  });

  it('a Deployment /status merge patch and apply carry annotations, not labels', async () => {
    await call('POST', deployments, deployment('api'), 'application/json', 201);
    await call('PATCH', `${deployments}/api/status`, { metadata: { labels: { extra: 'x' }, annotations: { a: '1' } }, status: { replicas: 1 } }, 'application/merge-patch+json');
    let got = await call('GET', `${deployments}/api`);
    assert.deepEqual(got.metadata.annotations, { a: '1' });
    assert.deepEqual(got.metadata.labels, { app: 'api' });
    assert.deepEqual(got.status, { replicas: 1 });

    const config = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api', labels: { applied: 'y' }, annotations: { b: '2' } }, status: { replicas: 1 } };
    await call('PATCH', `${deployments}/api/status?fieldManager=status-applier`, config, 'application/apply-patch+yaml');
    got = await call('GET', `${deployments}/api`);
    assert.deepEqual(got.metadata.annotations, { a: '1', b: '2' });
    assert.deepEqual(got.metadata.labels, { app: 'api' });
    const applier = entryOf(got, 'status-applier', 'status');
    assert.equal(applier?.operation, 'Apply');
    assert.deepEqual(applier?.fieldsV1['f:metadata'], { 'f:annotations': { 'f:b': {} } }, 'the reset labels are not claimed');
  });

  it('a Pod /status update cannot change ownerReferences; other metadata passes', async () => {
    const owner = await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'owner' } }, 'application/json', 201);
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid };
    const pod = { metadata: { name: 'p', ownerReferences: [ref] }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } };
    const created = await call('POST', '/api/v1/namespaces/default/pods', pod, 'application/json', 201);
    const sent = structuredClone(created);
    sent.metadata.ownerReferences = [];
    sent.metadata.annotations = { seen: 'yes' };
    sent.status = { ...created.status, phase: 'Running' };
    const written = await call('PUT', '/api/v1/namespaces/default/pods/p/status', sent, 'application/json');
    assert.deepEqual(written.metadata.ownerReferences, [ref]);
    assert.deepEqual(written.metadata.annotations, { seen: 'yes' });
    assert.equal(written.status?.phase, 'Running');
  });

  it('a custom resource /status update still ignores metadata and spec', async () => {
    const base = '/apis/status.example.com/v1/namespaces/default/gadgets';
    const created = await call('POST', base, { apiVersion: 'status.example.com/v1', kind: 'Gadget', metadata: { name: 'g', labels: { a: '1' } }, spec: { size: 1 } }, 'application/json', 201);
    const sent = structuredClone(created);
    sent.metadata.labels = { a: '2' };
    sent.metadata.annotations = { b: '1' };
    sent.metadata.finalizers = ['example.com/keep'];
    sent.spec = { size: 2 };
    sent.status = { ready: true };
    const written = await call('PUT', `${base}/g/status?fieldManager=gadget-controller`, sent, 'application/json');
    assert.deepEqual(written.metadata.labels, { a: '1' });
    assert.equal(written.metadata.annotations, undefined);
    assert.equal(written.metadata.finalizers, undefined);
    assert.deepEqual(written.spec, { size: 1 });
    assert.deepEqual(written.status, { ready: true });
    assert.deepEqual(Object.keys(entryOf(written, 'gadget-controller', 'status')?.fieldsV1 ?? {}), ['f:status']);
  });

  it("a Deployment's annotations bump its generation through the main resource; a ReplicaSet's do not", async () => {
    await call('POST', deployments, deployment('gen'), 'application/json', 201);
    const annotated = await call('PATCH', `${deployments}/gen`, { metadata: { annotations: { note: 'a' } } }, 'application/merge-patch+json');
    assert.equal(annotated.metadata.generation, 2);
    const labelled = await call('PATCH', `${deployments}/gen`, { metadata: { labels: { more: 'b' } } }, 'application/merge-patch+json');
    assert.equal(labelled.metadata.generation, 2, 'labels do not bump it');
    const unannotated = await call('PATCH', `${deployments}/gen`, { metadata: { annotations: null } }, 'application/merge-patch+json');
    assert.equal(unannotated.metadata.generation, 3, 'removing the annotations is a change too');

    const rs = { ...(deployment('rs') as object), kind: 'ReplicaSet' };
    await call('POST', '/apis/apps/v1/namespaces/default/replicasets', rs, 'application/json', 201);
    const rsAnnotated = await call('PATCH', '/apis/apps/v1/namespaces/default/replicasets/rs', { metadata: { annotations: { note: 'a' } } }, 'application/merge-patch+json');
    assert.equal(rsAnnotated.metadata.generation, 1);
    assert.deepEqual(rsAnnotated.metadata.annotations, { note: 'a' });
  });
});
