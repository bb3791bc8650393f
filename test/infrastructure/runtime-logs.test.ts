// What the Runtime controller logs, and at which level: a failure at warn with the runtime and the
// reason, once per failure; the way to Ready at debug, Ready itself at info.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RecordingLogger } from '../support/log.js';
import { type Harness, NAMESPACE, startHarness, testRuntime, waitForRuntime } from './runtime-harness.js';

describe('runtime logs', () => {
  let h: Harness;
  const log = new RecordingLogger();
  before(async () => {
    h = await startHarness({ logger: log });
  });
  after(async () => {
    await h.stop();
  });

  it('an invalid Runtime is a warning naming it and its issues, logged once; Ready again is info', async () => {
    const runtime = `${NAMESPACE}/rt-logs`;
    await h.land.kcp.create(testRuntime('rt-logs', (rt) => delete rt.metadata.labels?.['kyma-project.io/subaccount-id']));
    await waitForRuntime(h, 'rt-logs', 'Failed');
    // Looked at again without a change of the Runtime: no second warning.
    await h.edit('rt-logs', (rt) => (rt.metadata.annotations = { ...rt.metadata.annotations, touched: 'yes' }));
    await h.edit('rt-logs', (rt) => (rt.metadata.labels = { ...rt.metadata.labels, 'kyma-project.io/subaccount-id': 'sa-1' }));
    await waitForRuntime(h, 'rt-logs', 'Ready');

    const invalid = log.matching('runtime is invalid', { runtime });
    assert.deepEqual(invalid.map((r) => r.level).filter((l) => l === 'warn'), ['warn'], 'warned once');
    assert.match(String((invalid[0]?.fields.issues as string[])[0]), /metadata\.labels\[kyma-project\.io\/subaccount-id\]/);

    const changes = log.matching('Runtime state changed', { runtime }).map((r) => ({ level: r.level, to: r.fields.to, reason: r.fields.reason }));
    assert.deepEqual(changes.find((c) => c.to === 'Failed'), { level: 'warn', to: 'Failed', reason: 'ConversionErr' });
    assert.deepEqual(changes.find((c) => c.to === 'Ready'), { level: 'info', to: 'Ready', reason: undefined });
    assert.ok(changes.filter((c) => c.to === 'Pending').every((c) => c.level === 'debug'), 'Pending is routine');
  });
});
