// kubectl reading the server's OpenAPI: `explain` for custom and built-in kinds, a CRD change showing
// up, and field validation behaving as against a real server. kubectl 1.32 explains from v3 (and
// from v2, in protobuf, when asked) and leaves validation to the server (fieldValidation=Strict)
// for the kinds whose PATCH operation takes fieldValidation, validating only `kind: List`
// client-side from the v2 document. Debian's kubectl 1.20 knows only v2: its explain reads the v2
// document (the layout 1.32 prints for --output=plaintext-openapiv2), and it validates every object
// client-side against v2, then sends it without fieldValidation, which the server answers with a
// warning (kube-apiserver's default, Warn); the server's strict decoding of the same objects is
// checked through `create --raw`.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { gadgetCrd } from '../support/gadget-crd.js';
import { kubectlMinorVersion, kubectl as run, kubectlOk as runOk } from '../support/kubectl.js';

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
  /** kubectl 1.27+ explains from OpenAPI v3 and leaves field validation to the server; older ones (Debian's 1.20) do neither. */
  let v3 = false;
  /** explain from the v2 document: 1.32 when asked, 1.20 always. */
  const explainV2 = (path: string) => kubectlOk(v3 ? ['explain', path, '--output=plaintext-openapiv2'] : ['explain', path]);

  before(async () => {
    v3 = (await kubectlMinorVersion('/dev/null')) >= 27;
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
    const v2 = await explainV2('runtime.spec');
    assert.match(v2, /^KIND:\s+Runtime$/m);
    assert.match(v2, /^VERSION:\s+infrastructuremanager\.kyma-project\.io\/v1$/m);
    assert.match(v2, /^RESOURCE: spec <Object>$/m);
    assert.deepEqual(fieldNames(v2), ['imageRegistryCache', 'security', 'shoot']);
    assert.match(v2, /^ {3}shoot\t<Object> -required-\n {5}The Gardener Shoot to create for this runtime\.$/m);
    // Worker pools keep unknown fields: v2 lists them as objects without properties, as kube-apiserver does.
    const provider = await explainV2('runtime.spec.shoot.provider');
    assert.match(provider, /^ {3}workers\t<\[\]map\[string\]> -required-$/m);
    assert.match(provider, /^ {3}controlPlaneConfig\t<map\[string\]>$/m);
    assert.match(provider, /^ {3}type\t<string> -required-$/m);
    if (!v3) return;
    const spec = await kubectlOk(['explain', 'runtime.spec']);
    assert.match(spec, /^GROUP:\s+infrastructuremanager\.kyma-project\.io$/m);
    assert.match(spec, /^KIND:\s+Runtime$/m);
    assert.match(spec, /^FIELD: spec <Object>$/m);
    assert.deepEqual(fieldNames(spec), ['imageRegistryCache', 'security', 'shoot']);
    assert.match(spec, /^ {2}shoot\t<Object> -required-\n {4}The Gardener Shoot to create for this runtime\.$/m);
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
    if (v3) assert.match(after, /^ {2}colour\t<string>\n {4}Its colour\.$/m);
    else assert.match(after, /^ {3}colour\t<string>\n {5}Its colour\.$/m);
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
    const cmV2 = await explainV2('configmap');
    assert.match(cmV2, /^KIND:\s+ConfigMap$/m);
    assert.match(cmV2, /^VERSION:\s+v1$/m);
    assert.deepEqual(fieldNames(cmV2), ['apiVersion', 'binaryData', 'data', 'immutable', 'kind', 'metadata']);
    assert.match(cmV2, /^ {3}data\t<map\[string\]string>$/m);
    assert.match(cmV2, /^ {3}metadata\t<Object>$/m);
    const containersV2 = await explainV2('pods.spec.containers');
    assert.match(containersV2, /^RESOURCE: containers <\[\]Object>$/m);
    for (const f of ['name', 'image', 'command', 'ports', 'env', 'resources', 'volumeMounts', 'livenessProbe']) assert.ok(fieldNames(containersV2).includes(f), `${f} in ${fieldNames(containersV2).join(' ')}`);
    // Quantity and IntOrString are strings in v2, as upstream publishes them.
    assert.match(await explainV2('pods.spec.containers.resources.limits'), /^FIELD: {4}limits <map\[string\]string>$/m);
    assert.match(await explainV2('deployment.spec.strategy.rollingUpdate.maxSurge'), /^FIELD: {4}maxSurge <string>$/m);
    const ports = await explainV2('pods.spec.containers.ports');
    assert.match(ports, /^ {3}containerPort\t<integer> -required-$/m);
    if (!v3) return;
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
  });

  it('rejects unknown fields as a real server does, and only warns when told to', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'extra', namespace: 'default' }, data: { a: '1' }, foo: 'bar' };
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPorts: 80 }] }] } } },
    };
    const gadget = { apiVersion: 'demo.example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'default' }, spec: { size: 1, weight: 3 } };
    /** The server's strict decoding error for each object, as kube-apiserver words it. */
    const strictErrors = [
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "foo"',
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].ports[0].containerPorts"',
      'Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.weight"',
    ];
    const created = await kubectl(['create', '-f', '-'], JSON.stringify(cm));
    const applied = await kubectl(['apply', '-f', '-'], JSON.stringify(deployment));
    const gadgetApplied = await kubectl(['apply', '-f', '-'], JSON.stringify(gadget));
    for (const r of [created, applied, gadgetApplied]) assert.notEqual(r.code, 0);
    if (v3) {
      // kubectl sends fieldValidation=Strict: the server's errors, word for word.
      assert.deepEqual(
        [created, applied, gadgetApplied].map((r) => r.stderr.trim()),
        strictErrors.map((e) => `Error from server (BadRequest): error when creating "STDIN": ${e}`),
      );
    } else {
      // kubectl 1.20 validates against the v2 document first: the built-in definitions' fields and
      // required fields, and the CRD's schema.
      const hint = '; if you choose to ignore these errors, turn validation off with --validate=false';
      assert.deepEqual(
        [created, applied, gadgetApplied].map((r) => r.stderr.trim()),
        [
          `error: error validating "STDIN": error validating data: ValidationError(ConfigMap): unknown field "foo" in io.k8s.api.core.v1.ConfigMap${hint}`,
          'error: error validating "STDIN": error validating data: [ValidationError(Deployment.spec.template.spec.containers[0].ports[0]): unknown field "containerPorts" in io.k8s.api.core.v1.ContainerPort, ' +
            `ValidationError(Deployment.spec.template.spec.containers[0].ports[0]): missing required field "containerPort" in io.k8s.api.core.v1.ContainerPort]${hint}`,
          `error: error validating "STDIN": error validating data: ValidationError(Gadget.spec): unknown field "weight" in com.example.demo.v1.Gadget.spec${hint}`,
        ],
      );
      // The same objects with fieldValidation=Strict, as kubectl 1.32 sends them, get the server's errors.
      const paths = ['/api/v1/namespaces/default/configmaps', '/apis/apps/v1/namespaces/default/deployments', '/apis/demo.example.com/v1/namespaces/default/gadgets'];
      const raw = await Promise.all([cm, deployment, gadget].map((o, i) => kubectl(['create', '--raw', `${paths[i]}?fieldValidation=Strict`, '-f', '-'], JSON.stringify(o))));
      assert.deepEqual(
        raw.map((r) => [r.code !== 0, r.stderr.trim()]),
        strictErrors.map((e) => [true, `Error from server (BadRequest): ${e}`]),
      );
    }
    // 1.32 asks the server to warn; 1.20, told not to validate, sends no fieldValidation and the
    // server warns by default (kube-apiserver 1.23+).
    const warned = await kubectl(['apply', v3 ? '--validate=warn' : '--validate=false', '-f', '-'], JSON.stringify(cm));
    assert.equal(warned.code, 0, warned.stderr);
    assert.equal(warned.stderr.trim(), 'Warning: unknown field "foo"');
    assert.match(warned.stdout, /configmap\/extra created/);
    const stored = JSON.parse(await kubectlOk(['get', 'configmap', 'extra', '-n', 'default', '-o', 'json'])) as Record<string, unknown>;
    assert.equal(stored.foo, undefined, 'the unknown field is not stored');
    assert.deepEqual(stored.data, { a: '1' });
    if (v3) {
      const patched = await kubectl(['apply', '-f', '-'], JSON.stringify(cm));
      assert.notEqual(patched.code, 0);
      assert.match(patched.stderr, /^The request is invalid: patch: Invalid value: "map\[.*\]": strict decoding error: unknown field "foo"$/m);
    } else {
      // apply's patch sets foo again (the object lacks it): the server warns and drops it again.
      const patched = await kubectl(['apply', '--validate=false', '-f', '-'], JSON.stringify({ ...cm, data: { a: '2' } }));
      assert.equal(patched.code, 0, patched.stderr);
      assert.equal(patched.stderr.trim(), 'Warning: unknown field "foo"');
      assert.match(patched.stdout, /configmap\/extra configured/);
      const repatched = JSON.parse(await kubectlOk(['get', 'configmap', 'extra', '-n', 'default', '-o', 'json'])) as Record<string, unknown>;
      assert.deepEqual([repatched.foo, repatched.data], [undefined, { a: '2' }]);
    }
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
