// The shape of a `kcp` command module: each exports `command` (see main.ts).
import type { ParsedArgs } from './args.js';

export interface Command {
  /** One line for the overview. */
  summary: string;
  /** The command's full usage text. */
  usage: string;
  /** Flags that take no value. */
  switches?: ReadonlySet<string>;
  run(args: ParsedArgs): Promise<unknown>;
}
