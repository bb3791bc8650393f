// The shape of a `kcp` command module: each exports `command` (see main.ts).
import { type FlagTable, parseArgs, type ParsedArgs } from './args.js';

export interface Command {
  /** One line for the overview. */
  summary: string;
  /** The command's full usage text. */
  usage: string;
  /**
   * The flags the command accepts; for a command with subcommands, those of `verb` (the first
   * argument), and undefined for an unknown verb (the command then says which verbs exist).
   */
  flags(verb: string | undefined): FlagTable | undefined;
  /** A repeated flag replaces the earlier value (Go's flag semantics) instead of being an error. */
  lastFlagWins?: boolean;
  run(args: ParsedArgs): Promise<unknown>;
}

/**
 * The arguments of `kcp NAME ...argv`, parsed strictly against the command's flags. The subcommand is
 * the first argument; with `--help` anywhere, or an unknown subcommand (the command names the known
 * ones), the arguments are parsed loosely and the command decides.
 */
export function parseCommandArgs(command: Command, name: string, argv: readonly string[]): ParsedArgs {
  const loose = parseArgs(argv);
  if (loose.flags.has('help')) return loose;
  const verb = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : undefined;
  const table = command.flags(verb);
  if (!table) return loose;
  const where = command.flags(undefined) === table ? `kcp ${name}` : `kcp ${name} ${verb ?? ''}`.trimEnd();
  return parseArgs(argv, table, { where, lastWins: command.lastFlagWins });
}
