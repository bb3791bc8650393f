// A small evaluator for the JSONPath forms CRD additionalPrinterColumns use:
// `.a.b`, `.a[0]`, `.a[*].b`, `.a['x.y']`, `.a[?(@.type=="Ready")].status`, `..name`.
import { isPlainObject } from './json.js';

type Step =
  | { k: 'field'; name: string }
  | { k: 'index'; index: number }
  | { k: 'wildcard' }
  | { k: 'recursive'; name: string }
  | { k: 'filter'; path: string[]; op?: string; value?: unknown };

export class JsonPathError extends Error {}

function parseLiteral(text: string): unknown {
  const t = text.trim();
  if (/^'.*'$/.test(t) || /^".*"$/.test(t)) return t.slice(1, -1);
  if (t === 'true' || t === 'false') return t === 'true';
  if (t === 'null') return null;
  const n = Number(t);
  if (t !== '' && !Number.isNaN(n)) return n;
  throw new JsonPathError(`unrecognized literal ${t}`);
}

function parseFilter(body: string): Step {
  const m = /^\s*@((?:\.[A-Za-z0-9_\-/]+)*)\s*(?:(==|!=|<=|>=|<|>)\s*(.+?))?\s*$/.exec(body);
  if (m === null) throw new JsonPathError(`unsupported filter ${body}`);
  const path = m[1].split('.').filter((p) => p !== '');
  return m[2] === undefined ? { k: 'filter', path } : { k: 'filter', path, op: m[2], value: parseLiteral(m[3]) };
}

const cache = new Map<string, Step[]>();

export function parseJsonPath(expr: string): Step[] {
  const hit = cache.get(expr);
  if (hit !== undefined) return hit;
  let src = expr.trim();
  if (src.startsWith('{') && src.endsWith('}')) src = src.slice(1, -1).trim();
  if (src.startsWith('$')) src = src.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < src.length) {
    if (src.startsWith('..', i)) {
      const m = /^[A-Za-z0-9_\-/]+/.exec(src.slice(i + 2));
      if (m === null) throw new JsonPathError(`invalid recursive descent in ${expr}`);
      steps.push({ k: 'recursive', name: m[0] });
      i += 2 + m[0].length;
    } else if (src[i] === '.') {
      // A field name may contain escaped dots, as label keys do: `.metadata.labels.kyma-project\.io/runtime-id`.
      const m = /^(?:[A-Za-z0-9_\-/]|\\\.)*/.exec(src.slice(i + 1));
      const raw = m === null ? '' : m[0];
      const name = raw.replace(/\\\./g, '.');
      if (name === '*') steps.push({ k: 'wildcard' });
      else if (name !== '') steps.push({ k: 'field', name });
      i += 1 + raw.length;
      if (src[i] === '*') {
        steps.push({ k: 'wildcard' });
        i++;
      }
    } else if (src[i] === '[') {
      const end = src.indexOf(']', src[i + 1] === '?' ? src.indexOf(')', i) : i);
      if (end < 0) throw new JsonPathError(`unclosed [ in ${expr}`);
      const body = src.slice(i + 1, end).trim();
      if (body === '*') steps.push({ k: 'wildcard' });
      else if (/^-?\d+$/.test(body)) steps.push({ k: 'index', index: Number(body) });
      else if (/^'.*'$|^".*"$/.test(body)) steps.push({ k: 'field', name: body.slice(1, -1) });
      else if (body.startsWith('?(') && body.endsWith(')')) steps.push(parseFilter(body.slice(2, -1)));
      else throw new JsonPathError(`unsupported subscript [${body}] in ${expr}`);
      i = end + 1;
    } else {
      const m = /^[A-Za-z0-9_\-/]+/.exec(src.slice(i));
      if (m === null) throw new JsonPathError(`unexpected character ${src[i]} in ${expr}`);
      steps.push({ k: 'field', name: m[0] });
      i += m[0].length;
    }
  }
  cache.set(expr, steps);
  return steps;
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    default:
      if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return false;
      if (op === '<') return (a as number) < (b as number);
      if (op === '<=') return (a as number) <= (b as number);
      if (op === '>') return (a as number) > (b as number);
      return (a as number) >= (b as number);
  }
}

function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (isPlainObject(v)) return Object.values(v);
  return [];
}

function collectRecursive(v: unknown, name: string, out: unknown[]): void {
  if (isPlainObject(v) && name in v) out.push(v[name]);
  for (const c of children(v)) collectRecursive(c, name, out);
}

function applyStep(values: unknown[], step: Step): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    switch (step.k) {
      case 'field':
        if (isPlainObject(v) && step.name in v) out.push(v[step.name]);
        break;
      case 'index':
        if (Array.isArray(v)) {
          const i = step.index < 0 ? v.length + step.index : step.index;
          if (i >= 0 && i < v.length) out.push(v[i]);
        }
        break;
      case 'wildcard':
        out.push(...children(v));
        break;
      case 'recursive':
        collectRecursive(v, step.name, out);
        break;
      case 'filter':
        for (const item of children(v)) {
          let target: unknown = item;
          let present = true;
          for (const p of step.path) {
            if (isPlainObject(target) && p in target) target = target[p];
            else {
              present = false;
              break;
            }
          }
          if (step.op === undefined ? present : present && compare(target, step.op, step.value)) out.push(item);
        }
        break;
    }
  }
  return out;
}

/** All values the path selects in `root` (missing keys select nothing). */
export function evaluateJsonPath(expr: string, root: unknown): unknown[] {
  let values: unknown[] = [root];
  for (const step of parseJsonPath(expr)) {
    values = applyStep(values, step);
    if (values.length === 0) break;
  }
  return values;
}

/** A value as the jsonpath printer writes it (Go's fmt %v for maps and slices). */
export function printJsonPathValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(printJsonPathValue).join(' ')}]`;
  const rec = v as Record<string, unknown>;
  return `map[${Object.keys(rec).sort().map((k) => `${k}:${printJsonPathValue(rec[k])}`).join(' ')}]`;
}
