// Leader election against the embedded API server: mutual exclusion, hand-over after a crash and
// on release, surviving a short API blip, stepping down when renewals fail past the deadline.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../../src/apiserver/server.js';
import { clientFromKubeconfig, type HttpClient } from '../../../src/runtime/client/index.js';
import { LEASE_KIND, type Lease } from '../../../src/runtime/leader/lease.js';
import { type LeaderElectionTiming, LeaderElector } from '../../../src/runtime/leader/election.js';
import { ManualClock } from '../../support/clock.js';
import { type CountingClient, countingClient } from '../../support/counting-client.js';
import { RecordingLogger } from '../../support/log.js';
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

  interface Candidate {
    elector: LeaderElector;
    /** The candidate's requests to the API server (a candidate reads the Lease on every attempt). */
    requests: CountingClient<HttpClient>;
    clock: ManualClock;
    log: RecordingLogger;
  }

  function candidate(kubeconfig: string, identity: string, recorder: Recorder, t: Required<LeaderElectionTiming> = timing): Candidate {
    const http = clientFromKubeconfig(kubeconfig, { retries: 1 });
    clients.push(http);
    const requests = countingClient(http);
    const clock = new ManualClock();
    const log = new RecordingLogger();
    const elector = new LeaderElector({ client: requests.client, namespace: 'default', name: 'controller-leader', identity, clock, log, ...t, ...recorder.callbacks(identity) });
    electors.push(elector);
    return { elector, requests, clock, log };
  }

  async function readLease(kubeconfig: string): Promise<Lease> {
    const client = clientFromKubeconfig(kubeconfig);
    try {
      return await client.get<Lease>(LEASE_KIND, { namespace: 'default', name: 'controller-leader' });
    } finally {
      client.close();
    }
  }

  it('never lets two electors lead at once, and hands over when the abandoned lease expires by the follower\'s clock', async () => {
    const kubeconfig = await cluster('leader-abandon');
    const rec = new Recorder();
    const ca = candidate(kubeconfig, 'replica-a', rec);
    const cb = candidate(kubeconfig, 'replica-b', rec);
    const [a, b] = [ca.elector, cb.elector];
    a.start();
    b.start();
    await waitFor('a leader', () => a.isLeader() || b.isLeader());
    const [leading, following] = a.isLeader() ? [ca, cb] : [cb, ca];
    const [leader, follower] = [leading.elector, following.elector];
    // Let the leader renew a few times (counted writes) while the follower keeps trying.
    const first = await readLease(kubeconfig);
    const renewals = leading.requests.count('update');
    await waitFor('three renewals', () => leading.requests.count('update') >= renewals + 3);
    assert.equal(follower.isLeader(), false);
    assert.equal(follower.leader(), leader.identity, 'the follower sees who leads');
    assert.equal(first.spec?.holderIdentity, leader.identity);
    assert.equal(first.spec?.leaseDurationSeconds, 2);

    // Crash: stop renewing without releasing. The follower's clock stands still, so by its clock
    // the lease never runs out: it keeps trying (counted reads) and must not take over.
    following.clock.freeze();
    await leader.stop({ release: false });
    const reads = following.requests.count('get');
    await waitFor('the follower trying twice more', () => following.requests.count('get') >= reads + 2);
    assert.equal(follower.isLeader(), false, 'no take-over before the lease expired by the follower\'s clock');
    // The lease duration passes on the follower's clock: it takes over at its next attempt.
    following.clock.advance(timing.leaseDurationMs);
    const readsAtExpiry = following.requests.count('get');
    await waitFor('the follower takes over', () => follower.isLeader());
    assert.ok(following.requests.count('get') - readsAtExpiry <= 1, `taken over at the first attempt after the expiry (${following.requests.count('get') - readsAtExpiry} reads)`);
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
    const a = candidate(kubeconfig, 'replica-a', rec, slow).elector;
    const cb = candidate(kubeconfig, 'replica-b', rec, slow);
    const b = cb.elector;
    a.start();
    await waitFor('a leads', () => a.isLeader());
    b.start();
    await waitFor('b has seen the leader', () => b.leader() === 'replica-a');
    // b's clock stands still: by it a's lease can never expire, so only the release can hand over.
    cb.clock.freeze();
    await a.stop();
    await waitFor('b takes over', () => b.isLeader());
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
    // A renew deadline far longer than the blip: a loaded machine (a renewal's answer delayed by a
    // busy event loop) must not turn a short blip into a long one.
    const roomy: Required<LeaderElectionTiming> = { leaseDurationMs: 8000, renewDeadlineMs: 6000, retryPeriodMs: 300 };
    const ca = candidate(kubeconfig, 'replica-a', rec, roomy);
    const a = ca.elector;
    a.start();
    await waitFor('a leads', () => a.isLeader());
    const b = candidate(kubeconfig, 'replica-b', rec, roomy).elector;
    b.start();
    await waitFor('b has seen the leader', () => b.leader() === 'replica-a');
    // The blip lasts 500 ms, and at least until a has sent a renewal into it (counted requests):
    // a blip that no renewal met would prove nothing.
    const sent = () => ca.requests.count();
    const sentBefore = sent();
    server.setFaults('leader-blip', { errorRate: 1, errorCodes: [500, 503] });
    await Promise.all([new Promise((r) => setTimeout(r, 500)), waitFor('a renewal sent during the blip', () => sent() > sentBefore)]);
    server.setFaults('leader-blip', undefined);
    const atRecovery = await readLease(kubeconfig);
    await waitFor('a renews again', async () => (await readLease(kubeconfig)).spec?.renewTime !== atRecovery.spec?.renewTime);
    assert.equal((await readLease(kubeconfig)).spec?.holderIdentity, 'replica-a');
    assert.equal(a.isLeader(), true);
    assert.equal(rec.intervals.length, 1, `one uninterrupted leadership: ${JSON.stringify(rec.intervals)}`);
    assert.equal(rec.intervals[0].end, undefined);
    rec.assertNoOverlap();
    await Promise.all([a.stop(), b.stop()]);
  });

  it('steps down when renewals fail past the renew deadline, and leadership resumes after the outage', async () => {
    const kubeconfig = await cluster('leader-outage');
    const rec = new Recorder();
    const ca = candidate(kubeconfig, 'replica-a', rec);
    const a = ca.elector;
    const b = candidate(kubeconfig, 'replica-b', rec).elector;
    a.start();
    await waitFor('a leads', () => a.isLeader());
    b.start();
    const failures = () => ca.log.matching('acquire/renew failed').length;
    const failedBefore = failures();
    server.setFaults('leader-outage', { errorRate: 1, errorCodes: [500] });
    await waitFor('a steps down', () => !a.isLeader());
    // Counted, not timed: a stepped down because its renew deadline passed, after renewals failed,
    // and before it could have tried more often than fits into the deadline (one per retry period).
    const failed = failures() - failedBefore;
    assert.deepEqual(ca.log.matching('stopped leading').map((r) => r.fields.reason), ['renew deadline passed']);
    assert.ok(failed >= 1 && failed <= timing.renewDeadlineMs / timing.retryPeriodMs + 1, `renewals failed before stepping down: ${failed}`);
    assert.equal(b.isLeader(), false, 'nobody can acquire during the outage');
    server.setFaults('leader-outage', undefined);
    await waitFor('someone leads again', () => a.isLeader() || b.isLeader());
    rec.assertNoOverlap();
    await Promise.all([a.stop(), b.stop()]);
  });
});
