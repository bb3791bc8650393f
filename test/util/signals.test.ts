// linkedSignal: aborts with the first source, and leaves nothing on its sources once disposed (the
// leak of AbortSignal.any on long-lived signals it replaces).
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { linkedSignal } from '../../src/util/signals.js';

describe('linkedSignal', () => {
  it('aborts when any source aborts, with that source\'s reason, and then lets go of the others', () => {
    const lifetime = new AbortController();
    const request = new AbortController();
    const linked = linkedSignal(lifetime.signal, request.signal);
    assert.equal(linked.signal.aborted, false);
    assert.equal(getEventListeners(lifetime.signal, 'abort').length, 1);
    request.abort(new Error('request cancelled'));
    assert.equal(linked.signal.aborted, true);
    assert.equal((linked.signal.reason as Error).message, 'request cancelled');
    assert.equal(getEventListeners(lifetime.signal, 'abort').length, 0);
  });

  it('leaves no listener on its sources once disposed, however many were linked', () => {
    const lifetime = new AbortController();
    for (let i = 0; i < 1000; i++) {
      const linked = linkedSignal(lifetime.signal, new AbortController().signal);
      linked.dispose();
      linked.dispose();
    }
    assert.equal(getEventListeners(lifetime.signal, 'abort').length, 0);
    // A disposed link no longer follows its sources; a live one does.
    const disposed = linkedSignal(lifetime.signal, undefined, new AbortController().signal);
    disposed.dispose();
    const live = linkedSignal(lifetime.signal, new AbortController().signal);
    lifetime.abort('stopped');
    assert.equal(disposed.signal.aborted, false);
    assert.equal(live.signal.aborted, true);
    assert.equal(live.signal.reason, 'stopped');
  });

  it('links many requests to one signal at once without Node\'s listener-leak warning, and leaves none behind', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.name);
    };
    process.on('warning', onWarning);
    try {
      const reconcile = new AbortController();
      const links = Array.from({ length: 50 }, () => linkedSignal(reconcile.signal, new AbortController().signal));
      assert.equal(getEventListeners(reconcile.signal, 'abort').length, 50);
      await new Promise((r) => setImmediate(r)); // warnings are emitted on a later tick
      for (const l of links) l.dispose();
      assert.equal(getEventListeners(reconcile.signal, 'abort').length, 0);
      assert.deepEqual(warnings.filter((n) => n === 'MaxListenersExceededWarning'), []);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('is aborted at once when a source already is, and is the source itself when there is one', () => {
    const done = new AbortController();
    done.abort('gone');
    const linked = linkedSignal(new AbortController().signal, done.signal);
    assert.equal(linked.signal.aborted, true);
    assert.equal(linked.signal.reason, 'gone');
    const only = new AbortController().signal;
    assert.equal(linkedSignal(only, undefined).signal, only);
  });
});
