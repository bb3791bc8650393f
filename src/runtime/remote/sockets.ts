// Socket hygiene for thousands of cached clients: 10,000 clusters must not mean 10,000 idle
// keep-alive sockets. Clients that may hold sockets are kept in least-recently-used order;
// a client unused for `idleTimeoutMs` has its idle sockets closed, and when the request sockets of
// all clients exceed `budget`, the idle sockets of the least recently used clients are closed first.
// Sockets in use (requests in flight, watches) are never cut; watches do not count against the
// budget (they are not the budget's to close).
//
// Cost: every client reports its request sockets opening and closing, so the total is a counter and
// a check is O(1) while the total fits; over the budget the walk from the least recently used end
// stops as soon as enough idle sockets were closed.
import type { Clock } from '../timers.js';

/** How soon after a request ends an exceeded budget is enforced (requests ending meanwhile share the check). */
const BUDGET_CHECK_MS = 10;
/** How soon the budget is checked again while sockets are still finishing their answers. */
const RECHECK_MS = 20;

export interface SocketCounts {
  /** Request sockets in use. */
  active: number;
  /** Keep-alive request sockets waiting for the next request. */
  idle: number;
  /** Watch connections. */
  watches: number;
}

/** What a pooled client exposes about its connections (the runtime client's Transport has this shape). */
export interface SocketOwner {
  destroyIdleSockets(): void;
  socketCounts(): SocketCounts;
  /** Request sockets open now (in use or idle). */
  readonly openRequestSockets: number;
  /** Set by the janitor: told +1/-1 as request sockets open and close. */
  onRequestSocketsChanged: ((delta: number) => void) | undefined;
  /** Kept-alive connections the owner closed itself after they stood unused (its own idle timeout). */
  connectionStats?(): { closedIdle: number };
}

export interface SocketJanitorOptions {
  /** Open request sockets (all clients) above which least recently used clients' idle sockets are closed. */
  budget: number;
  /** A client unused this long has its idle sockets closed. */
  idleTimeoutMs: number;
  clock: Clock;
}

export function sumCounts(counts: Iterable<SocketCounts>): SocketCounts & { total: number } {
  const sum = { active: 0, idle: 0, watches: 0, total: 0 };
  for (const c of counts) {
    sum.active += c.active;
    sum.idle += c.idle;
    sum.watches += c.watches;
  }
  sum.total = sum.active + sum.idle + sum.watches;
  return sum;
}

export class SocketJanitor {
  /** Owners that may hold sockets -> when last used; iteration order is least recently used first. */
  private readonly recent = new Map<SocketOwner, number>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private budgetCheck: ReturnType<typeof setTimeout> | undefined;
  /** Request sockets of the owners in `recent`, kept by their reports. */
  private total = 0;
  private closedByBudget = 0;
  private closedByIdle = 0;

  constructor(private readonly opts: SocketJanitorOptions) {}

  /** Marks a client as just used (a request started or ended on it). */
  touch(owner: SocketOwner): void {
    if (this.recent.delete(owner)) {
      this.recent.set(owner, this.opts.clock.now());
    } else {
      this.recent.set(owner, this.opts.clock.now());
      this.total += owner.openRequestSockets;
      owner.onRequestSocketsChanged = (delta) => {
        this.total += delta;
      };
    }
    if (!this.timer) {
      this.timer = setInterval(() => this.sweepIdle(), Math.max(10, this.opts.idleTimeoutMs / 2));
      this.timer.unref();
    }
  }

  /**
   * After a request: the client was used, and the budget may now be exceeded. Enforced a moment
   * later, once for all requests ending meanwhile: the agent moves the socket to its idle list only
   * after the answer ended.
   */
  released(owner: SocketOwner): void {
    this.touch(owner);
    if (this.total > this.opts.budget) this.scheduleBudgetCheck(BUDGET_CHECK_MS);
  }

  /** A client was closed: it holds no sockets any more. */
  forget(owner: SocketOwner): void {
    if (this.recent.delete(owner)) this.untrack(owner);
  }

  /** Request sockets of all clients that may hold some (in use or idle). */
  openRequestSockets(): number {
    return this.total;
  }

  /** How many clients may hold sockets, and how many sockets were closed by the budget and the idle timeout. */
  stats(): { ownersWithSockets: number; openRequestSockets: number; closedByBudget: number; closedByIdle: number } {
    return { ownersWithSockets: this.recent.size, openRequestSockets: this.total, closedByBudget: this.closedByBudget, closedByIdle: this.closedByIdle };
  }

  /**
   * Closes idle sockets of the least recently used clients until the open request sockets fit the
   * budget. Sockets still finishing an answer become idle a moment later: while such sockets keep
   * the count above the budget, it looks again shortly.
   */
  enforceBudget(): void {
    // Sockets being destroyed report their close a moment later: count them out here already.
    let total = this.total;
    if (total <= this.opts.budget) return;
    let busy = 0;
    for (const owner of this.recent.keys()) {
      if (total <= this.opts.budget) break;
      const c = owner.socketCounts();
      if (c.idle > 0) {
        owner.destroyIdleSockets();
        total -= c.idle;
        this.closedByBudget += c.idle;
      }
      busy += c.active;
      if (c.active === 0) this.drop(owner);
    }
    if (total > this.opts.budget && busy > 0) this.scheduleBudgetCheck(RECHECK_MS);
  }

  private scheduleBudgetCheck(delayMs: number): void {
    if (this.budgetCheck) return;
    this.budgetCheck = setTimeout(() => {
      this.budgetCheck = undefined;
      this.enforceBudget();
    }, delayMs);
    this.budgetCheck.unref();
  }

  /** Closes the idle sockets of clients unused for the idle timeout. */
  sweepIdle(): void {
    const cutoff = this.opts.clock.now() - this.opts.idleTimeoutMs;
    for (const [owner, lastUsed] of this.recent) {
      if (lastUsed > cutoff) break; // the rest were used more recently
      const c = owner.socketCounts();
      if (c.idle > 0) {
        owner.destroyIdleSockets();
        this.closedByIdle += c.idle;
      }
      if (c.active === 0) this.drop(owner);
    }
    if (this.recent.size === 0) this.stopTimer();
  }

  close(): void {
    this.stopTimer();
    if (this.budgetCheck) clearTimeout(this.budgetCheck);
    this.budgetCheck = undefined;
    for (const owner of this.recent.keys()) owner.onRequestSocketsChanged = undefined;
    this.recent.clear();
    this.total = 0;
  }

  /**
   * An owner whose idle sockets were just closed and that has none in use: no longer followed (its
   * sockets closing are counted out now; its next request touches it again).
   */
  private drop(owner: SocketOwner): void {
    this.recent.delete(owner);
    this.untrack(owner);
  }

  private untrack(owner: SocketOwner): void {
    owner.onRequestSocketsChanged = undefined;
    this.total -= owner.openRequestSockets;
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
