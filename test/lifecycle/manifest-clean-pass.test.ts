// A Ready Manifest's fallback pass with nothing to check (its runtime's webhook reports every
// change) is clean without rendering the module's objects again, while its artifact (by digest)
// and its generation are the ones last rendered; an artifact fetched again with other content
// under the same link (a tag published anew) is rendered and applied at the pass that fetched it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { States } from '../../src/api/operator/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import type { Client } from '../../src/runtime/client/interface.js';
import { counterValue } from '../support/metrics.js';
import { CONFIGMAP, DEPLOYMENT, type Env, exists, markDeploymentReady, MODULE_NS, sampleModule, startEnv, waitFor } from './manifest-env.js';

const LINK = 'https://modules.example.test/sample/latest/clean-pass.yaml';
const HOUR = 3_600_000;
const KYMA = 'clean-1';
const NAME = `${KYMA}-sample`;

describe("a Ready Manifest's clean passes", () => {
  let env: Env;
  let rt: Client;
  /** Reads of the fetched objects (rendering iterates them), over every fetch. */
  let objectReads = 0;
  const counted = (objects: KubeObject[]): KubeObject[] =>
    new Proxy(objects, {
      get(target, prop, receiver) {
        objectReads++;
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
  const cleanPasses = () => counterValue(env.manager.registry, 'lifecycle_mgr_manifest_clean_passes_total', {});

  before(async () => {
    // Fallback passes every 200 ms (jittered); the artifact is fetched again after 300 ms; drift
    // checks by time are an hour apart.
    env = await startEnv({ driftCheckMs: HOUR, refetchAfterMs: 300, intervals: { successMs: 200 } });
    env.fetcher.set(LINK, sampleModule());
    const fetch = env.fetcher.fetchManifest.bind(env.fetcher);
    env.fetcher.fetchManifest = async (link) => {
      const fetched = await fetch(link);
      return { ...fetched, objects: counted(fetched.objects) };
    };
    rt = await env.runtime(KYMA);
    await env.webhookHealthy(KYMA);
    await env.createManifest(NAME, KYMA, LINK);
    await waitFor('the manager Deployment', () => exists(rt, DEPLOYMENT, 'sample-manager', MODULE_NS));
    await markDeploymentReady(rt, MODULE_NS, 'sample-manager');
    await env.waitState(NAME, States.Ready);
  });
  after(async () => {
    await env.stop();
  });

  it('render nothing and send nothing to the runtime, the artifact fetched again with the same content', async () => {
    await waitFor('a clean pass', () => cleanPasses() > 0);
    const requests = env.requests.get(KYMA);
    assert.ok(requests);
    requests.reset();
    const before = { clean: cleanPasses(), reads: objectReads, fetches: env.fetcher.calls, passes: env.reconciles(NAME) };
    await waitFor('three more clean passes and a fetch', () => cleanPasses() >= before.clean + 3 && env.fetcher.calls > before.fetches);
    assert.ok(env.reconciles(NAME) >= before.passes + 3, 'the Manifest passed');
    assert.equal(objectReads, before.reads, 'no pass rendered the objects');
    assert.equal(requests.count(), 0, 'no request to the runtime');
    assert.equal((await env.manifest(NAME))?.status?.state, States.Ready);
  });

  it('render and apply an artifact with other content under the same link at the pass that fetched it', async () => {
    const generation = (await env.manifest(NAME))?.metadata.generation;
    const reads = objectReads;
    env.fetcher.set(LINK, sampleModule({ version: '1.1.0' }));
    await waitFor('the new version of the ConfigMap in the runtime', async () => {
      const cm = await rt.get<KubeObject & { data?: Record<string, string> }>(CONFIGMAP, { namespace: MODULE_NS, name: 'sample-config' });
      return cm.data?.version === '1.1.0';
    }, 10_000);
    assert.ok(objectReads > reads, 'rendered');
    assert.equal((await env.manifest(NAME))?.metadata.generation, generation, 'no change of the Manifest brought it');
  });
});
