// Leader election with a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it.
//
// A candidate tries to acquire the Lease every `retryPeriod` (with jitter): it creates it, or takes
// it over when its holder let it expire (no change seen for `leaseDuration`) or released it. The
// leader renews every `retryPeriod`; a failed renewal is retried at the next tick, so a short API
// blip is survived. When no renewal has succeeded for `renewDeadline` (counted from the start of
// the last successful attempt, i.e. before the server wrote it), the leader stops leading at once,
// even if a request still hangs. Because renewDeadline < leaseDuration and the others count the
// lease duration from when they *saw* that write, the old leader has stopped before anyone else can
// take over. On stop the Lease is released (empty holder) so another candidate takes over at once.
import type { Client } from '../client/interface.js';
import { LeaseLock } from './lease.js';
import { type Clock, Deadline, jitter, systemClock, withTimeout } from '../timers.js';
import { pause } from '../../util/sleep.js';
import { type Logger, silentLogger } from '../log.js';

export interface LeaderElectionTiming {
  /** How long others wait after the last change they saw before taking over (default 15 s). */
  leaseDurationMs?: number;
  /** How long the leader keeps leading without a successful renewal (default 10 s). */
  renewDeadlineMs?: number;
  /** Time between acquire/renew attempts (default 2 s). */
  retryPeriodMs?: number;
}

export interface LeaderElectionOptions extends LeaderElectionTiming {
  client: Client;
  /** Namespace and name of the Lease. */
  namespace: string;
  name: string;
  /** This candidate's identity (pod name, hostname + random suffix). Must be unique among candidates. */
  identity: string;
  /** Called on becoming leader; `signal` aborts when leadership ends. A returned promise is awaited on stop. */
  onStartedLeading?: (signal: AbortSignal) => void | Promise<void>;
  /** Called when leadership ends (lost, or stop()). Only after onStartedLeading. */
  onStoppedLeading?: () => void;
  /** Called when the observed leader changes (including to ourselves). */
  onNewLeader?: (identity: string) => void;
  /** Release the Lease on stop() (default true). */
  releaseOnStop?: boolean;
  clock?: Clock;
  log?: Logger;
}

export const DEFAULT_TIMING: Required<LeaderElectionTiming> = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** Fills defaults and checks client-go's ordering: leaseDuration > renewDeadline > retryPeriod. */
export function resolveTiming(t: LeaderElectionTiming): Required<LeaderElectionTiming> {
  const r = { ...DEFAULT_TIMING, ...Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined)) } as Required<LeaderElectionTiming>;
  if (!(r.leaseDurationMs > r.renewDeadlineMs)) throw new Error(`leaseDuration (${r.leaseDurationMs} ms) must be greater than renewDeadline (${r.renewDeadlineMs} ms)`);
  if (!(r.renewDeadlineMs > r.retryPeriodMs)) throw new Error(`renewDeadline (${r.renewDeadlineMs} ms) must be greater than retryPeriod (${r.retryPeriodMs} ms)`);
  if (r.retryPeriodMs <= 0) throw new Error('retryPeriod must be positive');
  return r;
}

export class LeaderElector {
  private readonly timing: Required<LeaderElectionTiming>;
  private readonly lock: LeaseLock;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly deadline: Deadline;
  private loopAbort: AbortController | undefined;
  private loopDone: Promise<void> | undefined;
  private leading: AbortController | undefined;
  private leadingTask: Promise<void> | undefined;
  private lastLeader = '';
  /** Start of the last successful acquire/renew attempt: the renew deadline counts from here. */
  private lastRenewStart = 0;

  constructor(private readonly opts: LeaderElectionOptions) {
    this.timing = resolveTiming(opts);
    this.clock = opts.clock ?? systemClock;
    this.log = (opts.log ?? silentLogger).child('leader', { lease: `${opts.namespace}/${opts.name}`, identity: opts.identity });
    this.lock = new LeaseLock({ client: opts.client, namespace: opts.namespace, name: opts.name, identity: opts.identity, leaseDurationMs: this.timing.leaseDurationMs, clock: this.clock });
    // The leader's task is not awaited here; it logs its own failure (see startLeading).
    this.deadline = new Deadline(() => {
      this.stopLeading('renew deadline passed')?.catch(() => undefined);
    });
  }

  get identity(): string {
    return this.opts.identity;
  }

  isLeader(): boolean {
    return this.leading !== undefined;
  }

  /** The holder seen last (may be stale or expired), '' when none. */
  leader(): string {
    return this.lastLeader;
  }

  /** Starts campaigning (idempotent). After losing leadership the elector campaigns again. */
  start(): void {
    if (this.loopAbort) return;
    this.loopAbort = new AbortController();
    this.loopDone = this.loop(this.loopAbort.signal);
  }

  /**
   * Stops campaigning and leading. With `release` (default `releaseOnStop`, true) the Lease is
   * handed back so another candidate takes over at once; without it (a crash), others wait for
   * the lease to expire.
   */
  async stop(opts: { release?: boolean } = {}): Promise<void> {
    const release = opts.release ?? this.opts.releaseOnStop ?? true;
    if (!this.loopAbort) return;
    this.loopAbort.abort();
    await this.loopDone;
    this.loopAbort = undefined;
    const wasLeading = this.isLeader();
    const task = this.stopLeading('stopping');
    // Let the leader's work wind down before another replica may start it.
    if (task) {
      const giveUp = new AbortController();
      await Promise.race([task, pause(this.timing.renewDeadlineMs, giveUp.signal)]);
      giveUp.abort();
    }
    if (wasLeading && release) {
      try {
        await withTimeout(new AbortController().signal, this.timing.renewDeadlineMs, (s) => this.lock.release(s));
        this.log.info('released lease');
      } catch (e) {
        this.log.warn('could not release lease', { error: e });
      }
    }
  }

  private async loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.attempt(signal);
      if (signal.aborted) break;
      await pause(this.isLeader() ? this.timing.retryPeriodMs : jitter(this.timing.retryPeriodMs), signal);
    }
  }

  /** One acquire-or-renew round; never rejects. */
  private async attempt(signal: AbortSignal): Promise<void> {
    const started = this.clock.now();
    const leading = this.isLeader();
    // A leader's request may not outlive its deadline; a candidate's gets the renew deadline.
    const budget = leading ? this.lastRenewStart + this.timing.renewDeadlineMs - started : this.timing.renewDeadlineMs;
    let held = false;
    try {
      held = await withTimeout(signal, Math.max(1, budget), (s) => this.lock.tryAcquireOrRenew(s, leading ? 'observed' : 'read'));
    } catch (e) {
      if (!signal.aborted) this.log.debug('acquire/renew failed', { error: e });
    }
    if (signal.aborted) return;
    this.noteLeader();
    const remaining = started + this.timing.renewDeadlineMs - this.clock.now();
    if (held && remaining > 0) {
      this.lastRenewStart = started;
      this.deadline.arm(remaining);
      if (!this.isLeader()) this.startLeading();
    } else if (this.isLeader() && this.lock.observation.heldByOther(this.opts.identity, this.clock.now())) {
      this.stopLeading('lease taken by another holder')?.catch(() => undefined); // the task logs its own failure
    }
  }

  private noteLeader(): void {
    const holder = this.lock.observation.holder();
    if (holder === this.lastLeader) return;
    this.lastLeader = holder;
    if (holder) this.opts.onNewLeader?.(holder);
  }

  private startLeading(): void {
    const controller = new AbortController();
    this.leading = controller;
    this.log.info('started leading');
    try {
      const result = this.opts.onStartedLeading?.(controller.signal);
      this.leadingTask = Promise.resolve(result).catch((e: unknown) => this.log.error('onStartedLeading failed', { error: e }));
    } catch (e) {
      this.log.error('onStartedLeading failed', { error: e });
      this.leadingTask = undefined;
    }
  }

  /** Ends leadership (if leading); returns the leader's task so that stop() can await it. */
  private stopLeading(why: string): Promise<void> | undefined {
    this.deadline.clear();
    const controller = this.leading;
    if (!controller) return undefined;
    this.leading = undefined;
    const task = this.leadingTask;
    this.leadingTask = undefined;
    controller.abort(new Error(`leadership lost: ${why}`));
    this.log.info('stopped leading', { reason: why });
    try {
      this.opts.onStoppedLeading?.();
    } catch (e) {
      this.log.error('onStoppedLeading failed', { error: e });
    }
    return task;
  }
}
