// The documents a logical cluster serves: built-in parts shared, each cluster's CRDs its own, a
// document's hash changing with its content and only then.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogicalCluster } from '../../../src/apiserver/cluster.js';
import { etagOf, openApiV2, openApiV3, openApiV3Discovery } from '../../../src/apiserver/openapi/documents.js';
import { BUILTIN_TYPES } from '../../../src/apiserver/resources.js';
import { GADGET_CRD_NAME, gadgetCrd } from '../../support/gadget-crd.js';

const CRDS = BUILTIN_TYPES.find((t) => t.kind === 'CustomResourceDefinition');
const NAMESPACES = BUILTIN_TYPES.find((t) => t.kind === 'Namespace');

async function clusterWithGadgets(name: string): Promise<LogicalCluster> {
  const c = new LogicalCluster(name);
  await c.create(CRDS!, '', gadgetCrd({ size: { type: 'integer' } }));
  return c;
}

type Doc = { paths: Record<string, Record<string, { parameters?: { name: string }[]; requestBody?: { content: Record<string, unknown> } }>>; components: { schemas: Record<string, Record<string, unknown>> } };
const parse = (json: string | undefined) => JSON.parse(json ?? 'null') as Doc;

describe('OpenAPI documents per logical cluster', () => {
  it('lists every group version with the hash of its document, the cluster\'s CRDs included', async () => {
    const withCrd = await clusterWithGadgets('a');
    const plain = new LogicalCluster('b');
    const paths = (JSON.parse(openApiV3Discovery(withCrd).json) as { paths: Record<string, { serverRelativeURL: string }> }).paths;
    const demo = openApiV3(withCrd, 'apis/demo.example.com/v1');
    assert.ok(demo);
    assert.equal(paths['apis/demo.example.com/v1'].serverRelativeURL, `/openapi/v3/apis/demo.example.com/v1?hash=${demo.etag}`);
    assert.equal(demo.etag, etagOf(demo.json));
    assert.match(paths['api/v1'].serverRelativeURL, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
    assert.ok(paths['apis/apps/v1']);
    const plainPaths = (JSON.parse(openApiV3Discovery(plain).json) as { paths: Record<string, unknown> }).paths;
    assert.equal(plainPaths['apis/demo.example.com/v1'], undefined);
    assert.equal(openApiV3(plain, 'apis/demo.example.com/v1'), undefined);
  });

  it('describes a custom resource with its schema, list, metadata and operations', async () => {
    const c = await clusterWithGadgets('c');
    const doc = parse(openApiV3(c, 'apis/demo.example.com/v1')?.json);
    const gadget = doc.components.schemas['com.example.demo.v1.Gadget'];
    assert.deepEqual(Object.keys(gadget.properties as object).sort(), ['apiVersion', 'kind', 'metadata', 'spec']);
    assert.deepEqual((gadget.properties as Record<string, unknown>).metadata, { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
    assert.deepEqual(gadget['x-kubernetes-group-version-kind'], [{ group: 'demo.example.com', version: 'v1', kind: 'Gadget' }]);
    assert.ok(doc.components.schemas['com.example.demo.v1.GadgetList']);
    assert.ok(doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'], 'referenced components come along');
    const item = doc.paths['/apis/demo.example.com/v1/namespaces/{namespace}/gadgets/{name}'];
    assert.ok(item.patch.parameters?.some((p) => p.name === 'fieldValidation'));
    assert.deepEqual(Object.keys(item.patch.requestBody?.content ?? {}), ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
    assert.ok(doc.paths['/apis/demo.example.com/v1/namespaces/{namespace}/gadgets/{name}/status'].patch);
    const apps = parse(openApiV3(c, 'apis/apps/v1')?.json);
    const scale = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'] as unknown as Record<string, Record<string, unknown>>;
    assert.deepEqual(scale.patch['x-kubernetes-group-version-kind'], { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.equal(scale.get.operationId, 'readAppsV1NamespacedDeploymentScale');
    assert.ok(apps.components.schemas['io.k8s.api.autoscaling.v1.Scale']);
    assert.equal(doc.components.schemas['io.k8s.api.autoscaling.v1.Scale'], undefined, 'only what the paths refer to');
    const core = parse(openApiV3(c, 'api/v1')?.json);
    const cm = core.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
    assert.ok(Object.keys(cm.patch.requestBody?.content ?? {}).includes('application/strategic-merge-patch+json'));
  });

  it('shares the built-in documents between clusters and keeps a cluster\'s own until its CRDs change', async () => {
    const a = await clusterWithGadgets('d');
    const b = new LogicalCluster('e');
    const twin = await clusterWithGadgets('d2');
    assert.equal(openApiV3(a, 'api/v1'), openApiV3(b, 'api/v1'));
    const before = openApiV3(a, 'apis/demo.example.com/v1');
    assert.equal(openApiV3(twin, 'apis/demo.example.com/v1'), before, 'clusters with the same CRDs share their documents');
    assert.equal(openApiV2(twin), openApiV2(a));
    await a.create(NAMESPACES!, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } });
    assert.equal(openApiV3(a, 'apis/demo.example.com/v1'), before, 'an unrelated write rebuilds nothing');
    await a.patch(CRDS!, '', GADGET_CRD_NAME, 'merge', { spec: { versions: (gadgetCrd({ size: { type: 'integer' }, colour: { type: 'string' } }).spec as { versions: unknown }).versions } });
    const after = openApiV3(a, 'apis/demo.example.com/v1');
    assert.ok(after);
    assert.notEqual(after.etag, before?.etag);
    const spec = parse(after.json).components.schemas['com.example.demo.v1.Gadget'].properties as Record<string, { properties: Record<string, unknown> }>;
    assert.deepEqual(Object.keys(spec.spec.properties).sort(), ['colour', 'size']);
    assert.equal(openApiV3(a, 'api/v1'), openApiV3(b, 'api/v1'), 'the built-in documents stay shared');
    assert.equal(openApiV3(twin, 'apis/demo.example.com/v1'), before, 'the twin keeps its CRD\'s document');
    assert.match(openApiV3Discovery(a).json, new RegExp(`hash=${after.etag}`));
  });

  it('serves one v2 document of the built-in and the cluster\'s definitions', async () => {
    const a = await clusterWithGadgets('f');
    const b = new LogicalCluster('g');
    const docA = JSON.parse(openApiV2(a).json.join('')) as { swagger: string; paths: Record<string, unknown>; definitions: Record<string, Record<string, unknown>> };
    const docB = JSON.parse(openApiV2(b).json.join('')) as typeof docA;
    assert.equal(docA.swagger, '2.0');
    assert.ok(docA.definitions['com.example.demo.v1.Gadget']);
    assert.ok(docA.definitions['io.k8s.api.core.v1.ConfigMap']);
    assert.ok(docA.paths['/apis/demo.example.com/v1/namespaces/{namespace}/gadgets/{name}']);
    assert.equal(docB.definitions['com.example.demo.v1.Gadget'], undefined);
    assert.notEqual(openApiV2(a).etag, openApiV2(b).etag);
    assert.equal(openApiV2(b).protobuf[0], openApiV2(a).protobuf[0], 'the built-in protobuf half is one shared buffer');
  });
});
