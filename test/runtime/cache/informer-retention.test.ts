// What an informer keeps reachable while a watch stays open: the store's objects, not every event
// the watch delivered. (A race of each read against one promise of the abort used to keep every
// event of a watch, for the 5 to 10 minutes a watch lasts.) Reachability is checked with WeakRefs
// after a forced garbage collection.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Informer } from '../../../src/runtime/cache/informer.js';
import type { Client, WatchEvent } from '../../../src/runtime/client/interface.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { collectGarbage } from '../../support/gc.js';
import { waitFor } from '../../support/wait.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };

/** A client whose one watch stays open and delivers what `send` queues. */
function fakeClient() {
  const queue: WatchEvent[] = [];
  let wake: (() => void) | undefined;
  let watchOpen = false;
  const client = {
    list: () => Promise.resolve({ items: [], resourceVersion: '1' }),
    async *watch(_kind: unknown, opts?: { signal?: AbortSignal }): AsyncGenerator<WatchEvent> {
      watchOpen = true;
      try {
        while (!opts?.signal?.aborted) {
          const next = queue.shift();
          if (next) yield next;
          else await new Promise<void>((resolve) => (wake = resolve));
        }
      } finally {
        watchOpen = false;
      }
    },
  } as unknown as Client;
  return {
    client,
    send(ev: WatchEvent): void {
      queue.push(ev);
      wake?.();
    },
    watchOpen: () => watchOpen,
  };
}

function configMap(rv: number, payload = ''): KubeObject {
  return { ...CONFIGMAP, metadata: { name: 'cm', namespace: 'default', resourceVersion: String(rv) }, data: { payload } };
}

describe('informer retention', () => {
  it('does not keep the events of an open watch reachable once the store replaced them', async () => {
    const fake = fakeClient();
    // The store keeps copies, so the delivered objects themselves are garbage once handled.
    const informer = new Informer(fake.client, { kind: CONFIGMAP, transform: (o) => ({ ...o, metadata: { ...o.metadata } }) });
    const lifetime = new AbortController();
    const running = informer.run(lifetime.signal);
    try {
      await informer.synced;
      await waitFor('the watch opened', () => fake.watchOpen());
      const delivered: WeakRef<KubeObject>[] = [];
      for (let rv = 2; rv < 12; rv++) {
        const obj = configMap(rv, 'x'.repeat(1000));
        delivered.push(new WeakRef(obj));
        fake.send({ type: 'MODIFIED', object: obj });
        await waitFor(`version ${rv} stored`, () => informer.store.get('default/cm')?.metadata.resourceVersion === String(rv));
      }
      await collectGarbage();
      // The informer ran: the store has the last version, over the same open watch.
      assert.equal(informer.store.get('default/cm')?.metadata.resourceVersion, '11');
      assert.equal(informer.stats.watches, 1);
      assert.ok(fake.watchOpen());
      // Every delivered object but the last (the loop's current event) is gone.
      const kept = delivered.slice(0, -1).filter((r) => r.deref() !== undefined).length;
      assert.equal(kept, 0, `${kept} of ${delivered.length - 1} replaced events are still reachable`);
    } finally {
      lifetime.abort();
      await running;
    }
  });
});
