// Failure injection of the Gardener simulator: annotations on a Shoot make its operation end in
// Error (retryable code; retried and recovering when asked to) or Failed (non-retryable code), with
// the code in status.lastErrors, so that the infrastructure manager's failure paths can be tested.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AnnotationConfirmationDeletion,
  AnnotationGardenerOperation,
  ErrorInfraQuotaExceeded,
  ErrorInfraResourcesDepleted,
  ErrorRetryableInfraDependencies,
  Shoot,
  type ShootObject,
} from '../../src/api/gardener/index.js';
import { AnnotationFailOperations, AnnotationFailRecover, AnnotationFailWith } from '../../src/landscape/index.js';
import { isNotFound } from '../../src/runtime/client/index.js';
import { assertInOrder, type Landscape, startLandscape, testShoot, waitFor, followShoot } from '../support/landscape.js';
import { RecordingLogger } from '../support/log.js';

describe('Gardener simulator failure injection', () => {
  let l: Landscape;
  const log = new RecordingLogger();

  before(async () => {
    l = await startLandscape({ simulator: { recoverAfterMs: 600, logger: log } });
  });
  after(async () => {
    await l.stop();
  });

  const getShoot = (name: string) => l.garden.get<ShootObject>(Shoot, { namespace: l.projectNamespace, name });

  const follow = (name: string, until: Parameters<typeof followShoot>[2], seen: string[] = []) => followShoot(l, name, until, seen);

  function failing(name: string, annotations: Record<string, string>): ShootObject {
    return testShoot(name, l.projectNamespace, (s) => (s.metadata.annotations = annotations));
  }

  /**
   * Positive control for "it stays as it is": a Shoot created now, failing with `code` and set to
   * recover, goes through Error/Failed and recovers after recoverAfterMs in the simulator's own
   * time. Once it has, the same window has passed for a Shoot that settled earlier.
   */
  async function recoveryWindowPassed(name: string, code: string): Promise<void> {
    await l.garden.create(failing(name, { [AnnotationFailWith]: code, [AnnotationFailRecover]: 'true' }));
    const seen: string[] = [];
    await follow(name, (op) => op?.state === 'Succeeded', seen);
    assert.ok(seen.includes('Create/Error') || seen.includes('Create/Failed'), `the control failed before it recovered: ${seen.join(' -> ')}`);
  }

  it('a retryable error code ends the Create operation in Error, which is retried and then succeeds', async () => {
    await l.garden.create(failing('flaky', { [AnnotationFailWith]: ErrorInfraResourcesDepleted }));
    const seen: string[] = [];
    const errored = await follow('flaky', (op) => op?.state === 'Error', seen);
    assert.deepEqual(errored.status?.lastErrors?.[0]?.codes, [ErrorInfraResourcesDepleted]);
    assert.equal(l.server.hasCluster(l.shootClusterName('flaky')), false);
    const done = await follow('flaky', (op) => op?.state === 'Succeeded', seen);
    assertInOrder(seen, ['Create/Pending', 'Create/Processing', 'Create/Error', 'Create/Processing', 'Create/Succeeded'], ['Create/Error', 'Create/Succeeded']);
    assert.equal(done.status?.lastErrors, undefined, 'lastErrors are cleared on success');
    assert.ok(l.server.hasCluster(l.shootClusterName('flaky')));
  });

  it('a non-retryable error code ends the Create operation in Failed, which stays until a retry is asked for', async () => {
    await l.garden.create(failing('quota', { [AnnotationFailWith]: ErrorInfraQuotaExceeded }));
    const failed = await follow('quota', (op) => op?.state === 'Failed');
    assert.equal(failed.status?.lastOperation?.type, 'Create');
    assert.deepEqual(failed.status?.lastErrors?.[0]?.codes, [ErrorInfraQuotaExceeded]);
    await recoveryWindowPassed('quota-control', ErrorInfraQuotaExceeded);
    assert.equal((await getShoot('quota')).status?.lastOperation?.state, 'Failed', 'Failed is final without a retry');

    await l.garden.patch(Shoot, { namespace: l.projectNamespace, name: 'quota' }, 'merge', { metadata: { annotations: { [AnnotationFailWith]: null, [AnnotationGardenerOperation]: 'retry' } } });
    const done = await follow('quota', (op, s) => op?.state === 'Succeeded' && !s.metadata.annotations?.[AnnotationGardenerOperation]);
    assert.equal(done.status?.lastOperation?.type, 'Create');
    assert.ok(l.server.hasCluster(l.shootClusterName('quota')));

    // What the simulator decided, at info with the Shoot: started, failed on request, retried, succeeded, cluster created.
    const shoot = `${l.projectNamespace}/quota`;
    const decisions = log.records.filter((r) => r.fields.shoot === shoot && r.level === 'info').map((r) => r.msg);
    assert.deepEqual(decisions, ['Shoot operation started', 'Shoot operation Failed (injected)', 'Shoot operation retried on request', 'cluster created', 'Shoot operation Succeeded']);
    const failedLine = log.matching('Shoot operation Failed (injected)', { shoot })[0];
    assert.deepEqual([failedLine?.fields.operation, failedLine?.fields.code, failedLine?.fields.recovers], ['Create', ErrorInfraQuotaExceeded, false]);
    assert.equal(log.matching('cluster created', { shoot })[0]?.fields.cluster, l.shootClusterName('quota'));
    assert.ok(log.matching('Shoot operation progressed', { shoot }).every((r) => r.level === 'debug'), 'progress at debug');
  });

  it('fail-recover "true" lets a Failed operation recover; fail-recover "false" keeps a retryable Error', async () => {
    await l.garden.create(failing('fixed', { [AnnotationFailWith]: ErrorInfraQuotaExceeded, [AnnotationFailRecover]: 'true' }));
    await l.garden.create(failing('stuck', { [AnnotationFailWith]: ErrorRetryableInfraDependencies, [AnnotationFailRecover]: 'false' }));
    const seen: string[] = [];
    await follow('fixed', (op) => op?.state === 'Succeeded', seen);
    assert.ok(seen.includes('Create/Failed'), `saw ${seen.join(' -> ')}`);
    await follow('stuck', (op) => op?.state === 'Error');
    await recoveryWindowPassed('stuck-control', ErrorRetryableInfraDependencies);
    assert.equal((await getShoot('stuck')).status?.lastOperation?.state, 'Error');
  });

  it('a failure asked for the Delete operation holds the Shoot in deletion until it recovers', async () => {
    await l.garden.create(testShoot('sticky', l.projectNamespace));
    await l.garden.create(testShoot('sticky-control', l.projectNamespace));
    await follow('sticky', (op) => op?.state === 'Succeeded');
    await follow('sticky-control', (op) => op?.state === 'Succeeded');
    await l.garden.patch(Shoot, { namespace: l.projectNamespace, name: 'sticky' }, 'merge', {
      metadata: { annotations: { [AnnotationConfirmationDeletion]: 'true', [AnnotationFailWith]: ErrorRetryableInfraDependencies, [AnnotationFailOperations]: 'Delete' } },
    });
    // A metadata-only change starts no operation. Positive control: a spec change made after it
    // on another Shoot does start one, so the simulator has worked through the change of sticky.
    const control = await getShoot('sticky-control');
    const [worker] = control.spec.provider.workers ?? [];
    assert.ok(worker);
    worker.maximum = 4;
    await l.garden.update(control);
    await follow('sticky-control', (op) => op?.type === 'Reconcile');
    assert.equal((await getShoot('sticky')).status?.lastOperation?.type, 'Create');
    await l.garden.delete(Shoot, { namespace: l.projectNamespace, name: 'sticky' });
    const errored = await follow('sticky', (op) => op?.type === 'Delete' && op.state === 'Error');
    assert.deepEqual(errored.status?.lastErrors?.[0]?.codes, [ErrorRetryableInfraDependencies]);
    assert.ok(l.server.hasCluster(l.shootClusterName('sticky')), 'the cluster stays while the deletion fails');
    await waitFor('the Shoot to be gone', async () => {
      try {
        await getShoot('sticky');
        return false;
      } catch (err) {
        return isNotFound(err);
      }
    });
    assert.equal(l.server.hasCluster(l.shootClusterName('sticky')), false);
  });
});
