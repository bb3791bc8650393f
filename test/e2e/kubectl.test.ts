// kubectl against the embedded API server: what a person does with a real cluster must work here.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { KubeClient } from '../conformance/http.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { sleep } from '../../src/util/sleep.js';
import { waitFor } from '../support/wait.js';

const MANIFEST = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.demo.example.com
spec:
  group: demo.example.com
  scope: Namespaced
  names: { plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gd] }
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      additionalPrinterColumns:
        - { name: Size, type: integer, jsonPath: .spec.size }
        - { name: State, type: string, jsonPath: .status.state }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: { type: integer, minimum: 1 }
                color: { type: string, default: blue }
            status:
              type: object
              properties:
                state: { type: string }
                conditions:
                  type: array
                  items:
                    type: object
                    properties:
                      type: { type: string }
                      status: { type: string }
                      reason: { type: string }
                      message: { type: string }
                      lastTransitionTime: { type: string }
---
apiVersion: v1
kind: Namespace
metadata:
  name: demo
`;

const GADGETS = `apiVersion: demo.example.com/v1
kind: Gadget
metadata: { name: g1, namespace: demo }
spec: { size: 3 }
---
apiVersion: demo.example.com/v1
kind: Gadget
metadata: { name: g2, namespace: demo }
spec: { size: 5, color: red }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: settings, namespace: demo }
data: { mode: fast }
`;

describe('kubectl against the embedded API server', () => {
  let server: RunningApiServer;
  let dir: string;
  let kc: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kcp-kubectl-'));
    server = await startApiServer({ port: 0, dataDir: dir });
    kc = join(dir, 'kubeconfig');
  });

  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies a multi-document manifest with a CRD, then its custom resources', async () => {
    const out = await kubectlOk(kc, ['apply', '-f', '-'], MANIFEST);
    assert.match(out, /customresourcedefinition.apiextensions.k8s.io\/gadgets.demo.example.com created/);
    assert.match(out, /namespace\/demo created/);
    await kubectlOk(kc, ['wait', '--for=condition=Established', 'crd/gadgets.demo.example.com', '--timeout=20s']);
    const out2 = await kubectlOk(kc, ['apply', '-f', '-'], GADGETS);
    assert.match(out2, /gadget.demo.example.com\/g1 created/);
    assert.match(out2, /configmap\/settings created/);
  });

  it('shows printer columns and defaults in get', async () => {
    const table = await kubectlOk(kc, ['get', 'gadgets', '-n', 'demo']);
    const lines = table.trim().split('\n');
    assert.match(lines[0], /^NAME\s+SIZE\s+STATE/);
    assert.match(lines[1], /^g1\s+3\s/);
    assert.match(lines[2], /^g2\s+5\b/);
    const color = await kubectlOk(kc, ['get', 'gd', 'g1', '-n', 'demo', '-o', 'jsonpath={.spec.color}']);
    assert.equal(color, 'blue');
  });

  it('rejects an invalid custom resource with the API server message', async () => {
    const r = await kubectl(kc, ['apply', '-f', '-'], 'apiVersion: demo.example.com/v1\nkind: Gadget\nmetadata: { name: bad, namespace: demo }\nspec: { size: 0 }\n');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /spec.size in body should be greater than or equal to 1/);
  });

  it('patches with merge, json and strategic patches', async () => {
    await kubectlOk(kc, ['patch', 'gadget', 'g1', '-n', 'demo', '--type=merge', '-p', '{"spec":{"size":4}}']);
    await kubectlOk(kc, ['patch', 'gadget', 'g1', '-n', 'demo', '--type=json', '-p', '[{"op":"replace","path":"/spec/color","value":"green"}]']);
    await kubectlOk(kc, ['patch', 'configmap', 'settings', '-n', 'demo', '-p', '{"data":{"extra":"1"}}']);
    const g1 = JSON.parse(await kubectlOk(kc, ['get', 'gadget', 'g1', '-n', 'demo', '-o', 'json'])) as { spec: { size: number; color: string }; metadata: { generation: number } };
    assert.deepEqual(g1.spec, { size: 4, color: 'green' });
    assert.equal(g1.metadata.generation, 3);
    const cm = JSON.parse(await kubectlOk(kc, ['get', 'cm', 'settings', '-n', 'demo', '-o', 'json'])) as { data: Record<string, string> };
    assert.deepEqual(cm.data, { mode: 'fast', extra: '1' });
  });

  it('waits for a condition set through the status subresource', async () => {
    const waiting = kubectl(kc, ['wait', '--for=condition=Ready', 'gadget/g2', '-n', 'demo', '--timeout=20s']);
    await sleep(500);
    // A controller sets the condition through the status subresource (kubectl before 1.24 has no
    // --subresource flag, and CI may have Debian's older kubectl).
    const client = new KubeClient({ url: server.url, token: server.adminToken, caPem: server.caPem });
    const status = { status: { state: 'Ready', conditions: [{ type: 'Ready', status: 'True', reason: 'Done', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' }] } };
    const patched = await client.request('PATCH', '/apis/demo.example.com/v1/namespaces/demo/gadgets/g2/status', { body: JSON.stringify(status), contentType: 'application/merge-patch+json' });
    client.close();
    assert.equal(patched.status, 200, patched.text);
    const r = await waiting;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /gadget.demo.example.com\/g2 condition met/);
  });

  it('deletes with --wait, holding on a finalizer until it is removed', async () => {
    await kubectlOk(kc, ['patch', 'gadget', 'g1', '-n', 'demo', '--type=merge', '-p', '{"metadata":{"finalizers":["demo.example.com/hold"]}}']);
    const deleting = kubectl(kc, ['delete', 'gadget', 'g1', '-n', 'demo', '--wait=true', '--timeout=20s']);
    let finished = false;
    // Its result is checked at `await deleting` below; this only notes that it ended.
    deleting.then(
      () => (finished = true),
      () => (finished = true),
    );
    const during = await waitFor('the object marked for deletion', async () => {
      const o = JSON.parse(await kubectlOk(kc, ['get', 'gadget', 'g1', '-n', 'demo', '-o', 'json'])) as { metadata: { deletionTimestamp?: string } };
      return o.metadata.deletionTimestamp ? o : undefined;
    });
    assert.ok(during.metadata.deletionTimestamp, 'object is marked for deletion while its finalizer holds it');
    assert.equal(finished, false, 'kubectl delete --wait holds while the finalizer does');
    await kubectlOk(kc, ['patch', 'gadget', 'g1', '-n', 'demo', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    const r = await deleting;
    assert.equal(r.code, 0, r.stderr);
    const gone = await kubectl(kc, ['get', 'gadget', 'g1', '-n', 'demo']);
    assert.notEqual(gone.code, 0);
    assert.match(gone.stderr, /NotFound|not found/);
  });

  it('deletes a namespace and everything in it', async () => {
    await kubectlOk(kc, ['delete', 'namespace', 'demo', '--wait=true', '--timeout=30s']);
    const r = await kubectl(kc, ['get', 'configmap', 'settings', '-n', 'demo']);
    assert.notEqual(r.code, 0);
  });

  it('serves a logical cluster created at run time through its own kubeconfig', async () => {
    const access = await server.createCluster('runtime-a');
    const kc2 = join(dir, 'clusters', 'runtime-a.kubeconfig');
    await kubectlOk(kc2, ['apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: only-here, namespace: default }\ndata: { a: "1" }\n');
    const here = await kubectlOk(kc2, ['get', 'cm', '-n', 'default', '-o', 'name']);
    assert.match(here, /configmap\/only-here/);
    const there = await kubectlOk(kc, ['get', 'cm', '-n', 'default', '-o', 'name']);
    assert.doesNotMatch(there, /only-here/);
    assert.ok(access.url.endsWith('/clusters/runtime-a'));
  });
});
