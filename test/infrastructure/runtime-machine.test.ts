// The state machine's mechanics without a cluster: steps chain until one ends the reconciliation,
// a loop between steps is caught, and the status helpers set state and conditions as upstream does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RuntimeFinalizer, type GardenerClusterObject, type RuntimeObject } from '../../src/api/infrastructuremanager/index.js';
import type { ShootObject } from '../../src/api/gardener/index.js';
import { ShootRuntimeGenerationAnnotation } from '../../src/infrastructure/converter/extenders/metadata.js';
import { RuntimeReconciler } from '../../src/infrastructure/runtime/controller.js';
import { infrastructureMetrics } from '../../src/infrastructure/metrics.js';
import { defaultRuntimeTiming, type Machine, runSteps, type Step, switchTo, type SystemState, updateStatusAndRequeueAfter, waitForChange } from '../../src/infrastructure/runtime/machine.js';
import { ensurePendingCondition } from '../../src/infrastructure/runtime/steps/ensure-condition.js';
import { conditionChanges, updateStateDeletion, updateStatePending, updateStateReady } from '../../src/infrastructure/runtime/status.js';
import { silentLogger } from '../../src/runtime/log.js';
import { Registry } from '../../src/runtime/metrics.js';
import { testRuntime } from './runtime-harness.js';

function machine(registry = new Registry()): Machine {
  // Steps under test use only what they touch; the rest stays unset on purpose.
  return { timing: defaultRuntimeTiming, metrics: infrastructureMetrics(registry), log: silentLogger, signal: new AbortController().signal } as unknown as Machine;
}

function state(rt: RuntimeObject = testRuntime('rt-unit')): SystemState {
  return { runtime: rt, shoot: undefined };
}

describe('runtime state machine', () => {
  it('runs the steps each returns until one ends the reconciliation, and times each step', async () => {
    const registry = new Registry();
    const third: Step = async function third() {
      return updateStatusAndRequeueAfter(42);
    };
    const second: Step = async function second() {
      return switchTo(third);
    };
    const first: Step = async function first() {
      return switchTo(second);
    };
    const ending = await runSteps(first, machine(registry), state());
    assert.deepEqual(ending, { writeStatus: true, requeueAfterMs: 42, steps: ['first', 'second', 'third'] });
    assert.match(registry.render(), /im_runtime_step_duration_seconds_count\{step="second"\} 1/);
  });

  it('a loop between steps fails the reconciliation instead of spinning', async () => {
    const ping: Step = async function ping() {
      return switchTo(pong);
    };
    const pong: Step = async function pong() {
      return switchTo(ping);
    };
    await assert.rejects(runSteps(ping, machine(), state()), /did not settle after 32 steps: ping -> pong/);
  });

  it('a condition with status False fails the runtime; lastTransitionTime moves only when the status changes', () => {
    const rt = testRuntime('rt-unit');
    rt.metadata.generation = 3;
    updateStatePending(rt, 'Provisioned', 'Pending', 'Unknown', 'Shoot is pending');
    assert.equal(rt.status?.state, 'Pending');
    const first = rt.status?.conditions?.[0];
    assert.equal(first?.observedGeneration, 3);
    const stamp = first?.lastTransitionTime;
    first!.lastTransitionTime = '2000-01-01T00:00:00Z';
    updateStatePending(rt, 'Provisioned', 'Processing', 'Unknown', 'Shoot is pending for update');
    assert.equal(rt.status?.conditions?.[0].lastTransitionTime, '2000-01-01T00:00:00Z', 'same status: time kept');
    updateStatePending(rt, 'Provisioned', 'CreationErr', 'False', 'Shoot creation failed');
    assert.equal(rt.status?.state, 'Failed');
    assert.notEqual(rt.status?.conditions?.[0].lastTransitionTime, '2000-01-01T00:00:00Z');
    assert.ok(stamp);
    updateStateReady(rt, 'Configured', 'AdministratorsConfigured', 'done');
    assert.equal(rt.status?.state, 'Ready');
    updateStateDeletion(rt, 'Deprovisioned', 'GardenerShootDeleted', 'Unknown', 'deleting');
    assert.equal(rt.status?.state, 'Terminating');
    assert.equal(rt.status?.conditions?.length, 3);
  });

  it('reports the conditions that appeared or changed, for Events', () => {
    const rt = testRuntime('rt-unit');
    updateStatePending(rt, 'Provisioned', 'Pending', 'Unknown', 'Shoot is pending');
    updateStatePending(rt, 'KubeconfigReady', 'GardenerClusterCRCreated', 'Unknown', 'created');
    const before = structuredClone(rt.status);
    updateStatePending(rt, 'KubeconfigReady', 'GardenerClusterCRReady', 'True', 'ready');
    updateStatePending(rt, 'Provisioned', 'Pending', 'Unknown', 'Shoot is pending');
    assert.deepEqual(conditionChanges(before, rt.status).map((c) => `${c.type}/${c.after.reason}`), ['KubeconfigReady/GardenerClusterCRReady']);
  });

  it('a milestone goes on to the next step in the same pass and asks for the status write that step does not make', async () => {
    const s = state();
    updateStatePending(s.runtime, 'Provisioned', 'Pending', 'Unknown', 'Shoot creation in progress');
    const waiting: Step = async function waiting() {
      return waitForChange(10_000);
    };
    const succeeded: Step = async function succeeded(_m, st) {
      return ensurePendingCondition(st, 'Provisioned', 'ShootCreationCompleted', 'Shoot creation completed', waiting);
    };
    const ending = await runSteps(succeeded, machine(), s);
    assert.deepEqual(ending.steps, ['succeeded', 'waiting']);
    assert.equal(ending.writeStatus, false, 'the last step asked for no write');
    assert.equal(s.milestone, true, 'the milestone asks for the write');
    assert.equal(s.runtime.status?.conditions?.find((c) => c.type === 'Provisioned')?.reason, 'ShootCreationCompleted');

    // Already recorded: the next pass goes on without asking for a write.
    const again = state(s.runtime);
    const next = await runSteps(succeeded, machine(), again);
    assert.deepEqual(next.steps, ['succeeded', 'waiting']);
    assert.equal(again.milestone, undefined);
  });

  it('the controller writes a milestone whose next step ends without a write: the Shoot succeeded, the GardenerCluster is not Ready yet', async () => {
    const rt = testRuntime('rt-milestone');
    rt.metadata.finalizers = [RuntimeFinalizer];
    rt.metadata.generation = 1;
    rt.metadata.resourceVersion = '7';
    updateStatePending(rt, 'Provisioned', 'Pending', 'Unknown', 'Shoot creation in progress');
    const shoot = {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: { name: rt.spec.shoot.name, namespace: 'garden-kyma-dev', generation: 1, annotations: { [ShootRuntimeGenerationAnnotation]: '1' } },
      spec: {},
      status: { observedGeneration: 1, lastOperation: { type: 'Create', state: 'Succeeded', progress: 100, description: 'done', lastUpdateTime: '2026-11-29T10:00:00Z' } },
    } as unknown as ShootObject;
    // The GardenerCluster exists (made by an earlier pass) and its controller has not reported it Ready.
    const cluster = { apiVersion: 'infrastructuremanager.kyma-project.io/v1', kind: 'GardenerCluster', metadata: { name: 'rt-milestone', namespace: rt.metadata.namespace, generation: 1 }, spec: { shoot: { name: rt.spec.shoot.name } } } as unknown as GardenerClusterObject;
    const writes: { status?: RuntimeObject['status'] }[] = [];
    const events: string[] = [];
    const reconciler = new RuntimeReconciler({
      ...machine(),
      kcp: { patch: async (_kind: unknown, _key: unknown, _type: unknown, body: { status?: RuntimeObject['status'] }) => { writes.push(body); return { ...rt, status: body.status }; } },
      runtimeReader: { get: async () => structuredClone(rt), writes: { distrust: () => undefined } },
      shootReader: { get: async () => shoot },
      gardenerClusters: { get: async () => cluster },
      events: { event: (_o: unknown, _type: unknown, reason: string) => events.push(reason) },
      log: silentLogger,
    } as unknown as ConstructorParameters<typeof RuntimeReconciler>[0]);
    const result = await reconciler.reconcile({ namespace: rt.metadata.namespace, name: 'rt-milestone' }, new AbortController().signal);
    assert.equal(result.fallback, true, 'the pass ended waiting for the GardenerCluster (no write of its own)');
    assert.equal(writes.length, 1, 'the milestone was written');
    assert.equal(writes[0].status?.conditions?.find((c) => c.type === 'Provisioned')?.reason, 'ShootCreationCompleted');
    assert.deepEqual(events, ['ShootCreationCompleted']);
  });
});
