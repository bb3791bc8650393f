// Renders JSON values the way Go's fmt prints the decoded `interface{}` values kube-apiserver holds.
// Field errors show non-scalar bad values with %#v, e.g. map[string]interface {}{"name":"a"}.

function goFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  // Go %v uses %g-like shortest form with exponent when large/small: 1e+21, 1.5e-07
  const s = String(n);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

/** Go's %#v of a decoded JSON value (map[string]interface{} / []interface{} / string / int64 / float64 / bool / nil). */
export function goSharpV(v: unknown, nested = false): string {
  if (v === null || v === undefined) return nested ? 'interface {}(nil)' : '<nil>';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map((x) => goSharpV(x, true)).join(', ')}}`;
  if (typeof v === 'object') {
    const rec = v as Record<string, unknown>;
    const keys = Object.keys(rec).sort();
    return `map[string]interface {}{${keys.map((k) => `${JSON.stringify(k)}:${goSharpV(rec[k], true)}`).join(', ')}}`;
  }
  return String(v);
}

/** Go's %v (and %+v) of a decoded JSON value: map[a:1 b:[x y]], strings unquoted, nil as <nil>. */
export function goV(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  const rec = v as Record<string, unknown>;
  return `map[${Object.keys(rec)
    .sort()
    .map((k) => `${k}:${goV(rec[k])}`)
    .join(' ')}]`;
}

/** The text a field.Error puts after the type word for a bad value (simple types with %v / %q, others with %#v). */
export function goBadValue(v: unknown): string {
  if (v === null || v === undefined) return '"null"';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return String(v);
  return goSharpV(v);
}
