// A controllable clock for one test: `performance.now()` and `setTimeout` (node:test's mock timers)
// stand still until the test moves them with `tick`, so that delays can be checked exactly instead
// of by measuring wall-clock time on a noisy machine. Restored when the test ends.
import type { TestContext } from 'node:test';

export class FakeClock {
  private nowMs: number;

  constructor(
    private readonly t: TestContext,
    start = 1_000_000,
  ) {
    this.nowMs = start;
    t.mock.method(performance, 'now', () => this.nowMs);
    t.mock.timers.enable({ apis: ['setTimeout'] });
  }

  now(): number {
    return this.nowMs;
  }

  /** Moves time forward by `ms` and runs the timers that became due. */
  tick(ms: number): void {
    this.nowMs += ms;
    this.t.mock.timers.tick(ms);
  }
}
