import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyedLoop, type KeyedLoopOptions, type WorkResult } from '../../src/landscape/keyed-loop.js';

/** A loop whose work on each key waits until the test lets it finish, recording the order of work. */
function gatedLoop(opts: KeyedLoopOptions) {
  const order: string[] = [];
  const pending: { key: string; finish: (r: WorkResult) => void }[] = [];
  const started: (() => void)[] = [];
  const loop = new KeyedLoop(
    (key) =>
      new Promise<WorkResult>((resolve) => {
        order.push(key);
        pending.push({ key, finish: resolve });
        for (const s of started.splice(0)) s();
      }),
    { concurrency: 1, ...opts },
  );
  /** Waits until some work has started and not finished yet. */
  const running = async (): Promise<string> => {
    while (pending.length === 0) await new Promise<void>((r) => started.push(r));
    return pending[0].key;
  };
  /** Lets the running work finish with `result`, then waits for the next work to start (if any). */
  const finish = async (result?: WorkResult): Promise<void> => {
    const p = pending.shift();
    assert.ok(p, 'no work is running');
    p.finish(result);
    await new Promise((r) => setImmediate(r));
  };
  return { loop, order, running, finish };
}

async function drain(l: ReturnType<typeof gatedLoop>, steps: number): Promise<void> {
  for (let i = 0; i < steps; i++) {
    await l.running();
    await l.finish();
  }
}

test('keys are worked on in the order they were queued; a key queued while running goes to the back', async () => {
  const l = gatedLoop({});
  for (const k of ['a', 'b', 'c']) l.loop.enqueue(k);
  assert.equal(await l.running(), 'a');
  l.loop.enqueue('a'); // again, while it runs
  await drain(l, 4);
  assert.deepEqual(l.order, ['a', 'b', 'c', 'a']);
  await l.loop.stop();
});

test('oldestFirst: a key that stays busy goes before keys that came after it', async () => {
  const l = gatedLoop({ oldestFirst: true });
  for (const k of ['a', 'b', 'c']) l.loop.enqueue(k);
  assert.equal(await l.running(), 'a');
  l.loop.enqueue('a');
  await drain(l, 4);
  assert.deepEqual(l.order, ['a', 'a', 'b', 'c']);
  await l.loop.stop();
});

test('oldestFirst: a key waiting for its wake-up keeps its age; an idle key comes back young', async () => {
  const l = gatedLoop({ oldestFirst: true });
  l.loop.enqueue('a');
  l.loop.enqueue('idle');
  assert.equal(await l.running(), 'a');
  await l.finish(15); // a asks to be looked at again in 15 ms: still busy
  assert.equal(await l.running(), 'idle');
  await l.finish(); // nothing pending: idle forgets its age
  l.loop.enqueue('b');
  assert.equal(await l.running(), 'b');
  l.loop.enqueue('c');
  l.loop.enqueue('idle'); // comes back after c
  await new Promise((r) => setTimeout(r, 40)); // a's wake-up comes while b runs: a keeps its age and goes before c and idle
  await drain(l, 4);
  assert.deepEqual(l.order, ['a', 'idle', 'b', 'a', 'c', 'idle']);
  await l.loop.stop();
});

test('oldestFirst takes keys by age across many keys (the heap keeps its order)', async () => {
  const l = gatedLoop({ oldestFirst: true });
  l.loop.enqueue('k0');
  assert.equal(await l.running(), 'k0');
  const keys = Array.from({ length: 50 }, (_, i) => `k${i + 1}`);
  for (const k of keys) l.loop.enqueue(k);
  await l.finish();
  // Every queued key runs in age order; a key re-queued while running keeps its age and goes first.
  const seen: string[] = [];
  for (let i = 0; i < 51; i++) {
    const k = await l.running();
    seen.push(k);
    if (i === 10) l.loop.enqueue(k); // dirty: it runs again at once, before the younger keys
    await l.finish();
  }
  assert.deepEqual(seen.slice(0, 12), [...keys.slice(0, 11), keys[10]]);
  assert.deepEqual(seen.slice(12), keys.slice(11));
  await l.loop.stop();
});

test('oldestFirst: a key forgotten while it waits for its wake-up comes back young', async () => {
  const l = gatedLoop({ oldestFirst: true });
  l.loop.enqueue('a');
  assert.equal(await l.running(), 'a');
  await l.finish(60_000); // a would be looked at again in a minute: it stays busy, and old
  l.loop.forget('a'); // its object went: the wake-up and the age go with it
  l.loop.enqueue('b');
  assert.equal(await l.running(), 'b');
  l.loop.enqueue('c');
  l.loop.enqueue('a'); // a new object of the same name: younger than c
  await drain(l, 3);
  assert.deepEqual(l.order, ['a', 'b', 'c', 'a']);
  await l.loop.stop();
});
