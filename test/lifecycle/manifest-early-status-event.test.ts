// An installing Manifest and the status event of its manager Deployment. The runtime's API server
// calls the watcher's webhook before it stores the write, so the pass the event brings can read the
// Deployment as it was. While events flow, an installing Manifest's busy pass is a fallback that a
// fleet's long queue may hold back for minutes, so the pass that found nothing looks once more a
// moment later, as a Ready Manifest's does.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { States } from '../../src/api/operator/index.js';
import { PendingObjects } from '../../src/lifecycle/watcher-events.js';
import { counterValue } from '../support/metrics.js';
import { DEPLOYMENT, type Env, exists, markDeploymentReady, MODULE_NS, NS, sampleModule, startEnv, waitFor } from './manifest-env.js';

const LINK = 'https://modules.example.test/sample/1.0.0/early-status.yaml';
const HOUR = 3_600_000;
const DEPLOYMENT_KEY = `apps/Deployment/${MODULE_NS}/sample-manager`;

describe('an installing Manifest answers an early status event', () => {
  let env: Env;
  const keys = new EventEmitter();
  const readiness = new PendingObjects();
  before(async () => {
    // No busy pass within the test (an hour apart): only events and their rechecks bring passes.
    env = await startEnv({ intervals: { busyMs: HOUR }, driftCheckMs: HOUR, watcher: { watcherEvents: keys, readinessChecks: readiness, eventRecheckMs: 300 } });
    env.fetcher.set(LINK, sampleModule());
  });
  after(async () => {
    await env.stop();
  });

  const rechecksAsked = (): number => counterValue(env.manager.registry, 'lifecycle_mgr_manifest_event_rechecks_total', {});

  /** What the router does with a status event of the Deployment: mark the Manifest, then enqueue it. */
  function statusEvent(manifest: string): void {
    readiness.mark(`${NS}/${manifest}`, DEPLOYMENT_KEY);
    keys.emit('key', `${NS}/${manifest}`);
  }

  it('the pass that found the Deployment as it was looks once more, and sees it available', async () => {
    const name = 'early-1';
    const manifest = `${name}-sample`;
    const rt = await env.runtime(name);
    // The runtime's webhook works (as the Kyma controller reports it): the busy pass is a fallback.
    await env.webhookHealthy(name);
    await env.createManifest(manifest, name, LINK);
    const installing = await env.waitState(manifest, States.Processing);
    assert.match(installing.status?.lastOperation?.operation ?? '', /deployment is not ready/);
    assert.ok(await exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));

    // The event comes before its write: the pass it brings finds the Deployment not yet available.
    const asked = rechecksAsked();
    const passes = env.reconciles(manifest);
    statusEvent(manifest);
    await waitFor('the event pass asked for a recheck', () => rechecksAsked() > asked);
    assert.ok(env.reconciles(manifest) > passes, 'the event brought a pass');
    assert.equal((await env.manifest(manifest))?.status?.state, States.Processing);

    // The write lands (no event of its own here): only the recheck can see it within the hour.
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    await env.waitState(manifest, States.Ready, 10_000);
    assert.equal(rechecksAsked(), asked + 1, 'one recheck, and the recheck asked for none');
  });

  it('a status event of an object that is not the Manifest\'s own asks for no recheck', async () => {
    const name = 'early-2';
    const manifest = `${name}-sample`;
    await env.runtime(name);
    await env.createManifest(manifest, name, LINK);
    await env.waitState(manifest, States.Processing);
    const asked = rechecksAsked();
    const passes = env.reconciles(manifest);
    readiness.mark(`${NS}/${manifest}`, `apps/Deployment/${MODULE_NS}/someone-elses`);
    keys.emit('key', `${NS}/${manifest}`);
    await waitFor('the pass for the foreign object started (it took the marks)', () => env.reconciles(manifest) > passes);
    // Then an event of its own Deployment: its pass comes after the first one ended, and asks for
    // one recheck. Had the first asked too, there would be two.
    statusEvent(manifest);
    await waitFor('the pass for its own Deployment asked for a recheck', () => rechecksAsked() > asked);
    await waitFor('the recheck pass', () => env.reconciles(manifest) >= passes + 3);
    assert.equal(rechecksAsked(), asked + 1);
    assert.equal((await env.manifest(manifest))?.status?.state, States.Processing);
  });
});
