// module.yaml's module-sync opt-ins (enableModuleConfig, syncResourceKinds): parsed and checked with
// one-line errors by parseDefinition, carried into the ModuleTemplate by moduleTemplateFor. No
// registry needed (artifacts-cli.test.ts pushes and applies them).
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { validateModuleTemplate } from '../../src/api/operator/index.js';
import { DEFAULT_CATALOG_DIR } from '../../src/landscape/embedded.js';
import { ModuleDirError, type ModuleSource, parseDefinition, readModuleDir } from '../../src/lifecycle/artifacts/module-dir.js';
import { moduleTemplateFor } from '../../src/lifecycle/artifacts/push.js';

const BASE = 'name: sample-module\nversion: 1.0.0\nchannels: [regular]\n';
const LINK = `oci://registry.example:5000/kyma-modules/sample-module@sha256:${'a'.repeat(64)}`;

function source(moduleYaml: string): ModuleSource {
  return { definition: parseDefinition(moduleYaml, 'module.yaml'), rawManifest: Buffer.from(''), objects: [] };
}

describe('module.yaml: enableModuleConfig and syncResourceKinds', () => {
  it('are carried into the ModuleTemplate spec', () => {
    const def = parseDefinition(
      `${BASE}enableModuleConfig: true\nsyncResourceKinds:\n  - {group: "", kind: ConfigMap, scope: Namespaced}\n  - {group: rbac.authorization.k8s.io, kind: ClusterRole, scope: Cluster}\n`,
      'module.yaml',
    );
    assert.equal(def.enableModuleConfig, true);
    const template = moduleTemplateFor({ definition: def, rawManifest: Buffer.from(''), objects: [] }, LINK);
    assert.equal(template.spec.enableModuleConfig, true);
    assert.deepEqual(template.spec.syncResourceKinds, [
      { group: '', kind: 'ConfigMap', scope: 'Namespaced' },
      { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', scope: 'Cluster' },
    ]);
    assert.deepEqual(validateModuleTemplate(template), []);
  });

  it('are left out of the definition and the template when not given (or enableModuleConfig: false), so other artifacts keep their bytes', () => {
    for (const text of [BASE, `${BASE}enableModuleConfig: false\n`]) {
      const s = source(text);
      assert.equal('enableModuleConfig' in s.definition, false);
      assert.equal('syncResourceKinds' in s.definition, false);
      const spec = moduleTemplateFor(s, LINK).spec;
      assert.equal(spec.enableModuleConfig, undefined);
      assert.equal(spec.syncResourceKinds, undefined);
    }
    assert.deepEqual(moduleTemplateFor(source(`${BASE}syncResourceKinds: []\n`), LINK).spec.syncResourceKinds, []);
  });

  it('are refused with one line naming the field when malformed', () => {
    const cases: [string, RegExp][] = [
      ['enableModuleConfig: "yes"', /^module\.yaml: enableModuleConfig: must be true or false$/],
      ['syncResourceKinds: {group: "", kind: ConfigMap, scope: Namespaced}', /^module\.yaml: syncResourceKinds: must be a list of \{group, kind, scope\}$/],
      ['syncResourceKinds: [ConfigMap]', /^module\.yaml: syncResourceKinds\[0\]: must be a mapping with group, kind and scope$/],
      ['syncResourceKinds: [{kind: ConfigMap, scope: Namespaced}]', /^module\.yaml: syncResourceKinds\[0\]\.group: is required \(a string; "" for the core group\)$/],
      ['syncResourceKinds: [{group: apps/v1, kind: Deployment, scope: Namespaced}]', /^module\.yaml: syncResourceKinds\[0\]\.group: "apps\/v1" is not an API group/],
      ['syncResourceKinds: [{group: "", scope: Namespaced}]', /^module\.yaml: syncResourceKinds\[0\]\.kind: is required/],
      ['syncResourceKinds: [{group: "", kind: configmap, scope: Namespaced}]', /^module\.yaml: syncResourceKinds\[0\]\.kind: "configmap" is not a kind/],
      ['syncResourceKinds: [{group: "", kind: ConfigMap}]', /^module\.yaml: syncResourceKinds\[0\]\.scope: must be Namespaced or Cluster$/],
      ['syncResourceKinds: [{group: "", kind: ConfigMap, scope: namespaced}]', /^module\.yaml: syncResourceKinds\[0\]\.scope: must be Namespaced or Cluster$/],
      ['syncResourceKinds: [{group: "", kind: ConfigMap, scope: Namespaced, version: v1}]', /^module\.yaml: syncResourceKinds\[0\]\.version: unknown field \(known: group, kind, scope\)$/],
      [
        'syncResourceKinds: [{group: "", kind: Secret, scope: Namespaced}, {group: "", kind: Secret, scope: Namespaced}]',
        /^module\.yaml: syncResourceKinds\[1\]: Secret is listed twice$/,
      ],
    ];
    for (const [line, message] of cases) {
      assert.throws(() => parseDefinition(`${BASE}${line}\n`, 'module.yaml'), (e: unknown) => e instanceof ModuleDirError && message.test(e.message) && !e.message.includes('\n'), line);
    }
  });

  it('the demo functions module opts in at both versions: ModuleConfigs, and ConfigMaps as the one kind it syncs', () => {
    for (const version of ['1.0.0', '1.1.0']) {
      const template = moduleTemplateFor(readModuleDir(path.join(DEFAULT_CATALOG_DIR, 'functions', version)), LINK);
      assert.equal(template.spec.enableModuleConfig, true, version);
      assert.deepEqual(template.spec.syncResourceKinds, [{ group: '', kind: 'ConfigMap', scope: 'Namespaced' }], version);
    }
    const autoscaler = moduleTemplateFor(readModuleDir(path.join(DEFAULT_CATALOG_DIR, 'autoscaler', '1.0.0')), LINK);
    assert.equal(autoscaler.spec.enableModuleConfig, undefined, 'the other demo modules do not opt in');
  });
});
