// The pure parts of sharding and leases: the documented hash, fair shares, preferences, and the
// local-clock expiry rule of a lease observation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LeaseObservation, leaseSeconds, microTime } from '../../../src/runtime/leader/lease.js';
import { resolveTiming } from '../../../src/runtime/leader/election.js';
import { fairShare, fnv1a32, preferenceOrder, shardOf, shardsToAcquire, shardsToRelease } from '../../../src/runtime/sharding/hash.js';
import { memberLeaseName, shardLeaseName } from '../../../src/runtime/sharding/shards.js';

describe('sharding math', () => {
  it('hashes with 32-bit FNV-1a (published test vectors)', () => {
    assert.equal(fnv1a32(''), 0x811c9dc5);
    assert.equal(fnv1a32('a'), 0xe40c292c);
    assert.equal(fnv1a32('foobar'), 0xbf9cf968);
    // UTF-8 bytes, not UTF-16 code units.
    assert.equal(fnv1a32('é'), fnv1a32('\u00e9'));
    assert.notEqual(fnv1a32('é'), fnv1a32('e'));
  });

  it('puts a key in shard fnv1a32(key) % N, spread evenly', () => {
    assert.equal(shardOf('kcp-system/runtime-1', 16), fnv1a32('kcp-system/runtime-1') % 16);
    const counts = new Array<number>(8).fill(0);
    for (let i = 0; i < 8000; i++) counts[shardOf(`ns-${i % 13}/obj-${i}`, 8)]++;
    for (const c of counts) assert.ok(c > 800 && c < 1200, `even spread: ${counts.join(', ')}`);
    assert.throws(() => shardOf('x', 0));
  });

  it('gives each replica at most ceil(shards / replicas)', () => {
    assert.equal(fairShare(12, 3), 4);
    assert.equal(fairShare(10, 3), 4);
    assert.equal(fairShare(12, 0), 12);
    assert.equal(fairShare(2, 5), 1);
    // With every replica at the fair share, every shard can be held.
    for (let n = 1; n <= 32; n++) for (let r = 1; r <= 8; r++) assert.ok(fairShare(n, r) * r >= n);
  });

  it('orders shards by a per-replica preference, releasing the least preferred', () => {
    const all = Array.from({ length: 12 }, (_, i) => i);
    const a = preferenceOrder('replica-a', all);
    const b = preferenceOrder('replica-b', all);
    assert.deepEqual([...a].sort((x, y) => x - y), all);
    assert.notDeepEqual(a, b, 'replicas prefer different shards');
    assert.deepEqual(shardsToRelease('replica-a', all, 4), a.slice(4));
    assert.deepEqual(shardsToAcquire('replica-a', 1, all, 4), a.slice(0, 3));
    assert.deepEqual(shardsToAcquire('replica-a', 5, all, 4), []);
  });

  it('names the Leases of a group', () => {
    assert.equal(shardLeaseName('controllers', 3), 'controllers-shard-3');
    assert.match(memberLeaseName('controllers', 'Pod_Name:8080'), /^controllers-member-[0-9a-f]{8}$/);
  });
});

describe('lease observation', () => {
  const lease = (holder: string, renewTime: string, seconds = 2) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'l', namespace: 'default' },
    spec: { holderIdentity: holder, leaseDurationSeconds: seconds, renewTime },
  });

  it('expires a lease by the local clock, counted from when its record last changed', () => {
    const o = new LeaseObservation();
    assert.equal(o.free(0), true, 'no lease: free');
    // The holder's renewTime is far in the past by our clock: irrelevant (clock skew).
    o.observe(lease('a', '2000-01-01T00:00:00.000000Z'), 10_000);
    assert.equal(o.heldByOther('b', 11_999), true);
    assert.equal(o.heldByOther('a', 11_999), false, 'not "other" for the holder itself');
    // Seen again unchanged: the clock keeps running from the first sighting.
    o.observe(lease('a', '2000-01-01T00:00:00.000000Z'), 11_000);
    assert.equal(o.expired(12_000), true);
    assert.equal(o.free(12_000), true);
    // A renewal (changed record) restarts it.
    o.observe(lease('a', '2000-01-01T00:00:01.000000Z'), 12_500);
    assert.equal(o.heldByOther('b', 14_000), true);
    assert.equal(o.expired(14_500), true);
  });

  it('treats a released lease (empty holder) as free at once', () => {
    const o = new LeaseObservation();
    o.observe(lease('', '2000-01-01T00:00:00.000000Z', 1), 5_000);
    assert.equal(o.free(5_000), true);
    assert.equal(o.heldByOther('b', 5_000), false);
  });

  it('formats MicroTime and whole lease seconds', () => {
    assert.equal(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678)), '2026-01-02T03:04:05.678000Z');
    assert.equal(leaseSeconds(2000), 2);
    assert.equal(leaseSeconds(1500), 2);
    assert.equal(leaseSeconds(10), 1);
  });

  it('checks the timing order of client-go: lease > renew deadline > retry period', () => {
    assert.deepEqual(resolveTiming({}), { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    assert.throws(() => resolveTiming({ leaseDurationMs: 1000, renewDeadlineMs: 1000 }));
    assert.throws(() => resolveTiming({ renewDeadlineMs: 300, retryPeriodMs: 300 }));
  });
});
