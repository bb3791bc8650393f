// `--wait`: polls until something is done or failed and keeps a person informed with one progress line
// (state, the latest condition message, elapsed time). On a terminal the line is rewritten in place;
// otherwise a new line is printed only when the state or message changes.
import { sleep } from '../util/sleep.js';
import type { CliContext } from './connect.js';
import { elapsed, type CliOutput } from './output.js';

/** One look at the thing waited for. */
export interface Observation {
  /** The wait is over and succeeded. */
  done?: boolean;
  /** The wait is over and failed; the text says why (becomes the error message). */
  failed?: string;
  /** What to show: e.g. `Pending: Shoot creation in progress`. */
  status: string;
  /** Print nothing for this (final) observation. */
  quiet?: boolean;
}

export interface WaitOptions {
  /** What is waited for, for the timeout message (`runtime r1 to become Ready`). */
  what: string;
  observe(signal?: AbortSignal): Promise<Observation>;
  output: CliOutput;
  signal?: AbortSignal;
  timeoutMs: number;
  pollMs?: number;
  now?: () => number;
}

/** Polls `observe` until done (returns the last status) or failed / timed out (throws). */
export async function waitWithProgress(opts: WaitOptions): Promise<string> {
  const now = opts.now ?? Date.now;
  const start = now();
  const pollMs = opts.pollMs ?? 500;
  let lastPrinted = '';
  let lineOpen = false;
  const show = (status: string, final: boolean) => {
    const line = `${status} (${elapsed(now() - start)})`;
    if (opts.output.interactive) {
      const width = opts.output.columns ?? 0;
      const fitted = width > 1 && line.length >= width ? `${line.slice(0, width - 2)}…` : line;
      opts.output.err(`\r\x1b[K${fitted}${final ? '\n' : ''}`);
      lineOpen = !final;
    } else if (status !== lastPrinted) {
      opts.output.err(`${line}\n`);
    }
    lastPrinted = status;
  };
  try {
    for (;;) {
      let seen: Observation;
      try {
        seen = await opts.observe(opts.signal);
      } catch (e) {
        if (opts.signal?.aborted) throw e;
        // A passing error (a restarting control plane) is shown, not fatal: the deadline decides.
        seen = { status: `waiting: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}` };
      }
      if (seen.done) {
        if (!seen.quiet) show(seen.status, true);
        return seen.status;
      }
      if (seen.failed !== undefined) {
        if (!seen.quiet) show(seen.status, true);
        throw new Error(seen.failed);
      }
      show(seen.status, false);
      if (now() - start > opts.timeoutMs) throw new Error(`timed out after ${elapsed(now() - start)} waiting for ${opts.what} (last: ${seen.status})`);
      await sleep(pollMs, opts.signal);
    }
  } finally {
    if (lineOpen) opts.output.err('\n');
  }
}

/** waitWithProgress with a command's output, signal, poll interval and clock. */
export function waitInContext(ctx: Pick<CliContext, 'output' | 'signal' | 'pollMs' | 'now'>, what: string, timeoutMs: number, observe: WaitOptions['observe']): Promise<string> {
  return waitWithProgress({ what, observe, timeoutMs, output: ctx.output, signal: ctx.signal, pollMs: ctx.pollMs, now: ctx.now });
}
