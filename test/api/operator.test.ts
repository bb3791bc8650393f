import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { crdOf } from '../../src/api/crd.js';
import {
  Annotations,
  Finalizers,
  Kyma,
  type KymaObject,
  KymaConditionTypes,
  Labels,
  Manifest,
  type ManifestObject,
  ModuleConfig,
  type ModuleConfigObject,
  ModuleReleaseMeta,
  type ModuleReleaseMetaObject,
  ModuleTemplate,
  type ModuleTemplateObject,
  operatorKinds,
  SyncResource,
  type SyncResourceObject,
  validateKyma,
  validateManifest,
  validateModuleConfig,
  validateModuleReleaseMeta,
  validateModuleTemplate,
  validateSyncResource,
  validateWatcher,
  type WatcherObject,
} from '../../src/api/operator/index.js';
import { type AnyKind, type ApiTestEnv, startWithKinds } from '../support/api.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const samplesDir = join(root, 'config', 'samples');
const sampleFiles = readdirSync(samplesDir).filter((f) => f.startsWith('operator.kyma-project.io_') && f.endsWith('.yaml'));

type Obj = { apiVersion: string; kind: string; metadata: { name?: string; namespace?: string; labels?: Record<string, string> }; [k: string]: unknown };

function sample<T = Obj>(kind: string): T {
  const file = sampleFiles.find((f) => f.endsWith(`_${kind.toLowerCase()}.yaml`));
  assert.ok(file, `no sample for ${kind}`);
  return yaml.load(readFileSync(join(samplesDir, file), 'utf8')) as T;
}

function clone<T>(o: T): T {
  return structuredClone(o);
}

interface Cause { field?: string; message?: string }

function causes(body: Record<string, unknown>): Cause[] {
  const details = body.details as { causes?: Cause[] } | undefined;
  return details?.causes ?? [];
}

let env: ApiTestEnv;
let counter = 0;

/** Creates the object under a fresh name; returns the status and body. */
async function create(obj: Obj) {
  const o = clone(obj);
  o.metadata.name = `${o.metadata.name ?? 'x'}-t${++counter}`.slice(0, 250);
  return env.create(o);
}

async function expectRejected(obj: Obj, field: string, messagePart?: RegExp) {
  const r = await create(obj);
  assert.equal(r.status, 422, `expected 422, got ${r.status}: ${JSON.stringify(r.body)}`);
  const all = causes(r.body);
  const hit = all.find((c) => c.field === field);
  assert.ok(hit, `no cause for field ${field} in ${JSON.stringify(all)}; message: ${String(r.body.message)}`);
  assert.ok(String(r.body.message).includes(field), `message does not name ${field}: ${String(r.body.message)}`);
  if (messagePart) assert.match(String(r.body.message), messagePart);
}

before(async () => {
  env = await startWithKinds([...operatorKinds] as unknown as AnyKind[]);
});
after(async () => {
  await env.stop();
});

describe('samples', () => {
  test('there is one sample per kind', () => {
    assert.equal(sampleFiles.length, operatorKinds.length);
    for (const k of operatorKinds) assert.ok(sampleFiles.includes(`operator.kyma-project.io_${k.version}_${k.kind.toLowerCase()}.yaml`), k.kind);
  });

  for (const file of sampleFiles) {
    test(`${file} is accepted by the API server`, async () => {
      const obj = yaml.load(readFileSync(join(samplesDir, file), 'utf8')) as Obj;
      const r = await env.create(obj);
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal((r.body.metadata as { name: string }).name, obj.metadata.name);
    });
  }

  test('samples pass the validation functions', () => {
    assert.deepEqual(validateKyma(sample<KymaObject>('Kyma')), []);
    assert.deepEqual(validateModuleTemplate(sample<ModuleTemplateObject>('ModuleTemplate')), []);
    assert.deepEqual(validateModuleReleaseMeta(sample<ModuleReleaseMetaObject>('ModuleReleaseMeta')), []);
    assert.deepEqual(validateManifest(sample<ManifestObject>('Manifest')), []);
    assert.deepEqual(validateWatcher(sample<WatcherObject>('Watcher')), []);
    assert.deepEqual(validateModuleConfig(sample<ModuleConfigObject>('ModuleConfig')), []);
    assert.deepEqual(validateSyncResource(sample<SyncResourceObject>('SyncResource')), []);
  });
});

describe('generated CRDs', () => {
  test('names, scope, short names, printer columns and status subresources are as upstream', () => {
    const byKind = new Map(operatorKinds.map((k) => [k.kind, crdOf(k as unknown as AnyKind) as { metadata: { name: string }; spec: { scope: string; names: { shortNames?: string[] }; versions: { name: string; subresources?: unknown; additionalPrinterColumns?: { name: string }[] }[] } }]));
    assert.equal(byKind.get('Kyma')?.metadata.name, 'kymas.operator.kyma-project.io');
    assert.equal(byKind.get('ModuleReleaseMeta')?.metadata.name, 'modulereleasemetas.operator.kyma-project.io');
    assert.deepEqual(byKind.get('ModuleReleaseMeta')?.spec.names.shortNames, ['mrm']);
    assert.deepEqual(byKind.get('Kyma')?.spec.versions[0].additionalPrinterColumns?.map((c) => c.name), ['State', 'Age']);
    assert.deepEqual(byKind.get('Manifest')?.spec.versions[0].additionalPrinterColumns?.map((c) => c.name), ['State', 'Age']);
    assert.deepEqual(byKind.get('Kyma')?.spec.versions[0].subresources, { status: {} });
    assert.equal(byKind.get('ModuleTemplate')?.spec.versions[0].subresources, undefined);
    for (const k of operatorKinds) assert.equal(byKind.get(k.kind)?.spec.scope, 'Namespaced');
    assert.equal(ModuleConfig.version, 'v1alpha1');
    assert.equal(SyncResource.version, 'v1alpha1');
    assert.equal(Kyma.version, 'v1beta2');
  });

  test('every schema property has a description', () => {
    const missing: string[] = [];
    const walk = (s: Record<string, unknown>, path: string) => {
      const props = s.properties as Record<string, Record<string, unknown>> | undefined;
      for (const [name, p] of Object.entries(props ?? {})) {
        if (!p.description) missing.push(`${path}.${name}`);
        walk(p, `${path}.${name}`);
      }
      const items = s.items as Record<string, unknown> | undefined;
      if (items) walk(items, `${path}[]`);
    };
    for (const k of operatorKinds) {
      walk(k.spec.openapi, `${k.kind}.spec`);
      if (k.status) walk(k.status.openapi, `${k.kind}.status`);
      assert.ok(k.notes && k.notes.length > 50, `${k.kind} has notes`);
    }
    assert.deepEqual(missing, []);
  });

  test('upstream names are exported as constants', () => {
    assert.equal(Labels.KymaName, 'operator.kyma-project.io/kyma-name');
    assert.equal(Labels.ManagedBy, 'operator.kyma-project.io/managed-by');
    assert.equal(Labels.SkipReconciliation, 'operator.kyma-project.io/skip-reconciliation');
    assert.equal(Labels.Beta, 'operator.kyma-project.io/beta');
    assert.equal(Labels.Internal, 'operator.kyma-project.io/internal');
    assert.equal(Labels.RuntimeID, 'kyma-project.io/runtime-id');
    assert.equal(Labels.WatchedBy, 'operator.kyma-project.io/watched-by');
    assert.equal(Labels.ModuleName, 'operator.kyma-project.io/module-name');
    assert.equal(Annotations.Unmanaged, 'operator.kyma-project.io/is-unmanaged');
    assert.equal(Finalizers.Kyma, 'operator.kyma-project.io/Kyma');
    assert.equal(KymaConditionTypes.SKRWebhook, 'SKRWebhook');
  });
});

describe('Kyma', () => {
  test('defaults customResourcePolicy and managed of modules', async () => {
    const r = await create(sample('Kyma'));
    assert.equal(r.status, 201);
    const modules = (r.body.spec as { modules: { name: string; customResourcePolicy: string; managed: boolean }[] }).modules;
    assert.equal(modules[0].customResourcePolicy, 'CreateAndDelete');
    assert.equal(modules[0].managed, true);
    assert.equal(modules[2].customResourcePolicy, 'Ignore');
  });

  test('a channel that breaks the pattern is rejected', async () => {
    const k = sample<KymaObject>('Kyma');
    k.spec.channel = 'Regular';
    await expectRejected(k as unknown as Obj, 'spec.channel', /\^\[a-z\]\+\$/);
  });

  test('a channel shorter than 3 letters is rejected', async () => {
    const k = sample<KymaObject>('Kyma');
    k.spec.channel = 'ab';
    await expectRejected(k as unknown as Obj, 'spec.channel');
  });

  test('a module channel that breaks the pattern is rejected', async () => {
    const k = sample<KymaObject>('Kyma');
    k.spec.modules = [{ name: 'keda', channel: 'fast-1' }];
    await expectRejected(k as unknown as Obj, 'spec.modules[0].channel');
  });

  test('duplicate module names are rejected', async () => {
    const k = sample<KymaObject>('Kyma');
    k.spec.modules = [{ name: 'keda' }, { name: 'keda', channel: 'fast' }];
    await expectRejected(k as unknown as Obj, 'spec.modules[1]', /Duplicate value/);
  });

  test('a bad customResourcePolicy is rejected', async () => {
    const k = sample<Obj>('Kyma');
    (k.spec as { modules: unknown[] }).modules = [{ name: 'keda', customResourcePolicy: 'Delete' }];
    await expectRejected(k, 'spec.modules[0].customResourcePolicy', /CreateAndDelete/);
  });

  test('version and channel on one module are rejected (CEL)', async () => {
    const k = sample<KymaObject>('Kyma');
    k.spec.modules = [{ name: 'keda', channel: 'fast', version: '1.2.3' }];
    await expectRejected(k as unknown as Obj, 'spec.modules[0]', /mutually exclusive/);
  });

  test('a pinned version that is not a module version is rejected', async () => {
    const k = sample<KymaObject>('Kyma');
    k.spec.modules = [{ name: 'keda', version: 'latest' }];
    await expectRejected(k as unknown as Obj, 'spec.modules[0].version');
  });

  test('a missing channel is rejected', async () => {
    const k = sample<Obj>('Kyma');
    delete (k.spec as { channel?: string }).channel;
    await expectRejected(k, 'spec.channel', /Required value/);
  });

  test('validateKyma: the kyma-name label is required, channel none is refused', () => {
    const k = sample<KymaObject>('Kyma');
    delete k.metadata.labels?.[Labels.KymaName];
    k.spec.modules = [{ name: 'keda', channel: 'none' }, { name: 'keda' }];
    const problems = validateKyma(k);
    assert.deepEqual(
      problems.map((p) => p.field),
      [`metadata.labels[${Labels.KymaName}]`, 'spec.modules[0].channel', 'spec.modules[1].name'],
    );
    assert.match(problems[0].message, /required/);
    assert.deepEqual(validateKyma(k, { remote: true }).map((p) => p.field), ['spec.modules[0].channel', 'spec.modules[1].name']);
    k.spec.channel = 'none';
    assert.ok(validateKyma(k).some((p) => p.field === 'spec.channel'));
  });

  test('validateKyma: version and channel together are reported', () => {
    const k = sample<KymaObject>('Kyma');
    k.spec.modules = [{ name: 'keda', channel: 'fast', version: '1.0.0' }];
    assert.deepEqual(validateKyma(k).map((p) => p.field), ['spec.modules[0].version']);
  });
});

describe('ModuleTemplate', () => {
  test('a version that is not MAJOR.MINOR.PATCH is rejected', async () => {
    const t = sample<ModuleTemplateObject>('ModuleTemplate');
    t.spec.version = '1.7';
    await expectRejected(t as unknown as Obj, 'spec.version');
  });

  test('a module name with capitals is rejected', async () => {
    const t = sample<ModuleTemplateObject>('ModuleTemplate');
    t.spec.moduleName = 'Keda';
    await expectRejected(t as unknown as Obj, 'spec.moduleName');
  });

  test('the deprecated channel is still accepted, a bad one is not', async () => {
    const t = sample<ModuleTemplateObject>('ModuleTemplate');
    t.spec.channel = 'regular';
    assert.equal((await create(t as unknown as Obj)).status, 201);
    t.spec.channel = 'x1';
    await expectRejected(t as unknown as Obj, 'spec.channel');
  });

  test('duplicate resource names are rejected', async () => {
    const t = sample<ModuleTemplateObject>('ModuleTemplate');
    t.spec.resources = [
      { name: 'rawManifest', link: 'https://example.com/a.yaml' },
      { name: 'rawManifest', link: 'https://example.com/b.yaml' },
    ];
    await expectRejected(t as unknown as Obj, 'spec.resources[1]', /Duplicate value/);
  });

  test('a resource link that is not a URI is rejected', async () => {
    const t = sample<ModuleTemplateObject>('ModuleTemplate');
    t.spec.resources = [{ name: 'rawManifest', link: 'not a uri' }];
    await expectRejected(t as unknown as Obj, 'spec.resources[0].link');
  });

  test('a manager without a name is rejected', async () => {
    const t = sample<Obj>('ModuleTemplate');
    delete (t.spec as { manager: { name?: string } }).manager.name;
    await expectRejected(t, 'spec.manager.name', /Required value/);
  });

  test('a custom state check with an unknown state is rejected', async () => {
    const t = sample<Obj>('ModuleTemplate');
    (t.spec as Record<string, unknown>).customStateCheck = [{ jsonPath: 'status.state', value: 'Ok', mappedState: 'Fine' }];
    await expectRejected(t, 'spec.customStateCheck[0].mappedState');
  });

  test('unknown fields of data and descriptor are kept', async () => {
    const t = sample<Obj>('ModuleTemplate');
    (t.spec as Record<string, unknown>).descriptor = { component: { name: 'kyma-project.io/module/keda', anything: { deep: 1 } } };
    const r = await create(t);
    assert.equal(r.status, 201);
    const spec = r.body.spec as { descriptor: { component: { anything: { deep: number } } }; data: { spec: { resources: unknown } } };
    assert.equal(spec.descriptor.component.anything.deep, 1);
    assert.ok(spec.data.spec.resources);
  });

  test('validateModuleTemplate: the name must be <moduleName>-<version>', () => {
    const t = sample<ModuleTemplateObject>('ModuleTemplate');
    t.metadata.name = 'keda-regular';
    const problems = validateModuleTemplate(t);
    assert.deepEqual(problems.map((p) => p.field), ['metadata.name']);
    assert.match(problems[0].message, /keda-1\.7\.0/);
  });

  test('validateModuleTemplate: moduleName, version and the rawManifest resource are required', () => {
    const t = sample<ModuleTemplateObject>('ModuleTemplate');
    delete t.spec.moduleName;
    delete t.spec.version;
    t.spec.resources = [{ name: 'defaultCR', link: 'ftp://example.com/cr.yaml' }];
    assert.deepEqual(validateModuleTemplate(t).map((p) => p.field), ['spec.moduleName', 'spec.version', 'spec.resources', 'spec.resources[0].link']);
  });

  test('validateModuleTemplate: the module-name label must match spec.moduleName', () => {
    const t = sample<ModuleTemplateObject>('ModuleTemplate');
    t.metadata.labels = { [Labels.ModuleName]: 'serverless' };
    assert.deepEqual(validateModuleTemplate(t).map((p) => p.field), [`metadata.labels[${Labels.ModuleName}]`]);
  });
});

describe('ModuleReleaseMeta', () => {
  test('both mandatory and channels are rejected (CEL)', async () => {
    const m = sample<ModuleReleaseMetaObject>('ModuleReleaseMeta');
    m.spec.mandatory = { version: '1.0.0' };
    await expectRejected(m as unknown as Obj, 'spec', /exactly one of 'mandatory' or 'channels'/);
  });

  test('neither mandatory nor channels is rejected (CEL)', async () => {
    const m = sample<ModuleReleaseMetaObject>('ModuleReleaseMeta');
    delete m.spec.channels;
    await expectRejected(m as unknown as Obj, 'spec', /exactly one of 'mandatory' or 'channels'/);
  });

  test('mandatory alone is accepted and beta/internal default to false', async () => {
    const m = sample<ModuleReleaseMetaObject>('ModuleReleaseMeta');
    delete m.spec.channels;
    m.spec.mandatory = { version: '1.0.0-rc.1+build.5' };
    const r = await create(m as unknown as Obj);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const spec = r.body.spec as { beta: boolean; internal: boolean };
    assert.equal(spec.beta, false);
    assert.equal(spec.internal, false);
  });

  test('a mandatory version that is not semver is rejected', async () => {
    const m = sample<ModuleReleaseMetaObject>('ModuleReleaseMeta');
    delete m.spec.channels;
    m.spec.mandatory = { version: 'v1' };
    await expectRejected(m as unknown as Obj, 'spec.mandatory.version');
  });

  test('duplicate channels are rejected', async () => {
    const m = sample<ModuleReleaseMetaObject>('ModuleReleaseMeta');
    m.spec.channels = [
      { channel: 'regular', version: '1.0.0' },
      { channel: 'regular', version: '1.1.0' },
    ];
    await expectRejected(m as unknown as Obj, 'spec.channels[1]', /Duplicate value/);
  });

  test('a bad channel name or channel version is rejected', async () => {
    const m = sample<ModuleReleaseMetaObject>('ModuleReleaseMeta');
    m.spec.channels = [{ channel: 'Fast', version: '1.0.0' }];
    await expectRejected(m as unknown as Obj, 'spec.channels[0].channel');
    m.spec.channels = [{ channel: 'fast', version: '1.0' }];
    await expectRejected(m as unknown as Obj, 'spec.channels[0].version');
  });

  test('a bad OCM component name is rejected', async () => {
    const m = sample<ModuleReleaseMetaObject>('ModuleReleaseMeta');
    m.spec.ocmComponentName = 'keda';
    await expectRejected(m as unknown as Obj, 'spec.ocmComponentName');
  });

  test('validateModuleReleaseMeta: name equals moduleName, exactly one of channels and mandatory, versions set', () => {
    const m = sample<ModuleReleaseMetaObject>('ModuleReleaseMeta');
    m.metadata.name = 'keda-meta';
    m.spec.mandatory = { version: '1.0.0' };
    m.spec.channels = [{ channel: 'fast', version: '' }];
    assert.deepEqual(validateModuleReleaseMeta(m).map((p) => p.field), ['metadata.name', 'spec', 'spec.channels[0].version']);
    delete m.spec.channels;
    delete m.spec.mandatory;
    assert.deepEqual(validateModuleReleaseMeta(m).map((p) => p.field), ['metadata.name', 'spec']);
  });
});

describe('Manifest', () => {
  test('a missing install is rejected', async () => {
    const m = sample<Obj>('Manifest');
    delete (m.spec as { install?: unknown }).install;
    await expectRejected(m, 'spec.install', /Required value/);
  });

  test('a bad customResourcePolicy is rejected', async () => {
    const m = sample<Obj>('Manifest');
    (m.spec as Record<string, unknown>).customResourcePolicy = 'Keep';
    await expectRejected(m, 'spec.customResourcePolicy');
  });

  // kube-apiserver rejects an embedded resource without apiVersion or kind; the embedded API server does not
  // check it yet, so the validation function does.
  test('validateManifest: the default custom resource needs apiVersion, kind and a name', () => {
    const m = sample<ManifestObject>('Manifest');
    m.spec.resource = { apiVersion: 'operator.kyma-project.io/v1alpha1', metadata: {} };
    assert.deepEqual(validateManifest(m).map((p) => p.field), ['spec.resource.kind', 'spec.resource.metadata.name']);
  });

  test('validateManifest: kyma-name and module-name labels and a usable source are required', () => {
    const m = sample<ManifestObject>('Manifest');
    m.metadata.labels = {};
    m.spec.install.source = { repo: 'europe-docker.pkg.dev/kyma-project/prod' };
    assert.deepEqual(validateManifest(m).map((p) => p.field), [`metadata.labels[${Labels.KymaName}]`, `metadata.labels[${Labels.ModuleName}]`, 'spec.install.source']);
    m.spec.install.source = { url: 'file:///etc/passwd' };
    assert.ok(validateManifest(m).some((p) => p.field === 'spec.install.source.url'));
  });
});

describe('Watcher', () => {
  test('a field other than spec or status is rejected', async () => {
    const w = sample<Obj>('Watcher');
    (w.spec as Record<string, unknown>).field = 'metadata';
    await expectRejected(w, 'spec.field', /"spec", "status"/);
  });

  test('a missing resourceToWatch.resource is rejected', async () => {
    const w = sample<Obj>('Watcher');
    delete (w.spec as { resourceToWatch: { resource?: string } }).resourceToWatch.resource;
    await expectRejected(w, 'spec.resourceToWatch.resource', /Required value/);
  });

  test('validateWatcher: a manager is required and the port must be valid', () => {
    const w = sample<WatcherObject>('Watcher');
    delete w.spec.manager;
    w.metadata.labels = {};
    w.spec.serviceInfo.port = 70000;
    assert.deepEqual(validateWatcher(w).map((p) => p.field), ['spec.manager', 'spec.serviceInfo.port']);
  });
});

describe('ModuleConfig', () => {
  test('a missing kyma is rejected', async () => {
    const c = sample<Obj>('ModuleConfig');
    delete (c.spec as { kyma?: string }).kyma;
    await expectRejected(c, 'spec.kyma', /Required value/);
  });

  test('validateModuleConfig: labels must match spec.kyma and spec.module', () => {
    const c = sample<ModuleConfigObject>('ModuleConfig');
    c.metadata.labels = { [Labels.KymaName]: 'other' };
    assert.deepEqual(validateModuleConfig(c).map((p) => p.field), [`metadata.labels[${Labels.KymaName}]`, `metadata.labels[${Labels.ModuleName}]`]);
  });
});

describe('SyncResource', () => {
  test('a bad strategy is rejected', async () => {
    const s = sample<Obj>('SyncResource');
    (s.spec as { items: { strategy: string }[] }).items[0].strategy = 'CreateOnce';
    await expectRejected(s, 'spec.items[0].strategy', /CreateAndSync/);
  });

  test('duplicate item names are rejected', async () => {
    const s = sample<SyncResourceObject>('SyncResource');
    s.spec.items[1].name = s.spec.items[0].name;
    await expectRejected(s as unknown as Obj, 'spec.items[1]', /Duplicate value/);
  });

  test('an item without resource is rejected', async () => {
    const s = sample<Obj>('SyncResource');
    delete (s.spec as { items: { resource?: unknown }[] }).items[2].resource;
    await expectRejected(s, 'spec.items[2].resource', /Required value/);
  });

  test('validateSyncResource: kyma-name label, object names and duplicate targets', () => {
    const s = sample<SyncResourceObject>('SyncResource');
    s.metadata.labels = { [Labels.KymaName]: 'another-kyma' };
    s.spec.items[1].resource = { ...s.spec.items[0].resource };
    s.spec.items[2].resource = { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} };
    assert.deepEqual(validateSyncResource(s).map((p) => p.field), [
      `metadata.labels[${Labels.KymaName}]`,
      'spec.items[1].resource',
      'spec.items[2].resource.metadata.name',
    ]);
  });
});

test('Manifest and Kyma kinds are exported', () => {
  assert.equal(Manifest.kind, 'Manifest');
  assert.equal(ModuleTemplate.plural, 'moduletemplates');
  assert.equal(ModuleReleaseMeta.plural, 'modulereleasemetas');
});
