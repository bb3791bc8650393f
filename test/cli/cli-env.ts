// Running the CLI's commands in-process against a test control plane: a CliContext whose output is
// captured, and `run(command, 'create r1 --provider aws ...')` parsing arguments as `kcp` does.
import { parseArgs, UsageError } from '../../src/cli/args.js';
import type { CliContext } from '../../src/cli/connect.js';
import type { Client } from '../../src/runtime/client/index.js';

export interface Captured {
  out: string;
  err: string;
}

export interface CliRunner {
  /** Runs `fn` with the parsed words; returns what it printed. Errors propagate. */
  run(words: string, fn: (args: ReturnType<typeof parseArgs>, ctx: CliContext) => Promise<unknown>, switches?: ReadonlySet<string>): Promise<Captured>;
  /** Runs and expects a one-line error; returns its message. */
  fails(words: string, fn: (args: ReturnType<typeof parseArgs>, ctx: CliContext) => Promise<unknown>, switches?: ReadonlySet<string>): Promise<{ message: string; usage: boolean }>;
}

export function cliRunner(kcp: Client, namespace = 'kcp-system'): CliRunner {
  const runner: CliRunner = {
    async run(words, fn, switches) {
      const captured: Captured = { out: '', err: '' };
      const ctx: CliContext = {
        kcp,
        namespace,
        pollMs: 100,
        output: { out: (t) => void (captured.out += t), err: (t) => void (captured.err += t), interactive: false },
      };
      await fn(parseArgs(words.split(/\s+/).filter(Boolean), switches), ctx);
      return captured;
    },
    async fails(words, fn, switches) {
      try {
        await runner.run(words, fn, switches);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        if (message.includes('\n')) throw new Error(`error is not one line: ${JSON.stringify(message)}`, { cause: e });
        return { message, usage: e instanceof UsageError };
      }
      throw new Error(`expected "${words}" to fail`);
    },
  };
  return runner;
}
