// Runs x-kubernetes-validations rules over a custom resource, node by node, as the CEL
// validator of kube-apiserver does (rules skip absent values; transition rules need oldSelf).
import type { FieldError } from '../errors.js';
import { isPlainObject } from '../../kube/json.js';
import { CelCompileError, CelEvalError, type CelMap, type CelValue, type Expr } from './cel/ast.js';
import { evaluate } from './cel/eval.js';
import { checkReferences, parseCel, usesOldSelf } from './cel/parser.js';
import { errs } from './field-errors.js';
import { additionalProperties, isEmbeddedResource, items, property, schemaType, type JSONSchemaProps } from './schema-access.js';

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
  reason?: string;
}

interface CompiledRule {
  rule: ValidationRule;
  program?: Expr;
  messageProgram?: Expr;
  transition: boolean;
  error?: string;
}

const compiledCache = new Map<string, Expr | CelCompileError>();

/** Parses a rule and checks its references; throws CelCompileError with cel-go's layout. */
export function compileRule(source: string): Expr {
  let cached = compiledCache.get(source);
  if (cached === undefined) {
    try {
      cached = parseCel(source);
      checkReferences(source, cached, new Set(['self', 'oldSelf']));
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err;
      cached = err;
    }
    if (compiledCache.size > 2000) compiledCache.clear();
    compiledCache.set(source, cached);
  }
  if (cached instanceof CelCompileError) throw cached;
  return cached;
}

export function rulesOf(s: JSONSchemaProps): ValidationRule[] {
  const raw = s['x-kubernetes-validations'];
  if (!Array.isArray(raw)) return [];
  return raw.filter((r): r is ValidationRule => isPlainObject(r) && typeof r.rule === 'string');
}

function compile(rule: ValidationRule): CompiledRule {
  try {
    const program = compileRule(rule.rule);
    const messageProgram = typeof rule.messageExpression === 'string' && rule.messageExpression !== '' ? compileRule(rule.messageExpression) : undefined;
    return { rule, program, messageProgram, transition: usesOldSelf(program) };
  } catch (err) {
    return { rule, transition: false, error: (err as Error).message };
  }
}

/** JSON -> CEL values, using the schema to tell ints from doubles; root/embedded metadata is narrowed to name and generateName. */
class Converter {
  private readonly memo = new WeakMap<object, CelValue>();

  convert(v: unknown, s: JSONSchemaProps | undefined, isResource = false): CelValue {
    if (v === null || v === undefined) return null;
    if (typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v === 'number') return schemaType(s) !== 'number' && Number.isInteger(v) ? BigInt(v) : v;
    if (typeof v !== 'object') return null;
    const hit = this.memo.get(v);
    if (hit !== undefined) return hit;
    let out: CelValue;
    if (Array.isArray(v)) {
      const itemSchema = items(s);
      out = v.map((x) => this.convert(x, itemSchema, itemSchema !== undefined && isEmbeddedResource(itemSchema)));
    } else {
      const rec = v as Record<string, unknown>;
      const m: CelMap = new Map();
      const resource = isResource || isEmbeddedResource(s);
      for (const k of Object.keys(rec)) {
        if (resource && k === 'metadata' && isPlainObject(rec[k])) {
          m.set(k, narrowMetadata(rec[k]));
          continue;
        }
        const child = property(s, k) ?? additionalProperties(s);
        m.set(k, this.convert(rec[k], child, child !== undefined && isEmbeddedResource(child)));
      }
      out = m;
    }
    this.memo.set(v, out);
    return out;
  }
}

function narrowMetadata(meta: Record<string, unknown>): CelMap {
  const m: CelMap = new Map();
  for (const k of ['name', 'generateName']) if (typeof meta[k] === 'string') m.set(k, meta[k] as string);
  return m;
}

const compiledBySchema = new WeakMap<object, CompiledRule[]>();
function compiledRules(s: JSONSchemaProps): CompiledRule[] {
  let c = compiledBySchema.get(s);
  if (c === undefined) {
    c = rulesOf(s).map(compile);
    compiledBySchema.set(s, c);
  }
  return c;
}

function ruleText(rule: ValidationRule): string {
  return (rule.message !== undefined && rule.message !== '' ? rule.message : rule.rule).trim();
}

function joinPath(base: string, rel: string): string {
  const r = rel.startsWith('.') ? rel.slice(1) : rel;
  if (base === '<nil>') return r;
  return r.startsWith('[') ? base + r : `${base}.${r}`;
}

function failure(c: CompiledRule, path: string, type: string, detail: string): FieldError {
  const field = c.rule.fieldPath !== undefined && c.rule.fieldPath !== '' ? joinPath(path, c.rule.fieldPath) : path;
  switch (c.rule.reason) {
    case 'FieldValueForbidden':
      return errs.forbidden(field, detail);
    case 'FieldValueRequired':
      return errs.required(field, detail);
    case 'FieldValueDuplicate':
      return errs.duplicate(field, type);
    default:
      return errs.invalid(field, type, detail);
  }
}

class RuleRunner {
  private readonly conv = new Converter();
  readonly out: FieldError[] = [];

  run(path: string, s: JSONSchemaProps, value: unknown, old: unknown, isResource: boolean): void {
    if (value === null || value === undefined) return;
    const rules = compiledRules(s);
    if (rules.length > 0) this.runRules(path, s, value, old, rules, isResource);
    const child = (k: string) => (path === '<nil>' ? k : `${path}.${k}`);
    if (Array.isArray(value)) {
      const itemSchema = items(s);
      if (itemSchema === undefined) return;
      const oldItems = correlateItems(s, value, old);
      for (let i = 0; i < value.length; i++) this.run(`${path === '<nil>' ? '' : path}[${i}]`, itemSchema, value[i], oldItems[i], isEmbeddedResource(itemSchema));
    } else if (isPlainObject(value)) {
      const oldMap = isPlainObject(old) ? old : undefined;
      const extra = additionalProperties(s);
      for (const k of Object.keys(value)) {
        const prop = property(s, k);
        if (prop !== undefined) this.run(child(k), prop, value[k], oldMap?.[k], isEmbeddedResource(prop));
        else if (extra !== undefined) this.run(`${path === '<nil>' ? '' : path}[${k}]`, extra, value[k], oldMap?.[k], isEmbeddedResource(extra));
      }
    }
  }

  private runRules(path: string, s: JSONSchemaProps, value: unknown, old: unknown, rules: CompiledRule[], isResource: boolean): void {
    const type = schemaType(s);
    let self: CelValue | undefined;
    let oldSelf: CelValue | undefined;
    for (const c of rules) {
      if (c.error !== undefined || c.program === undefined) {
        this.out.push(errs.invalid(path, type, `rule compiler initialization error: ${c.error ?? 'unknown'}`));
        continue;
      }
      if (c.transition && (old === undefined || old === null)) continue;
      self ??= this.conv.convert(value, s, isResource);
      const vars = new Map<string, CelValue>([['self', self]]);
      if (c.transition) {
        oldSelf ??= this.conv.convert(old, s, isResource);
        vars.set('oldSelf', oldSelf);
      }
      let result: CelValue;
      try {
        result = evaluate(c.program, vars);
      } catch (err) {
        if (!(err instanceof CelEvalError)) throw err;
        const detail = err.message.startsWith('no such overload')
          ? `'${err.message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(c.rule)}`
          : `${err.message} evaluating rule: ${ruleText(c.rule)}`;
        this.out.push(errs.invalid(path, type, detail));
        continue;
      }
      if (result === true) continue;
      if (typeof result !== 'boolean') {
        this.out.push(errs.invalid(path, type, `rule did not evaluate to a boolean: ${ruleText(c.rule)}`));
        continue;
      }
      this.out.push(failure(c, path, type, this.message(c, vars)));
    }
  }

  private message(c: CompiledRule, vars: Map<string, CelValue>): string {
    if (c.messageProgram !== undefined) {
      try {
        const m = evaluate(c.messageProgram, vars);
        if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) return m;
      } catch {
        // fall back to the static message, as kube does when messageExpression fails
      }
    }
    if (c.rule.message !== undefined && c.rule.message !== '') return c.rule.message;
    return `failed rule: ${ruleText(c.rule)}`;
  }
}

/** Old items that correspond to new ones: only list-type map lists correlate, by their keys. */
function correlateItems(s: JSONSchemaProps, value: unknown[], old: unknown): unknown[] {
  if (s['x-kubernetes-list-type'] !== 'map' || !Array.isArray(old)) return [];
  const keys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as string[]) : [];
  const mapKeyOf = (x: unknown) => (isPlainObject(x) ? JSON.stringify(keys.map((k) => x[k] ?? null)) : '');
  const byKey = new Map<string, unknown>();
  for (const o of old) byKey.set(mapKeyOf(o), o);
  return value.map((v) => byKey.get(mapKeyOf(v)));
}

const hasRulesCache = new WeakMap<object, boolean>();

/** Whether any node of the schema carries x-kubernetes-validations (cached per schema object). */
export function hasRules(s: JSONSchemaProps): boolean {
  let has = hasRulesCache.get(s);
  if (has === undefined) {
    has = containsRules(s, new Set());
    hasRulesCache.set(s, has);
  }
  return has;
}

function containsRules(s: JSONSchemaProps, seen: Set<object>): boolean {
  if (seen.has(s)) return false;
  seen.add(s);
  if (rulesOf(s).length > 0) return true;
  const props = s.properties;
  if (isPlainObject(props)) for (const p of Object.values(props)) if (isPlainObject(p) && containsRules(p, seen)) return true;
  const it = items(s);
  if (it !== undefined && containsRules(it, seen)) return true;
  const extra = additionalProperties(s);
  return extra !== undefined && containsRules(extra, seen);
}

/** Evaluates every x-kubernetes-validations rule; `oldObj` enables transition rules. */
export function validateCelRules(schema: JSONSchemaProps, obj: Record<string, unknown>, oldObj?: Record<string, unknown>): FieldError[] {
  if (!hasRules(schema)) return [];
  const runner = new RuleRunner();
  runner.run('<nil>', schema, obj, oldObj, true);
  return runner.out;
}
