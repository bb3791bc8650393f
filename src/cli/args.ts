// Minimal argument parsing for the kcp command: positionals plus --flag value / --flag=value / --switch.

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

export function parseArgs(argv: string[], switches: ReadonlySet<string> = new Set()): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1));
      else if (switches.has(a.slice(2)) || i + 1 >= argv.length || argv[i + 1].startsWith('--')) flags.set(a.slice(2), true);
      else flags.set(a.slice(2), argv[++i]);
    } else positionals.push(a);
  }
  return { positionals, flags };
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
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return n;
}

export class UsageError extends Error {}
