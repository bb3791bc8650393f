// Functions of the supported CEL subset: standard conversions and string functions, plus the
// Kubernetes list and regex helpers and the strings extension members that rules commonly use.
import { CelEvalError, type CelValue } from './ast.js';
import { celEquals, checkedInt, compare, INT64_MAX, INT64_MIN, noOverload, sizeOf, toCelString } from './values.js';

const regexCache = new Map<string, RegExp>();
export function celRegex(pattern: string, global = false): RegExp {
  const key = (global ? 'g:' : ':') + pattern;
  let re = regexCache.get(key);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, global ? 'gu' : 'u');
    } catch (e) {
      throw new CelEvalError(`invalid regular expression: ${(e as Error).message}`);
    }
    regexCache.set(key, re);
  }
  re.lastIndex = 0;
  return re;
}

function str(v: CelValue, fn: string): string {
  if (typeof v !== 'string') throw noOverload(fn, v);
  return v;
}
function int(v: CelValue, fn: string): bigint {
  if (typeof v !== 'bigint') throw noOverload(fn, v);
  return v;
}
function list(v: CelValue, fn: string): CelValue[] {
  if (!Array.isArray(v)) throw noOverload(fn, v);
  return v;
}

function toInt(v: CelValue): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v >= 2 ** 63 || v < -(2 ** 63)) throw new CelEvalError('integer overflow');
    return BigInt(Math.trunc(v));
  }
  if (typeof v === 'string') {
    if (!/^[+-]?\d+$/.test(v)) throw new CelEvalError(`cannot convert '${v}' to int`);
    const n = BigInt(v);
    if (n > INT64_MAX || n < INT64_MIN) throw new CelEvalError('integer overflow');
    return n;
  }
  throw noOverload('int', v);
}

function toDouble(v: CelValue): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string') {
    const n = Number(v);
    if (v.trim() === '' || Number.isNaN(n)) throw new CelEvalError(`cannot convert '${v}' to double`);
    return n;
  }
  throw noOverload('double', v);
}

function toBool(v: CelValue): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    if (['true', 'True', 'TRUE', 't', '1'].includes(v)) return true;
    if (['false', 'False', 'FALSE', 'f', '0'].includes(v)) return false;
    throw new CelEvalError(`cannot convert '${v}' to bool`);
  }
  throw noOverload('bool', v);
}

function substring(s: string, start: bigint, end?: bigint): string {
  const cps = [...s];
  const b = Number(start);
  const e = end === undefined ? cps.length : Number(end);
  if (b < 0 || b > cps.length || e < b || e > cps.length) throw new CelEvalError(`index out of range: ${e > cps.length ? e : b}`);
  return cps.slice(b, e).join('');
}

function indexOf(s: string, sub: string, last: boolean): bigint {
  const cps = [...s];
  const subCps = [...sub];
  const matchesAt = (i: number) => subCps.every((c, j) => cps[i + j] === c);
  if (last) {
    for (let i = cps.length - subCps.length; i >= 0; i--) if (matchesAt(i)) return BigInt(i);
  } else {
    for (let i = 0; i + subCps.length <= cps.length; i++) if (matchesAt(i)) return BigInt(i);
  }
  return -1n;
}

function extremum(v: CelValue[], fn: string, sign: number): CelValue {
  if (v.length === 0) throw new CelEvalError(`${fn}(list) called on empty list`);
  let best = v[0];
  for (const x of v.slice(1)) if (compare(x, best, fn) * sign > 0) best = x;
  return best;
}

function sum(v: CelValue[]): CelValue {
  if (v.length === 0) return 0n;
  if (v.every((x) => typeof x === 'bigint')) return v.reduce<bigint>((a, x) => checkedInt(a + (x as bigint)), 0n);
  if (v.every((x) => typeof x === 'number')) return v.reduce<number>((a, x) => a + (x as number), 0);
  throw noOverload('sum', v);
}

/** Global functions: `size(x)`, `int(x)`, ... */
export const globalFunctions: Record<string, (args: CelValue[]) => CelValue> = {
  size: ([v]) => sizeOf(v),
  int: ([v]) => toInt(v),
  uint: ([v]) => {
    const n = toInt(v);
    if (n < 0n) throw new CelEvalError('unsigned integer overflow');
    return n;
  },
  double: ([v]) => toDouble(v),
  string: ([v]) => toCelString(v),
  bool: ([v]) => toBool(v),
  dyn: ([v]) => v,
  matches: ([s, re]) => celRegex(str(re, 'matches')).test(str(s, 'matches')),
};

/** Receiver-style functions: `s.startsWith(x)`, `list.isSorted()`, ... */
export const memberFunctions: Record<string, (target: CelValue, args: CelValue[]) => CelValue> = {
  size: (t) => sizeOf(t),
  startsWith: (t, [p]) => str(t, 'startsWith').startsWith(str(p, 'startsWith')),
  endsWith: (t, [p]) => str(t, 'endsWith').endsWith(str(p, 'endsWith')),
  contains: (t, [p]) => str(t, 'contains').includes(str(p, 'contains')),
  matches: (t, [re]) => celRegex(str(re, 'matches')).test(str(t, 'matches')),
  lowerAscii: (t) => str(t, 'lowerAscii').replace(/[A-Z]/g, (c) => c.toLowerCase()),
  upperAscii: (t) => str(t, 'upperAscii').replace(/[a-z]/g, (c) => c.toUpperCase()),
  trim: (t) => str(t, 'trim').trim(),
  substring: (t, [b, e]) => substring(str(t, 'substring'), int(b, 'substring'), e === undefined ? undefined : int(e, 'substring')),
  charAt: (t, [i]) => {
    const cps = [...str(t, 'charAt')];
    const n = Number(int(i, 'charAt'));
    if (n < 0 || n > cps.length) throw new CelEvalError(`index out of range: ${n}`);
    return cps[n] ?? '';
  },
  replace: (t, [from, to, n]) => {
    const s = str(t, 'replace');
    const f = str(from, 'replace');
    const r = str(to, 'replace');
    let limit = n === undefined ? -1 : Number(int(n, 'replace'));
    if (limit < 0) return s.split(f).join(r);
    let out = s;
    let at = 0;
    while (limit-- > 0) {
      const i = out.indexOf(f, at);
      if (i < 0) break;
      out = out.slice(0, i) + r + out.slice(i + f.length);
      at = i + r.length;
    }
    return out;
  },
  split: (t, [sep, n]) => {
    const parts = str(t, 'split').split(str(sep, 'split'));
    if (n === undefined) return parts;
    const limit = Number(int(n, 'split'));
    if (limit < 0 || limit >= parts.length) return parts;
    if (limit === 0) return [];
    return [...parts.slice(0, limit - 1), parts.slice(limit - 1).join(str(sep, 'split'))];
  },
  join: (t, [sep]) => list(t, 'join').map((x) => str(x, 'join')).join(sep === undefined ? '' : str(sep, 'join')),
  indexOf: (t, [x]) => {
    if (Array.isArray(t)) return BigInt(t.findIndex((y) => compareEq(y, x)));
    return indexOf(str(t, 'indexOf'), str(x, 'indexOf'), false);
  },
  lastIndexOf: (t, [x]) => {
    if (Array.isArray(t)) {
      for (let i = t.length - 1; i >= 0; i--) if (compareEq(t[i], x)) return BigInt(i);
      return -1n;
    }
    return indexOf(str(t, 'lastIndexOf'), str(x, 'lastIndexOf'), true);
  },
  find: (t, [re]) => {
    const m = celRegex(str(re, 'find')).exec(str(t, 'find'));
    return m === null ? '' : m[0];
  },
  findAll: (t, [re, n]) => {
    const all = [...str(t, 'findAll').matchAll(celRegex(str(re, 'findAll'), true))].map((m) => m[0]);
    return n === undefined || int(n, 'findAll') < 0n ? all : all.slice(0, Number(n));
  },
  isSorted: (t) => list(t, 'isSorted').every((x, i, a) => i === 0 || compare(a[i - 1], x, 'isSorted') <= 0),
  sum: (t) => sum(list(t, 'sum')),
  min: (t) => extremum(list(t, 'min'), 'min', -1),
  max: (t) => extremum(list(t, 'max'), 'max', 1),
};

function compareEq(a: CelValue, b: CelValue): boolean {
  return celEquals(a, b);
}
