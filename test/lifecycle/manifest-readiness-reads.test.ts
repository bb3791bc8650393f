// What a Manifest's pass reads for the module's readiness. The pass that applies the objects takes
// the manager's state from the server's answers to the apply (no GET right after it), and creates
// the default CR before reading it while no pass has seen it yet; a readiness pass brought by
// status events reads what they named and takes the rest from the last read; a workload whose
// latest spec its controller has not observed is not Ready, whatever its conditions still say.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Manifest, ManifestConditionTypes, States } from '../../src/api/operator/index.js';
import { PendingObjects } from '../../src/lifecycle/watcher-events.js';
import { counterValue } from '../support/metrics.js';
import { Messages } from '../../src/lifecycle/manifest/constants.js';
import { deploymentState, statefulSetState } from '../../src/lifecycle/manifest/readiness.js';
import type { KubeObject } from '../../src/kube/object.js';
import type { Client } from '../../src/runtime/client/interface.js';
import { CRD, DEFAULT_CR, DEPLOYMENT, type Env, exists, markDeploymentReady, MODULE_NS, NS, SAMPLE, sampleModule, startEnv, waitFor } from './manifest-env.js';

const V1 = 'https://modules.example.test/sample/1.0.0/readiness-reads.yaml';
const V2 = 'https://modules.example.test/sample/2.0.0/readiness-reads.yaml';

const AVAILABLE = [
  { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
  { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
];

function deployment(generation: number, observedGeneration: number | undefined): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'm', generation }, spec: { replicas: 1 }, status: { ...(observedGeneration !== undefined ? { observedGeneration } : {}), readyReplicas: 1, conditions: AVAILABLE } };
}

function statefulSet(generation: number, observedGeneration: number | undefined): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's', generation }, spec: { replicas: 1 }, status: { ...(observedGeneration !== undefined ? { observedGeneration } : {}), readyReplicas: 1 } };
}

/** The module's CRD and namespace, and a Sample (3 replicas, no label of ours) someone created before the module was installed. */
async function userCreatedCR(rt: Client): Promise<void> {
  for (const o of sampleModule().filter((x) => x.kind === CRD.kind || x.kind === 'Namespace')) await rt.create(o);
  await waitFor('the Sample kind served', async () => {
    try {
      await rt.list(SAMPLE, { namespace: MODULE_NS });
      return true;
    } catch {
      return false;
    }
  });
  await rt.create({ ...DEFAULT_CR, spec: { replicas: 3 } });
}

const moduleCRCondition = (m: { status?: { conditions?: { type: string; status: string }[] } } | undefined) => m?.status?.conditions?.find((c) => c.type === ManifestConditionTypes.ModuleCR)?.status;

describe('the manager of a module whose latest spec is not observed yet', () => {
  it('is Processing until its controller observes the spec, then its conditions decide', () => {
    assert.equal(deploymentState(deployment(2, 1)).state, States.Processing);
    assert.equal(deploymentState(deployment(2, 1)).info, Messages.ManagerNotReady);
    assert.equal(deploymentState(deployment(2, 2)).state, States.Ready);
    assert.equal(deploymentState(deployment(2, undefined)).state, States.Ready, 'no observedGeneration: the conditions alone');
    assert.equal(statefulSetState(statefulSet(3, 2)).state, States.Processing);
    assert.equal(statefulSetState(statefulSet(3, 3)).state, States.Ready);
  });
});

describe('the reads of a pass that installs a module', () => {
  let env: Env;
  before(async () => {
    // Busy passes far apart: every pass here comes from the Manifest's creation or a change of it.
    env = await startEnv({ intervals: { busyMs: 60_000 } });
    env.fetcher.set(V1, sampleModule());
  });
  after(async () => {
    await env.stop();
  });

  it('the first pass reads neither the manager nor the default CR; a later pass reads the CR and creates nothing', async () => {
    const rt = await env.runtime('reads-1');
    await env.createManifest('reads-1-sample', 'reads-1', V1, { resource: DEFAULT_CR });
    const processing = await env.waitState('reads-1-sample', States.Processing);
    const counter = env.requests.get('reads-1');
    assert.ok(counter);
    assert.equal(env.reconciles('reads-1-sample'), 1, 'the counts below are of the first pass alone');
    assert.equal(counter.count('apply', 'Deployment'), 1);
    assert.equal(counter.count('get', 'Deployment'), 0, 'the manager state comes from the answer to its apply');
    assert.equal(counter.count('create', SAMPLE.kind), 1);
    assert.equal(counter.count('get', SAMPLE.kind), 0, 'the default CR is created without a read first');
    assert.equal(processing.status?.lastOperation?.operation, Messages.ManagerNotReady);
    assert.equal(moduleCRCondition(processing), 'True');
    assert.ok(await exists(rt, SAMPLE, 'default', MODULE_NS));

    // A second pass (a label of the Manifest changed): the CR was seen, so it is read, not created.
    // A third change starts a third pass, which the key's second pass has finished before.
    counter.reset();
    const wake = async (value: string, passes: number) => {
      await env.kcp.patch(Manifest, { namespace: NS, name: 'reads-1-sample' }, 'merge', { metadata: { labels: { 'test.example.com/wake': value } } });
      await waitFor(`pass ${passes}`, () => env.reconciles('reads-1-sample') >= passes);
    };
    await wake('once', 2);
    await wake('twice', 3);
    assert.ok(counter.count('get', SAMPLE.kind) >= 1, 'the second pass read the CR');
    assert.equal(counter.count('create', SAMPLE.kind), 0);
    assert.equal((await env.manifest('reads-1-sample'))?.status?.state, States.Processing);
  });

  it('a default CR already there on the first pass is read after the refused create and left as it is', async () => {
    const rt = await env.runtime('reads-2');
    await userCreatedCR(rt);

    await env.createManifest('reads-2-sample', 'reads-2', V1, { resource: DEFAULT_CR });
    const processing = await env.waitState('reads-2-sample', States.Processing);
    const counter = env.requests.get('reads-2');
    assert.ok(counter);
    assert.equal(env.reconciles('reads-2-sample'), 1);
    assert.equal(counter.count('create', SAMPLE.kind), 1, 'the create was tried');
    assert.equal(counter.count('get', SAMPLE.kind), 1, 'and the existing CR read after its AlreadyExists');
    assert.equal(moduleCRCondition(processing), 'True');
    const cr = await rt.get<KubeObject & { spec: { replicas: number } }>(SAMPLE, { namespace: MODULE_NS, name: 'default' });
    assert.equal(cr.spec.replicas, 3, 'the user\'s CR is not overwritten');
  });
});

describe('an upgrade that changes the manager', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    env.fetcher.set(V1, sampleModule());
    env.fetcher.set(V2, sampleModule({ version: '2.0.0' }));
  });
  after(async () => {
    await env.stop();
  });

  it('is not Ready on the old rollout\'s conditions: only once the new spec is observed', async () => {
    const rt = await env.runtime('reads-3');
    await env.createManifest('reads-3-sample', 'reads-3', V1);
    await waitFor('the manager Deployment', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    await env.waitState('reads-3-sample', States.Ready);

    // The new version changes the Deployment's image: its generation moves past what its status observed.
    await env.kcp.patch(Manifest, { namespace: NS, name: 'reads-3-sample' }, 'merge', { spec: { version: '2.0.0', install: { name: 'raw-manifest', source: { url: V2 } } } });
    const upgraded = await waitFor('the Deployment of the new version', async () => {
      const d = await rt.get<KubeObject & { spec: { template: { spec: { containers: { image: string }[] } } } }>(DEPLOYMENT, { namespace: MODULE_NS, name: 'sample-manager' });
      return /:2\.0\.0$/.test(d.spec.template.spec.containers[0].image) ? d : undefined;
    });
    assert.ok((upgraded.metadata.generation ?? 0) > ((upgraded.status as { observedGeneration?: number }).observedGeneration ?? 0));
    const processing = await env.waitState('reads-3-sample', States.Processing);
    assert.equal(processing.status?.lastOperation?.operation, Messages.ManagerNotReady);
    // Busy passes go on reading the Deployment; it stays Processing while nothing observes the new spec.
    await env.moreReconciles('reads-3-sample', 3);
    assert.equal((await env.manifest('reads-3-sample'))?.status?.state, States.Processing);

    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    await env.waitState('reads-3-sample', States.Ready);
  });
});

describe('a readiness pass brought by status events', () => {
  const HOUR = 3_600_000;
  const DEPLOYMENT_KEY = `apps/Deployment/${MODULE_NS}/sample-manager`;
  const CR_KEY = `sample.kyma-project.io/Sample/${MODULE_NS}/default`;
  const SERVICE_KEY = `/Service/${MODULE_NS}/sample-metrics`;
  /** Long enough for a test's write to land between an event's pass and its recheck on a busy machine. */
  const RECHECK_MS = 1_000;
  let env: Env;
  const keys = new EventEmitter();
  const readiness = new PendingObjects();
  before(async () => {
    // No busy pass within the test (an hour apart): only the events below bring passes. The module
    // operators do not report (an hour's delay either): the tests write the CR's status themselves.
    env = await startEnv({ intervals: { busyMs: HOUR }, driftCheckMs: HOUR, operators: { delayMs: HOUR }, watcher: { watcherEvents: keys, readinessChecks: readiness, eventRecheckMs: RECHECK_MS } });
    env.fetcher.set(V1, sampleModule());
  });
  after(async () => {
    await env.stop();
  });

  const skipped = (object: string): number => counterValue(env.manager.registry, 'lifecycle_mgr_manifest_readiness_reads_skipped_total', { object });

  /** What the router does with a status event of one of the module's objects: mark the Manifest, then enqueue it. */
  function statusEvent(manifest: string, objectKey: string): void {
    readiness.mark(`${NS}/${manifest}`, objectKey);
    keys.emit('key', `${NS}/${manifest}`);
  }

  /** A runtime whose webhook works and a Manifest with the default CR installing into it (Processing after its first pass). */
  async function installing(name: string): Promise<{ rt: Client; manifest: string }> {
    const manifest = `${name}-sample`;
    const rt = await env.runtime(name);
    await env.webhookHealthy(name);
    await env.createManifest(manifest, name, V1, { resource: DEFAULT_CR });
    await env.waitState(manifest, States.Processing);
    return { rt, manifest };
  }

  const rechecks = (): number => counterValue(env.manager.registry, 'lifecycle_mgr_manifest_event_rechecks_total', {});

  it('reads the object the event named and takes the other from the last read', async () => {
    const { rt, manifest } = await installing('reads-4');
    // The module's operator reports the CR Ready; no event says so yet.
    await rt.patch(SAMPLE, { namespace: MODULE_NS, name: 'default' }, 'merge', { status: { state: States.Ready } }, { subresource: 'status' });
    const counter = env.requests.get('reads-4');
    assert.ok(counter);
    counter.reset();
    const before = { manager: skipped('manager'), cr: skipped('module_cr') };

    // The manager becomes available and says so: the pass reads the Deployment, not the CR.
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    statusEvent(manifest, DEPLOYMENT_KEY);
    const waiting = await waitFor('the pass of the Deployment\'s event', async () => {
      const m = await env.manifest(manifest);
      return m?.status?.lastOperation?.operation === Messages.ModuleCRStateMissing ? m : undefined;
    });
    assert.equal(waiting.status?.state, States.Processing, 'the CR as the last read found it: no state yet');
    assert.equal(counter.count('get', 'Deployment'), 1);
    assert.equal(counter.count('get', SAMPLE.kind), 0);
    assert.equal(skipped('module_cr'), before.cr + 1);

    // Another event of the Deployment (nothing changed): its pass, and the recheck it asks for, take
    // the CR from the last read again.
    const asked = rechecks();
    statusEvent(manifest, DEPLOYMENT_KEY);
    await waitFor('the recheck of the unchanged Deployment', () => rechecks() > asked);
    await waitFor('the recheck\'s pass', () => skipped('module_cr') >= before.cr + 3);
    assert.equal(counter.count('get', SAMPLE.kind), 0, 'the CR was not read');
    assert.equal((await env.manifest(manifest))?.status?.state, States.Processing);

    // The CR's event: the pass reads the CR, takes the manager from the last read, and the module is Ready.
    const managerReads = counter.count('get', 'Deployment');
    statusEvent(manifest, CR_KEY);
    await env.waitState(manifest, States.Ready);
    assert.equal(counter.count('get', SAMPLE.kind), 1);
    assert.equal(counter.count('get', 'Deployment'), managerReads, 'the manager was not read again');
    assert.equal(skipped('manager'), before.manager + 1);
  });

  it('an event that came before its write was stored: the read at the version read before asks for one more look, though the pass wrote the status', async () => {
    const { rt, manifest } = await installing('reads-5');
    const asked = rechecks();

    // Both events in one pass: the manager's write is stored (the status changes), the CR's is not yet.
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    readiness.mark(`${NS}/${manifest}`, DEPLOYMENT_KEY);
    statusEvent(manifest, CR_KEY);
    await waitFor('the pass of both events', async () => (await env.manifest(manifest))?.status?.lastOperation?.operation === Messages.ModuleCRStateMissing);
    assert.ok(rechecks() > asked, 'a recheck of the CR was asked');

    // The CR's write lands (no event of its own here): only the recheck can see it within the hour.
    await rt.patch(SAMPLE, { namespace: MODULE_NS, name: 'default' }, 'merge', { status: { state: States.Ready } }, { subresource: 'status' });
    await env.waitState(manifest, States.Ready, 10_000);
  });

  it('an event of an object that did not change brings one recheck, and the recheck none', async () => {
    const { manifest } = await installing('reads-7');
    const asked = rechecks();
    const passes = env.reconciles(manifest);

    // The CR is read at the version its creation answered: the pass asks for a recheck.
    statusEvent(manifest, CR_KEY);
    await waitFor('the event pass asked for a recheck', () => rechecks() > asked);
    await waitFor('the recheck pass', () => env.reconciles(manifest) >= passes + 2);
    // Over two recheck intervals later: no recheck asked again, no pass since.
    const after = env.reconciles(manifest);
    await sleep(2.5 * RECHECK_MS);
    assert.equal(rechecks(), asked + 1, 'one recheck');
    assert.equal(env.reconciles(manifest), after, 'no pass after the recheck');
    // The controller went on working meanwhile: another Manifest installs.
    await env.runtime('reads-7b');
    await env.createManifest('reads-7b-sample', 'reads-7b', V1);
    await env.waitState('reads-7b-sample', States.Processing);
  });

  it('a default CR without the managed-by label (created before the module) is read on every readiness pass: its status writes bring no event', async () => {
    const name = 'reads-6';
    const manifest = `${name}-sample`;
    const rt = await env.runtime(name);
    await env.webhookHealthy(name);
    await userCreatedCR(rt);
    await env.createManifest(manifest, name, V1, { resource: DEFAULT_CR });
    await env.waitState(manifest, States.Processing);
    const counter = env.requests.get(name);
    assert.ok(counter);
    counter.reset();
    const before = skipped('module_cr');

    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    statusEvent(manifest, DEPLOYMENT_KEY);
    // The pass found the manager available (what it found of the CR depends on its operator).
    await waitFor('the pass of the Deployment\'s event', async () => (await env.manifest(manifest))?.status?.lastOperation?.operation !== Messages.ManagerNotReady);
    assert.equal(counter.count('get', SAMPLE.kind), 1, 'the CR was read');
    assert.equal(skipped('module_cr'), before);

    // A status event of the module's Service: the pass takes the manager from the last read (only
    // named objects are read), and still reads the CR.
    const managerSkips = skipped('manager');
    statusEvent(manifest, SERVICE_KEY);
    await waitFor('the pass of the Service\'s event', () => skipped('manager') > managerSkips);
    await waitFor('its CR read', () => counter.count('get', SAMPLE.kind) >= 2);
    assert.equal(skipped('module_cr'), before);
  });
});
