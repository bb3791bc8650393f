// Provisioning scenarios of the Runtime controller on the embedded landscape.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Runtime, RuntimeFinalizer, type RuntimeStatus } from '../../src/api/infrastructuremanager/index.js';
import { isConflict } from '../../src/runtime/client/errors.js';
import type { Client } from '../../src/runtime/client/interface.js';
import { type CountingClient, countingClient } from '../support/counting-client.js';
import { condition, fastTiming, type Harness, NAMESPACE, startHarness, testRuntime, waitFor, waitForRuntime } from './runtime-harness.js';

describe('runtime provisioning', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.stop();
  });

  it('a new Runtime becomes Ready with its Shoot created, a kubeconfig Secret and the cluster prepared', async () => {
    await h.land.kcp.create(testRuntime('rt-provision'));
    const rt = await waitForRuntime(h, 'rt-provision', 'Ready');
    assert.deepEqual(rt.metadata.finalizers, [RuntimeFinalizer]);
    assert.equal(rt.status?.provisioningCompleted, true);
    assert.equal(condition(rt, 'Provisioned')?.status, 'True');
    assert.equal(condition(rt, 'KubeconfigReady')?.reason, 'GardenerClusterCRReady');
    assert.equal(condition(rt, 'Configured')?.reason, 'AdministratorsConfigured');
    const shoot = await h.shoot('c-rt-provision');
    assert.ok(shoot, 'the shoot exists');
    assert.ok(shoot.metadata.managedFields?.some((f) => (f as { manager?: string }).manager === 'kim'), 'the shoot is applied by field manager kim');
    const secret = await h.land.kcp.get({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NAMESPACE, name: 'kubeconfig-rt-provision' });
    assert.ok(secret);
    const remote = h.land.shootClient('c-rt-provision');
    await remote.get({ apiVersion: 'v1', kind: 'Namespace' }, { name: 'kyma-system' });
    await waitFor('an Event for each condition change', async () => {
      const { items } = await h.land.kcp.list({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: NAMESPACE });
      const reasons = new Set(items.filter((e) => (e.regarding as { name?: string } | undefined)?.name === 'rt-provision').map((e) => e.reason as string));
      return ['Pending', 'ShootCreationCompleted', 'GardenerClusterCRCreated', 'GardenerClusterCRReady', 'AdministratorsConfigured'].every((r) => reasons.has(r));
    });
    assert.match(h.registry.render(), /im_runtime_state\{runtimeId="rt-provision",runtimeName="rt-provision",shootName="c-rt-provision",state="Ready"\} 1/);
  });
});

describe('runtime provisioning, woken by the Shoot', () => {
  let h: Harness;
  const clients: Partial<Record<'kcp' | 'garden', CountingClient>> = {};
  /** The statuses the control plane wrote for Runtime rt-woken, in order. */
  const written: RuntimeStatus[] = [];
  const recordStatusWrites = (c: Client): Client =>
    new Proxy(c, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== 'function') return v;
        if (prop !== 'patch') return (v as (...a: unknown[]) => unknown).bind(target);
        return (...args: Parameters<Client['patch']>) => {
          const [kind, key, , body, opts] = args;
          if (kind.kind === 'Runtime' && key.name === 'rt-woken' && opts?.subresource === 'status') written.push(structuredClone((body as { status: RuntimeStatus }).status));
          return target.patch(...args);
        };
      },
    });
  before(async () => {
    // Gardener reports its progress 20 times while it creates the Shoot; the Runtime's own poll is an hour away.
    h = await startHarness(
      { simulator: { pendingMs: 100, createMs: 2_000, progressSteps: 20 }, wrapClient: (c, cluster) => (clients[cluster] = countingClient(cluster === 'kcp' ? recordStatusWrites(c) : c)).client },
      { runtimeTiming: { ...fastTiming, shootCreateRequeueMs: 3_600_000 } },
    );
  });
  after(async () => {
    await h.stop();
  });

  it('Gardener\'s progress reports do not reconcile the Runtime; the operation\'s state changes do', async () => {
    const controller = h.im.manager.getControllers().find((c) => c.name === 'runtime');
    assert.ok(controller, 'the runtime controller');
    let passes = 0;
    controller.onReconcileStart = (key) => {
      if (key === `${NAMESPACE}/rt-woken`) passes++;
    };
    let progressWrites = 0;
    const progress = new Set<number>();
    const watch = setInterval(() => {
      h.shoot('c-rt-woken')
        .then((s) => {
          const p = s?.status?.lastOperation?.progress;
          if (p !== undefined && !progress.has(p)) {
            progress.add(p);
            progressWrites++;
          }
        })
        .catch(() => undefined);
    }, 20);
    clients.kcp?.reset();
    clients.garden?.reset();
    try {
      await h.land.kcp.create(testRuntime('rt-woken'));
      await waitForRuntime(h, 'rt-woken', 'Ready');
    } finally {
      clearInterval(watch);
    }
    // The passes read the Runtime and its Shoot from the informers (one GET of each per pass
    // before); only a pass that came before the informer delivered the controller's own write of
    // one asks the API server: the Runtime's status writes are followed by a pass 20 ms later,
    // the Shoot is written once.
    const read = (kind: string) => (clients.kcp?.count('get', kind) ?? 0) + (clients.garden?.count('get', kind) ?? 0);
    assert.ok(passes >= 5, `Runtime passes: ${passes}`);
    assert.ok(read('Runtime') < passes && read('Shoot') <= 1, `GETs in ${passes} passes: Runtime ${read('Runtime')}, Shoot ${read('Shoot')}`);
    assert.ok(progressWrites >= 10, `Gardener reported its progress step by step: ${[...progress].sort((a, b) => a - b).join(', ')}`);
    // Created (the finalizer, the Shoot applied), the Shoot's operation Pending, Processing,
    // Succeeded (the GardenerCluster created in the same pass), the GardenerCluster Ready (the
    // cluster configured in the same pass), and a fallback pass or two that mirror Gardener's
    // progress: a handful of passes, however often Gardener reports its progress, each with one
    // Runtime write (upstream writes each milestone and reconciles again to go on, which took ten
    // passes and ten writes here).
    assert.ok(passes <= 9, `Runtime passes from creation to Ready: ${passes}`);
    const writes = clients.kcp?.count('patch', 'Runtime') ?? 0;
    assert.ok(writes >= 3 && writes <= 8, `Runtime writes from creation to Ready (the finalizer and the status): ${writes}`);
    // Each milestone went out with the next step's outcome, never alone.
    const reasons = written.map((st) => (st.conditions ?? []).map((c) => `${c.type}=${c.reason}`).join(','));
    const reasonOf = (st: RuntimeStatus, type: string) => st.conditions?.find((c) => c.type === type)?.reason;
    assert.ok(!written.some((st) => reasonOf(st, 'Provisioned') === 'Initialised'), `Initialised was written: ${reasons.join(' | ')}`);
    assert.ok(!written.some((st) => reasonOf(st, 'Provisioned') === 'ShootCreationCompleted' && reasonOf(st, 'KubeconfigReady') === undefined), `ShootCreationCompleted was written before the GardenerCluster: ${reasons.join(' | ')}`);
    assert.ok(!written.some((st) => reasonOf(st, 'KubeconfigReady') === 'GardenerClusterCRReady' && st.state !== 'Ready'), `GardenerClusterCRReady was written before the cluster was configured: ${reasons.join(' | ')}`);
    assert.equal(written.at(-1)?.state, 'Ready');
  });
});

describe('runtime provisioning, the Runtime changed during a pass', () => {
  let h: Harness;
  let kcp: CountingClient | undefined;
  /** Set by the test: runs once before the control plane's next status write of a Runtime goes out. */
  let beforeStatusWrite: (() => Promise<void>) | undefined;
  const conflicts: string[] = [];
  /** Runtime GETs when the status write conflicted, and when the next status write went out. */
  let getsAtConflict: number | undefined;
  let getsAtNextWrite: number | undefined;
  before(async () => {
    h = await startHarness({
      wrapClient: (c, cluster) => {
        if (cluster !== 'kcp') return c;
        const interposed = new Proxy(c, {
          get(target, prop, receiver) {
            const v = Reflect.get(target, prop, receiver) as unknown;
            if (typeof v !== 'function') return v;
            if (prop !== 'patch') return (v as (...a: unknown[]) => unknown).bind(target);
            return async (...args: Parameters<Client['patch']>) => {
              const [kind, , , , opts] = args;
              const hook = kind.kind === 'Runtime' && opts?.subresource === 'status' ? beforeStatusWrite : undefined;
              if (hook) {
                beforeStatusWrite = undefined;
                await hook();
              }
              try {
                return await target.patch(...args);
              } catch (e) {
                if (hook && isConflict(e)) {
                  conflicts.push(String(args[1].name));
                  getsAtConflict = kcp?.count('get', 'Runtime') ?? 0;
                  beforeStatusWrite = () => {
                    getsAtNextWrite = kcp?.count('get', 'Runtime') ?? 0;
                    return Promise.resolve();
                  };
                }
                throw e;
              }
            };
          },
        });
        return (kcp = countingClient(interposed)).client;
      },
    });
  });
  after(async () => {
    await h.stop();
  });

  it('a status write decided on an older copy conflicts; the next pass reads the Runtime from the API server and goes on to Ready', async () => {
    await h.land.kcp.create(testRuntime('rt-raced'));
    await waitForRuntime(h, 'rt-raced', 'Pending');
    // A label changes after the next pass read the Runtime and before it writes the status.
    beforeStatusWrite = async () => {
      await h.land.kcp.patch(Runtime, { namespace: NAMESPACE, name: 'rt-raced' }, 'merge', { metadata: { labels: { 'example.com/touched': 'yes' } } });
    };
    await waitFor('the status write conflicted', () => conflicts.length > 0);
    assert.deepEqual(conflicts, ['rt-raced']);
    const rt = await waitForRuntime(h, 'rt-raced', 'Ready');
    assert.equal(rt.metadata.labels?.['example.com/touched'], 'yes', 'the other writer\'s change is kept');
    // The conflicting write noted nothing of its own; the pass after it read the Runtime from the
    // API server (not the cache) before its status write.
    assert.ok(getsAtConflict !== undefined && getsAtNextWrite !== undefined && getsAtNextWrite > getsAtConflict, `Runtime GETs at the conflict ${getsAtConflict}, at the next status write ${getsAtNextWrite}`);
  });
});
