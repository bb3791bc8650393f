// `kcp module push`: a module directory becomes an OCI artifact in a real registry plus the
// ModuleTemplate and ModuleReleaseMeta the control plane reads.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import yaml from 'js-yaml';
import {
  Annotations,
  Labels,
  ModuleReleaseMeta,
  type ModuleReleaseMetaObject,
  ModuleTemplate,
  type ModuleTemplateObject,
  RAW_MANIFEST_RESOURCE,
  validateModuleReleaseMeta,
  validateModuleTemplate,
} from '../../src/api/operator/index.js';
import { DEFAULT_CLUSTER } from '../../src/apiserver/server.js';
import { parseArgs } from '../../src/cli/args.js';
import { MODULE_PUSH_FLAGS, runModulePush } from '../../src/cli/module-push.js';
import { OciArtifactFetcher } from '../../src/lifecycle/artifacts/fetcher.js';
import { ModuleDirError } from '../../src/lifecycle/artifacts/module-dir.js';
import { type ApiTestEnv, startWithKinds } from '../support/api.js';
import { startRegistry, type TestRegistry, writeSampleModule } from '../support/registry.js';

function captured() {
  const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) };
  return io;
}

function push(argv: string[], io = captured()) {
  return runModulePush(parseArgs(argv, MODULE_PUSH_FLAGS), io);
}

describe('kcp module push', () => {
  let registry: TestRegistry;
  let env: ApiTestEnv;
  let kubeconfigDir: string;
  let kubeconfig: string;
  before(async () => {
    // Both are kept even when one fails, so that after() stops the other and the file fails instead of hanging.
    const [r, e] = await Promise.allSettled([startRegistry(), startWithKinds([ModuleTemplate, ModuleReleaseMeta])]);
    if (r.status === 'fulfilled') registry = r.value;
    if (e.status === 'fulfilled') env = e.value;
    if (r.status === 'rejected') throw r.reason;
    if (e.status === 'rejected') throw e.reason;
    kubeconfigDir = mkdtempSync(path.join(tmpdir(), 'kcp-push-'));
    kubeconfig = path.join(kubeconfigDir, 'kubeconfig');
    writeFileSync(kubeconfig, env.server.clusterAccess(DEFAULT_CLUSTER).kubeconfig);
  });
  after(async () => {
    await registry?.stop();
    await env?.stop();
    if (kubeconfigDir) rmSync(kubeconfigDir, { recursive: true, force: true });
  });

  it('--apply publishes a ModuleTemplate linking the artifact by digest and keeps the other channels of the ModuleReleaseMeta', async () => {
    const existing = await env.create({
      apiVersion: ModuleReleaseMeta.apiVersion,
      kind: ModuleReleaseMeta.kind,
      metadata: { name: 'sample-module', namespace: 'kcp-system' },
      spec: { moduleName: 'sample-module', channels: [{ channel: 'fast', version: '0.9.0' }, { channel: 'regular', version: '0.9.0' }] },
    } as ModuleReleaseMetaObject);
    assert.equal(existing.status, 201, JSON.stringify(existing.body));
    const mod = writeSampleModule({ name: 'sample-module', version: '1.0.0', channels: ['regular'] });
    try {
      const io = captured();
      const result = await push(['push', mod.dir, '--registry', registry.host, '--apply', '--kubeconfig', kubeconfig], io);
      assert.match(io.stderr, /pushed sample-module 1\.0\.0 to 127\.0\.0\.1:\d+\/kyma-modules\/sample-module:1\.0\.0/);

      const template = await env.client.request('GET', '/apis/operator.kyma-project.io/v1beta2/namespaces/kcp-system/moduletemplates/sample-module-1.0.0');
      assert.equal(template.status, 200, template.text);
      const t = JSON.parse(template.text) as ModuleTemplateObject;
      assert.deepEqual(validateModuleTemplate(t), []);
      assert.equal(t.metadata.labels?.[Labels.ModuleName], 'sample-module');
      assert.equal(t.metadata.annotations?.[Annotations.IsClusterScoped], 'false');
      assert.deepEqual(t.spec.data, yaml.load(mod.files['default-cr.yaml']));
      assert.deepEqual(t.spec.manager, { group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'kyma-system', name: 'sample-module-manager' });
      const link = t.spec.resources?.find((r) => r.name === RAW_MANIFEST_RESOURCE)?.link ?? '';
      assert.equal(link, `oci://${registry.host}/kyma-modules/sample-module@${result.digest}`);
      assert.deepEqual(
        (await new OciArtifactFetcher().fetchManifest(link)).objects.map((o) => o.kind),
        ['CustomResourceDefinition', 'Deployment', 'ConfigMap'],
      );

      const meta = await env.client.request('GET', '/apis/operator.kyma-project.io/v1beta2/namespaces/kcp-system/modulereleasemetas/sample-module');
      const m = JSON.parse(meta.text) as ModuleReleaseMetaObject;
      assert.deepEqual(validateModuleReleaseMeta(m), []);
      assert.deepEqual(m.spec.channels, [
        { channel: 'fast', version: '0.9.0' },
        { channel: 'regular', version: '1.0.0' },
      ]);
    } finally {
      mod.remove();
    }
  });

  it('without --apply prints the ModuleTemplate and ModuleReleaseMeta as YAML, or JSON with -o json', async () => {
    const mod = writeSampleModule({ name: 'printed-module', version: '0.1.0', channels: ['fast', 'regular'] });
    try {
      const io = captured();
      await push([mod.dir, '--registry', registry.host, '--repository', 'team/printed', '-o', 'json'], io);
      const list = JSON.parse(io.stdout) as { items: (ModuleTemplateObject | ModuleReleaseMetaObject)[] };
      assert.deepEqual(
        list.items.map((o) => `${o.kind}/${o.metadata.name ?? ''}`),
        ['ModuleTemplate/printed-module-0.1.0', 'ModuleReleaseMeta/printed-module'],
      );
      assert.match(JSON.stringify(list.items[0].spec), new RegExp(`oci://${registry.host}/team/printed@sha256:[a-f0-9]{64}`));
      assert.deepEqual((list.items[1] as ModuleReleaseMetaObject).spec.channels, [
        { channel: 'fast', version: '0.1.0' },
        { channel: 'regular', version: '0.1.0' },
      ]);

      const yamlIo = captured();
      await push([mod.dir, '--registry', registry.host, '--repository', 'team/printed'], yamlIo);
      assert.deepEqual(
        yaml.loadAll(yamlIo.stdout).map((o) => (o as { kind: string }).kind),
        ['ModuleTemplate', 'ModuleReleaseMeta'],
      );
    } finally {
      mod.remove();
    }
  });

  it('a mandatory module is published with spec.mandatory, the mandatory-module label and no channels', async () => {
    const mod = writeSampleModule({ name: 'mandatory-module', overrides: { 'module.yaml': 'name: mandatory-module\nversion: 2.1.0\nmandatory: true\n' } });
    try {
      const io = captured();
      await push([mod.dir, '--registry', registry.host, '--output', 'json'], io);
      const [template, meta] = (JSON.parse(io.stdout) as { items: [ModuleTemplateObject, ModuleReleaseMetaObject] }).items;
      assert.equal(template.spec.mandatory, true);
      assert.equal(template.metadata.labels?.[Labels.IsMandatoryModule], 'true');
      assert.deepEqual(meta.spec.mandatory, { version: '2.1.0' });
      assert.equal(meta.spec.channels, undefined);
      assert.deepEqual(validateModuleReleaseMeta(meta), []);
    } finally {
      mod.remove();
    }
  });

  it('--apply publishes the module-sync opt-ins of module.yaml (enableModuleConfig, syncResourceKinds) in the ModuleTemplate', async () => {
    const mod = writeSampleModule({ name: 'synced-module', version: '1.0.0' });
    try {
      writeFileSync(path.join(mod.dir, 'module.yaml'), `${mod.files['module.yaml']}enableModuleConfig: true\nsyncResourceKinds:\n  - {group: "", kind: ConfigMap, scope: Namespaced}\n`);
      await push(['push', mod.dir, '--registry', registry.host, '--apply', '--kubeconfig', kubeconfig]);
      const template = await env.client.request('GET', '/apis/operator.kyma-project.io/v1beta2/namespaces/kcp-system/moduletemplates/synced-module-1.0.0');
      assert.equal(template.status, 200, template.text);
      const t = JSON.parse(template.text) as ModuleTemplateObject;
      assert.equal(t.spec.enableModuleConfig, true);
      assert.deepEqual(t.spec.syncResourceKinds, [{ group: '', kind: 'ConfigMap', scope: 'Namespaced' }]);
    } finally {
      mod.remove();
    }
  });

  it('an invalid module directory is refused with one line naming the file and the field', async () => {
    const cases: [Record<string, string | null>, RegExp][] = [
      [{ 'module.yaml': 'name: bad-version\nversion: one\nchannels: [regular]\n' }, /module\.yaml: version: "one" is not a module version/],
      [{ 'manifest.yaml': null }, /manifest\.yaml is missing/],
      [{ 'manifest.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [x\n' }, /manifest\.yaml: /],
      [{ 'module.yaml': 'name: without-channels\nversion: 1.0.0\n' }, /channels: list at least one channel/],
      [{ 'module.yaml': 'name: bad-sync\nversion: 1.0.0\nchannels: [regular]\nsyncResourceKinds: [{group: "", kind: ConfigMap, scope: Everywhere}]\n' }, /module\.yaml: syncResourceKinds\[0\]\.scope: must be Namespaced or Cluster/],
      [{ 'module.yaml': 'name: lost-manager\nversion: 1.0.0\nchannels: [regular]\nmanager: {group: apps, version: v1, kind: Deployment, namespace: kyma-system, name: elsewhere}\n' }, /manager: Deployment kyma-system\/elsewhere \(apps\/v1\) is not among the objects/],
      [{ 'default-cr.yaml': 'apiVersion: v1\nkind: A\nmetadata: {name: a}\n---\napiVersion: v1\nkind: B\nmetadata: {name: b}\n' }, /default-cr\.yaml must hold exactly one object/],
    ];
    for (const [overrides, message] of cases) {
      const mod = writeSampleModule({ overrides });
      try {
        await assert.rejects(push([mod.dir, '--registry', registry.host]), (e: unknown) => e instanceof ModuleDirError && message.test(e.message) && !e.message.includes('\n'));
      } finally {
        mod.remove();
      }
    }
  });
});
