// Leader election against the embedded API server: mutual exclusion, hand-over after a crash and
// on release, surviving a short API blip, stepping down when renewals fail past the deadline.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../../src/apiserver/server.js';
import { clientFromKubeconfig, type HttpClient } from '../../../src/runtime/client/index.js';
import { LEASE_KIND, type Lease } from '../../../src/runtime/leader/lease.js';
import { type LeaderElectionTiming, LeaderElector } from '../../../src/runtime/leader/election.js';
import { sleep } from '../../../src/util/sleep.js';
import { waitFor } from '../../support/wait.js';

const timing: Required<LeaderElectionTiming> = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 };

interface Interval {
  who: string;
  start: number;
  end?: number;
}

/** Leadership intervals of all candidates of one Lease, in the order they started. */
class Recorder {
  readonly intervals: Interval[] = [];

  callbacks(who: string): { onStartedLeading: () => void; onStoppedLeading: () => void } {
    return {
      onStartedLeading: () => {
        this.intervals.push({ who, start: performance.now() });
      },
      onStoppedLeading: () => {
        const open = this.intervals.findLast((i) => i.who === who && i.end === undefined);
        assert.ok(open, `${who} stopped leading without having started`);
        open.end = performance.now();
      },
    };
  }

  assertNoOverlap(): void {
    const open = this.intervals.filter((i) => i.end === undefined);
    assert.ok(open.length <= 1, `at most one leader at a time, open intervals: ${JSON.stringify(open)}`);
    const sorted = [...this.intervals].sort((a, b) => a.start - b.start);
    for (let k = 1; k < sorted.length; k++) {
      const prev = sorted[k - 1];
      assert.ok(prev.end !== undefined && prev.end <= sorted[k].start, `leadership of ${prev.who} and ${sorted[k].who} overlap: ${JSON.stringify(sorted)}`);
    }
  }
}

describe('leader election', () => {
  let server: RunningApiServer;
  const clients: HttpClient[] = [];
  const electors: LeaderElector[] = [];

  before(async () => {
    server = await startApiServer({ port: 0 });
  });
  after(async () => {
    await Promise.all(electors.map((e) => e.stop({ release: false })));
    for (const c of clients) c.close();
    await server.stop();
  });

  async function cluster(name: string): Promise<string> {
    return (await server.createCluster(name)).kubeconfig;
  }

  function candidate(kubeconfig: string, identity: string, recorder: Recorder, t: Required<LeaderElectionTiming> = timing): LeaderElector {
    const client = clientFromKubeconfig(kubeconfig, { retries: 1 });
    clients.push(client);
    const elector = new LeaderElector({ client, namespace: 'default', name: 'controller-leader', identity, ...t, ...recorder.callbacks(identity) });
    electors.push(elector);
    return elector;
  }

  async function readLease(kubeconfig: string): Promise<Lease> {
    const client = clientFromKubeconfig(kubeconfig);
    try {
      return await client.get<Lease>(LEASE_KIND, { namespace: 'default', name: 'controller-leader' });
    } finally {
      client.close();
    }
  }

  it('never lets two electors lead at once, and hands over within the lease duration when the leader is abandoned', async () => {
    const kubeconfig = await cluster('leader-abandon');
    const rec = new Recorder();
    const a = candidate(kubeconfig, 'replica-a', rec);
    const b = candidate(kubeconfig, 'replica-b', rec);
    a.start();
    b.start();
    await waitFor('a leader', () => a.isLeader() || b.isLeader());
    const [leader, follower] = a.isLeader() ? [a, b] : [b, a];
    // Let the leader renew a few times while the follower keeps trying.
    const first = await readLease(kubeconfig);
    await waitFor('three renewals', async () => {
      const l = await readLease(kubeconfig);
      return Date.parse(l.spec?.renewTime ?? '') - Date.parse(first.spec?.renewTime ?? '') >= 3 * timing.retryPeriodMs;
    });
    assert.equal(follower.isLeader(), false);
    assert.equal(follower.leader(), leader.identity, 'the follower sees who leads');
    assert.equal(first.spec?.holderIdentity, leader.identity);
    assert.equal(first.spec?.leaseDurationSeconds, 2);

    // Crash: stop renewing without releasing.
    const abandonedAt = performance.now();
    await leader.stop({ release: false });
    await waitFor('the follower takes over', () => follower.isLeader());
    const handOver = performance.now() - abandonedAt;
    assert.ok(handOver >= timing.leaseDurationMs - timing.renewDeadlineMs, `waited for the lease to expire (${Math.round(handOver)} ms)`);
    // Within the lease duration plus retry periods (generous slack for a loaded machine).
    assert.ok(handOver <= timing.leaseDurationMs + 2 * timing.retryPeriodMs + 3000, `handed over in ${Math.round(handOver)} ms`);
    const taken = await readLease(kubeconfig);
    assert.equal(taken.spec?.holderIdentity, follower.identity);
    assert.equal(taken.spec?.leaseTransitions, (first.spec?.leaseTransitions ?? 0) + 1);
    rec.assertNoOverlap();
    await follower.stop();
  });

  it('hands over at once when the leader releases the Lease on shutdown', async () => {
    const kubeconfig = await cluster('leader-release');
    const rec = new Recorder();
    // A long lease: a hand-over by expiry would take at least 6 s, by release about a retry period.
    const slow = { leaseDurationMs: 8000, renewDeadlineMs: 6000, retryPeriodMs: 300 };
    const a = candidate(kubeconfig, 'replica-a', rec, slow);
    const b = candidate(kubeconfig, 'replica-b', rec, slow);
    a.start();
    await waitFor('a leads', () => a.isLeader());
    b.start();
    await waitFor('b has seen the leader', () => b.leader() === 'replica-a');
    const stoppedAt = performance.now();
    await a.stop();
    await waitFor('b takes over', () => b.isLeader());
    const handOver = performance.now() - stoppedAt;
    assert.ok(handOver < slow.renewDeadlineMs, `handed over in ${Math.round(handOver)} ms, before the lease could have expired`);
    const lease = await readLease(kubeconfig);
    assert.equal(lease.spec?.holderIdentity, 'replica-b');
    rec.assertNoOverlap();
    assert.deepEqual(
      rec.intervals.map((i) => i.who),
      ['replica-a', 'replica-b'],
    );
    await b.stop();
    const released = await readLease(kubeconfig);
    assert.equal(released.spec?.holderIdentity, '', 'released on stop');
  });

  it('keeps leadership through an API blip shorter than the renew deadline', async () => {
    const kubeconfig = await cluster('leader-blip');
    const rec = new Recorder();
    const a = candidate(kubeconfig, 'replica-a', rec);
    a.start();
    await waitFor('a leads', () => a.isLeader());
    const b = candidate(kubeconfig, 'replica-b', rec);
    b.start();
    await waitFor('b has seen the leader', () => b.leader() === 'replica-a');
    server.setFaults('leader-blip', { errorRate: 1, errorCodes: [500, 503] });
    await sleep(500); // the length of the blip
    server.setFaults('leader-blip', undefined);
    const afterBlip = Date.now();
    await waitFor('a renews again', async () => Date.parse((await readLease(kubeconfig)).spec?.renewTime ?? '') >= afterBlip - 50);
    assert.equal(a.isLeader(), true);
    assert.equal(rec.intervals.length, 1, `one uninterrupted leadership: ${JSON.stringify(rec.intervals)}`);
    assert.equal(rec.intervals[0].end, undefined);
    rec.assertNoOverlap();
    await Promise.all([a.stop(), b.stop()]);
  });

  it('steps down when renewals fail past the renew deadline, and leadership resumes after the outage', async () => {
    const kubeconfig = await cluster('leader-outage');
    const rec = new Recorder();
    const a = candidate(kubeconfig, 'replica-a', rec);
    const b = candidate(kubeconfig, 'replica-b', rec);
    a.start();
    await waitFor('a leads', () => a.isLeader());
    b.start();
    const outageAt = performance.now();
    server.setFaults('leader-outage', { errorRate: 1, errorCodes: [500] });
    await waitFor('a steps down', () => !a.isLeader());
    const steppedDown = performance.now() - outageAt;
    assert.ok(steppedDown <= timing.renewDeadlineMs + 1000, `stepped down ${Math.round(steppedDown)} ms into the outage`);
    assert.equal(b.isLeader(), false, 'nobody can acquire during the outage');
    server.setFaults('leader-outage', undefined);
    await waitFor('someone leads again', () => a.isLeader() || b.isLeader());
    rec.assertNoOverlap();
    await Promise.all([a.stop(), b.stop()]);
  });
});
