// Updates of a Ready Runtime reach its Shoot and cluster: worker pools added and removed,
// administrators and OIDC changed, the force-patch and suspend-patch annotations.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ShootObject } from '../../src/api/gardener/index.js';
import { AnnotationForcePatchReconciliation, AnnotationSuspendPatchReconciliation, Runtime, type RuntimeObject } from '../../src/api/infrastructuremanager/index.js';
import { ShootRuntimeGenerationAnnotation } from '../../src/infrastructure/converter/index.js';
import { RecordingLogger } from '../support/log.js';
import { condition, type Harness, NAMESPACE, startHarness, testRuntime, waitFor, waitForRuntime } from './runtime-harness.js';

const CRB = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' };
const ID = 'rt-update';
const SHOOT = `c-${ID}`;

describe('runtime updates', () => {
  let h: Harness;
  const log = new RecordingLogger();
  before(async () => {
    h = await startHarness({ logger: log });
    await h.land.kcp.create(testRuntime(ID));
    await waitForRuntime(h, ID, 'Ready');
  });
  after(async () => {
    await h.stop();
  });

  async function edit(change: (rt: RuntimeObject) => void): Promise<RuntimeObject> {
    for (;;) {
      const rt = await h.runtime(ID);
      assert.ok(rt);
      change(rt);
      try {
        return await h.land.kcp.update(rt);
      } catch (e) {
        if ((e as { reason?: string }).reason !== 'Conflict') throw e;
      }
    }
  }

  /** Waits until the Shoot carries the Runtime's generation and the Runtime is Ready again. */
  async function settled(updated: RuntimeObject): Promise<{ rt: RuntimeObject; shoot: ShootObject }> {
    const generation = String(updated.metadata.generation);
    const shoot = await waitFor('shoot patched with the new generation', async () => {
      const s = await h.shoot(SHOOT);
      return s?.metadata.annotations?.[ShootRuntimeGenerationAnnotation] === generation ? s : undefined;
    });
    const rt = await waitForRuntime(h, ID, 'Ready', (r) => condition(r, 'Configured')?.status === 'True' && r.status?.shootLastOperation?.state === 'Succeeded');
    return { rt, shoot };
  }

  it('adding a worker pool patches the Shoot and Gardener reconciles it before the Runtime is Ready again', async () => {
    const updated = await edit((rt) => {
      rt.spec.shoot.provider.additionalWorkers = [{ name: 'extra', machine: { type: 'm6i.xlarge' }, minimum: 1, maximum: 2, maxSurge: 1, maxUnavailable: 0, zones: ['eu-central-1a'] }];
    });
    const { rt, shoot } = await settled(updated);
    assert.deepEqual(shoot.spec.provider.workers?.map((w) => w.name), ['cpu-worker-0', 'extra']);
    assert.equal(rt.status?.shootLastOperation?.type, 'Reconcile');
    assert.equal(condition(rt, 'Provisioned')?.reason, 'ConfigurationCompleted');
  });

  it('removing a worker pool removes it from the Shoot', async () => {
    const updated = await edit((rt) => {
      delete rt.spec.shoot.provider.additionalWorkers;
    });
    const { shoot } = await settled(updated);
    assert.deepEqual(shoot.spec.provider.workers?.map((w) => w.name), ['cpu-worker-0']);
  });

  it('changing the administrators updates the admin bindings in the cluster', async () => {
    const updated = await edit((rt) => {
      rt.spec.security.administrators = ['new-admin@example.com'];
    });
    await settled(updated);
    const remote = h.land.shootClient(SHOOT);
    await waitFor('binding of the new admin only', async () => {
      const { items } = await remote.list(CRB);
      const users = items.flatMap((b) => ((b.subjects as { name: string }[] | undefined) ?? []).map((s) => s.name));
      return users.includes('new-admin@example.com') && !users.includes('admin@example.com');
    });
  });

  it('changing the OIDC configuration reaches the Shoot', async () => {
    const updated = await edit((rt) => {
      rt.spec.shoot.kubernetes = { kubeAPIServer: { oidcConfig: { clientID: 'new-client', issuerURL: 'https://issuer.example.com', usernameClaim: 'email', groupsClaim: 'groups', signingAlgs: ['RS256'], usernamePrefix: '-' } } };
    });
    const { shoot } = await settled(updated);
    assert.equal(shoot.spec.kubernetes?.kubeAPIServer?.oidcConfig?.issuerURL, 'https://issuer.example.com');
    assert.equal(shoot.spec.kubernetes?.kubeAPIServer?.oidcConfig?.clientID, 'new-client');
  });

  it('with suspend-patch the Shoot is not patched; the force-patch annotation patches and is removed', async () => {
    const suspended = await edit((rt) => {
      rt.metadata.annotations = { ...rt.metadata.annotations, [AnnotationSuspendPatchReconciliation]: 'true' };
      rt.spec.shoot.provider.workers[0].maximum = 5;
    });
    // Positive control: the controller reconciles the edited Runtime (twice: the edit, then a poke)
    // and says it does not patch; only then is the Shoot checked.
    const suspendedRuns = () => log.matching('patching is suspended', { runtime: `${NAMESPACE}/${ID}` }).length;
    await waitFor('the controller declining to patch the suspended Runtime', () => suspendedRuns() >= 1);
    const seen = suspendedRuns();
    await h.land.kcp.patch(Runtime, { namespace: NAMESPACE, name: ID }, 'merge', { metadata: { annotations: { 'example.com/poke': '1' } } });
    await waitFor('the controller declining again after a change', () => suspendedRuns() > seen);
    const shoot = await h.shoot(SHOOT);
    assert.notEqual(shoot?.metadata.annotations?.[ShootRuntimeGenerationAnnotation], String(suspended.metadata.generation), 'not patched while suspended');
    assert.equal(shoot?.spec.provider.workers?.[0].maximum, 3);

    const forced = await edit((rt) => {
      delete rt.metadata.annotations?.[AnnotationSuspendPatchReconciliation];
      rt.metadata.annotations = { ...rt.metadata.annotations, [AnnotationForcePatchReconciliation]: 'true' };
    });
    const { rt } = await settled(forced);
    assert.equal((await h.shoot(SHOOT))?.spec.provider.workers?.[0].maximum, 5);
    await waitFor('force-patch annotation removed', async () => (await h.runtime(ID))?.metadata.annotations?.[AnnotationForcePatchReconciliation] === undefined);
    assert.equal(rt.metadata.namespace, NAMESPACE);
  });
});
