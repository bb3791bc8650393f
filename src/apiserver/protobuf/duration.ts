// Go's time.Duration text form ("1h2m3.5s", "150ms"), which metav1.Duration uses in JSON while
// protobuf carries nanoseconds.

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Parses a Go duration string into nanoseconds, as time.ParseDuration does. */
export function parseGoDuration(text: string): bigint {
  let s = text;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw new Error(`time: invalid duration "${text}"`);
  let total = 0n;
  const part = /^(\d*)(?:\.(\d*))?([^\d.]+)/;
  while (s !== '') {
    const m = part.exec(s);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) throw new Error(`time: invalid duration "${text}"`);
    const unit = UNITS[m[3]];
    if (unit === undefined) throw new Error(`time: unknown unit "${m[3]}" in duration "${text}"`);
    total += BigInt(m[1] || '0') * unit;
    const fraction = m[2] ?? '';
    if (fraction !== '') total += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    s = s.slice(m[0].length);
  }
  return negative ? -total : total;
}

/** Formats nanoseconds as time.Duration.String does. */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  const u = ns < 0n ? -ns : ns;
  if (u < 1_000_000_000n) {
    if (u < 1_000n) return `${sign}${u}ns`;
    if (u < 1_000_000n) return `${sign}${fraction(u, 3)}µs`;
    return `${sign}${fraction(u, 6)}ms`;
  }
  const seconds = u / 1_000_000_000n;
  const secondsText = `${fraction(u % 60_000_000_000n, 9)}s`;
  const minutes = seconds / 60n;
  if (minutes === 0n) return `${sign}${secondsText}`;
  const hours = minutes / 60n;
  if (hours === 0n) return `${sign}${minutes}m${secondsText}`;
  return `${sign}${hours}h${minutes % 60n}m${secondsText}`;
}

/** `v / 10^digits` with the fraction's trailing zeros (and a bare point) left out. */
function fraction(v: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const rest = (v % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  return rest === '' ? `${v / scale}` : `${v / scale}.${rest}`;
}
