import { sleep } from '../../src/util/sleep.js';
// Polling for tests: wait until a probe returns a truthy value.

/** Polls `probe` until it returns a truthy value or `timeoutMs` passes; errors thrown meanwhile count as "not yet". */
export async function waitFor<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 20_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    await sleep(intervalMs);
  }
}
