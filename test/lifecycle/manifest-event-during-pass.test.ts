// A status event that comes while a Manifest's first pass runs is routed by the Manifest as the
// cache has it then, without a state: behind newer Manifests' first passes. Once the pass is done
// the event is about a module under way, so the pass it asks for goes first. One worker; the
// Manifest's first status write is held until the other Manifests and the event are queued.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { Manifest } from '../../src/api/operator/index.js';
import { PendingObjects } from '../../src/lifecycle/watcher-events.js';
import type { HttpClient } from '../../src/runtime/client/index.js';
import { intercepting } from '../support/intercept.js';
import { type Env, MODULE_NS, NS, sampleModule, startEnv, waitFor } from './manifest-env.js';

const LINK = 'https://modules.example.test/sample/1.0.0/during-pass.yaml';
const HOUR = 3_600_000;
const HELD = 'during-held-sample';

/** A KCP client whose first status write of the Manifest HELD waits for `gate`. */
function holdingFirstStatusWrite(inner: HttpClient, gate: Promise<void>, reached: () => void): HttpClient {
  let held = false;
  return intercepting(inner, 'patch', async (args, call) => {
    const [kind, key, , , opts] = args as [{ kind: string }, { name: string }, unknown, unknown, { subresource?: string } | undefined];
    if (!held && kind.kind === Manifest.kind && key.name === HELD && opts?.subresource === 'status') {
      held = true;
      reached();
      await gate;
    }
    return call();
  });
}

describe('a status event that comes during a Manifest\'s first pass', () => {
  let env: Env;
  const keys = new EventEmitter();
  const readiness = new PendingObjects();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let reached!: () => void;
  const heldAtStatus = new Promise<void>((r) => (reached = r));

  before(async () => {
    env = await startEnv({ workers: 1, intervals: { busyMs: HOUR }, driftCheckMs: HOUR, watcher: { watcherEvents: keys, readinessChecks: readiness }, controllerKcp: (kcp) => holdingFirstStatusWrite(kcp, gate, reached) });
    env.fetcher.set(LINK, sampleModule());
  });
  after(async () => {
    release();
    await env.stop();
  });

  it('brings its pass ahead of the first passes queued meanwhile', async () => {
    await env.runtime('during-held');
    const controller = env.manager.getControllers().find((c) => c.name === 'manifest');
    assert.ok(controller);
    const order: string[] = [];
    controller.onReconcileStart = (key) => order.push(key.slice(NS.length + 1));
    await env.createManifest(HELD, 'during-held', LINK);
    await heldAtStatus;
    // Newer Manifests queue up behind the held pass.
    for (let i = 0; i < 3; i++) {
      await env.runtime(`during-new-${i}`);
      await env.createManifest(`during-new-${i}-sample`, `during-new-${i}`, LINK);
    }
    await waitFor('the newer Manifests queued', () => controller.queue.length >= 3);
    // The status event of its manager Deployment, routed as the router does for a Manifest without a state.
    readiness.mark(`${NS}/${HELD}`, `apps/Deployment/${MODULE_NS}/sample-manager`);
    keys.emit('key', `${NS}/${HELD}`);
    const before = order.length;
    release();
    await waitFor('the held Manifest and the newer ones looked at again', () => order.slice(before).includes(HELD) && [0, 1, 2].every((i) => order.includes(`during-new-${i}-sample`)), 10_000);
    const next = order.slice(before).filter((k) => k === HELD || k.startsWith('during-new-'));
    assert.equal(next[0], HELD, `passes after the held one: ${next.join(', ')}`);
  });
});
