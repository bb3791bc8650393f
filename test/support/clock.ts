// A clock for the leader election and sharding code (their `Clock` option) that follows the real
// clock until a test freezes it, and then moves only when the test says so. With a frozen clock a
// replica can never see a lease expire, so a take-over proves a release; advancing it by the lease
// duration makes expiry happen exactly when the test wants it, instead of measuring wall-clock time.
import type { Clock } from '../../src/runtime/timers.js';

export class ManualClock implements Clock {
  private frozenAt: number | undefined;

  now(): number {
    return this.frozenAt ?? Date.now();
  }

  /** Stops the clock at the current time. */
  freeze(): void {
    this.frozenAt = this.now();
  }

  /** Moves the (frozen) clock forward. */
  advance(ms: number): void {
    this.frozenAt = this.now() + ms;
  }
}
