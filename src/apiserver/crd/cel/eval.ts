// Evaluator for parsed CEL expressions. Errors are thrown as CelEvalError; `&&`, `||` and the
// all/exists macros absorb errors when the other side decides the result, as CEL specifies.
import { CelEvalError, type CelMap, type CelMapKey, type CelValue, type Expr } from './ast.js';
import { globalFunctions, memberFunctions } from './functions.js';
import { celEquals, checkedInt, compare, isMap, lookupKey, noOverload, typeName } from './values.js';

export type Bindings = ReadonlyMap<string, CelValue>;

/** Kubernetes escapes property names that are not CEL identifiers: `foo-bar` is `foo__dash__bar`. */
function unescapeField(name: string): string | undefined {
  if (!name.includes('__')) return undefined;
  return name.replace(/__(underscores|dot|dash|slash|[a-z]+)__/g, (_m, word: string) => {
    switch (word) {
      case 'underscores':
        return '__';
      case 'dot':
        return '.';
      case 'dash':
        return '-';
      case 'slash':
        return '/';
      default:
        return word;
    }
  });
}

function selectField(target: CelValue, field: string): CelValue | undefined {
  if (!isMap(target)) throw new CelEvalError(`type '${typeName(target)}' does not support field selection`);
  const v = target.get(field);
  if (v !== undefined) return v;
  const unescaped = unescapeField(field);
  return unescaped === undefined ? undefined : target.get(unescaped);
}

function truthy(v: CelValue, op: string): boolean {
  if (typeof v !== 'boolean') throw noOverload(op, v);
  return v;
}

function arithmetic(op: string, a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    switch (op) {
      case '+':
        return checkedInt(a + b);
      case '-':
        return checkedInt(a - b);
      case '*':
        return checkedInt(a * b);
      case '/':
        if (b === 0n) throw new CelEvalError('division by zero');
        return checkedInt(a / b);
      case '%':
        if (b === 0n) throw new CelEvalError('modulus by zero');
        return a % b;
    }
  }
  if (typeof a === 'number' && typeof b === 'number') {
    switch (op) {
      case '+':
        return a + b;
      case '-':
        return a - b;
      case '*':
        return a * b;
      case '/':
        return a / b;
    }
  }
  if (op === '+' && typeof a === 'string' && typeof b === 'string') return a + b;
  if (op === '+' && Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  const names: Record<string, string> = { '+': '_+_', '-': '_-_', '*': '_*_', '/': '_/_', '%': '_%_' };
  throw noOverload(names[op] ?? op, a, b);
}

function contains(container: CelValue, elem: CelValue): boolean {
  if (Array.isArray(container)) return container.some((x) => celEquals(x, elem));
  if (isMap(container)) {
    if (typeof elem === 'string' || typeof elem === 'bigint' || typeof elem === 'boolean' || typeof elem === 'number') return lookupKey(container, elem) !== undefined;
    return false;
  }
  throw noOverload('@in', elem, container);
}

function mapKey(v: CelValue): CelMapKey {
  if (typeof v === 'string' || typeof v === 'bigint' || typeof v === 'boolean') return v;
  throw new CelEvalError(`unsupported map key type: ${typeName(v)}`);
}

function rangeOf(v: CelValue, macro: string): CelValue[] {
  if (Array.isArray(v)) return v;
  if (isMap(v)) return [...v.keys()];
  throw noOverload(macro, v);
}

export function evaluate(e: Expr, vars: Bindings): CelValue {
  switch (e.k) {
    case 'lit':
      return e.v;
    case 'ident': {
      const v = vars.get(e.name);
      if (v === undefined) throw new CelEvalError(`no such attribute: ${e.name}`);
      return v;
    }
    case 'select': {
      const v = selectField(evaluate(e.operand, vars), e.field);
      if (v === undefined) throw new CelEvalError(`no such key: ${e.field}`);
      return v;
    }
    case 'has':
      return selectField(evaluate(e.operand, vars), e.field) !== undefined;
    case 'index': {
      const target = evaluate(e.operand, vars);
      const index = evaluate(e.index, vars);
      if (Array.isArray(target)) {
        if (typeof index !== 'bigint' && !(typeof index === 'number' && Number.isInteger(index))) throw noOverload('_[_]', target, index);
        const i = Number(index);
        if (i < 0 || i >= target.length) throw new CelEvalError(`index out of bounds: ${i}`);
        return target[i];
      }
      if (isMap(target)) {
        const v = typeof index === 'string' || typeof index === 'bigint' || typeof index === 'boolean' || typeof index === 'number' ? lookupKey(target, index) : undefined;
        if (v === undefined) throw new CelEvalError(`no such key: ${typeof index === 'string' ? index : String(index)}`);
        return v;
      }
      throw noOverload('_[_]', target, index);
    }
    case 'call': {
      if (e.target !== undefined) {
        const fn = memberFunctions[e.fn];
        if (fn === undefined) throw new CelEvalError(`no such overload: ${e.fn}`);
        return fn(evaluate(e.target, vars), e.args.map((a) => evaluate(a, vars)));
      }
      const fn = globalFunctions[e.fn];
      if (fn === undefined) throw new CelEvalError(`no such overload: ${e.fn}`);
      return fn(e.args.map((a) => evaluate(a, vars)));
    }
    case 'list':
      return e.elems.map((x) => evaluate(x, vars));
    case 'map': {
      const m: CelMap = new Map();
      for (const [k, v] of e.entries) {
        const key = mapKey(evaluate(k, vars));
        if (m.has(key)) throw new CelEvalError(`Failed with repeated key: ${String(key)}`);
        m.set(key, evaluate(v, vars));
      }
      return m;
    }
    case 'cond':
      return truthy(evaluate(e.c, vars), '_?_:_') ? evaluate(e.t, vars) : evaluate(e.f, vars);
    case 'and':
    case 'or':
      return logical(e.k, e.l, e.r, vars);
    case 'not':
      return !truthy(evaluate(e.e, vars), '!_');
    case 'neg': {
      const v = evaluate(e.e, vars);
      if (typeof v === 'bigint') return checkedInt(-v);
      if (typeof v === 'number') return -v;
      throw noOverload('-_', v);
    }
    case 'bin': {
      const a = evaluate(e.l, vars);
      const b = evaluate(e.r, vars);
      switch (e.op) {
        case '==':
          return celEquals(a, b);
        case '!=':
          return !celEquals(a, b);
        case '<':
          return compare(a, b, '_<_') < 0;
        case '<=':
          return compare(a, b, '_<=_') <= 0;
        case '>':
          return compare(a, b, '_>_') > 0;
        case '>=':
          return compare(a, b, '_>=_') >= 0;
        case 'in':
          return contains(b, a);
        default:
          return arithmetic(e.op, a, b);
      }
    }
    case 'macro':
      return evaluateMacro(e, vars);
  }
}

function logical(kind: 'and' | 'or', l: Expr, r: Expr, vars: Bindings): boolean {
  const decisive = kind === 'or';
  const op = kind === 'and' ? '_&&_' : '_||_';
  let leftError: unknown;
  try {
    if (truthy(evaluate(l, vars), op) === decisive) return decisive;
  } catch (err) {
    leftError = err;
  }
  const right = truthy(evaluate(r, vars), op);
  if (right === decisive) return decisive;
  if (leftError !== undefined) throw leftError;
  return !decisive;
}

function evaluateMacro(e: Extract<Expr, { k: 'macro' }>, vars: Bindings): CelValue {
  const elems = rangeOf(evaluate(e.range, vars), e.macro);
  const scope = new Map(vars);
  const run = (x: CelValue, body: Expr): CelValue => {
    scope.set(e.v, x);
    return evaluate(body, scope);
  };
  switch (e.macro) {
    case 'all':
    case 'exists': {
      const decisive = e.macro === 'exists';
      let firstError: unknown;
      for (const x of elems) {
        try {
          if (truthy(run(x, e.body), e.macro) === decisive) return decisive;
        } catch (err) {
          firstError ??= err;
        }
      }
      if (firstError !== undefined) throw firstError;
      return !decisive;
    }
    case 'exists_one': {
      let count = 0;
      for (const x of elems) if (truthy(run(x, e.body), e.macro)) count++;
      return count === 1;
    }
    case 'filter':
      return elems.filter((x) => truthy(run(x, e.body), e.macro));
    case 'map': {
      const out: CelValue[] = [];
      for (const x of elems) {
        if (e.filter !== undefined && !truthy(run(x, e.filter), e.macro)) continue;
        out.push(run(x, e.body));
      }
      return out;
    }
  }
}
