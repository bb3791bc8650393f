// Waiting on I/O while a test's timers are mocked: setImmediate is not mocked, so these make
// progress whatever the mocked setTimeout/Date say.

/** One turn of the event loop (pending I/O callbacks run). */
export function ioTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Turns the event loop until `condition` holds; fails after `maxTurns` turns. */
export async function turnsUntil(what: string, condition: () => boolean, maxTurns = 200_000): Promise<void> {
  for (let i = 0; i < maxTurns; i++) {
    if (condition()) return;
    await ioTurn();
  }
  throw new Error(`${what}: not after ${maxTurns} event loop turns`);
}
