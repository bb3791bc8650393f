// Running the CLI's commands in-process against a test control plane: a CliContext whose output is
// captured, and `run('create r1 --provider aws ...', runRuntime, command)` parsing arguments as `kcp` does.
import { parseArgs, UsageError } from '../../src/cli/args.js';
import { type Command, parseCommandArgs } from '../../src/cli/command.js';
import type { CliContext } from '../../src/cli/connect.js';
import type { Client } from '../../src/runtime/client/index.js';

export interface Captured {
  out: string;
  err: string;
}

export interface CliRunner {
  /** Runs `fn` with the parsed words; returns what it printed. Errors propagate. */
  run(words: string, fn: (args: ReturnType<typeof parseArgs>, ctx: CliContext) => Promise<unknown>, command?: Command): Promise<Captured>;
  /** Runs and expects a one-line error; returns its message. */
  fails(words: string, fn: (args: ReturnType<typeof parseArgs>, ctx: CliContext) => Promise<unknown>, command?: Command): Promise<{ message: string; usage: boolean }>;
}

export function cliRunner(kcp: Client, namespace = 'kcp-system'): CliRunner {
  const runner: CliRunner = {
    async run(words, fn, command) {
      const captured: Captured = { out: '', err: '' };
      const ctx: CliContext = {
        kcp,
        namespace,
        pollMs: 100,
        output: { out: (t) => void (captured.out += t), err: (t) => void (captured.err += t), interactive: false },
      };
      const argv = words.split(/\s+/).filter(Boolean);
      // As `kcp` parses them: strictly against the command's flags; the name (for errors) from its usage.
      const name = command ? (/kcp (\S+)/.exec(command.usage)?.[1] ?? 'cmd') : '';
      await fn(command ? parseCommandArgs(command, name, argv) : parseArgs(argv), ctx);
      return captured;
    },
    async fails(words, fn, command) {
      try {
        await runner.run(words, fn, command);
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
