// kubectl (1.32, and Debian's 1.20) against the embedded API server: `get -w` keeps its columns;
// `scale` on a Deployment and on a custom resource whose CRD declares a scale subresource; `get --raw`
// with a runtime's kubeconfig (the path then has no /clusters prefix) reaches that runtime; /metrics.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { kubectl, kubectlMinorVersion, kubectlOk } from '../support/kubectl.js';
import { KubectlStream } from '../support/kubectl-stream.js';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.misc.example.com
spec:
  group: misc.example.com
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget }
  versions:
    - name: v1
      served: true
      storage: true
      subresources:
        status: {}
        scale: { specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector }
      additionalPrinterColumns:
        - { name: Replicas, type: integer, jsonPath: .spec.replicas }
        - { name: Color, type: string, jsonPath: .spec.color }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                replicas: { type: integer }
                color: { type: string }
            status:
              type: object
              properties:
                replicas: { type: integer }
                selector: { type: string }
`;

const deployment = (name: string, replicas: number) =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'misc' },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
  });

/** The whitespace-separated columns of a kubectl table line. */
const columns = (line: string) => line.trim().split(/\s+/);

describe('kubectl: watches, scale, paths and metrics', () => {
  let server: RunningApiServer;
  let dir: string;
  let kc: string;
  const streams: KubectlStream[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kcp-kubectl-misc-'));
    server = await startApiServer({ port: 0, dataDir: dir });
    kc = join(dir, 'kubeconfig');
    await kubectlOk(kc, ['create', '-f', '-'], 'apiVersion: v1\nkind: Namespace\nmetadata: { name: misc }\n');
    await kubectlOk(kc, ['apply', '-f', '-'], CRD);
    await kubectlOk(kc, ['wait', '--for=condition=Established', 'crd/widgets.misc.example.com', '--timeout=20s']);
    await server.idle(); // the namespace's kube-root-ca.crt is written
  });

  after(async () => {
    for (const s of streams) await s.stop();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const watch = (args: string[]) => {
    const s = new KubectlStream(kc, args);
    streams.push(s);
    return s;
  };

  it('get configmaps -w keeps NAME DATA AGE across the list and later events', async () => {
    await kubectlOk(kc, ['apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: first, namespace: misc }\ndata: { a: "1" }\n');
    const w = watch(['get', 'configmaps', '-n', 'misc', '-w']);
    // The list: ours and the namespace's kube-root-ca.crt, by name.
    const listed = await w.waitForLines(3);
    assert.deepEqual(columns(listed[0]), ['NAME', 'DATA', 'AGE']);
    assert.deepEqual(columns(listed[1]).slice(0, 2), ['first', '1']);
    assert.deepEqual(columns(listed[2]).slice(0, 2), ['kube-root-ca.crt', '1']);
    await kubectlOk(kc, ['apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: second, namespace: misc }\ndata: { a: "1", b: "2" }\n');
    await kubectlOk(kc, ['patch', 'configmap', 'first', '-n', 'misc', '--type=merge', '-p', '{"data":{"x":"1","y":"2"}}']);
    const lines = await w.waitForLines(5);
    assert.equal(lines.filter((l) => l.startsWith('NAME')).length, 1, 'the header is printed once');
    assert.deepEqual(columns(lines[3]).slice(0, 2), ['second', '2']);
    assert.deepEqual(columns(lines[4]).slice(0, 2), ['first', '3']);
    for (const l of lines.slice(1)) assert.equal(columns(l).length, 3, `three columns in ${JSON.stringify(l)}`);
  });

  it('get deploy -w keeps NAME READY UP-TO-DATE AVAILABLE AGE', async () => {
    const w = watch(['get', 'deploy', '-n', 'misc', '-w']);
    await kubectlOk(kc, ['apply', '-f', '-'], deployment('web', 2));
    const lines = await w.waitForLines(2);
    assert.deepEqual(columns(lines[0]), ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    assert.deepEqual(columns(lines[1]).slice(0, 4), ['web', '0/2', '0', '0']);
    await kubectlOk(kc, ['patch', 'deploy', 'web', '-n', 'misc', '--type=merge', '-p', '{"spec":{"replicas":4}}']);
    const more = await w.waitForLines(3);
    assert.deepEqual(columns(more[2]).slice(0, 4), ['web', '0/4', '0', '0']);
  });

  it('get on a custom resource -w keeps its printer columns', async () => {
    await kubectlOk(kc, ['apply', '-f', '-'], 'apiVersion: misc.example.com/v1\nkind: Widget\nmetadata: { name: w1, namespace: misc }\nspec: { replicas: 1, color: red }\n');
    const w = watch(['get', 'widgets', '-n', 'misc', '-w']);
    const listed = await w.waitForLines(2);
    assert.deepEqual(columns(listed[0]), ['NAME', 'REPLICAS', 'COLOR']);
    assert.deepEqual(columns(listed[1]), ['w1', '1', 'red']);
    await kubectlOk(kc, ['patch', 'widget', 'w1', '-n', 'misc', '--type=merge', '-p', '{"spec":{"color":"blue"}}']);
    const lines = await w.waitForLines(3);
    assert.deepEqual(columns(lines[2]), ['w1', '1', 'blue']);
  });

  it("get --raw with a runtime's kubeconfig reaches that runtime, not the default cluster", async () => {
    await server.createCluster('raw-rt');
    const rt = join(dir, 'clusters', 'raw-rt.kubeconfig');
    await kubectlOk(rt, ['apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: only-in-runtime, namespace: default }\ndata: { a: "1" }\n');
    const version = JSON.parse(await kubectlOk(rt, ['get', '--raw', '/version'])) as { gitVersion: string };
    assert.match(version.gitVersion, /^v1\./);
    const list = JSON.parse(await kubectlOk(rt, ['get', '--raw', '/api/v1/namespaces/default/configmaps'])) as { items: { metadata: { name: string } }[] };
    assert.deepEqual(list.items.map((i) => i.metadata.name), ['kube-root-ca.crt', 'only-in-runtime'], "the runtime's own ConfigMaps");
    const fromDefault = JSON.parse(await kubectlOk(kc, ['get', '--raw', '/api/v1/namespaces/default/configmaps'])) as { items: { metadata: { name: string } }[] };
    assert.ok(!fromDefault.items.some((i) => i.metadata.name === 'only-in-runtime'), 'the admin kubeconfig still reads the default cluster');
  });

  it('get --raw /metrics counts the list kubectl get made, and refuses a runtime kubeconfig', async () => {
    const listSeries = 'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="LIST",version="v1"}';
    const count = (text: string) => Number(text.split('\n').find((l) => l.startsWith(`${listSeries} `))?.split(' ')[1] ?? '0');
    const before = count(await kubectlOk(kc, ['get', '--raw', '/metrics']));
    await kubectlOk(kc, ['get', 'configmaps', '-n', 'misc']);
    const after = count(await kubectlOk(kc, ['get', '--raw', '/metrics']));
    assert.equal(after - before, 1);
    const denied = await kubectl(join(dir, 'clusters', 'raw-rt.kubeconfig'), ['get', '--raw', '/metrics']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /Forbidden|forbidden/);
  });

  it('scale deployment and scale on a custom resource change the replicas through /scale', async () => {
    await kubectlOk(kc, ['apply', '-f', '-'], deployment('scaled', 1));
    const out = await kubectlOk(kc, ['scale', 'deployment', 'scaled', '--replicas', '3', '-n', 'misc']);
    assert.match(out, /^deployment.apps\/scaled scaled$/m);
    assert.equal(await kubectlOk(kc, ['get', 'deploy', 'scaled', '-n', 'misc', '-o', 'jsonpath={.spec.replicas}']), '3');
    // kubectl 1.21+ hides managedFields unless asked; 1.20 always prints them (and has no such flag).
    const showManagedFields = (await kubectlMinorVersion(kc)) >= 21 ? ['--show-managed-fields'] : [];
    const owners = JSON.parse(await kubectlOk(kc, ['get', 'deploy', 'scaled', '-n', 'misc', '-o', 'json', ...showManagedFields])) as { metadata: { managedFields: { manager: string; subresource?: string; fieldsV1: { 'f:spec'?: Record<string, unknown> } }[] } };
    const scaler = owners.metadata.managedFields.filter((e) => e.fieldsV1['f:spec']?.['f:replicas'] !== undefined);
    assert.deepEqual(scaler.map((e) => [e.manager, e.subresource]), [['kubectl', 'scale']]);
    const stale = await kubectl(kc, ['scale', 'deployment', 'scaled', '--current-replicas', '2', '--replicas', '5', '-n', 'misc']);
    assert.notEqual(stale.code, 0, 'the --current-replicas precondition holds');
    assert.match(stale.stderr, /Expected replicas to be 2, was 3/);
    await kubectlOk(kc, ['scale', 'deployment', 'scaled', '--current-replicas', '3', '--replicas', '5', '-n', 'misc']);
    assert.equal(await kubectlOk(kc, ['get', 'deploy', 'scaled', '-n', 'misc', '-o', 'jsonpath={.spec.replicas}']), '5');

    await kubectlOk(kc, ['apply', '-f', '-'], 'apiVersion: misc.example.com/v1\nkind: Widget\nmetadata: { name: w2, namespace: misc }\nspec: { replicas: 1, color: green }\n');
    const cr = await kubectlOk(kc, ['scale', 'widget', 'w2', '--replicas', '4', '-n', 'misc']);
    assert.match(cr, /^widget.misc.example.com\/w2 scaled$/m);
    assert.equal(await kubectlOk(kc, ['get', 'widget', 'w2', '-n', 'misc', '-o', 'jsonpath={.spec.replicas} {.spec.color}']), '4 green');
  });
});
