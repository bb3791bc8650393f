// The objects a Manifest's pass applied or is applying, which the watcher's router uses to find an
// event's Manifest before the inventory (written at the end of the first pass) names the object: a
// module's Deployment reports its status while the pass that created it still runs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Manifest, type ManifestObject } from '../../src/api/operator/index.js';
import type { Client } from '../../src/runtime/client/interface.js';
import { intercepting } from '../support/intercept.js';
import { DEPLOYMENT as DEPLOYMENT_KIND, type Env, exists, markDeploymentReady, MODULE_NS, NS, sampleModule, startEnv, waitFor } from './manifest-env.js';

const LINK = 'https://modules.example.test/sample/1.0.0/applied-objects.yaml';
const DEPLOYMENT = `apps/Deployment/${MODULE_NS}/sample-manager`;
const CONFIG = `/ConfigMap/${MODULE_NS}/sample-config`;

describe('the objects a Manifest applied or is applying', () => {
  let env: Env;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let reached!: () => void;
  const heldAtDeployment = new Promise<void>((r) => (reached = r));

  /** The client of runtime `held` holds the apply of its manager Deployment until `gate`. */
  const holdingDeployment = (kyma: string, inner: Client): Client =>
    kyma !== 'held'
      ? inner
      : intercepting(inner, 'apply', async (args, call) => {
          const [obj] = args as [{ kind: string }];
          if (obj.kind === 'Deployment') {
            reached();
            await gate;
          }
          return call();
        });

  before(async () => {
    env = await startEnv({ remoteClient: holdingDeployment });
    env.fetcher.set(LINK, sampleModule());
  });
  after(async () => {
    release();
    await env.stop();
  });

  it('names them for their Manifest while its first pass applies them, after it, and no longer once it is gone', async () => {
    const held = await env.runtime('held');
    const other = await env.runtime('other');
    await env.createManifest('held-sample', 'held', LINK);
    await env.createManifest('other-sample', 'other', LINK);
    await waitFor('the other manager Deployment', () => exists(other, DEPLOYMENT_KIND, 'sample-manager', MODULE_NS));
    await markDeploymentReady(other, MODULE_NS, 'sample-manager');
    const otherManifest = await env.waitState('other-sample', 'Ready');
    await heldAtDeployment;
    // Under way: no inventory yet, and its objects are named.
    const heldManifest = await env.manifest('held-sample');
    assert.ok(heldManifest);
    assert.equal(heldManifest.status?.synced, undefined, 'no inventory written yet');
    const names = (m: ManifestObject, object: string) => env.reconciler.names(m, object);
    assert.equal(names(heldManifest, DEPLOYMENT), true, 'the object being applied');
    assert.equal(names(heldManifest, CONFIG), true, 'another object of the pass');
    assert.equal(names(heldManifest, `apps/Deployment/${MODULE_NS}/not-in-the-module`), false, 'an object not in the module');
    assert.equal(names(otherManifest, DEPLOYMENT), true, 'the other Manifest applied its own copy');
    const unknown = { ...otherManifest, metadata: { ...otherManifest.metadata, name: 'unknown-sample' } };
    assert.equal(names(unknown, DEPLOYMENT), false, 'a Manifest this process never applied');
    const recreated = { ...heldManifest, metadata: { ...heldManifest.metadata, uid: 'another-uid' } };
    assert.equal(names(recreated, DEPLOYMENT), false, 'a Manifest of the same name with another uid');
    release();
    await waitFor('the held manager Deployment', () => exists(held, DEPLOYMENT_KIND, 'sample-manager', MODULE_NS));
    await markDeploymentReady(held, MODULE_NS, 'sample-manager');
    await env.waitState('held-sample', 'Ready');
    assert.equal(names(heldManifest, DEPLOYMENT), true, 'applied');
    assert.equal(names(recreated, DEPLOYMENT), false, 'applied, for its uid only');
    await env.kcp.delete(Manifest, { namespace: NS, name: 'held-sample' });
    await waitFor('the held Manifest gone', async () => (await env.manifest('held-sample')) === undefined);
    await waitFor('its objects forgotten', () => !names(heldManifest, DEPLOYMENT));
    assert.equal(names(otherManifest, DEPLOYMENT), true, 'the other Manifest keeps its own');
  });
});
