// What the Manifest controller logs and counts: a Manifest entering Error is a warning naming it, its
// module, its Kyma and the reason, and every reconcile that ends in Error counts in
// controller_runtime_reconcile_errors_total (issue 15: three Manifests failing on an unreachable
// registry left it at 0); installed (Ready) and removed modules are info.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Manifest, States } from '../../src/api/operator/index.js';
import { ArtifactError } from '../../src/lifecycle/artifacts/types.js';
import { RecordingLogger } from '../support/log.js';
import { DEPLOYMENT, type Env, exists, markDeploymentReady, MODULE_NS, NS, sampleModule, startEnv, waitFor } from './manifest-env.js';

const LINK = 'oci://registry.example.test/sample@sha256:' + '7'.repeat(64);

describe('manifest logs', () => {
  let env: Env;
  const log = new RecordingLogger();
  before(async () => {
    env = await startEnv({ logger: log });
  });
  after(async () => {
    await env.stop();
  });

  const errors = (): number => Number(/^controller_runtime_reconcile_errors_total\{controller="manifest"\} (\d+)$/m.exec(env.manager.registry.render())?.[1] ?? 'NaN');

  it('warns once when a Manifest enters Error, counts every failed reconcile, and logs installed and removed at info', async () => {
    const name = 'logs-sample';
    env.fetcher.set(LINK, new ArtifactError('Unreachable', 'registry.example.test: connect ECONNREFUSED'));
    const rt = await env.runtime('logs');
    const before = errors();
    await env.createManifest(name, 'logs', LINK);
    await env.waitState(name, States.Error);
    await env.moreReconciles(name, 2);
    assert.ok(errors() - before >= 2, `reconciles ending in Error are counted: ${before} -> ${errors()}`);

    const manifest = `${NS}/${name}`;
    const entered = log.matching('Manifest state changed', { manifest, to: States.Error });
    assert.equal(entered.length, 1, 'one warning, not one per retry');
    assert.equal(entered[0]?.level, 'warn');
    assert.deepEqual([entered[0]?.fields.module, entered[0]?.fields.kyma], ['sample', 'logs']);
    assert.match(String(entered[0]?.fields.reason), /ECONNREFUSED/);

    env.fetcher.set(LINK, sampleModule());
    await env.kcp.patch(Manifest, { namespace: NS, name }, 'merge', { spec: { version: '1.0.1' } });
    await waitFor('the manager Deployment', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    await env.waitState(name, States.Ready);
    const ready = log.matching('Manifest state changed', { manifest, to: States.Ready });
    assert.deepEqual(ready.map((r) => r.level), ['info']);
    assert.ok(log.matching('Manifest state changed', { manifest, to: States.Processing }).every((r) => r.level === 'debug'), 'Processing is routine');

    await env.kcp.delete(Manifest, { namespace: NS, name });
    await waitFor('the Manifest gone', async () => (await env.manifest(name)) === undefined);
    assert.deepEqual(log.matching('module removed from the runtime', { manifest }).map((r) => [r.level, r.fields.module]), [['info', 'sample']]);
  });
});
