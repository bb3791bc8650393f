// Admission webhooks' matchConditions (admissionregistration.k8s.io/v1, GA in Kubernetes 1.30): CEL
// expressions that a write must all satisfy for the webhook to be called. The API server evaluates
// them after the rules and selectors matched, before it calls: a false one skips the webhook; an
// error (with none false) skips it under failurePolicy Ignore and refuses the write (403) under Fail.
//
// The expressions run on the CEL interpreter of the CRD validation rules (crd/cel, docs/crd-cel.md).
// The variables are kube-apiserver's: `object` and `oldObject` (null where the operation has none)
// and `request` (the AdmissionRequest's attributes, without uid and the objects). `authorizer`,
// `namespaceObject` and Kubernetes' own CEL libraries are not offered: an expression using them is
// refused when the configuration is written (`undeclared reference`), or fails at evaluation.
import { isPlainObject } from '../kube/json.js';
import { CelCompileError, type CelMap, type CelValue, type Expr } from './crd/cel/ast.js';
import { evaluate } from './crd/cel/eval.js';
import { checkReferences, parseCel } from './crd/cel/parser.js';

/** At most this many conditions per webhook (kube-apiserver's limit). */
export const MAX_MATCH_CONDITIONS = 64;

export interface MatchCondition {
  name: string;
  expression: string;
}

/** What one write shows the conditions: `request` is the AdmissionRequest without uid, object and oldObject. */
export interface MatchVariables {
  object: unknown;
  oldObject: unknown;
  request: Record<string, unknown>;
}

const VARIABLES = ['object', 'oldObject', 'request'] as const;

export type Compiled = { expression: string; program: Expr; uses: ReadonlySet<string> } | { expression: string; error: string };

export type MatchResult = { matches: true } | { matches: false; expression: string } | { error: string };

/** The CEL type an expression evaluates to, as far as its syntax tells (kube-apiserver requires bool). */
function outputType(e: Expr): string {
  switch (e.k) {
    case 'lit':
      return e.v === null ? 'null_type' : typeof e.v === 'boolean' ? 'bool' : typeof e.v === 'bigint' ? 'int' : typeof e.v === 'number' ? 'double' : typeof e.v === 'string' ? 'string' : 'dyn';
    case 'list':
      return 'list';
    case 'map':
      return 'map';
    case 'and':
    case 'or':
    case 'not':
    case 'has':
      return 'bool';
    case 'bin':
      return ['==', '!=', '<', '<=', '>', '>=', 'in'].includes(e.op) ? 'bool' : outputType(e.l);
    case 'neg':
      return outputType(e.e);
    case 'cond': {
      const t = outputType(e.t);
      return t === outputType(e.f) ? t : 'dyn';
    }
    case 'macro':
      return e.macro === 'map' || e.macro === 'filter' ? 'list' : 'bool';
    case 'call':
      if (['startsWith', 'endsWith', 'contains', 'matches', 'isSorted', 'bool'].includes(e.fn)) return 'bool';
      if (e.fn === 'size' || e.fn === 'int' || e.fn === 'indexOf' || e.fn === 'lastIndexOf') return 'int';
      if (e.fn === 'string') return 'string';
      return 'dyn';
    default:
      return 'dyn';
  }
}

function identifiers(e: Expr, out: Set<string>): Set<string> {
  switch (e.k) {
    case 'ident':
      out.add(e.name);
      break;
    case 'select':
    case 'has':
      identifiers(e.operand, out);
      break;
    case 'index':
      identifiers(e.operand, out);
      identifiers(e.index, out);
      break;
    case 'call':
      if (e.target) identifiers(e.target, out);
      for (const a of e.args) identifiers(a, out);
      break;
    case 'list':
      for (const a of e.elems) identifiers(a, out);
      break;
    case 'map':
      for (const [k, v] of e.entries) identifiers(k, identifiers(v, out));
      break;
    case 'cond':
      identifiers(e.c, identifiers(e.t, identifiers(e.f, out)));
      break;
    case 'and':
    case 'or':
    case 'bin':
      identifiers(e.l, identifiers(e.r, out));
      break;
    case 'not':
    case 'neg':
      identifiers(e.e, out);
      break;
    case 'macro':
      identifiers(e.range, identifiers(e.body, out));
      if (e.filter) identifiers(e.filter, out);
      break;
    default:
      break;
  }
  return out;
}

/**
 * Compiles one expression (trimmed, as kube-apiserver does). The error is kube-apiserver's:
 * `compilation failed: ERROR: <input>:1:19: ...` or `must evaluate to bool but got <type>`.
 */
export function compileExpression(expression: string): { program: Expr; uses: ReadonlySet<string> } | { error: string } {
  const text = expression.trim();
  let program: Expr;
  try {
    program = parseCel(text);
    checkReferences(text, program, new Set(VARIABLES));
  } catch (e) {
    if (!(e instanceof CelCompileError)) throw e;
    return { error: `compilation failed: ${e.message}` };
  }
  const type = outputType(program);
  if (type !== 'bool') return { error: `must evaluate to bool but got ${type}` };
  const uses = new Set([...identifiers(program, new Set())].filter((n) => (VARIABLES as readonly string[]).includes(n)));
  return { program, uses };
}

/** Compiles a webhook's stored conditions; one that does not compile (stored before validation) is an error at each evaluation. */
export function compileMatchConditions(conditions: readonly MatchCondition[]): Compiled[] {
  return conditions.map((c) => {
    const expression = isPlainObject(c) && typeof c.expression === 'string' ? c.expression : '';
    const compiled = compileExpression(expression);
    return 'program' in compiled ? { expression, ...compiled } : { expression, error: `compilation error: ${compiled.error}` };
  });
}

/** JSON as CEL sees an object without a schema: whole numbers are ints, objects are maps. */
function celValueOf(v: unknown): CelValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(celValueOf);
  if (typeof v !== 'object') return null;
  const m: CelMap = new Map();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== undefined) m.set(k, celValueOf(x));
  return m;
}

/**
 * kube-apiserver's matcher: a condition that is false decides (the webhook is skipped), even when
 * others failed; otherwise any error decides; otherwise the webhook is called. Errors read as
 * kube-apiserver's: `expression '<expression>' resulted in error: <why>`, several as `[a, b]`.
 * Only the variables some condition uses are converted.
 */
export function evaluateMatchConditions(compiled: readonly Compiled[], vars: MatchVariables): MatchResult {
  const bindings = new Map<string, CelValue>();
  const bind = (uses: ReadonlySet<string>) => {
    for (const name of uses) if (!bindings.has(name)) bindings.set(name, celValueOf(vars[name as keyof MatchVariables]));
  };
  const errors: string[] = [];
  for (const c of compiled) {
    if ('error' in c) {
      errors.push(`expression '${c.expression}' resulted in error: ${c.error}`);
      continue;
    }
    bind(c.uses);
    let value: CelValue;
    try {
      value = evaluate(c.program, bindings);
    } catch (e) {
      errors.push(`expression '${c.expression}' resulted in error: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    if (value === false) return { matches: false, expression: c.expression };
    if (value !== true) errors.push(`expression '${c.expression}' resulted in error: no such overload`);
  }
  const unique = [...new Set(errors)];
  return unique.length > 0 ? { error: unique.length === 1 ? unique[0] : `[${unique.join(', ')}]` } : { matches: true };
}
