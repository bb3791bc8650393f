// Field errors whose bad value Go prints with %#v (maps, slices, structs), and the few error
// kinds that errors.ts has no helper for.
import type { FieldError } from '../errors.js';

/** `%#v` of a map[string]string: keys sorted, as fmt prints maps. */
export function goStringMap(m: Record<string, unknown> | undefined, type = 'map[string]string'): string {
  if (m === undefined) return `${type}(nil)`;
  const parts = Object.keys(m)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(String(m[k]))}`);
  return `${type}{${parts.join(', ')}}`;
}

/** `%#v` of a []string. */
export function goStringSlice(a: unknown[] | undefined, type = '[]string'): string {
  if (a === undefined) return `${type}(nil)`;
  return `${type}{${a.map((s) => JSON.stringify(String(s))).join(', ')}}`;
}

/** field.Invalid with a bad value already rendered the Go way. */
export function invalidRendered(field: string, rendered: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${rendered}: ${detail}` };
}

export function tooLong(field: string, max: number): FieldError {
  return { type: 'FieldValueTooLong', field, message: `Too long: must have at most ${max} bytes` };
}
