// The Kyma controller reads the Kyma it reconciles from its informer, as upstream's cached client
// does, and from the API server only while its own write of that Kyma has not reached the cache.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma } from '../../src/api/operator/index.js';
import { type CountingClient, countingClient } from '../support/counting-client.js';
import { counterValue } from '../support/metrics.js';
import { NS, startKymaEnv, waitFor, type KymaEnv } from './kyma-env.js';

const RUNTIME_CHECK_REASONS = ['watcher_off', 'first', 'ca_changed', 'unhealthy', 'changed', 'catalog_changed', 'watchers_changed', 'shard_gained', 'interval'];

describe('Kyma controller: cached reads of the Kyma', () => {
  let env: KymaEnv;
  let kcp: CountingClient | undefined;

  before(async () => {
    env = await startKymaEnv({ wrapKcp: (c) => (kcp = countingClient(c)).client });
    await env.publish('cached', ['1.0.0'], { channels: { regular: '1.0.0' } });
  });
  after(() => env.stop());

  const fullChecks = () => RUNTIME_CHECK_REASONS.reduce((sum, reason) => sum + counterValue(env.lm.manager.registry, 'lifecycle_mgr_full_runtime_checks_total', { reason }), 0);
  const kymaGets = () => kcp?.count('get', 'Kyma') ?? 0;

  it('full runtime checks of a Ready Kyma, brought by changes of it, read it from the cache', async () => {
    const rt = await env.runtime('cached-reads', { modules: [{ name: 'cached' }] });
    await waitFor('the Kyma Ready', async () => (await env.kyma(rt.kymaName)).status?.state === 'Ready');
    const checks = fullChecks();
    const gets = kymaGets();
    // Label changes by someone else: each brings a full check (or, with the watcher off, every pass is one).
    for (let i = 1; i <= 4; i++) {
      const seen = fullChecks();
      await env.kcp.patch(Kyma, { namespace: NS, name: rt.kymaName }, 'merge', { metadata: { labels: { 'example.test/poke': String(i) } } });
      await waitFor(`a full check after change ${i}`, () => fullChecks() > seen);
    }
    assert.ok(fullChecks() - checks >= 4, `full checks: ${fullChecks() - checks}`);
    // Every full check used to GET the Kyma; nothing this controller wrote is on its way now, so none does.
    assert.ok(kymaGets() - gets <= 1, `Kyma GETs during ${fullChecks() - checks} full checks: ${kymaGets() - gets} (patches ${kcp?.count('patch', 'Kyma')}, updates ${kcp?.count('update', 'Kyma')}, applies ${kcp?.count('apply', 'Kyma')})`);
    assert.equal((await env.kyma(rt.kymaName)).status?.state, 'Ready');
  });
});
