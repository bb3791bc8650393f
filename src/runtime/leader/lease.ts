// One `coordination.k8s.io/v1` Lease held by one identity, as client-go's resourcelock.LeaseLock and
// the acquire/renew step of its leaderelection package: create the Lease or take over an expired or
// released one, renew it while held, release it. Every write carries the resourceVersion that was
// read (optimistic concurrency), so two candidates can never both win the same round.
//
// Expiry is judged the way client-go judges it, by the local clock: a Lease is expired when its
// record has not changed for `leaseDurationSeconds` since *this process* saw it change. The holder's
// clock (renewTime) is never compared with ours, so clock skew between replicas does not matter.
import type { Client } from '../client/interface.js';
import { isAlreadyExists, isConflict, isNotFound } from '../client/errors.js';
import type { KindRef, KubeObject } from '../../kube/object.js';
import { type Clock, systemClock } from '../timers.js';

export const LEASE_KIND: KindRef = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' };

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** MicroTime: RFC 3339 with microseconds. */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** A Kubernetes MicroTime (`2006-01-02T15:04:05.000000Z`). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/** Whole seconds for `leaseDurationSeconds` (the API has no finer unit), at least 1. */
export function leaseSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function sameRecord(a: LeaseSpec | undefined, b: LeaseSpec | undefined): boolean {
  return (
    (a?.holderIdentity ?? '') === (b?.holderIdentity ?? '') &&
    a?.renewTime === b?.renewTime &&
    a?.acquireTime === b?.acquireTime &&
    a?.leaseDurationSeconds === b?.leaseDurationSeconds &&
    (a?.leaseTransitions ?? 0) === (b?.leaseTransitions ?? 0)
  );
}

/**
 * What the local observer knows about a lease: the last record seen and when (local clock) it
 * last changed. Pure, so the expiry rules can be tested with numbers.
 */
export class LeaseObservation {
  private lease: Lease | undefined;
  private changedAt = 0;

  /** Records a lease as seen now (undefined: it does not exist). */
  observe(lease: Lease | undefined, now: number): void {
    if (lease && (!this.lease || !sameRecord(this.lease.spec, lease.spec))) this.changedAt = now;
    this.lease = lease;
  }

  get current(): Lease | undefined {
    return this.lease;
  }

  /** When the record last changed, by the local clock. */
  get observedAt(): number {
    return this.changedAt;
  }

  holder(): string {
    return this.lease?.spec?.holderIdentity ?? '';
  }

  /** True when the holder's lease has run out by our clock (or there is no holder). */
  expired(now: number): boolean {
    const seconds = this.lease?.spec?.leaseDurationSeconds ?? 0;
    return this.changedAt + seconds * 1000 <= now;
  }

  /** Held by someone other than `identity` whose lease still runs. */
  heldByOther(identity: string, now: number): boolean {
    const h = this.holder();
    return h !== '' && h !== identity && !this.expired(now);
  }

  /** Nobody (valid) holds it: missing, released, or expired. */
  free(now: number): boolean {
    return !this.lease || this.holder() === '' || this.expired(now);
  }
}

export interface LeaseLockOptions {
  client: Client;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  labels?: Record<string, string>;
  clock?: Clock;
}

/** How `tryAcquireOrRenew` learns the current record: read it now, or trust the last observation. */
export type ReadMode = 'read' | 'observed';

export class LeaseLock {
  readonly observation = new LeaseObservation();
  private readonly clock: Clock;
  /** True after a failed write: the observation may be out of date, so the next round reads. */
  private stale = false;

  constructor(private readonly opts: LeaseLockOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  get name(): string {
    return this.opts.name;
  }

  get identity(): string {
    return this.opts.identity;
  }

  /** Feeds a record seen elsewhere (e.g. in a list of all leases of a group). */
  observe(lease: Lease | undefined): void {
    this.observation.observe(lease, this.clock.now());
    this.stale = false;
  }

  /**
   * One acquire-or-renew round. Resolves true when we hold the lease after it, false when someone
   * else holds it or won a concurrent write (Conflict, AlreadyExists). Other errors reject.
   * With `mode: 'observed'` the last observation is trusted (no GET): the renewal fast path.
   */
  async tryAcquireOrRenew(signal: AbortSignal, mode: ReadMode = 'read'): Promise<boolean> {
    const { identity } = this.opts;
    if (mode === 'read' || this.stale || !this.observation.current) await this.read(signal);
    const now = this.clock.now();
    const seen = this.observation.current;
    if (!seen) return this.create(now, signal);
    if (this.observation.heldByOther(identity, now)) return false;
    const old = seen.spec ?? {};
    const mine = old.holderIdentity === identity;
    const spec: LeaseSpec = {
      ...old,
      holderIdentity: identity,
      leaseDurationSeconds: leaseSeconds(this.opts.leaseDurationMs),
      acquireTime: mine && old.acquireTime ? old.acquireTime : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: mine ? (old.leaseTransitions ?? 0) : (old.leaseTransitions ?? 0) + 1,
    };
    return this.write({ ...seen, spec }, signal);
  }

  /**
   * Gives the lease up so that another candidate takes it at once (client-go's ReleaseOnCancel):
   * empty holder, 1 s duration. Only when we are the holder by the last observation.
   */
  async release(signal: AbortSignal): Promise<boolean> {
    if (this.stale) await this.read(signal); // a write that timed out may have succeeded after all
    const seen = this.observation.current;
    if (!seen || seen.spec?.holderIdentity !== this.opts.identity) return false;
    const now = this.clock.now();
    const spec: LeaseSpec = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: seen.spec?.leaseTransitions ?? 0,
    };
    return this.write({ ...seen, spec }, signal);
  }

  /** Deletes the lease if we hold it (a member leaving a group), with a resourceVersion precondition. */
  async remove(signal: AbortSignal): Promise<void> {
    const seen = this.observation.current;
    if (!seen || seen.spec?.holderIdentity !== this.opts.identity) return;
    try {
      await this.opts.client.delete(LEASE_KIND, { namespace: this.opts.namespace, name: this.opts.name }, {
        signal,
        preconditions: seen.metadata.resourceVersion ? { resourceVersion: seen.metadata.resourceVersion } : undefined,
      });
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
    this.observe(undefined);
  }

  private async read(signal: AbortSignal): Promise<void> {
    const { client, namespace, name } = this.opts;
    let current: Lease | undefined;
    try {
      current = await client.get<Lease>(LEASE_KIND, { namespace, name }, { signal });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    this.observe(current);
  }

  private async create(now: number, signal: AbortSignal): Promise<boolean> {
    const { client, namespace, name, identity, labels } = this.opts;
    const lease: Lease = {
      apiVersion: LEASE_KIND.apiVersion,
      kind: LEASE_KIND.kind,
      metadata: { namespace, name, ...(labels ? { labels } : {}) },
      spec: {
        holderIdentity: identity,
        leaseDurationSeconds: leaseSeconds(this.opts.leaseDurationMs),
        acquireTime: microTime(now),
        renewTime: microTime(now),
        leaseTransitions: 0,
      },
    };
    try {
      this.observe(await client.create(lease, { signal }));
      return true;
    } catch (e) {
      if (isAlreadyExists(e) || isConflict(e)) {
        this.stale = true;
        return false;
      }
      throw e;
    }
  }

  private async write(lease: Lease, signal: AbortSignal): Promise<boolean> {
    // Until the write succeeds, what we saw may be out of date: the next round reads again.
    this.stale = true;
    try {
      this.observe(await this.opts.client.update(lease, { signal }));
      return true;
    } catch (e) {
      // Conflict: someone else wrote first. NotFound: deleted under us (the next round creates it).
      if (isConflict(e) || isNotFound(e)) return false;
      throw e;
    }
  }
}
