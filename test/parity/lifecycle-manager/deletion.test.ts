// Upstream's module deletion scenarios (kyma-project/lifecycle-manager tests/e2e): a module disabled
// in the runtime Kyma is not removed while users' module CRs exist (policy CreateAndDelete or
// Ignore, in several namespaces, cluster-scoped) or while a finalizer holds its default CR; the
// module keeps running and follows new versions meanwhile (a channel switch on re-enabling, a
// ModuleReleaseMeta change), except a new version that changes the module CR's API version.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isAlreadyExists } from '../../../src/runtime/client/index.js';
import {
  DEFAULT_CR_NAME,
  DEPLOYMENT,
  exists,
  MANAGER_SA,
  MODULE_NS,
  REMOTE_NS,
  SAMPLE,
  SERVICE_ACCOUNT,
  sampleCR,
  startDeletionEnv,
  syncedResources,
  waitFor,
  type DeletionEnv,
  type Runtime,
} from './deletion-fixtures.js';

const MODULE = 'template-operator';
const CLUSTER_SCOPED_MODULE = 'template-operator-cluster';
const V1_DEPLOYMENT = 'template-operator-v1-controller-manager';
const V2_DEPLOYMENT = 'template-operator-v2-controller-manager';
/** template-operator's own finalizer on Sample CRs, held while it cleans up. */
const OPERATOR_FINALIZER = 'sample.kyma-project.io/finalizer';

type Policy = 'CreateAndDelete' | 'Ignore';
interface UserCR {
  name: string;
  /** Undefined: cluster-scoped. */
  namespace?: string;
}

describe('parity: module deletion (lifecycle-manager e2e)', () => {
  let env: DeletionEnv;

  before(async () => {
    env = await startDeletionEnv();
    await env.publishModule(MODULE, [{ version: '1.0.0', deployment: V1_DEPLOYMENT }], { regular: '1.0.0' });
    await env.publishModule(CLUSTER_SCOPED_MODULE, [{ version: '1.0.0', deployment: V1_DEPLOYMENT, clusterScoped: true }], { regular: '1.0.0' });
  });

  after(async () => {
    await env.stop();
  });

  async function setFinalizers(rt: Runtime, namespace: string | undefined, finalizers: string[] | null): Promise<void> {
    await rt.remote.patch(SAMPLE, { namespace, name: DEFAULT_CR_NAME }, 'merge', { metadata: { finalizers } });
  }

  async function createUserCR(rt: Runtime, cr: UserCR): Promise<void> {
    if (cr.namespace) {
      await rt.remote.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: cr.namespace } }).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
    }
    await rt.remote.create({ ...SAMPLE, metadata: { name: cr.name, ...(cr.namespace ? { namespace: cr.namespace } : {}) }, spec: {} });
  }

  /** A module enabled in the runtime Kyma with the given policy, installed, and the Kyma Ready. */
  async function enabled(id: string, module: string, policy: Policy): Promise<Runtime> {
    const rt = await env.emptyRuntime(id);
    await env.setModules(rt, [{ name: module, customResourcePolicy: policy }]);
    await env.deploymentReady(rt, V1_DEPLOYMENT);
    await env.kymaState(id, 'Ready');
    return rt;
  }

  /**
   * Upstream's testModuleDeletionBlocking: enable, create the blocking objects, disable; the Kyma
   * is Processing, the Manifest Deleting and every module resource stays; remove the blockers one
   * by one; then the default CR, the resources and the Manifest go.
   */
  async function moduleDeletionBlocking(id: string, o: { module?: string; policy: Policy; userCRs: UserCR[]; finalizerOnDefaultCR?: boolean }): Promise<void> {
    const module = o.module ?? MODULE;
    const defaultNs = module === CLUSTER_SCOPED_MODULE ? undefined : REMOTE_NS;
    const expectDefaultCR = o.policy === 'CreateAndDelete';
    const rt = await enabled(id, module, o.policy);
    assert.ok(await exists(rt.remote, DEPLOYMENT, V1_DEPLOYMENT, MODULE_NS), 'the module operator is deployed');
    if (expectDefaultCR) await waitFor('the default CR', () => sampleCR(rt.remote, DEFAULT_CR_NAME, defaultNs));
    else assert.equal(await sampleCR(rt.remote, DEFAULT_CR_NAME, defaultNs), undefined, 'no default CR with policy Ignore');

    if (o.finalizerOnDefaultCR) await setFinalizers(rt, defaultNs, ['test-finalizer']);
    for (const cr of o.userCRs) await createUserCR(rt, cr);
    await env.setModules(rt, []);

    await env.kymaState(id, 'Processing');
    const blocked = await env.manifestState(id, module, 'Deleting');
    assert.equal(await syncedResources(rt.remote, blocked), true, 'every module resource still exists');
    const kymaEntry = (await env.kyma(id)).status?.modules?.find((m) => m.name === module);
    assert.equal(kymaEntry?.state, 'Deleting');

    if (o.userCRs.length > 1) {
      const [first, second] = o.userCRs;
      await rt.remote.delete(SAMPLE, { namespace: first.namespace, name: first.name });
      // The reconcile after that deletion still finds the others: still Deleting, naming only them.
      const still = await waitFor('the Manifest blocked by the remaining CRs only', async () => {
        const m = await env.manifestOf(id, module);
        const op = m?.status?.lastOperation?.operation ?? '';
        return op.includes(second.name) && !op.includes(first.name) ? m : undefined;
      });
      assert.equal(still?.status?.state, 'Deleting');
      assert.match(still?.status?.lastOperation?.operation ?? '', /^waiting for module crs deletion: /);
      assert.equal(await syncedResources(rt.remote, blocked), true, 'module resources still exist');
      for (const cr of o.userCRs.slice(1)) await rt.remote.delete(SAMPLE, { namespace: cr.namespace, name: cr.name });
    } else if (o.userCRs.length === 1) {
      await rt.remote.delete(SAMPLE, { namespace: o.userCRs[0].namespace, name: o.userCRs[0].name });
    } else if (o.finalizerOnDefaultCR) {
      const held = await waitFor('the default CR marked for deletion', async () => {
        const cr = await sampleCR(rt.remote, DEFAULT_CR_NAME, defaultNs);
        return cr?.metadata.deletionTimestamp ? cr : undefined;
      });
      assert.deepEqual(held.metadata.finalizers, ['test-finalizer']);
      await setFinalizers(rt, defaultNs, null);
    }

    if (expectDefaultCR) await waitFor('the default CR deleted', async () => (await sampleCR(rt.remote, DEFAULT_CR_NAME, defaultNs)) === undefined);
    await waitFor('every module resource deleted', async () => (await syncedResources(rt.remote, blocked)) === false);
    await waitFor('the Manifest deleted', async () => (await env.manifestOf(id, module)) === undefined);
    await env.kymaState(id, 'Ready');
  }

  it('module-deletion-blocking-with-multiple-crs-ignore-policy: two user CRs block, then the module goes (no default CR)', async () => {
    await moduleDeletionBlocking('del-multi-ignore', { policy: 'Ignore', userCRs: [{ name: 'sample-cr-1', namespace: REMOTE_NS }, { name: 'sample-cr-2', namespace: REMOTE_NS }] });
  });

  it('module-deletion-blocking-with-multiple-crs-create-and-delete-policy: two user CRs block, then the default CR and the module go', async () => {
    await moduleDeletionBlocking('del-multi-cad', { policy: 'CreateAndDelete', userCRs: [{ name: 'sample-cr-1', namespace: REMOTE_NS }, { name: 'sample-cr-2', namespace: REMOTE_NS }] });
  });

  it('module-deletion-blocking-with-default-cr-with-finalizer: a finalizer on the default CR blocks until it is removed', async () => {
    await moduleDeletionBlocking('del-default-fin', { policy: 'CreateAndDelete', userCRs: [], finalizerOnDefaultCR: true });
  });

  it('module-deletion-blocking-with-cross-namespace-ignore-policy: user CRs in kyma-system and default block', async () => {
    await moduleDeletionBlocking('del-xns-ignore', { policy: 'Ignore', userCRs: [{ name: 'sample-cr-in-kyma-system', namespace: REMOTE_NS }, { name: 'sample-cr-in-default-ns', namespace: 'default' }] });
  });

  it('module-deletion-blocking-with-cross-namespace-create-and-delete-policy: a user CR in another namespace blocks', async () => {
    await moduleDeletionBlocking('del-xns-cad', { policy: 'CreateAndDelete', userCRs: [{ name: 'sample-cr-in-default-ns', namespace: 'default' }] });
  });

  it('module-deletion-blocking-with-cluster-scoped-crs-ignore-policy: cluster-scoped user CRs block', async () => {
    await moduleDeletionBlocking('del-cs-ignore', { module: CLUSTER_SCOPED_MODULE, policy: 'Ignore', userCRs: [{ name: 'sample-cr-1' }, { name: 'sample-cr-2' }] });
  });

  it('module-deletion-blocking-with-cluster-scoped-crs-create-and-delete-policy: a cluster-scoped user CR blocks, the cluster-scoped default CR goes with the module', async () => {
    await moduleDeletionBlocking('del-cs-cad', { module: CLUSTER_SCOPED_MODULE, policy: 'CreateAndDelete', userCRs: [{ name: 'sample-cr-1' }] });
  });

  it('module-deletion-with-only-default-cr: the default CR alone does not block; the module goes once its operator let the CR go', async () => {
    // template-operator holds its own finalizer on the CR while it cleans up; the test plays it.
    const id = 'del-only-default';
    const rt = await enabled(id, MODULE, 'CreateAndDelete');
    await waitFor('the default CR', () => sampleCR(rt.remote, DEFAULT_CR_NAME, REMOTE_NS));
    await setFinalizers(rt, REMOTE_NS, [OPERATOR_FINALIZER]);
    await env.setModules(rt, []);
    await env.kymaState(id, 'Processing');
    const deleting = await env.manifestState(id, MODULE, 'Deleting');
    assert.equal(await syncedResources(rt.remote, deleting), true, 'every module resource still exists');
    assert.doesNotMatch(deleting.status?.lastOperation?.operation ?? '', /waiting for module crs deletion/, 'the default CR is not a user CR');
    await setFinalizers(rt, REMOTE_NS, null);
    await waitFor('the default CR deleted', async () => (await sampleCR(rt.remote, DEFAULT_CR_NAME, REMOTE_NS)) === undefined);
    await waitFor('every module resource deleted', async () => (await syncedResources(rt.remote, deleting)) === false);
    await waitFor('the Manifest deleted', async () => (await env.manifestOf(id, MODULE)) === undefined);
    await env.kymaState(id, 'Ready');
  });

  /** Upstream's "disabled with existing finalizer": the default CR held, the module disabled. */
  async function disabledWithBlockingFinalizer(id: string, module: string, deployment: string): Promise<Runtime> {
    const rt = await enabled(id, module, 'CreateAndDelete');
    assert.ok(await exists(rt.remote, DEPLOYMENT, deployment, MODULE_NS));
    await waitFor('the default CR', () => sampleCR(rt.remote, DEFAULT_CR_NAME, REMOTE_NS));
    await setFinalizers(rt, REMOTE_NS, [OPERATOR_FINALIZER, 'blocking-finalizer']);
    await env.setModules(rt, []);
    await env.kymaState(id, 'Processing');
    await env.manifestState(id, module, 'Deleting');
    const cr = await waitFor('the module CR Deleting (marked for deletion, its operator reports Deleting)', async () => {
      const c = await sampleCR(rt.remote, DEFAULT_CR_NAME, REMOTE_NS);
      return c?.metadata.deletionTimestamp && (c.status as { state?: string } | undefined)?.state === 'Deleting' ? c : undefined;
    });
    assert.ok(cr.metadata.deletionTimestamp);
    assert.ok(await exists(rt.remote, DEPLOYMENT, deployment, MODULE_NS), 'the module operator is not removed');
    return rt;
  }

  it('non-blocking-deletion: re-enabled in another channel while its deletion is blocked, the module is upgraded; once the CR is released, it is installed afresh', async () => {
    const module = 'template-operator-nonblocking';
    await env.publishModule(module, [{ version: '1.0.0', deployment: V1_DEPLOYMENT }, { version: '2.0.0', deployment: V2_DEPLOYMENT }], { regular: '1.0.0', fast: '2.0.0' });
    const id = 'del-non-blocking';
    const rt = await disabledWithBlockingFinalizer(id, module, V1_DEPLOYMENT);

    // Re-enabled in channel fast: the Manifest (still being deleted) takes the new version.
    await env.setModules(rt, [{ name: module, channel: 'fast', customResourcePolicy: 'CreateAndDelete' }]);
    await env.deploymentReady(rt, V2_DEPLOYMENT);
    await waitFor('the old module operator Deployment removed', async () => !(await exists(rt.remote, DEPLOYMENT, V1_DEPLOYMENT, MODULE_NS)));
    const upgraded = await env.manifestOf(id, module);
    assert.equal(upgraded?.spec.version, '2.0.0');
    assert.equal(upgraded.status?.state, 'Deleting', 'the Manifest is still Deleting');
    assert.ok(upgraded.metadata.deletionTimestamp);
    assert.equal(((await sampleCR(rt.remote, DEFAULT_CR_NAME, REMOTE_NS))?.status as { state?: string } | undefined)?.state, 'Deleting', 'the module CR is still Deleting');

    // The blocking finalizers removed: the old CR and the old Manifest go, a new Manifest installs the module again.
    const oldUid = upgraded.metadata.uid;
    const oldDeployment = (await rt.remote.get(DEPLOYMENT, { namespace: MODULE_NS, name: V2_DEPLOYMENT })).metadata.uid;
    await setFinalizers(rt, REMOTE_NS, null);
    // The module is removed with its Manifest, and the new Manifest deploys its operator again.
    await waitFor('the module operator Deployment deployed again', async () => (await rt.remote.get(DEPLOYMENT, { namespace: MODULE_NS, name: V2_DEPLOYMENT })).metadata.uid !== oldDeployment);
    await env.deploymentReady(rt, V2_DEPLOYMENT);
    const fresh = await waitFor('a new Manifest Ready', async () => {
      const m = await env.manifestOf(id, module);
      return m && m.metadata.uid !== oldUid && m.status?.state === 'Ready' ? m : undefined;
    });
    assert.equal(fresh.metadata.deletionTimestamp, undefined);
    assert.equal(fresh.spec.version, '2.0.0');
    const cr = await waitFor('a new module CR Ready', async () => {
      const c = await sampleCR(rt.remote, DEFAULT_CR_NAME, REMOTE_NS);
      return c && !c.metadata.deletionTimestamp && (c.status as { state?: string } | undefined)?.state === 'Ready' ? c : undefined;
    });
    assert.equal(cr.metadata.deletionTimestamp, undefined);
    assert.ok(await exists(rt.remote, DEPLOYMENT, V2_DEPLOYMENT, MODULE_NS), 'the module operator runs');
    await env.kymaState(id, 'Ready');

    // Disabled again without a blocker: everything goes, both Kymas Ready.
    await env.setModules(rt, []);
    await waitFor('the Manifest deleted', async () => (await env.manifestOf(id, module)) === undefined);
    assert.equal(await sampleCR(rt.remote, DEFAULT_CR_NAME, REMOTE_NS), undefined);
    assert.equal(await exists(rt.remote, DEPLOYMENT, V2_DEPLOYMENT, MODULE_NS), false);
    assert.equal(await exists(rt.remote, SERVICE_ACCOUNT, MANAGER_SA, MODULE_NS), false);
    await env.kymaState(id, 'Ready');
    await waitFor('the runtime Kyma Ready', async () => (await env.remoteKyma(rt)).status?.state === 'Ready');
  });

  it('modulereleasemeta-upgrade-under-deletion: a new version in the channel reaches a disabled module whose deletion is blocked', async () => {
    const module = 'template-operator-meta';
    await env.publishModule(module, [{ version: '1.0.0', deployment: V1_DEPLOYMENT }, { version: '2.0.0', deployment: V2_DEPLOYMENT }], { regular: '1.0.0', fast: '2.0.0' });
    const id = 'del-mrm-upgrade';
    const rt = await disabledWithBlockingFinalizer(id, module, V1_DEPLOYMENT);

    await env.setChannels(module, { regular: '2.0.0', fast: '2.0.0' });
    await env.deploymentReady(rt, V2_DEPLOYMENT);
    await waitFor('the old module operator Deployment removed', async () => !(await exists(rt.remote, DEPLOYMENT, V1_DEPLOYMENT, MODULE_NS)));
    const m = await env.manifestOf(id, module);
    assert.equal(m?.spec.version, '2.0.0');
    assert.equal(m.status?.state, 'Deleting', 'the Manifest is still Deleting');
    assert.equal(((await sampleCR(rt.remote, DEFAULT_CR_NAME, REMOTE_NS))?.status as { state?: string } | undefined)?.state, 'Deleting', 'the module CR is still Deleting');
    assert.equal((await env.kyma(id)).status?.modules?.find((e) => e.name === module)?.version, '2.0.0', 'the Kyma status shows the new version');

    await setFinalizers(rt, REMOTE_NS, null);
    await waitFor('the module CR deleted', async () => (await sampleCR(rt.remote, DEFAULT_CR_NAME, REMOTE_NS)) === undefined);
    await waitFor('the module operator Deployment deleted', async () => !(await exists(rt.remote, DEPLOYMENT, V2_DEPLOYMENT, MODULE_NS)));
    await env.kymaState(id, 'Ready');
  });

  it('module-api-upgrade-under-blocked-deletion: a new version that changes the module CR API is not installed while the CR is held; the module then goes', async () => {
    const module = 'template-operator-api';
    await env.publishModule(module, [{ version: '1.0.0', deployment: V1_DEPLOYMENT }, { version: '2.0.0', deployment: V2_DEPLOYMENT, sampleVersion: 'v1beta1' }], { regular: '1.0.0', fast: '2.0.0' });
    const id = 'del-api-upgrade';
    const rt = await disabledWithBlockingFinalizer(id, module, V1_DEPLOYMENT);

    await env.setChannels(module, { regular: '2.0.0', fast: '2.0.0' });
    // The reconcile of the new version says why it waits: proof that it ran and held the upgrade.
    const held = await waitFor('the Manifest holding the new version', async () => {
      const m = await env.manifestOf(id, module);
      return m?.spec.version === '2.0.0' && /the new version \(module CR API operator\.kyma-project\.io\/v1beta1\) is not installed meanwhile/.test(m.status?.lastOperation?.operation ?? '') ? m : undefined;
    });
    assert.equal(held.status?.state, 'Deleting', 'the Manifest is still Deleting');
    assert.ok(await exists(rt.remote, DEPLOYMENT, V1_DEPLOYMENT, MODULE_NS), 'the installed module operator stays');
    assert.equal(await exists(rt.remote, DEPLOYMENT, V2_DEPLOYMENT, MODULE_NS), false, 'the new version is not installed');
    assert.equal(await syncedResources(rt.remote, held), true, 'nothing of the module was removed');
    assert.equal(((await sampleCR(rt.remote, DEFAULT_CR_NAME, REMOTE_NS))?.status as { state?: string } | undefined)?.state, 'Deleting', 'the module CR is still Deleting');

    await setFinalizers(rt, REMOTE_NS, null);
    await waitFor('the module CR deleted', async () => (await sampleCR(rt.remote, DEFAULT_CR_NAME, REMOTE_NS)) === undefined);
    await waitFor('the module resources deleted', async () => (await syncedResources(rt.remote, held)) === false);
    assert.equal(await exists(rt.remote, DEPLOYMENT, V2_DEPLOYMENT, MODULE_NS), false);
    await waitFor('the Manifest deleted', async () => (await env.manifestOf(id, module)) === undefined);
    await env.kymaState(id, 'Ready');
  });
});
