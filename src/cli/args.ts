// Argument parsing for the kcp command: positionals plus the flags a command declares. Parsing is
// strict: a flag the command does not know, a value missing, or a flag given twice is a one-line
// UsageError (exit 2) that suggests the closest known flag, so a typo never silently does something else.
import { distance } from 'fastest-levenshtein';

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

/** What a flag takes: a value (`--channel fast`, `--channel=fast`) or nothing (`--wait`, `--wait=false`). */
export type FlagKind = 'value' | 'switch';

/** The flags one command (or subcommand) accepts, by long name. */
export type FlagTable = Readonly<Record<string, FlagKind>>;

/** Short spellings every command understands, as kubectl does. */
const SHORT: Readonly<Record<string, string>> = { o: 'output', h: 'help', n: 'namespace' };

export class UsageError extends Error {}

/** The known flag closest to a mistyped one, when it is close enough to be what was meant. */
export function closestFlag(name: string, known: Iterable<string>): string | undefined {
  const names = [...known];
  // A cut-short flag (`--time` for `--timeout`) is what was meant when only one flag starts so.
  const extended = names.filter((k) => name.length >= 2 && k.startsWith(name));
  if (extended.length === 1) return extended[0];
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of names) {
    const d = distance(name, k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

function unknownFlag(spelled: string, name: string, table: FlagTable, where: string): UsageError {
  const known = Object.keys(table);
  const suggestion = closestFlag(name, known);
  const hint = suggestion ? `did you mean --${suggestion}?` : known.length > 1 ? `see ${where} --help` : `${where} takes no flags`;
  return new UsageError(`unknown flag ${spelled} for ${where}: ${hint}`);
}

export interface ParseOptions {
  /** Names the command in errors (`kcp module enable`). */
  where?: string;
  /**
   * A flag given again replaces the earlier value, as Go's flag package does (`kcp run` and `kcp up`,
   * whose arguments deployments append to); otherwise a repeated flag is an error.
   */
  lastWins?: boolean;
}

/**
 * Parses `argv` against `table`. Without a table every `--flag` is accepted (the loose mode callers
 * use to find a subcommand first).
 */
export function parseArgs(argv: readonly string[], table?: FlagTable, opts: ParseOptions = {}): ParsedArgs {
  const where = opts.where ?? 'kcp';
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  const set = (name: string, value: string | true, spelled: string) => {
    if (flags.has(name) && !opts.lastWins) throw new UsageError(`${spelled} is given twice`);
    flags.set(name, value);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let name: string;
    let inline: string | undefined;
    let spelled: string;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      inline = eq > 0 ? a.slice(eq + 1) : undefined;
      spelled = `--${name}`;
    } else if (a.startsWith('-') && a.length > 1 && !/^-\d/.test(a)) {
      // -o json, -ojson, -o=json, -h
      const long = SHORT[a[1]];
      spelled = `-${a[1]}`;
      if (!long) {
        if (!table) {
          positionals.push(a);
          continue;
        }
        throw unknownFlag(a, a.slice(1), table, where);
      }
      name = long;
      const rest = a.slice(2);
      inline = rest === '' ? undefined : rest.startsWith('=') ? rest.slice(1) : rest;
    } else {
      positionals.push(a);
      continue;
    }
    if (name === 'help') {
      flags.set('help', true);
      continue;
    }
    const kind: FlagKind | undefined = table ? table[name] : undefined;
    if (table && !kind) throw unknownFlag(spelled, name, table, where);
    if (kind === 'switch') {
      if (inline !== undefined && inline !== 'true' && inline !== 'false') throw new UsageError(`${spelled} takes no value (or =true / =false), got ${JSON.stringify(inline)}`);
      set(name, inline ?? true, spelled);
      continue;
    }
    if (inline !== undefined) {
      set(name, inline, spelled);
      continue;
    }
    const next = argv[i + 1];
    if (next === undefined || (next.startsWith('-') && next.length > 1 && !/^-\d/.test(next))) {
      if (kind === 'value') throw new UsageError(`${spelled} needs a value`);
      set(name, true, spelled); // loose mode: a switch as far as we can tell
      continue;
    }
    set(name, next, spelled);
    i++;
  }
  return { positionals, flags };
}

/** Whether a switch is on (`--wait`, `--wait=true`; not `--wait=false`). */
export function switchOn(args: ParsedArgs, name: string): boolean {
  const v = args.flags.get(name);
  return v !== undefined && v !== 'false';
}

export function flagString(args: ParsedArgs, name: string, fallback?: string): string | undefined {
  const v = args.flags.get(name);
  if (v === undefined) return fallback;
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}

export function flagInt(args: ParsedArgs, name: string, fallback: number): number {
  const v = flagString(args, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n)) throw new UsageError(`--${name} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return n;
}

/** Fails on positionals past `count`: `kcp runtime describe r1 r2` names the extra word. */
export function rejectExtra(positionals: readonly string[], count: number, synopsis: string): void {
  if (positionals.length > count) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[count])}: ${synopsis}`);
}
