// Upstream's Kyma deprovisioning scenarios (kyma-project/lifecycle-manager tests/e2e
// deprovision_test.go RunDeletionTest): a Kyma deleted (foreground or background propagation)
// while a module's removal is blocked by a finalizer on its module CR stays; its runtime cluster is
// removed; the Kyma is Error and stays until its kubeconfig Secret is deleted; then its Manifest
// and the Kyma go.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma } from '../../../src/api/operator/index.js';
import { findObject } from '../../../src/runtime/client/index.js';
import { counterValue } from '../../support/metrics.js';
import { DEFAULT_CR_NAME, NS, REMOTE_NS, SAMPLE, sampleCR, startDeletionEnv, waitFor, type DeletionEnv } from './deletion-fixtures.js';

const MODULE = 'template-operator';
const SECRET = { apiVersion: 'v1', kind: 'Secret' };
/** Upstream's moduleCRFinalizer. */
const MODULE_CR_FINALIZER = 'cr-finalizer';

describe('parity: Kyma deprovisioning (lifecycle-manager e2e)', () => {
  let env: DeletionEnv;

  before(async () => {
    env = await startDeletionEnv();
    await env.publishModule(MODULE, [{ version: '1.0.0', deployment: 'template-operator-controller-manager' }], { regular: '1.0.0' });
  });

  after(async () => {
    await env.stop();
  });

  /** Requeues of deleting Kymas whose runtime cannot be reached (upstream's reason, whatever the failure). */
  function unreachableRequeues(): number {
    return counterValue(env.lm.manager.registry, 'lifecycle_mgr_requeue_reason_total', { requeue_reason: 'remote_kyma_deletion', requeue_type: 'unexpected' });
  }

  async function deprovisionAfterClusterRemoval(id: string, propagationPolicy: 'Foreground' | 'Background'): Promise<void> {
    const rt = await env.emptyRuntime(id);
    await env.setModules(rt, [{ name: MODULE }]);
    await waitFor('the module CR', () => sampleCR(rt.remote, DEFAULT_CR_NAME, REMOTE_NS));
    await rt.remote.patch(SAMPLE, { namespace: REMOTE_NS, name: DEFAULT_CR_NAME }, 'merge', { metadata: { finalizers: [MODULE_CR_FINALIZER] } });
    await env.setModules(rt, []);

    await waitFor('the module CR Deleting', async () => ((await sampleCR(rt.remote, DEFAULT_CR_NAME, REMOTE_NS))?.status as { state?: string } | undefined)?.state === 'Deleting');
    await env.manifestState(id, MODULE, 'Deleting');

    await env.kcp.delete(Kyma, { namespace: NS, name: id }, { propagationPolicy });
    const deleting = await waitFor('the Kyma Deleting', async () => {
      const k = await env.kyma(id);
      return k.status?.state === 'Deleting' ? k : undefined;
    });
    assert.ok(deleting.metadata.deletionTimestamp, 'the Kyma still exists, being deleted');
    if (propagationPolicy === 'Foreground') assert.ok(deleting.metadata.finalizers?.includes('foregroundDeletion'));

    await env.api.server.deleteCluster(rt.cluster);
    const failed = await waitFor('the Kyma Error', async () => {
      const k = await env.kyma(id);
      return k.status?.state === 'Error' ? k : undefined;
    });
    assert.match(failed.status?.lastOperation?.operation ?? '', /^deleting the Kyma: the runtime cannot be reached to remove 1 module\(s\): /);
    // It stays: more deletion passes find the runtime unreachable and keep the Kyma and its Secret.
    const passes = unreachableRequeues();
    await waitFor('two more deletion passes', () => unreachableRequeues() >= passes + 2);
    assert.ok(await findObject(env.kcp, Kyma, { namespace: NS, name: id }), 'the Kyma is still there');
    assert.ok(await findObject(env.kcp, SECRET, { namespace: NS, name: rt.secretName }), 'the kubeconfig Secret is still there');
    assert.ok(await env.manifestOf(id, MODULE), 'the Manifest is still there');

    await env.kcp.delete(SECRET, { namespace: NS, name: rt.secretName });
    await waitFor('the Manifest deleted', async () => (await env.manifestOf(id, MODULE)) === undefined);
    await waitFor('the Kyma deleted', async () => (await findObject(env.kcp, Kyma, { namespace: NS, name: id })) === undefined);
  }

  it('kyma-deprovision-with-foreground-propagation: the Kyma stays in Error after its cluster went, until its kubeconfig Secret is deleted', async () => {
    await deprovisionAfterClusterRemoval('deprov-foreground', 'Foreground');
  });

  it('kyma-deprovision-with-background-propagation: the Kyma stays in Error after its cluster went, until its kubeconfig Secret is deleted', async () => {
    await deprovisionAfterClusterRemoval('deprov-background', 'Background');
  });
});
