// kubectl 1.32 reading the server's OpenAPI: `explain` for custom and built-in kinds (v3, and v2 in
// protobuf), a CRD change showing up, and field validation behaving as against a real server
// (server-side for the kinds whose PATCH operation takes fieldValidation, client-side from the v2
// document for `kind: List`).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { gadgetCrd } from '../support/gadget-crd.js';
import { kubectl as run, kubectlOk as runOk } from '../support/kubectl.js';

/** The field names of an explain output's FIELDS section. */
function fieldNames(explain: string): string[] {
  const section = explain.split(/^FIELDS:$/m)[1] ?? '';
  return [...section.matchAll(/^ {2,3}(\S+)\t/gm)].map((m) => m[1]);
}

describe('kubectl explain and field validation through the OpenAPI documents', () => {
  let server: RunningApiServer;
  let dir: string;
  let kc: string;
  // One disk cache for every call, as a user has: a CRD change must get past it.
  const kubectl = (args: string[], input?: string) => run(kc, [...args, '--cache-dir', join(dir, 'cache')], input);
  const kubectlOk = (args: string[], input?: string) => runOk(kc, [...args, '--cache-dir', join(dir, 'cache')], input);

  before(async () => {
    // OpenAPI v3 explain and server-side field validation are kubectl 1.27+ (1.32 is what the project uses).
    const version = JSON.parse((await run('/dev/null', ['version', '--client', '-o', 'json'])).stdout) as { clientVersion: { minor: string } };
    assert.ok(Number.parseInt(version.clientVersion.minor, 10) >= 27, `kubectl ${JSON.stringify(version.clientVersion)} is older than 1.27`);
    dir = mkdtempSync(join(tmpdir(), 'kcp-kubectl-openapi-'));
    server = await startApiServer({ port: 0, dataDir: dir });
    kc = join(dir, 'kubeconfig');
  });

  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('explains the Runtime CRD from its schema, through OpenAPI v3 and v2', async () => {
    await kubectlOk(['apply', '-f', 'config/crd/infrastructuremanager.kyma-project.io_runtimes.yaml']);
    await kubectlOk(['wait', '--for=condition=Established', 'crd/runtimes.infrastructuremanager.kyma-project.io', '--timeout=20s']);
    const v3 = await kubectlOk(['explain', 'runtime.spec']);
    assert.match(v3, /^GROUP:\s+infrastructuremanager\.kyma-project\.io$/m);
    assert.match(v3, /^KIND:\s+Runtime$/m);
    assert.match(v3, /^FIELD: spec <Object>$/m);
    assert.deepEqual(fieldNames(v3), ['imageRegistryCache', 'security', 'shoot']);
    assert.match(v3, /^ {2}shoot\t<Object> -required-\n {4}The Gardener Shoot to create for this runtime\.$/m);
    const v2 = await kubectlOk(['explain', 'runtime.spec', '--output=plaintext-openapiv2']);
    assert.match(v2, /^KIND:\s+Runtime$/m);
    assert.deepEqual(fieldNames(v2), ['imageRegistryCache', 'security', 'shoot']);
    const deep = await kubectlOk(['explain', 'runtime.spec.shoot.provider']);
    assert.ok(fieldNames(deep).includes('type'), deep);
  });

  it('shows a CRD change: a new field appears in explain', async () => {
    await kubectlOk(['apply', '-f', '-'], JSON.stringify(gadgetCrd({ size: { type: 'integer', description: 'How big it is.' } }, 'What the gadget should be.')));
    await kubectlOk(['wait', '--for=condition=Established', 'crd/gadgets.demo.example.com', '--timeout=20s']);
    const before = await kubectlOk(['explain', 'gadget.spec']);
    assert.match(before, /What the gadget should be\./);
    assert.deepEqual(fieldNames(before), ['size']);
    await kubectlOk(['apply', '-f', '-'], JSON.stringify(gadgetCrd({ size: { type: 'integer', description: 'How big it is.' }, colour: { type: 'string', description: 'Its colour.' } }, 'What the gadget should be.')));
    const after = await kubectlOk(['explain', 'gadget.spec']);
    assert.deepEqual(fieldNames(after), ['colour', 'size']);
    assert.match(after, /^ {2}colour\t<string>\n {4}Its colour\.$/m);
  });

  it('explains each logical cluster\'s own CRDs', async () => {
    await server.createCluster('runtime-a');
    const runtimeKc = join(dir, 'clusters', 'runtime-a.kubeconfig');
    const inRuntime = (args: string[], input?: string) => runOk(runtimeKc, [...args, '--cache-dir', join(dir, 'cache')], input);
    const missing = await run(runtimeKc, ['explain', 'gadget.spec', '--cache-dir', join(dir, 'cache')]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /the server doesn't have a resource type "gadget"/);
    await inRuntime(['apply', '-f', '-'], JSON.stringify(gadgetCrd({ speed: { type: 'number' } })));
    await inRuntime(['wait', '--for=condition=Established', 'crd/gadgets.demo.example.com', '--timeout=20s']);
    assert.deepEqual(fieldNames(await inRuntime(['explain', 'gadget.spec'])), ['speed']);
    assert.deepEqual(fieldNames(await kubectlOk(['explain', 'gadget.spec'])), ['colour', 'size'], 'the default cluster keeps its own');
  });

  it('explains built-in kinds from the type catalog', async () => {
    const cm = await kubectlOk(['explain', 'configmap']);
    assert.match(cm, /^KIND:\s+ConfigMap$/m);
    assert.deepEqual(fieldNames(cm), ['apiVersion', 'binaryData', 'data', 'immutable', 'kind', 'metadata']);
    assert.match(cm, /^ {2}data\t<map\[string\]string>$/m);
    assert.match(cm, /^ {2}metadata\t<ObjectMeta>$/m);
    const containers = await kubectlOk(['explain', 'pods.spec.containers']);
    assert.match(containers, /^FIELD: containers <\[\]Container>$/m);
    for (const f of ['name', 'image', 'command', 'ports', 'env', 'resources', 'volumeMounts', 'livenessProbe']) assert.ok(fieldNames(containers).includes(f), `${f} in ${fieldNames(containers).join(' ')}`);
    const limits = await kubectlOk(['explain', 'pods.spec.containers.resources.limits']);
    assert.match(limits, /^FIELD: limits <map\[string\]Quantity>$/m);
    const surge = await kubectlOk(['explain', 'deployment.spec.strategy.rollingUpdate.maxSurge']);
    assert.match(surge, /^FIELD: maxSurge <IntOrString>$/m);
    const v2 = await kubectlOk(['explain', 'pods.spec.containers.ports', '--output=plaintext-openapiv2']);
    assert.ok(fieldNames(v2).includes('containerPort'), v2);
  });

  it('rejects unknown fields from the server, as a real one does, unless told to warn or ignore', async () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: extra, namespace: default }\ndata: { a: "1" }\nfoo: bar\n';
    const created = await kubectl(['create', '-f', '-'], cm);
    assert.notEqual(created.code, 0);
    assert.equal(created.stderr.trim(), 'Error from server (BadRequest): error when creating "STDIN": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "foo"');
    const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: default }
spec:
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
        - name: web
          image: nginx
          ports: [{ containerPorts: 80 }]
`;
    const applied = await kubectl(['apply', '-f', '-'], deployment);
    assert.notEqual(applied.code, 0);
    assert.equal(applied.stderr.trim(), 'Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].ports[0].containerPorts"');
    const gadget = await kubectl(['apply', '-f', '-'], 'apiVersion: demo.example.com/v1\nkind: Gadget\nmetadata: { name: g, namespace: default }\nspec: { size: 1, weight: 3 }\n');
    assert.notEqual(gadget.code, 0);
    assert.equal(gadget.stderr.trim(), 'Error from server (BadRequest): error when creating "STDIN": Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.weight"');
    const warned = await kubectl(['apply', '--validate=warn', '-f', '-'], cm);
    assert.equal(warned.code, 0, warned.stderr);
    assert.equal(warned.stderr.trim(), 'Warning: unknown field "foo"');
    assert.match(warned.stdout, /configmap\/extra created/);
    const stored = JSON.parse(await kubectlOk(['get', 'configmap', 'extra', '-n', 'default', '-o', 'json'])) as Record<string, unknown>;
    assert.equal(stored.foo, undefined, 'the unknown field is not stored');
    const patched = await kubectl(['apply', '-f', '-'], cm);
    assert.notEqual(patched.code, 0);
    assert.match(patched.stderr, /^The request is invalid: patch: Invalid value: "map\[.*\]": strict decoding error: unknown field "foo"$/m);
  });

  it('validates a List client-side from the v2 document, as kubectl does for lists', async () => {
    const list = 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: { name: listed, namespace: default }\n  foo: bar\n';
    const r = await kubectl(['apply', '-f', '-'], list);
    assert.notEqual(r.code, 0);
    assert.equal(
      r.stderr.trim(),
      'error: error validating "STDIN": error validating data: ValidationError(ConfigMap): unknown field "foo" in io.k8s.api.core.v1.ConfigMap; if you choose to ignore these errors, turn validation off with --validate=false',
    );
    const ok = await kubectlOk(['apply', '-f', '-'], list.replace('  foo: bar\n', '  data: { a: "1" }\n'));
    assert.match(ok, /configmap\/listed created/);
  });
});
