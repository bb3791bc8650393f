// A module whose artifact cannot be used puts the Manifest in Error with the reason and leaves the
// runtime alone; so does a Manifest without its Kyma (orphaned), and a module CRD whose names the
// runtime refused stops the install at its CRDs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, Manifest, States } from '../../src/api/operator/index.js';
import { clientFromKubeconfig } from '../../src/runtime/client/index.js';
import { ArtifactError } from '../../src/lifecycle/artifacts/types.js';
import { createTestRuntime } from '../support/skr.js';
import { CRD, DEFAULT_CR, DEPLOYMENT, type Env, exists, MODULE_NS, NS, sampleModule, startEnv, waitFor } from './manifest-env.js';

const WRITES = ['create', 'update', 'patch', 'apply', 'delete'];

describe('manifest errors', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(async () => {
    await env.stop();
  });

  const broken: [string, ArtifactError][] = [
    ['invalid YAML', new ArtifactError('InvalidYAML', 'raw-manifest.yaml: bad indentation of a mapping entry (3:5)')],
    ['a missing layer', new ArtifactError('MissingLayer', 'the image has no layer of media type application/x-yaml')],
    ['a wrong digest', new ArtifactError('DigestMismatch', 'layer digest sha256:aaaa does not match the content (sha256:bbbb)')],
  ];
  for (const [i, [what, error]] of broken.entries()) {
    it(`a manifest with ${what} puts the Manifest in Error with the reason and touches nothing in the runtime`, async () => {
      const kyma = `broken-${i}`;
      const link = `oci://registry.example.test/sample@sha256:${String(i).repeat(64)}`;
      env.fetcher.set(link, error);
      const rt = await env.runtime(kyma);
      await env.createManifest(`${kyma}-sample`, kyma, link, { resource: DEFAULT_CR });
      const m = await env.waitState(`${kyma}-sample`, States.Error);
      const resources = m.status?.conditions?.find((c) => c.type === 'Resources');
      assert.equal(resources?.status, 'False');
      assert.equal(resources?.reason, error.reason);
      assert.equal(resources?.message, error.message);
      assert.ok(m.status?.lastOperation?.operation.includes(error.message));
      await env.moreReconciles(`${kyma}-sample`, 2); // retries keep failing the same way
      assert.equal((await env.manifest(`${kyma}-sample`))?.status?.state, States.Error, 'still in Error after the retries');
      const counter = env.requests.get(kyma);
      for (const w of WRITES) assert.equal(counter?.count(w) ?? 0, 0, `no ${w} in the runtime`);
      assert.equal(await exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS), false);

      // Fixing the artifact installs the module.
      env.fetcher.set(link, sampleModule());
      await env.kcp.patch(Manifest, { namespace: NS, name: `${kyma}-sample` }, 'merge', { spec: { version: '1.0.1' } });
      await waitFor('the module installed after the fix', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    });
  }

  it("a module whose CRD's names the runtime already gives another CRD is in Error, saying so, and installs once they are free", async () => {
    const link = 'https://modules.example.test/sample/1.0.0/clash.yaml';
    env.fetcher.set(link, sampleModule());
    const rt = await env.runtime('clash');
    // Another CRD of the group holds the kind Sample: the module's samples CRD is never Established there.
    const other = { apiVersion: CRD.apiVersion, kind: CRD.kind, metadata: { name: 'others.sample.kyma-project.io' }, spec: { group: 'sample.kyma-project.io', scope: 'Namespaced', names: { kind: 'Sample', plural: 'others', singular: 'other', listKind: 'SampleList' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] } };
    await rt.create(other);
    await env.createManifest('clash-sample', 'clash', link, { resource: DEFAULT_CR });
    // Error, not Processing: a CRD whose names were refused does not wait out the establish timeout.
    const m = await env.waitState('clash-sample', States.Error);
    assert.match(m.status?.lastOperation?.operation ?? '', /samples\.sample\.kyma-project\.io: names not accepted: "Sample" is already in use/);
    assert.equal(await exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS), false, 'nothing after the CRDs was applied');

    // The other CRD goes: the next retry's apply finds the names free and installs the module.
    await rt.delete(CRD, { name: 'others.sample.kyma-project.io' });
    await waitFor('the module installed once the names are free', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
  });

  it('a Manifest whose artifact never worked is deleted without touching the runtime', async () => {
    const link = 'oci://registry.example.test/sample:missing';
    env.fetcher.set(link, new ArtifactError('NotFound', 'registry.example.test/sample:missing: manifest unknown'));
    await env.runtime('broken-del');
    await env.createManifest('broken-del-sample', 'broken-del', link, { resource: DEFAULT_CR });
    await env.waitState('broken-del-sample', States.Error);
    await env.kcp.delete(Manifest, { namespace: NS, name: 'broken-del-sample' });
    await waitFor('the Manifest gone', async () => (await env.manifest('broken-del-sample')) === undefined);
    const counter = env.requests.get('broken-del');
    for (const w of ['create', 'update', 'patch', 'apply']) assert.equal(counter?.count(w) ?? 0, 0, `no ${w} in the runtime`);
  });

  it('an orphaned Manifest (no Kyma) is reported in Error and touches nothing', async () => {
    const link = 'https://modules.example.test/sample/1.0.0/raw-manifest.yaml';
    env.fetcher.set(link, sampleModule());
    await createTestRuntime(env.server, env.kcp, 'orphan-1', NS); // a runtime, but no Kyma
    await env.createManifest('orphan-1-sample', 'orphan-1', link);
    const m = await env.waitState('orphan-1-sample', States.Error);
    assert.match(m.status?.lastOperation?.operation ?? '', /orphaned/);
    assert.equal(env.requests.get('orphan-1')?.count() ?? 0, 0, 'no request to the runtime');

    // The Kyma appears: the Manifest is no orphan any more and installs the module.
    await env.kcp.create({ apiVersion: Kyma.apiVersion, kind: 'Kyma', metadata: { name: 'orphan-1', namespace: NS }, spec: { channel: 'regular' } });
    const rt = clientFromKubeconfig(env.server.clusterAccess('skr-orphan-1').kubeconfig);
    try {
      await waitFor('the module installed', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    } finally {
      rt.close();
    }
  });
});
