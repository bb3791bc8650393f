// What the CLI for people prints: aligned tables by default, `-o json|yaml` for scripts, kubectl-style
// ages, and the streams it prints to (injectable, so tests read what a person would see).
import yaml from 'js-yaml';
import { type ParsedArgs, UsageError } from './args.js';

export type OutputFormat = 'table' | 'json' | 'yaml';

/** Where a command writes: results to `out`, progress and notes to `err` (so `-o json` stays parseable). */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
  /** Whether `err` is a terminal: progress then rewrites one line instead of printing new ones. */
  readonly interactive?: boolean;
  /** Width of the terminal, to keep a rewritten progress line on one row. */
  readonly columns?: number;
}

export const processOutput: CliOutput = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  interactive: process.stderr.isTTY === true,
  get columns() {
    return process.stderr.columns;
  },
};

/**
 * Takes the output format from `-o FORMAT`, `-oFORMAT`, `-o=FORMAT` or `--output FORMAT` and returns the
 * positionals without it (parseArgs knows only `--long` flags, so `-o json` arrives as two positionals).
 */
export function takeOutputFormat(args: ParsedArgs): { format: OutputFormat; positionals: string[] } {
  const positionals: string[] = [];
  let format: string | undefined;
  for (let i = 0; i < args.positionals.length; i++) {
    const p = args.positionals[i];
    if (p === '-o') {
      format = args.positionals[i + 1];
      if (format === undefined) throw new UsageError('-o needs a value: json or yaml');
      i++;
    } else if (p.startsWith('-o')) {
      format = p.slice(p.startsWith('-o=') ? 3 : 2);
    } else positionals.push(p);
  }
  const long = args.flags.get('output');
  if (long === true) throw new UsageError('--output needs a value: json or yaml');
  format ??= long;
  if (format === undefined || format === 'table' || format === 'wide') return { format: 'table', positionals };
  if (format !== 'json' && format !== 'yaml') throw new UsageError(`unknown output format ${JSON.stringify(format)}: use json or yaml`);
  return { format, positionals };
}

/** A JSON or YAML document of `value`. */
export function renderData(value: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? `${JSON.stringify(value, null, 2)}\n` : yaml.dump(value, { noRefs: true, lineWidth: -1 });
}

/** Columns padded to the widest cell, three spaces apart, as kubectl prints them. */
export function renderTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('   ')
      .trimEnd();
  return `${[headers, ...rows].map(line).join('\n')}\n`;
}

/** kubectl's short age: `42s`, `5m`, `3h`, `2d` (`<unknown>` without a timestamp). */
export function age(timestamp: string | undefined, now = Date.now()): string {
  if (!timestamp) return '<unknown>';
  const seconds = Math.max(0, Math.floor((now - Date.parse(timestamp)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** Elapsed time of a wait: `8s`, `1m05s`. */
export function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** Drops server bookkeeping a person does not want to read in `-o yaml`. */
export function forDisplay<T extends { metadata: { managedFields?: unknown[] } }>(obj: T): T {
  const copy = { ...obj, metadata: { ...obj.metadata } };
  delete copy.metadata.managedFields;
  return copy;
}
