// What the CLI for people prints: aligned tables by default, `-o json|yaml` for scripts, kubectl-style
// ages, and the streams it prints to (injectable, so tests read what a person would see).
import yaml from 'js-yaml';
import { type ParsedArgs, UsageError } from './args.js';

export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml' | 'name';

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

/** The output formats every command of the CLI for people takes with `-o`/`--output`. */
export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml', 'name'] as const;

/**
 * The output format from `-o FORMAT`, `-oFORMAT`, `-o=FORMAT` or `--output FORMAT` (the parser maps
 * `-o` to `output`), and the positionals. `table` (the default) and `wide` are tables, `wide` with
 * more columns; `name` prints `kind/name` per object, as kubectl does.
 */
export function takeOutputFormat(args: ParsedArgs): { format: OutputFormat; positionals: string[] } {
  const given = args.flags.get('output');
  if (given === true || given === '') throw new UsageError(`-o needs a value: ${OUTPUT_FORMATS.join(', ')}`);
  const format = given ?? 'table';
  if (!(OUTPUT_FORMATS as readonly string[]).includes(format)) throw new UsageError(`unknown output format ${JSON.stringify(format)}: use ${OUTPUT_FORMATS.join(', ')}`);
  return { format: format as OutputFormat, positionals: args.positionals };
}

/** Whether the format is a table (`table` or `wide`). */
export function isTable(format: OutputFormat): format is 'table' | 'wide' {
  return format === 'table' || format === 'wide';
}

/** `-o name`: one `kind/name` a line. */
export function renderNames(kind: string, names: readonly string[]): string {
  return names.map((n) => `${kind}/${n}\n`).join('');
}

/** A JSON or YAML document of `value`. */
export function renderData(value: unknown, format: OutputFormat): string {
  if (format !== 'json' && format !== 'yaml') throw new Error(`renderData: ${format} is not a data format`);
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
