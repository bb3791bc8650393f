// The socket budget of the remote-client cache with owners whose sockets the test controls: the
// total is kept from the owners' reports (no counting while it fits the budget), the least
// recently used owners' idle sockets go first, busy sockets are never cut, and the open sockets
// never stay above the budget once answers ended.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type SocketCounts, SocketJanitor, type SocketOwner } from '../../../src/runtime/remote/sockets.js';

class FakeOwner implements SocketOwner {
  active = 0;
  idle = 0;
  /** Destroyed, close not reported yet: still open as far as the owner's count goes. */
  closing = 0;
  countCalls = 0;
  onRequestSocketsChanged: ((delta: number) => void) | undefined;

  constructor(readonly name: string) {}

  get openRequestSockets(): number {
    return this.active + this.idle + this.closing;
  }

  socketCounts(): SocketCounts {
    this.countCalls++;
    return { active: this.active, idle: this.idle, watches: 0 };
  }

  destroyIdleSockets(): void {
    const closed = this.idle;
    this.idle = 0;
    this.closing += closed;
    // As with real sockets, the close is reported a moment later.
    queueMicrotask(() => {
      this.closing -= closed;
      this.onRequestSocketsChanged?.(-closed);
    });
  }

  /** A request on a new connection: the socket opens busy, then turns idle. */
  async request(janitor: SocketJanitor): Promise<void> {
    janitor.touch(this);
    this.active++;
    this.onRequestSocketsChanged?.(1);
    await Promise.resolve();
    this.active--;
    this.idle++;
    janitor.released(this);
  }
}

const clock = { now: () => Date.now() };

describe('socket janitor', () => {
  it('keeps the total from reports: no owner is counted while the total fits the budget', async () => {
    const janitor = new SocketJanitor({ budget: 2048, idleTimeoutMs: 60_000, clock });
    const owners = Array.from({ length: 1000 }, (_, i) => new FakeOwner(`o${i}`));
    for (const o of owners) await o.request(janitor);
    janitor.enforceBudget();
    assert.equal(janitor.openRequestSockets(), 1000);
    assert.equal(owners.reduce((n, o) => n + o.countCalls, 0), 0, 'no socketCounts call under the budget');
    janitor.close();
  });

  it('closes the least recently used idle sockets first, never busy ones, and ends within the budget', async () => {
    const budget = 10;
    const janitor = new SocketJanitor({ budget, idleTimeoutMs: 60_000, clock });
    const owners = Array.from({ length: 30 }, (_, i) => new FakeOwner(`o${i}`));
    // o0 holds a request in flight the whole time (its socket is busy).
    const busy = owners[0];
    janitor.touch(busy);
    busy.active = 1;
    busy.onRequestSocketsChanged?.(1);
    for (const o of owners.slice(1)) {
      await o.request(janitor);
      janitor.enforceBudget();
      await Promise.resolve();
      assert.ok(janitor.openRequestSockets() <= budget, `open ${janitor.openRequestSockets()} within ${budget} after ${o.name}`);
    }
    assert.equal(busy.active, 1, 'the busy socket was not cut');
    const withIdle = owners.filter((o) => o.idle > 0).map((o) => o.name);
    assert.deepEqual(withIdle, ['o21', 'o22', 'o23', 'o24', 'o25', 'o26', 'o27', 'o28', 'o29'], 'the most recently used keep their idle sockets');
    assert.equal(janitor.stats().closedByBudget, 20);
    janitor.close();
  });

  it('an owner used again after its sockets were closed is counted again', async () => {
    const janitor = new SocketJanitor({ budget: 1, idleTimeoutMs: 60_000, clock });
    const a = new FakeOwner('a');
    const b = new FakeOwner('b');
    await a.request(janitor);
    await b.request(janitor);
    janitor.enforceBudget();
    await Promise.resolve();
    assert.deepEqual([a.idle, b.idle, janitor.openRequestSockets()], [0, 1, 1]);
    await a.request(janitor);
    assert.equal(janitor.openRequestSockets(), 2);
    janitor.enforceBudget();
    await Promise.resolve();
    assert.deepEqual([a.idle, b.idle, janitor.openRequestSockets()], [1, 0, 1]);
    janitor.close();
  });
});
