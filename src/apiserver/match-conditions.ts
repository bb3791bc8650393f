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
import { formatCelError } from './crd/cel/lexer.js';
import { checkReferences, identifiers, parseCel, walk } from './crd/cel/parser.js';

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

/** The CEL variables one write's conditions have bound so far (shared by the webhooks of that write). */
export type Bindings = Map<string, CelValue>;

const GVK = { group: 'string', version: 'string', kind: 'string' };
const GVR = { group: 'string', version: 'string', resource: 'string' };
/**
 * kube-apiserver's `kubernetes.AdmissionRequest` for CEL: its fields and their types (a nested
 * table for the object types). `options` is dyn (CreateOptions, UpdateOptions or DeleteOptions).
 */
const REQUEST_FIELDS: Record<string, string | Record<string, string>> = {
  kind: GVK,
  resource: GVR,
  subResource: 'string',
  requestKind: GVK,
  requestResource: GVR,
  requestSubResource: 'string',
  name: 'string',
  namespace: 'string',
  operation: 'string',
  userInfo: { username: 'string', uid: 'string', groups: 'list', extra: 'map' },
  dryRun: 'bool',
  options: 'dyn',
};

/** The declared type of `request.<field>` or `request.<field>.<field>`, or undefined for anything else. */
function requestFieldType(e: Expr): string | Record<string, string> | undefined {
  if (e.k !== 'select') return undefined;
  if (e.operand.k === 'ident' && e.operand.name === 'request') return REQUEST_FIELDS[e.field];
  const parent = requestFieldType(e.operand);
  return typeof parent === 'object' ? parent[e.field] : undefined;
}

/** cel-go's `undefined field` for a field `request` (or one of its object fields) does not declare. */
function checkRequestFields(text: string, program: Expr): void {
  walk(program, (x) => {
    if (x.k !== 'select' && x.k !== 'has') return;
    const parent = x.operand.k === 'ident' && x.operand.name === 'request' ? REQUEST_FIELDS : requestFieldType(x.operand);
    // cel-go points at the selection's dot; this parser's node at the field's name.
    if (typeof parent === 'object' && !(x.field in parent)) throw new CelCompileError(formatCelError(text, Math.max(0, text.lastIndexOf('.', x.pos)), `undefined field '${x.field}'`));
  });
}

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
    case 'select': {
      const declared = requestFieldType(e);
      return typeof declared === 'string' ? declared : 'dyn';
    }
    case 'call':
      if (['startsWith', 'endsWith', 'contains', 'matches', 'isSorted', 'bool'].includes(e.fn)) return 'bool';
      if (e.fn === 'size' || e.fn === 'int' || e.fn === 'indexOf' || e.fn === 'lastIndexOf') return 'int';
      if (e.fn === 'string') return 'string';
      return 'dyn';
    default:
      return 'dyn';
  }
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
    checkRequestFields(text, program);
  } catch (e) {
    if (!(e instanceof CelCompileError)) throw e;
    return { error: `compilation failed: ${e.message}` };
  }
  const type = outputType(program);
  if (type !== 'bool') return { error: `must evaluate to bool but got ${type}` };
  const uses = new Set([...identifiers(program)].filter((n) => (VARIABLES as readonly string[]).includes(n)));
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
 * kube-apiserver's: `expression '<expression>' resulted in error: <why>` (a stored condition that
 * does not compile: `compilation error: ...`), several as `[a, b]`. Only the variables some
 * condition uses are converted, once per write (`bindings`, shared by its webhooks).
 */
export function evaluateMatchConditions(compiled: readonly Compiled[], vars: MatchVariables, bindings: Bindings = new Map()): MatchResult {
  const bind = (uses: ReadonlySet<string>) => {
    for (const name of uses) if (!bindings.has(name)) bindings.set(name, celValueOf(vars[name as keyof MatchVariables]));
  };
  const errors: string[] = [];
  for (const c of compiled) {
    if ('error' in c) {
      errors.push(c.error);
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
