// Controllers built with newControllerManagedBy against the embedded API server: For with
// predicates, Owns (controller owner references), Watches with a map function, channel and
// emitter sources, error backoff, requeueAfter, the coordination gate, predicates' logic.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { clientFromKubeconfig, type HttpClient } from '../../src/runtime/client/index.js';
import { KeyChannel, type ReconcileResult, type Request } from '../../src/runtime/controller.js';
import { type Logger, silentLogger } from '../../src/runtime/log.js';
import { Manager, newControllerManagedBy } from '../../src/runtime/manager.js';
import { and, annotationsChanged, generationChanged, labelsChanged, not, or } from '../../src/runtime/predicates.js';
import { namespacedName } from '../../src/kube/keys.js';
import type { KubeObject } from '../../src/kube/object.js';
import { ExponentialBackoffLimiter } from '../../src/runtime/workqueue.js';
import { RecordingLogger } from '../support/log.js';
import { sleep } from '../../src/util/sleep.js';
import { waitFor } from '../support/wait.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const HOUR = 3_600_000;
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };

const obj = (kind: { apiVersion: string; kind: string }, name: string, extra: Partial<KubeObject> = {}, namespace: string | undefined = 'default'): KubeObject => ({
  ...kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  ...extra,
});

/** Reconciles seen, as `namespace/name` keys, in order. */
class Recorder {
  readonly seen: string[] = [];
  count(key: string): number {
    return this.seen.filter((k) => k === key).length;
  }
}

/** Holds the reconcile that calls `hold()` (and with one worker, the controller) until `release()`. */
function holdGate(): { hold: () => Promise<void>; held: Promise<void>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let reached!: () => void;
  const held = new Promise<void>((r) => (reached = r));
  return {
    hold: async () => {
      reached();
      await gate;
    },
    held,
    release,
  };
}

describe('controller', () => {
  let server: RunningApiServer;
  let clusterNo = 0;
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    server = await startApiServer({ port: 0 });
  });
  after(async () => {
    for (const c of cleanups.reverse()) await c();
    await server.stop();
  });

  async function fresh(logger: Logger = silentLogger): Promise<{ name: string; client: HttpClient; manager: Manager; start: () => Promise<void>; stop: () => Promise<void> }> {
    const name = `ctl-${++clusterNo}`;
    const access = await server.createCluster(name);
    const client = clientFromKubeconfig(access.kubeconfig, { retries: 1 });
    const manager = new Manager({ client, logger, informerBackoff: { initialMs: 20, maxMs: 200 } });
    const ac = new AbortController();
    let running: Promise<void> | undefined;
    const stop = async () => {
      ac.abort();
      await running;
      client.close();
    };
    cleanups.push(stop);
    return {
      name,
      client,
      manager,
      start: async () => {
        running = manager.start(ac.signal);
        await manager.ready();
      },
      stop,
    };
  }

  it('reconciles For objects, their owned objects, mapped kinds and channel keys', async () => {
    const { client, manager, start, stop } = await fresh();
    const rec = new Recorder();
    const channel = new KeyChannel();
    const emitter = new EventEmitter();
    newControllerManagedBy(manager)
      .named('parents')
      .for(CONFIGMAP, { predicates: [or(labelsChanged, annotationsChanged)] })
      .owns(SECRET)
      .watches(NAMESPACE, (ns) => [{ namespace: ns.metadata.name, name: 'root' }])
      .watchesChannel(channel)
      .watchesChannel(emitter)
      .withOptions({ maxConcurrentReconciles: 2 })
      .complete(async (req: Request) => {
        rec.seen.push(namespacedName(req));
      });
    const parent = await client.create(obj(CONFIGMAP, 'parent', { data: { a: '1' } }));
    await start();
    await waitFor('initial reconcile of an existing object', () => rec.count('default/parent') === 1);

    // Predicates: a data-only update is filtered out, a label change passes.
    const p1 = await client.update({ ...parent, data: { a: '2' } });
    const p2 = await client.update({ ...p1, metadata: { ...p1.metadata, labels: { changed: 'yes' } } });
    await waitFor('reconcile after a label change', () => rec.count('default/parent') === 2);

    // Owns: a Secret controlled by the parent maps to the parent; one without a controller reference does not.
    await client.create(
      obj(SECRET, 'owned', {
        metadata: { name: 'owned', namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'parent', uid: p2.metadata.uid ?? '', controller: true }] },
      }),
    );
    await client.create(
      obj(SECRET, 'not-controlled', {
        metadata: { name: 'not-controlled', namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid: 'x' }] },
      }),
    );
    await waitFor('reconcile of the owner', () => rec.count('default/parent') === 3);

    // Watches with a map function.
    await client.create(obj(NAMESPACE, 'team-a', {}, undefined));
    await waitFor('mapped namespace event', () => rec.count('team-a/root') >= 1);

    // External sources.
    channel.send('default/from-channel');
    channel.send({ namespace: 'ns', name: 'from-channel-key' });
    emitter.emit('key', 'default/from-emitter');
    await waitFor('channel keys', () => rec.count('default/from-channel') === 1 && rec.count('ns/from-channel-key') === 1 && rec.count('default/from-emitter') === 1);
    assert.equal(rec.count('default/other'), 0);
    await stop();
    assert.equal(emitter.listenerCount('key'), 0, 'emitter listener removed on stop');
  });

  it('requeues failures with backoff, honours requeueAfter and requeue, and counts results in metrics', async () => {
    const { client, manager, start, stop } = await fresh();
    const calls = new Map<string, number>();
    newControllerManagedBy(manager)
      .named('flaky')
      .for(CONFIGMAP)
      .withOptions({ rateLimiter: new ExponentialBackoffLimiter(10, 100) })
      .complete({
        reconcile: async (req): Promise<ReconcileResult | void> => {
          const n = (calls.get(req.name) ?? 0) + 1;
          calls.set(req.name, n);
          if (req.name === 'fails-twice' && n <= 2) throw new Error('transient');
          if (req.name === 'again-later' && n === 1) return { requeueAfterMs: 30 };
          if (req.name === 'again-soon' && n === 1) return { requeue: true };
          if (req.name === 'marker' && n === 1) return { requeueAfterMs: 150 };
        },
      });
    await client.create(obj(CONFIGMAP, 'fails-twice'));
    await client.create(obj(CONFIGMAP, 'again-later'));
    await client.create(obj(CONFIGMAP, 'again-soon'));
    await start();
    await waitFor('retries', () => calls.get('fails-twice') === 3 && calls.get('again-later') === 2 && calls.get('again-soon') === 2);
    // The window for a wrong retry: a marker the controller itself requeues after 150 ms, longer
    // than the largest backoff (100 ms). One worker takes keys in the order they became due, so a
    // retry of fails-twice would have run before the marker's second reconcile.
    await client.create(obj(CONFIGMAP, 'marker'));
    await waitFor('the marker reconciled again after its requeueAfter', () => calls.get('marker') === 2);
    assert.equal(calls.get('fails-twice'), 3, 'no retry after success');
    assert.deepEqual([calls.get('again-later'), calls.get('again-soon')], [2, 2], 'no extra reconciles of the others either');
    const text = manager.registry.render();
    assert.match(text, /^controller_runtime_reconcile_errors_total\{controller="flaky"\} 2$/m);
    assert.match(text, /^controller_runtime_reconcile_total\{controller="flaky",result="error"\} 2$/m);
    // again-later and the marker.
    assert.match(text, /^controller_runtime_reconcile_total\{controller="flaky",result="requeue_after"\} 2$/m);
    // fails-twice, again-later, again-soon and the marker once each, and each namespace's
    // kube-root-ca.crt (listed at start, before the marker): every reconcile is counted.
    const rootCas = (await client.list(CONFIGMAP)).items.filter((o) => o.metadata.name === 'kube-root-ca.crt').length;
    assert.ok(rootCas > 0);
    assert.match(text, new RegExp(`^controller_runtime_reconcile_total\\{controller="flaky",result="success"\\} ${4 + rootCas}$`, 'm'));
    assert.match(text, /^controller_runtime_reconcile_total\{controller="flaky",result="requeue"\} 1$/m);
    assert.match(text, /^controller_runtime_max_concurrent_reconciles\{controller="flaky"\} 1$/m);
    await stop();
  });

  it('a requeue marked as a fallback waits behind keys that changes brought, even when it came due first', async () => {
    const { manager, start, stop } = await fresh();
    const channel = new KeyChannel();
    const order: string[] = [];
    const gate = holdGate();
    newControllerManagedBy(manager)
      .named('fallbacks')
      .for(CONFIGMAP)
      .watchesChannel(channel)
      .withOptions({ maxConcurrentReconciles: 1 })
      .complete(async (req: Request): Promise<ReconcileResult | void> => {
        if (req.namespace !== 'x') return;
        order.push(req.name);
        if (req.name === 'poll' && order.length === 1) {
          channel.send('x/block'); // the next change, while poll's pass ends
          return { requeueAfterMs: 100, fallback: true };
        }
        if (req.name === 'block') await gate.hold();
      });
    await start();
    channel.send('x/poll');
    await gate.held;
    // The only worker is busy: poll comes due meanwhile, then a change brings another key.
    await new Promise((r) => setTimeout(r, 250));
    channel.send('x/event');
    await new Promise((r) => setImmediate(r));
    gate.release();
    await waitFor('poll looked at again', () => order.filter((n) => n === 'poll').length === 2);
    assert.deepEqual(order, ['poll', 'block', 'event', 'poll']);
    await stop();
  });

  it('keys of a channel watched with first go ahead of the keys changes brought', async () => {
    const { manager, start, stop } = await fresh();
    const changes = new KeyChannel();
    const events = new EventEmitter();
    const order: string[] = [];
    const gate = holdGate();
    const controller = newControllerManagedBy(manager)
      .named('first-lane')
      .for(CONFIGMAP)
      .watchesChannel(changes)
      .watchesChannel(events, { first: true })
      .withOptions({ maxConcurrentReconciles: 1 })
      .complete(async (req: Request): Promise<void> => {
        if (req.namespace !== 'x') return;
        order.push(req.name);
        if (req.name === 'block') await gate.hold();
      });
    await start();
    changes.send('x/block');
    await gate.held;
    // The only worker is busy: changes queue up, then events come.
    changes.send('x/c1');
    changes.send('x/c2');
    await waitFor('both changes queued', () => controller.queue.length === 2);
    events.emit('key', 'x/e1');
    events.emit('key', 'x/c2'); // a change already waiting moves up with its event
    events.emit('key', { namespace: 'x', name: 'e2' });
    gate.release();
    await waitFor('all looked at', () => order.length === 5);
    // A key sent now comes after everything queued: no key was looked at twice.
    changes.send('x/marker');
    await waitFor('the marker looked at', () => order.includes('marker'));
    assert.deepEqual(order, ['block', 'e1', 'c2', 'e2', 'c1', 'marker']);
    await stop();
  });

  it('keys of a watch whose first option says yes of the object go ahead of the keys other changes brought', async () => {
    const { client, manager, start, stop } = await fresh();
    const changes = new KeyChannel();
    const order: string[] = [];
    const gate = holdGate();
    const controller = newControllerManagedBy(manager)
      .named('first-watch')
      .for(CONFIGMAP)
      .watchesChannel(changes)
      // A Secret labelled urgent: its key goes first; any other Secret's in turn.
      .watches(SECRET, (s) => [`x/${s.metadata.name ?? ''}`], { namespace: 'default', first: (s) => s.metadata.labels?.urgent === 'true' })
      .withOptions({ maxConcurrentReconciles: 1 })
      .complete(async (req: Request): Promise<void> => {
        if (req.namespace !== 'x') return;
        order.push(req.name);
        if (req.name === 'block') await gate.hold();
      });
    await start();
    changes.send('x/block');
    await gate.held;
    // The only worker is busy: changes queue up, then an urgent Secret comes, then an update makes c2 urgent.
    changes.send('x/c1');
    await client.create(obj(SECRET, 'c2'));
    await waitFor('both changes queued', () => controller.queue.length === 2);
    await client.create(obj(SECRET, 'u1', { metadata: { name: 'u1', namespace: 'default', labels: { urgent: 'true' } } }));
    await waitFor('the urgent key queued', () => controller.queue.length === 3);
    await client.patch(SECRET, { namespace: 'default', name: 'c2' }, 'merge', { metadata: { labels: { urgent: 'true' } } });
    // c2 moves up behind u1 (the queue keeps one entry per key); the informer calls the handlers as it stores the update.
    const secrets = manager.informer<KubeObject>(SECRET, { namespace: 'default' }).store;
    await waitFor('the update delivered', () => secrets.get('default/c2')?.metadata.labels?.urgent === 'true');
    gate.release();
    await waitFor('all looked at', () => order.length === 4);
    changes.send('x/marker');
    await waitFor('the marker looked at', () => order.includes('marker'));
    assert.deepEqual(order, ['block', 'u1', 'c2', 'c1', 'marker']);
    await stop();
  });

  it('a watch with batchMs makes one pass of the changes that come within it', async () => {
    const { client, manager, start, stop } = await fresh();
    const passes: string[] = [];
    const controller = newControllerManagedBy(manager)
      .named('batch-watch')
      .for(CONFIGMAP)
      .watches(SECRET, () => ['x/owner'], { namespace: 'default', batchMs: 3_000 })
      .complete(async (req: Request): Promise<void> => {
        if (req.namespace === 'x') passes.push(req.name);
      });
    await start();
    const secrets = manager.informer<KubeObject>(SECRET, { namespace: 'default' }).store;
    // Three changes in quick succession, each seen by the informer before the next.
    await client.create(obj(SECRET, 'b1'));
    await waitFor('b1 seen', () => secrets.get('default/b1') !== undefined);
    await client.create(obj(SECRET, 'b2'));
    await waitFor('b2 seen', () => secrets.get('default/b2') !== undefined);
    await client.patch(SECRET, { namespace: 'default', name: 'b1' }, 'merge', { metadata: { labels: { touched: 'yes' } } });
    await waitFor('the update seen', () => secrets.get('default/b1')?.metadata.labels?.touched === 'yes');
    assert.deepEqual(passes, [], 'no pass before the batch time');
    assert.equal(controller.queue.delayed, 1, 'the three changes wait as one');
    await waitFor('the pass', () => passes.length === 1, 10_000);
    // As long again: still the one pass (without the batch, each change seen makes one).
    await sleep(3_100);
    assert.deepEqual(passes, ['owner']);
    await stop();
  });

  it('a watch with batchMs does not delay a delete', async () => {
    const { client, manager, start, stop } = await fresh();
    const passes: string[] = [];
    newControllerManagedBy(manager)
      .named('batch-delete')
      .for(CONFIGMAP)
      .watches(SECRET, (s) => [`x/${s.metadata.name ?? ''}`], { namespace: 'default', batchMs: HOUR })
      .complete(async (req: Request): Promise<void> => {
        if (req.namespace === 'x') passes.push(req.name);
      });
    await start();
    const secrets = manager.informer<KubeObject>(SECRET, { namespace: 'default' }).store;
    await client.create(obj(SECRET, 'd1'));
    await waitFor('d1 seen', () => secrets.get('default/d1') !== undefined);
    await client.delete(SECRET, { namespace: 'default', name: 'd1' });
    await waitFor('the delete looked at', () => passes.length === 1);
    assert.deepEqual(passes, ['d1'], 'the create waits its hour');
    await stop();
  });

  it("the For watch's first option: an update the option says yes to goes ahead, given the object it replaced", async () => {
    const { client, manager, start, stop } = await fresh();
    const changes = new KeyChannel();
    const order: string[] = [];
    const gate = holdGate();
    const controller = newControllerManagedBy(manager)
      .named('first-for')
      .for(CONFIGMAP, { namespace: 'default', first: (cm, old) => old !== undefined && old.metadata.labels?.phase !== cm.metadata.labels?.phase })
      .watchesChannel(changes)
      .withOptions({ maxConcurrentReconciles: 1 })
      .complete(async (req: Request): Promise<void> => {
        if (req.name === 'kube-root-ca.crt') return;
        order.push(req.name);
        if (req.name === 'block') await gate.hold();
      });
    await client.create(obj(CONFIGMAP, 'phased', { metadata: { name: 'phased', namespace: 'default', labels: { phase: 'one' } } }));
    await start();
    await waitFor('the ConfigMap looked at once', () => order.includes('phased'));
    changes.send('default/block');
    await gate.held;
    changes.send('default/c1');
    await waitFor('a change queued', () => controller.queue.length === 1);
    // A label that is not the phase: in turn. Then the phase changes: first.
    await client.patch(CONFIGMAP, { namespace: 'default', name: 'phased' }, 'merge', { metadata: { labels: { other: 'x' } } });
    await waitFor('queued in turn', () => controller.queue.length === 2);
    const cms = manager.informer<KubeObject>(CONFIGMAP, { namespace: 'default' }).store;
    await client.patch(CONFIGMAP, { namespace: 'default', name: 'phased' }, 'merge', { metadata: { labels: { phase: 'two' } } });
    await waitFor('the phase change delivered', () => cms.get('default/phased')?.metadata.labels?.phase === 'two');
    gate.release();
    await waitFor('all looked at', () => order.length === 4);
    assert.deepEqual(order, ['phased', 'block', 'phased', 'c1']);
    await stop();
  });

  it('a result of first without a delay looks at the key again at once, ahead of the keys queued meanwhile', async () => {
    const { manager, start, stop } = await fresh();
    const changes = new KeyChannel();
    const order: string[] = [];
    const gate = holdGate();
    newControllerManagedBy(manager)
      .named('first-again')
      .for(CONFIGMAP)
      .watchesChannel(changes)
      .withOptions({ maxConcurrentReconciles: 1 })
      .complete(async (req: Request): Promise<ReconcileResult | void> => {
        if (req.namespace !== 'x') return;
        order.push(req.name);
        if (req.name === 'again' && order.filter((n) => n === 'again').length === 1) {
          await gate.hold();
          return { first: true };
        }
      });
    await start();
    changes.send('x/again');
    await gate.held;
    changes.send('x/c1');
    changes.send('x/c2');
    gate.release();
    await waitFor('all looked at', () => order.length === 4);
    assert.deepEqual(order, ['again', 'again', 'c1', 'c2']);
    await stop();
  });

  it('asks the gate before reconciling and requeueAll brings refused keys back', async () => {
    const { client, manager, start, stop } = await fresh();
    const rec = new Recorder();
    let leader = false;
    const refused: string[] = [];
    manager.setGate((controller, kind, req) => {
      const ok = controller === 'gated' && kind.kind === 'ConfigMap' && (leader || req.name === 'always');
      if (!ok) refused.push(req.name);
      return ok;
    });
    newControllerManagedBy(manager)
      .named('gated')
      .for(CONFIGMAP)
      .complete(async (req) => {
        rec.seen.push(namespacedName(req));
      });
    await client.create(obj(CONFIGMAP, 'always'));
    await client.create(obj(CONFIGMAP, 'when-leader'));
    await start();
    await waitFor('allowed key', () => rec.count('default/always') === 1);
    // Positive control: the controller did take up when-leader, and the gate refused it.
    await waitFor('the gate asked about when-leader', () => refused.includes('when-leader'));
    assert.equal(rec.count('default/when-leader'), 0);
    leader = true;
    manager.requeueAll({ kind: CONFIGMAP });
    await waitFor('key reconciled after the gate opened', () => rec.count('default/when-leader') === 1);
    await stop();
  });

  it('after a forced 410 reconciles only what changed, exactly once', async () => {
    const { name, client, manager, start } = await fresh();
    const rec = new Recorder();
    newControllerManagedBy(manager)
      .named('gone')
      .for(CONFIGMAP, { namespace: 'default', predicates: [or(generationChanged, not(labelsChanged))] })
      .complete(async (req) => {
        rec.seen.push(namespacedName(req));
      });
    for (let i = 0; i < 10; i++) await client.create(obj(CONFIGMAP, `cm-${i}`));
    await start();
    await waitFor('initial reconciles', () => rec.seen.filter((k) => k.startsWith('default/cm-')).length === 10);
    rec.seen.length = 0;
    server.setFaults(name, { unreachable: true });
    const cl = server.cluster(name);
    const t = cl.resolve('', 'v1', 'configmaps');
    assert.ok(t);
    const o = cl.get(t, 'default', 'cm-0');
    await cl.update(t, 'default', 'cm-0', { ...o, data: { v: 'changed' } }, { internal: true });
    await cl.delete(t, 'default', 'cm-1', {}, { internal: true });
    server.setFaults(name, { forceGoneOnResume: true });
    await waitFor('reconciles of the changes', () => rec.count('default/cm-0') === 1 && rec.count('default/cm-1') === 1);
    server.setFaults(name, undefined);
    // A marker created after the relist: the one worker reconciles keys in the order they were
    // queued, so a needless reconcile from the relist would come before the marker's.
    await client.create(obj(CONFIGMAP, 'marker'));
    await waitFor('the marker reconciled', () => rec.count('default/marker') === 1);
    assert.deepEqual([...rec.seen].sort(), ['default/cm-0', 'default/cm-1', 'default/marker']);
    const informer = manager.informer(CONFIGMAP, { namespace: 'default' });
    assert.equal(informer.stats.lists, 2);
  });

  it('predicates combine', () => {
    const a = obj(CONFIGMAP, 'x', { metadata: { name: 'x', generation: 1, labels: { a: '1' } } });
    const b = obj(CONFIGMAP, 'x', { metadata: { name: 'x', generation: 2, labels: { a: '1' } } });
    const c = obj(CONFIGMAP, 'x', { metadata: { name: 'x', generation: 2, labels: { a: '2' }, annotations: { n: 'v' } } });
    assert.equal(generationChanged.update?.(a, b), true);
    assert.equal(generationChanged.update?.(b, c), false);
    assert.equal(labelsChanged.update?.(a, b), false);
    assert.equal(labelsChanged.update?.(b, c), true);
    assert.equal(annotationsChanged.update?.(b, c), true);
    assert.equal(and(generationChanged, labelsChanged).update?.(a, c), true);
    assert.equal(and(generationChanged, labelsChanged).update?.(a, b), false);
    assert.equal(or(generationChanged, labelsChanged).update?.(a, b), true);
    assert.equal(not(generationChanged).update?.(a, b), false);
    assert.equal(not(generationChanged).create?.(a), false, 'not() of an admitting create refuses it');
    assert.equal(generationChanged.create, undefined, 'creates pass generationChanged');
  });

  it('counts a failure the reconciler recorded in the status as an error, requeued as it asked; logs thrown ones at error with the key', async () => {
    const log = new RecordingLogger();
    const { client, manager, start, stop } = await fresh(log);
    const calls = new Map<string, number>();
    newControllerManagedBy(manager)
      .named('stateful')
      .for(CONFIGMAP, { namespace: 'default' })
      .complete(async (req): Promise<ReconcileResult | void> => {
        const n = (calls.get(req.name) ?? 0) + 1;
        calls.set(req.name, n);
        if (req.name === 'in-error' && n <= 2) return { requeueAfterMs: 20, error: 'registry unreachable' };
        if (req.name === 'throws' && n === 1) throw new Error('boom');
      });
    await client.create(obj(CONFIGMAP, 'in-error'));
    await client.create(obj(CONFIGMAP, 'throws'));
    await start();
    await waitFor('both settled', () => calls.get('in-error') === 3 && calls.get('throws') === 2);
    const text = manager.registry.render();
    assert.match(text, /^controller_runtime_reconcile_errors_total\{controller="stateful"\} 3$/m);
    assert.match(text, /^controller_runtime_reconcile_total\{controller="stateful",result="error"\} 3$/m);
    assert.match(text, /^controller_runtime_reconcile_total\{controller="stateful",result="requeue_after"\} 0$/m, 'an error state is not counted as a plain requeue');
    const failed = log.matching('reconcile failed');
    assert.equal(failed.length, 1);
    assert.equal(failed[0]?.level, 'error');
    assert.deepEqual([failed[0]?.fields.controller, failed[0]?.fields.namespace, failed[0]?.fields.name], ['stateful', 'default', 'throws']);
    assert.deepEqual(failed[0]?.fields.error, { name: 'Error', message: 'boom' });
    assert.equal(log.matching('reconcile ended in an error state', { name: 'in-error', error: 'registry unreachable' }).length, 2);
    await stop();
  });

  it('graceful shutdown lets in-flight reconciles finish before start() resolves', async () => {
    const log = new RecordingLogger();
    const { client, manager, start } = await fresh(log);
    let release!: () => void;
    const blocker = new Promise<void>((r) => (release = r));
    let started = false;
    let finished = false;
    let aborted = false;
    newControllerManagedBy(manager)
      .named('slow')
      .for(CONFIGMAP)
      .complete(async (req, signal) => {
        if (req.name !== 'slow') return;
        started = true;
        await blocker;
        aborted = signal.aborted;
        finished = true;
      });
    await client.create(obj(CONFIGMAP, 'slow'));
    const ac = new AbortController();
    const running = manager.start(ac.signal);
    void start; // this test drives start itself to own the signal
    await manager.ready();
    await waitFor('reconcile in flight', () => started);
    ac.abort();
    let stopped = false;
    // A rejection of start() surfaces at `await running` below; this branch only records the end.
    running.then(
      () => (stopped = true),
      () => (stopped = true),
    );
    // Positive control: the manager has taken up the abort and is draining its queues.
    await waitFor('the manager draining', () => log.matching('shutting down: draining queues').length === 1);
    assert.equal(stopped, false, 'shutdown waits for the in-flight reconcile');
    release();
    await running;
    assert.equal(finished, true);
    assert.equal(aborted, false, 'the reconcile signal is not aborted within the drain timeout');
    client.close();
  });
});
