// A new Manifest's first pass adds the finalizers and goes on to install the module: no second
// trip through the work queue for the event of its own finalizer write. Finalizer changes by
// anyone else still bring a pass.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Finalizers, Kyma, type KymaObject, Manifest, type ManifestObject, States } from '../../src/api/operator/index.js';
import { finalizersChangedByOthers } from '../../src/lifecycle/manifest/index.js';
import { admits } from '../../src/runtime/predicates.js';
import { DEFAULT_CR, type Env, NS, sampleModule, startEnv, waitFor } from './manifest-env.js';

const LINK = 'https://modules.example.test/sample/1.0.0/first-pass.yaml';
const OURS: string[] = [Finalizers.Manifest, Finalizers.LabelRemoval, Finalizers.CustomResourceManager];

function withFinalizers(finalizers: string[] | undefined): ManifestObject {
  return { apiVersion: Manifest.apiVersion, kind: 'Manifest', metadata: { name: 'm', namespace: NS, generation: 1, ...(finalizers ? { finalizers } : {}) }, spec: {} } as unknown as ManifestObject;
}

function passes(before: string[] | undefined, after: string[] | undefined): boolean {
  return admits(finalizersChangedByOthers, { type: 'update', oldObject: withFinalizers(before), object: withFinalizers(after) });
}

describe('a Manifest installs in its first pass', () => {
  it('the predicate lets by only the addition of our own finalizers', () => {
    assert.equal(passes(undefined, OURS), false, 'ours added to none');
    assert.equal(passes(['other.example.com/hold'], ['other.example.com/hold', ...OURS]), false, 'ours added after another');
    assert.equal(passes(OURS.slice(0, 1), OURS), false, 'the rest of ours added');
    assert.equal(passes(undefined, ['other.example.com/hold']), true, 'another added');
    assert.equal(passes(OURS, OURS.slice(1)), true, 'one of ours removed');
    assert.equal(passes(OURS, [...OURS].reverse()), true, 'reordered');
    assert.equal(passes(OURS, OURS), false, 'unchanged');
  });

  let env: Env;
  before(async () => {
    // Busy passes far apart: a pass within this test comes from an event or from the first pass.
    env = await startEnv({ intervals: { busyMs: 60_000 } });
    env.fetcher.set(LINK, sampleModule());
  });
  after(async () => {
    await env.stop();
  });

  /** A runtime whose Kyma the controller has seen (its create event enqueues the Kyma's Manifests). */
  async function runtime(name: string) {
    const rt = await env.runtime(name);
    const kymas = env.manager.cache<KymaObject>(Kyma, { namespace: NS });
    await waitFor('the Kyma in the controller cache', () => kymas.get(`${NS}/${name}`) !== undefined);
    return rt;
  }

  it('finalizers, resources and status come from one pass; a finalizer removed by someone else is put back', async () => {
    const rt = await runtime('first-1');
    await env.createManifest('first-1-sample', 'first-1', LINK, { resource: DEFAULT_CR });

    const processing = await env.waitState('first-1-sample', States.Processing);
    assert.deepEqual([...(processing.metadata.finalizers ?? [])].sort(), [...OURS].sort());
    assert.equal(processing.status?.synced?.length, sampleModule().length);
    assert.ok(await rt.get({ apiVersion: 'apps/v1', kind: 'Deployment' }, { namespace: 'sample-system', name: 'sample-manager' }));

    // Another Manifest installed meanwhile: the controller went on working, and the event of the
    // first one's finalizer write brought no second pass of it.
    await runtime('first-2');
    await env.createManifest('first-2-sample', 'first-2', LINK);
    await env.waitState('first-2-sample', States.Processing);
    assert.equal(env.reconciles('first-1-sample'), 1, 'one pass added the finalizers, installed and wrote the status');
    assert.equal(env.reconciles('first-2-sample'), 1);

    // Someone takes one of our finalizers off: that event brings a pass, which adds it again.
    await env.kcp.update<ManifestObject>({ ...processing, metadata: { ...processing.metadata, finalizers: processing.metadata.finalizers?.filter((f) => f !== OURS[0]) } });
    const restored = await waitFor('the finalizer back', async () => {
      const m = await env.manifest('first-1-sample');
      return m?.metadata.finalizers?.includes(OURS[0]) ? m : undefined;
    });
    assert.equal(restored.status?.state, States.Processing);
    // And the event of that re-addition brings no third pass (another Manifest shows the controller at work).
    await runtime('first-3');
    await env.createManifest('first-3-sample', 'first-3', LINK);
    await env.waitState('first-3-sample', States.Processing);
    assert.equal(env.reconciles('first-1-sample'), 2);
  });
});

describe('a first pass whose finalizer write conflicts', () => {
  let env: Env;
  let conflicts = 0;
  /** The Manifest whose first finalizer write is made to conflict. */
  const RACED = 'raced-sample';
  let raced = false;
  before(async () => {
    env = await startEnv({
      // Busy passes far apart: after the conflict only the controller's own requeue can bring the next pass.
      intervals: { busyMs: 60_000 },
      controllerKcp: (kcp) =>
        new Proxy(kcp, {
          get(target, prop, receiver) {
            if (prop !== 'update') return Reflect.get(target, prop, receiver) as unknown;
            return async <T extends ManifestObject>(obj: T, opts?: Parameters<typeof target.update>[1]): Promise<T> => {
              if (obj.kind === 'Manifest' && obj.metadata.name === RACED && !raced) {
                raced = true;
                // Someone else writes the status first: the controller's copy is now stale, and the
                // event of that write is one its predicate drops (status only).
                await target.patch(Manifest, { namespace: NS, name: RACED }, 'merge', { status: { state: States.Processing, lastOperation: { operation: 'written by another client', lastUpdateTime: new Date().toISOString() } } }, { subresource: 'status' });
              }
              try {
                return await target.update(obj, opts);
              } catch (e) {
                if ((e as { code?: number }).code === 409) conflicts++;
                throw e;
              }
            };
          },
        }),
    });
    env.fetcher.set(LINK, sampleModule());
  });
  after(async () => {
    await env.stop();
  });

  it('is tried again by the controller itself and then installs', async () => {
    await env.runtime('raced');
    const kymas = env.manager.cache<KymaObject>(Kyma, { namespace: NS });
    await waitFor('the Kyma in the controller cache', () => kymas.get(`${NS}/raced`) !== undefined);
    await env.createManifest(RACED, 'raced', LINK, { resource: DEFAULT_CR });

    // The other client's write says Processing too: what shows the install is the synced list.
    const processing = await waitFor('the module installed', async () => {
      const m = await env.manifest(RACED);
      return m?.status?.synced?.length ? m : undefined;
    });
    assert.equal(processing.status?.state, States.Processing);
    assert.equal(conflicts, 1, 'the first finalizer write met a newer version');
    assert.deepEqual([...(processing.metadata.finalizers ?? [])].sort(), [...OURS].sort());
    assert.equal(processing.status?.synced?.length, sampleModule().length);
    assert.ok(env.reconciles(RACED) >= 2, 'a pass after the conflicting one');
  });
});
