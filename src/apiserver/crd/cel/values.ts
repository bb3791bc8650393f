// Helpers over CEL runtime values: type names, equality, ordering, string forms.
import { CelEvalError, type CelMap, type CelMapKey, type CelValue } from './ast.js';

export const INT64_MAX = 9223372036854775807n;
export const INT64_MIN = -9223372036854775808n;

export function isMap(v: CelValue): v is CelMap {
  return v instanceof Map;
}

export function typeName(v: CelValue): string {
  if (v === null) return 'null_type';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (Array.isArray(v)) return 'list';
  return 'map';
}

export function noOverload(fn: string, ...args: CelValue[]): CelEvalError {
  return new CelEvalError(`no such overload: ${fn}(${args.map(typeName).join(', ')})`);
}

export function checkedInt(v: bigint): bigint {
  if (v > INT64_MAX || v < INT64_MIN) throw new CelEvalError('integer overflow');
  return v;
}

export function celEquals(a: CelValue, b: CelValue): boolean {
  if (typeof a === 'bigint' && typeof b === 'number') return Number(a) === b;
  if (typeof a === 'number' && typeof b === 'bigint') return a === Number(b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  if (Array.isArray(b)) return false;
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const w = lookupKey(b, k);
    if (w === undefined || !celEquals(v, w)) return false;
  }
  return true;
}

/** Map lookup where int and double keys of equal value match. */
export function lookupKey(m: CelMap, k: CelMapKey | number): CelValue | undefined {
  if (typeof k === 'number') return Number.isInteger(k) ? m.get(BigInt(k)) : undefined;
  return m.get(k);
}

export function compare(a: CelValue, b: CelValue, op: string): number {
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
    const x = Number(a);
    const y = Number(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw noOverload(op, a, b);
}

export function formatDouble(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  return String(n).replace(/e([+-])(\d)$/, 'e$10$2');
}

export function toCelString(v: CelValue): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return formatDouble(v);
  if (typeof v === 'boolean') return String(v);
  throw noOverload('string', v);
}

export function sizeOf(v: CelValue): bigint {
  if (typeof v === 'string') return BigInt([...v].length);
  if (Array.isArray(v)) return BigInt(v.length);
  if (isMap(v)) return BigInt(v.size);
  throw noOverload('size', v);
}
