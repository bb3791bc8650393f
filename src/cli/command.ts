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
  const first = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : undefined;
  // A command with subcommands may get flags before the subcommand (`kcp runtime -o name list`): the
  // subcommand is then the first word that names one.
  const verb = first ?? (command.flags(undefined) === undefined ? argv.find((a) => !a.startsWith('-') && command.flags(a) !== undefined) : undefined);
  const table = command.flags(verb);
  if (!table) return loose;
  const where = command.flags(undefined) === table ? `kcp ${name}` : `kcp ${name} ${verb ?? ''}`.trimEnd();
  const parsed = parseArgs(argv, table, { where, lastWins: command.lastFlagWins });
  // Flags before the subcommand took their values; the subcommand leads the arguments.
  if (verb !== undefined && parsed.positionals[0] !== verb && parsed.positionals.includes(verb)) {
    parsed.positionals.splice(parsed.positionals.indexOf(verb), 1);
    parsed.positionals.unshift(verb);
  }
  return parsed;
}
