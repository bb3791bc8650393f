// What the Event recorder keeps of the objects it reports on: their reference, not the objects. A
// series is kept for minutes (up to maxSeries of them); it used to hold every reported object whole.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Client } from '../../src/runtime/client/interface.js';
import { EventRecorder } from '../../src/runtime/events.js';
import type { KubeObject } from '../../src/kube/object.js';
import { collectGarbage } from '../support/gc.js';

/** A client that records the Events created and the series patches. */
function recordingClient() {
  const created: KubeObject[] = [];
  const patches: unknown[] = [];
  const client = {
    create: (obj: KubeObject) => {
      created.push(obj);
      return Promise.resolve({ ...obj, metadata: { ...obj.metadata } });
    },
    patch: (_kind: unknown, _key: unknown, _type: unknown, patch: unknown) => {
      patches.push(patch);
      return Promise.resolve({});
    },
  } as unknown as Client;
  return { client, created, patches };
}

/** A large object as a reconciler holds it; only a WeakRef leaves this function. */
function report(recorder: EventRecorder): WeakRef<KubeObject> {
  const manifest: KubeObject = {
    apiVersion: 'operator.kyma-project.io/v1beta2',
    kind: 'Manifest',
    metadata: { name: 'm1', namespace: 'kcp-system', uid: 'uid-1', resourceVersion: '7' },
    spec: { big: 'x'.repeat(100_000) },
  };
  recorder.event(manifest, 'Normal', 'ResourcesApplied', 'applied 13 resources');
  return new WeakRef(manifest);
}

describe('event recorder retention', () => {
  it('keeps a reference to the reported object, not the object, while its series lives', async () => {
    const { client, created, patches } = recordingClient();
    const recorder = new EventRecorder(client, { reportingController: 'test', reportingInstance: 'r1' });
    const first = report(recorder);
    const second = report(recorder);
    await recorder.flush();
    await collectGarbage();
    assert.equal(first.deref(), undefined, 'the first reported object is still reachable');
    assert.equal(second.deref(), undefined, 'the repeated object is still reachable');
    // The recorder worked: one Event with the reference, the repeat a series patch.
    assert.equal(created.length, 1);
    assert.deepEqual(created[0].regarding, { apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Manifest', name: 'm1', namespace: 'kcp-system', uid: 'uid-1', resourceVersion: '7' });
    assert.equal(patches.length + (created[0].series ? 1 : 0), 1, 'the repeat joined the series');
  });
});
