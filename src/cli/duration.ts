// The one duration grammar of the kcp command's flags: Go's (time.ParseDuration, the grammar of
// upstream's flags), without ns/us: `500ms`, `30s`, `5m`, `1h30m`, `1.5h`, and `0`.
import { flagString, type ParsedArgs, UsageError } from './args.js';

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a Go-style duration, or undefined when `text` is not one. A bare number other than `0` is not. */
export function parseDuration(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(text)) return text === '0' ? 0 : undefined;
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(m[1]) * DURATION_UNITS[m[2]];
  return Math.round(total);
}

/** The inverse of parseDuration for whole milliseconds: `90s` -> `1m30s`, `5400000` -> `1h30m` (flag defaults in usage texts). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0';
  const units: [string, number][] = [['h', 3_600_000], ['m', 60_000], ['s', 1_000], ['ms', 1]];
  let rest = ms;
  let text = '';
  for (const [unit, size] of units) {
    if (rest >= size) {
      text += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return text;
}

/**
 * `--timeout` of `kcp runtime ... --wait` and `kcp module ... --wait`: a positive duration, or a
 * bare whole number of seconds (`--timeout 600`), which these flags have always accepted. `fallback`
 * when the flag is not given; anything else is a one-line UsageError.
 */
export function timeoutFlag(args: ParsedArgs, fallbackMs: number): number {
  const text = flagString(args, 'timeout');
  if (text === undefined) return fallbackMs;
  const t = text.trim();
  const ms = /^\d+$/.test(t) ? Number(t) * 1000 : parseDuration(t);
  if (ms === undefined || ms <= 0) throw new UsageError(`--timeout must be a positive duration such as 90s, 5m or 1h30m (or whole seconds), got ${JSON.stringify(text)}`);
  return ms;
}
