// The work queue: de-duplication, re-processing of keys added while in flight, per-key backoff,
// the token bucket, delayed adds, bounded concurrency, draining shutdown, metrics hooks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry, workQueueMetrics } from '../../src/runtime/metrics.js';
import { ExponentialBackoffLimiter, MaxOfLimiter, TokenBucketLimiter, WorkQueue } from '../../src/runtime/workqueue.js';
import { sleep } from '../../src/util/sleep.js';
import { FakeClock } from '../support/fake-clock.js';
import { waitFor } from '../support/wait.js';

/** Waits until `ms` have passed since `since` (performance.now()): a timer alone may fire early against it. */
async function waitSince(since: number, ms: number): Promise<void> {
  while (performance.now() - since < ms) await sleep(5);
}

/** Takes `n` keys one after another, each done at once (`then` runs after each, e.g. to add more); returns them in order. */
async function takeEach(q: WorkQueue, n: number, then?: (key: string) => void): Promise<string[]> {
  const order: string[] = [];
  for (let i = 0; i < n; i++) {
    const key = (await q.get()) ?? '';
    order.push(key);
    q.done(key);
    then?.(key);
  }
  return order;
}

describe('work queue', () => {
  it('de-duplicates keys that are queued several times', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('a');
    assert.equal(q.length, 2);
    assert.equal(await q.get(), 'a');
    assert.equal(await q.get(), 'b');
    q.done('a');
    q.done('b');
    assert.equal(q.length, 0);
    await q.shutDown();
  });

  it('hands out keys added at low priority only when no other key is ready; add() moves one up', async () => {
    const q = new WorkQueue();
    for (const k of ['l1', 'l2', 'l3']) q.addLow(k);
    q.add('n1');
    q.addLow('l1'); // already waiting: keeps its place
    q.add('l2'); // waiting at low priority: moves up, behind n1
    assert.equal(q.length, 4);
    const order = await takeEach(q, 4, (key) => {
      if (key === 'n1') q.add('n2'); // arrives while the low keys wait: served before them
    });
    order.push((await q.get()) ?? '');
    assert.deepEqual(order, ['n1', 'l2', 'n2', 'l1', 'l3']);
    assert.equal(q.length, 0);
  });

  it('a low key moved up by add() and added low again later waits behind the low keys added in between', async () => {
    const q = new WorkQueue();
    q.addLow('k');
    q.add('k'); // moved up: its entry in the low lane is stale from now on
    assert.equal(await q.get(), 'k');
    q.done('k');
    q.addLow('l1');
    q.addLow('l2');
    q.addLow('k'); // behind l1 and l2, not in its old place ahead of them
    const order = await takeEach(q, 3);
    assert.deepEqual(order, ['l1', 'l2', 'k']);
    assert.equal(q.length, 0);
    await q.shutDown();
  });

  it('a delayed add at low priority joins the low keys when due; a normal delayed add of the same key still comes', async () => {
    const q = new WorkQueue();
    q.addAfter('poll', 5, { low: true });
    q.addAfter('poll2', 5, { low: true });
    assert.equal(q.delayed, 2);
    await waitFor('both due', () => q.length === 2, 2_000);
    q.add('event'); // a change arriving after the polls came due: served first
    assert.equal(await q.get(), 'event');
    q.done('event');
    assert.equal(await q.get(), 'poll');
    q.done('poll');
    // One key delayed at both priorities: the low wait does not swallow the normal one.
    q.addAfter('k', 5, { low: true });
    q.addAfter('k', 20);
    assert.equal(q.delayed, 1, 'k waits at both priorities, counted once');
    assert.equal(await q.get(), 'poll2');
    q.done('poll2');
    assert.equal(await q.get(), 'k'); // the low add
    q.add('n'); // queued while k runs
    q.done('k');
    assert.equal(await q.get(), 'n');
    q.done('n');
    assert.equal(await q.get(), 'k', 'the normal add came too');
    q.done('k');
    assert.equal(q.delayed, 0);
    await q.shutDown();
  });

  it('serves low keys that waited maxLowWaitMs in turn with a stream of other keys', async () => {
    const q = new WorkQueue({ maxLowWaitMs: 30 });
    const added = performance.now();
    q.addLow('l1');
    q.addLow('l2');
    q.add('n0');
    // Before the bound the low keys wait.
    assert.equal(await q.get(), 'n0');
    q.done('n0');
    q.add('n1');
    assert.equal(await q.get(), 'n1');
    q.done('n1');
    await waitSince(added, 40);
    // A steady stream of changes: every other key handed out is a low one that has waited too long.
    for (let i = 2; i < 6; i++) q.add(`n${i}`);
    assert.deepEqual(await takeEach(q, 6), ['l1', 'n2', 'l2', 'n3', 'n4', 'n5']);
    await q.shutDown();
  });

  it('hands out keys added with addFirst before all others, a key moved up from another lane once', async () => {
    const q = new WorkQueue();
    q.add('n1');
    q.add('n2');
    q.addLow('l1');
    q.addFirst('f1');
    q.addFirst('n2'); // waiting in the normal lane: moves up, its old entry is not served again
    q.addFirst('l1'); // waiting in the low lane: moves up too
    q.addFirst('f1'); // already first: keeps its place
    q.add('f1'); // and add() does not move it back
    assert.equal(q.length, 4);
    const order = await takeEach(q, 5, (key) => {
      if (key === 'f1') q.add('n3'); // new work arrives: behind the normal keys waiting
    });
    assert.deepEqual(order, ['f1', 'n2', 'l1', 'n1', 'n3']);
    assert.equal(q.length, 0);
    await q.shutDown();
  });

  it('a key added with addFirst while in flight goes first once done; one added normally while in flight does not', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    const key = await q.get();
    assert.equal(key, 'a');
    q.add('n1');
    q.addFirst('a'); // in flight: dirty, not ready
    assert.equal(q.length, 2, 'b and n1 are ready; a only once done');
    q.done('a');
    assert.equal(q.length, 3);
    const order = await takeEach(q, 3, (key) => {
      if (key === 'a') q.add('b2');
    });
    assert.deepEqual(order, ['a', 'b', 'n1']);
    // The control: a key added normally while in flight goes behind the keys already waiting.
    assert.equal(await q.get(), 'b2');
    q.add('c');
    q.add('b2');
    q.done('b2');
    const next = [(await q.get()) ?? '', (await q.get()) ?? ''];
    for (const k of next) q.done(k);
    assert.deepEqual(next, ['c', 'b2']);
    await q.shutDown();
  });

  it('serves low keys that waited maxLowWaitMs in turn with keys added first too', async () => {
    const q = new WorkQueue({ maxLowWaitMs: 30 });
    const added = performance.now();
    q.addLow('l1');
    await waitSince(added, 40);
    q.addFirst('f1');
    q.addFirst('f2');
    const order = await takeEach(q, 3);
    assert.deepEqual(order, ['l1', 'f1', 'f2']);
    await q.shutDown();
  });

  it('a key moved up by addFirst and added normally again later waits behind the keys added in between', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.addFirst('a'); // its entry in the normal lane is stale from now on
    assert.deepEqual(await takeEach(q, 1), ['a']);
    q.add('c');
    q.add('a'); // behind b and c, not in its old place ahead of them
    assert.equal(q.length, 3);
    assert.deepEqual(await takeEach(q, 3), ['b', 'c', 'a']);
    assert.equal(q.length, 0);
    await q.shutDown();
  });

  it('serves a normal key that waited maxLowWaitMs in turn with a stream of keys added first', async () => {
    const q = new WorkQueue({ maxLowWaitMs: 30 });
    const added = performance.now();
    q.add('n1');
    q.add('n2');
    q.addFirst('f0');
    // Before the bound the normal keys wait.
    assert.deepEqual(await takeEach(q, 1), ['f0']);
    await waitSince(added, 40);
    for (let i = 1; i < 5; i++) q.addFirst(`f${i}`);
    assert.deepEqual(await takeEach(q, 6), ['n1', 'f1', 'n2', 'f2', 'f3', 'f4']);
    await q.shutDown();
  });

  it('when low and normal keys have both waited maxLowWaitMs, they take turns, and keys added first still get every other one', async () => {
    const q = new WorkQueue({ maxLowWaitMs: 30 });
    const added = performance.now();
    q.addLow('l1');
    await sleep(2);
    q.addLow('l2');
    await sleep(2);
    q.add('n1');
    q.add('n2');
    await waitSince(added, 40);
    for (let i = 1; i < 5; i++) q.addFirst(`f${i}`);
    // The one that waited longer goes first, then the other lane's.
    assert.deepEqual(await takeEach(q, 8), ['l1', 'f1', 'n1', 'f2', 'l2', 'f3', 'n2', 'f4']);
    await q.shutDown();
  });

  it('low keys that waited maxLowWaitMs get their turns behind an older backlog of normal keys', async () => {
    const q = new WorkQueue({ maxLowWaitMs: 30 });
    const added = performance.now();
    q.add('n1');
    q.add('n2');
    await sleep(5);
    q.addLow('l1');
    q.addLow('l2');
    await waitSince(added, 45);
    for (let i = 1; i < 5; i++) q.addFirst(`f${i}`);
    assert.deepEqual(await takeEach(q, 8), ['n1', 'f1', 'l1', 'f2', 'n2', 'f3', 'l2', 'f4']);
    await q.shutDown();
  });

  it('addBatched merges with a queued key at once, and a first add moves a normal one waiting to be added up', async () => {
    const q = new WorkQueue();
    q.add('queued');
    q.addBatched('queued', 60_000, { first: true });
    assert.equal(q.delayed, 0, 'not delayed: its queued entry answers the add');
    q.add('other');
    assert.deepEqual(await takeEach(q, 1), ['queued'], 'moved up to the first lane');
    // A key waiting for the normal lane, then batched for the first: one entry, in the first lane, at the earlier time.
    q.addBatched('later', 40);
    q.addBatched('later', 60_000, { first: true });
    assert.equal(q.delayed, 1);
    q.add('more');
    await waitFor('due', () => q.length === 3);
    assert.deepEqual(await takeEach(q, 3), ['later', 'other', 'more']);
    await q.shutDown();
  });

  it('a delayed add with first joins the keys added first when due', async () => {
    const q = new WorkQueue();
    const since = performance.now();
    q.addAfter('later', 30, { first: true });
    q.add('n1');
    q.add('n2');
    assert.equal(q.delayed, 1);
    await waitSince(since, 50);
    await waitFor('the delayed key added', () => q.delayed === 0);
    assert.deepEqual(await takeEach(q, 3), ['later', 'n1', 'n2']);
    await q.shutDown();
  });

  it('gives a low-priority key to a waiting worker', async () => {
    const q = new WorkQueue();
    const next = q.get();
    q.addLow('late');
    assert.equal(await next, 'late');
  });

  it('processes a key added while in flight once more afterwards, never concurrently', async () => {
    const q = new WorkQueue();
    const ac = new AbortController();
    let running = 0;
    let maxRunning = 0;
    let calls = 0;
    let markerDone = false;
    let release!: () => void;
    let started!: () => void;
    const firstStarted = new Promise<void>((r) => (started = r));
    const run = q.run(
      4,
      async (key) => {
        if (key === 'marker') {
          markerDone = true;
          return;
        }
        calls++;
        running++;
        maxRunning = Math.max(maxRunning, running);
        if (calls === 1) {
          started();
          await new Promise<void>((r) => (release = r));
        }
        running--;
      },
      ac.signal,
    );
    q.add('k');
    await firstStarted;
    q.add('k');
    q.add('k');
    q.add('k');
    assert.equal(q.length, 0, 'a key in flight is not handed to another worker');
    release();
    await waitFor('both calls done', () => calls === 2 && q.inFlight === 0);
    // Positive control: a key added now is processed; a third run of k would have been queued
    // before it and started first.
    q.add('marker');
    await waitFor('the marker done', () => markerDone);
    assert.equal(calls, 2);
    assert.equal(maxRunning, 1);
    await q.shutDown();
    await run;
  });

  it('bounds concurrency to the number of workers', async () => {
    const q = new WorkQueue();
    let running = 0;
    let maxRunning = 0;
    let done = 0;
    const run = q.run(
      3,
      async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await sleep(5);
        running--;
        done++;
      },
      new AbortController().signal,
    );
    for (let i = 0; i < 30; i++) q.add(`k${i}`);
    await waitFor('30 items done', () => done === 30);
    assert.equal(maxRunning, 3);
    await q.shutDown();
    await run;
  });

  it('backs off per key exponentially and forget resets it', () => {
    const l = new ExponentialBackoffLimiter(5, 1000);
    assert.deepEqual([l.when('a'), l.when('a'), l.when('a'), l.when('b')], [5, 10, 20, 5]);
    for (let i = 0; i < 20; i++) l.when('a');
    assert.equal(l.when('a'), 1000, 'capped');
    assert.equal(l.retries('a'), 24);
    l.forget('a');
    assert.equal(l.when('a'), 5);
  });

  it('a token bucket delays once the burst is spent', (t) => {
    const clock = new FakeClock(t);
    const l = new TokenBucketLimiter(10, 2);
    assert.equal(l.when(), 0);
    assert.equal(l.when(), 0);
    assert.equal(l.when(), 100, 'the third token waits 100 ms');
    assert.equal(l.when(), 200, 'the fourth waits for the token after');
    clock.tick(50);
    assert.equal(l.when(), 250, 'half a token refilled in 50 ms: the fifth waits 300 - 50 ms');
    const max = new MaxOfLimiter(new ExponentialBackoffLimiter(1, 10), new TokenBucketLimiter(1000, 1000));
    assert.equal(max.when('x'), 1);
  });

  it('addRateLimited delays by the backoff; addAfter keeps the earlier time', async (t) => {
    const clock = new FakeClock(t);
    const q = new WorkQueue({ rateLimiter: new ExponentialBackoffLimiter(30, 1000) });
    q.addRateLimited('a');
    assert.equal(q.length, 0);
    assert.equal(q.delayed, 1);
    clock.tick(29);
    assert.equal(q.length, 0, 'not ready before the 30 ms backoff');
    clock.tick(1);
    assert.equal(q.length, 1, 'ready after the 30 ms backoff');
    assert.equal(await q.get(), 'a');
    q.done('a');
    assert.equal(q.numRequeues('a'), 1);
    q.forget('a');
    assert.equal(q.numRequeues('a'), 0);

    q.addAfter('b', 60_000);
    q.addAfter('b', 20);
    q.addAfter('b', 30_000);
    assert.equal(q.delayed, 1);
    clock.tick(19);
    assert.equal(q.length, 0, 'not ready before the earliest time');
    clock.tick(1);
    assert.equal(q.length, 1, 'ready at the earliest of the three times (20 ms)');
    assert.equal(await q.get(), 'b');
    q.done('b');
    clock.tick(60_000);
    assert.deepEqual([q.length, q.delayed], [0, 0], 'the later times were dropped, not added again');
    q.addAfter('c', 0);
    assert.equal(q.length, 1, 'no delay adds at once');
    await q.shutDown();
  });

  it('shutDown lets in-flight work finish, drops the rest, stops workers and timers', async () => {
    const q = new WorkQueue();
    const finished: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const run = q.run(
      1,
      async (key) => {
        await gate;
        finished.push(key);
      },
      new AbortController().signal,
    );
    q.add('first');
    q.add('second');
    q.addAfter('later', 60_000);
    await waitFor('one item in flight', () => q.inFlight === 1);
    let shutDownResolved = false;
    const stopping = q.shutDown().then(() => (shutDownResolved = true));
    q.add('ignored');
    // Positive control in the same window: the shutdown took effect (intake closed, queued and
    // delayed keys dropped) while the in-flight item still runs.
    await new Promise((r) => setImmediate(r));
    assert.equal(q.isShuttingDown, true);
    assert.deepEqual([q.length, q.delayed, q.inFlight], [0, 0, 1]);
    assert.equal(shutDownResolved, false, 'waits for the in-flight item');
    release();
    await stopping;
    await run;
    assert.deepEqual(finished, ['first']);
    assert.equal(await q.get(), undefined);
  });

  it('reports controller-runtime work-queue metrics', async () => {
    const registry = new Registry();
    const q = new WorkQueue({ name: 'demo', metrics: workQueueMetrics(registry, 'demo') });
    q.add('a');
    q.add('b');
    const key = await q.get();
    assert.ok(key);
    q.addRateLimited('c');
    const text = registry.render();
    assert.match(text, /^workqueue_depth\{controller="demo",name="demo"\} 1$/m);
    assert.match(text, /^workqueue_adds_total\{controller="demo",name="demo"\} 2$/m);
    assert.match(text, /^workqueue_retries_total\{controller="demo",name="demo"\} 1$/m);
    assert.match(text, /^workqueue_queue_duration_seconds_count\{controller="demo",name="demo"\} 1$/m);
    assert.match(text, /^workqueue_unfinished_work_seconds\{controller="demo",name="demo"\} [0-9.e-]+$/m);
    assert.match(text, /^workqueue_longest_running_processor_seconds\{controller="demo",name="demo"\} [0-9.e-]+$/m);
    q.done(key);
    assert.match(registry.render(), /^workqueue_work_duration_seconds_count\{controller="demo",name="demo"\} 1$/m);
    await q.shutDown();
  });
});
