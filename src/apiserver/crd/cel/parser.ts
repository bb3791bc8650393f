// Recursive-descent parser for the CEL subset, following the grammar of the CEL spec
// (conditional, ||, &&, relations, + -, * / %, unary, member access, primaries).
import { CelCompileError, type BinaryOp, type Expr, type MacroName } from './ast.js';
import { formatCelError, syntaxError, tokenize, type Token } from './lexer.js';

const reserved = new Set(['as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);
const macros = new Set<string>(['all', 'exists', 'exists_one', 'map', 'filter']);

class Parser {
  private i = 0;
  constructor(
    private readonly src: string,
    private readonly tokens: Token[],
  ) {}

  private peek(): Token {
    return this.tokens[this.i];
  }
  private next(): Token {
    return this.tokens[this.i++];
  }
  private isPunct(text: string): boolean {
    const t = this.peek();
    return t.kind === 'punct' && t.text === text;
  }
  private accept(text: string): boolean {
    if (!this.isPunct(text)) return false;
    this.i++;
    return true;
  }
  private expect(text: string): Token {
    const t = this.peek();
    if (t.kind !== 'punct' || t.text !== text) throw this.unexpected(t, `expecting '${text}'`);
    return this.next();
  }
  private unexpected(t: Token, expecting: string): CelCompileError {
    const input = t.kind === 'eof' ? '<EOF>' : `'${t.text}'`;
    return syntaxError(this.src, t.pos, `mismatched input ${input} ${expecting}`);
  }

  parse(): Expr {
    const e = this.expr();
    const t = this.peek();
    if (t.kind !== 'eof') throw syntaxError(this.src, t.pos, `extraneous input '${t.text}' expecting <EOF>`);
    return e;
  }

  private expr(): Expr {
    const c = this.or();
    if (!this.isPunct('?')) return c;
    const pos = this.next().pos;
    const t = this.or();
    this.expect(':');
    const f = this.expr();
    return { k: 'cond', c, t, f, pos };
  }

  private or(): Expr {
    let l = this.and();
    while (this.isPunct('||')) {
      const pos = this.next().pos;
      l = { k: 'or', l, r: this.and(), pos };
    }
    return l;
  }

  private and(): Expr {
    let l = this.relation();
    while (this.isPunct('&&')) {
      const pos = this.next().pos;
      l = { k: 'and', l, r: this.relation(), pos };
    }
    return l;
  }

  private relation(): Expr {
    let l = this.addition();
    for (;;) {
      const t = this.peek();
      const isRel = (t.kind === 'punct' && ['==', '!=', '<', '<=', '>', '>='].includes(t.text)) || (t.kind === 'ident' && t.text === 'in');
      if (!isRel) return l;
      this.next();
      l = { k: 'bin', op: t.text as BinaryOp, l, r: this.addition(), pos: t.pos };
    }
  }

  private addition(): Expr {
    let l = this.multiplication();
    while (this.isPunct('+') || this.isPunct('-')) {
      const t = this.next();
      l = { k: 'bin', op: t.text as BinaryOp, l, r: this.multiplication(), pos: t.pos };
    }
    return l;
  }

  private multiplication(): Expr {
    let l = this.unary();
    while (this.isPunct('*') || this.isPunct('/') || this.isPunct('%')) {
      const t = this.next();
      l = { k: 'bin', op: t.text as BinaryOp, l, r: this.unary(), pos: t.pos };
    }
    return l;
  }

  private unary(): Expr {
    if (this.isPunct('!')) {
      const pos = this.next().pos;
      return { k: 'not', e: this.unary(), pos };
    }
    if (this.isPunct('-')) {
      const t = this.next();
      const n = this.peek();
      // Fold negative literals so that -9223372036854775808 stays in range.
      if ((n.kind === 'int' || n.kind === 'double') && !this.isMemberAfterNext()) {
        this.next();
        const v = n.value as bigint | number;
        return { k: 'lit', v: typeof v === 'bigint' ? checkInt(-v, this.src, n.pos) : -v, pos: t.pos };
      }
      return { k: 'neg', e: this.unary(), pos: t.pos };
    }
    return this.member(this.primary());
  }

  private isMemberAfterNext(): boolean {
    const t = this.tokens[this.i + 1];
    return t !== undefined && t.kind === 'punct' && (t.text === '.' || t.text === '[');
  }

  private member(e: Expr): Expr {
    for (;;) {
      if (this.isPunct('.')) {
        this.next();
        const id = this.next();
        if (id.kind !== 'ident') throw this.unexpected(id, 'expecting IDENTIFIER');
        if (this.isPunct('(')) {
          this.next();
          const args = this.args(')');
          e = this.receiverCall(e, id, args);
        } else e = { k: 'select', operand: e, field: id.text, pos: id.pos };
      } else if (this.isPunct('[')) {
        const pos = this.next().pos;
        const index = this.expr();
        this.expect(']');
        e = { k: 'index', operand: e, index, pos };
      } else return e;
    }
  }

  private receiverCall(target: Expr, id: Token, args: Expr[]): Expr {
    if (macros.has(id.text) && (args.length === 2 || (id.text === 'map' && args.length === 3))) {
      const v = args[0];
      if (v.k !== 'ident') throw new CelCompileError(formatCelError(this.src, v.pos, 'argument must be a simple name'));
      const macro = id.text as MacroName;
      if (args.length === 3) return { k: 'macro', macro, range: target, v: v.name, filter: args[1], body: args[2], pos: id.pos };
      return { k: 'macro', macro, range: target, v: v.name, body: args[1], pos: id.pos };
    }
    return { k: 'call', fn: id.text, target, args, pos: id.pos };
  }

  private args(close: string): Expr[] {
    const out: Expr[] = [];
    if (this.accept(close)) return out;
    for (;;) {
      out.push(this.expr());
      if (this.accept(close)) return out;
      this.expect(',');
      if (this.accept(close)) return out;
    }
  }

  private primary(): Expr {
    const t = this.next();
    switch (t.kind) {
      case 'int':
        return { k: 'lit', v: checkInt(t.value as bigint, this.src, t.pos), pos: t.pos };
      case 'uint':
        return { k: 'lit', v: t.value as bigint, pos: t.pos };
      case 'double':
        return { k: 'lit', v: t.value as number, pos: t.pos };
      case 'string':
        return { k: 'lit', v: t.value as string, pos: t.pos };
      case 'bytes':
        throw syntaxError(this.src, t.pos, 'bytes literals are not supported');
      case 'ident':
        return this.identOrCall(t);
      case 'punct':
        return this.punctPrimary(t);
      default:
        throw this.unexpected(t, 'expecting an expression');
    }
  }

  private identOrCall(t: Token): Expr {
    if (t.text === 'true' || t.text === 'false') return { k: 'lit', v: t.text === 'true', pos: t.pos };
    if (t.text === 'null') return { k: 'lit', v: null, pos: t.pos };
    if (reserved.has(t.text) || t.text === 'in') throw syntaxError(this.src, t.pos, `reserved identifier: ${t.text}`);
    if (!this.isPunct('(')) return { k: 'ident', name: t.text, pos: t.pos };
    this.next();
    const args = this.args(')');
    if (t.text === 'has') {
      const a = args[0];
      if (args.length !== 1 || a.k !== 'select') throw new CelCompileError(formatCelError(this.src, t.pos, 'invalid argument to has() macro'));
      return { k: 'has', operand: a.operand, field: a.field, pos: t.pos };
    }
    return { k: 'call', fn: t.text, args, pos: t.pos };
  }

  private punctPrimary(t: Token): Expr {
    if (t.text === '(') {
      const e = this.expr();
      this.expect(')');
      return e;
    }
    if (t.text === '[') return { k: 'list', elems: this.args(']'), pos: t.pos };
    if (t.text === '{') {
      const entries: Array<[Expr, Expr]> = [];
      if (!this.accept('}')) {
        for (;;) {
          const key = this.expr();
          this.expect(':');
          entries.push([key, this.expr()]);
          if (this.accept('}')) break;
          this.expect(',');
          if (this.accept('}')) break;
        }
      }
      return { k: 'map', entries, pos: t.pos };
    }
    if (t.text === '.') {
      const id = this.next();
      if (id.kind !== 'ident') throw this.unexpected(id, 'expecting IDENTIFIER');
      return this.identOrCall(id);
    }
    throw this.unexpected(t, 'expecting an expression');
  }
}

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

function checkInt(v: bigint, src: string, pos: number): bigint {
  if (v > INT64_MAX || v < INT64_MIN) throw syntaxError(src, pos, 'invalid int literal');
  return v;
}

export function parseCel(src: string): Expr {
  return new Parser(src, tokenize(src)).parse();
}

/** Reports names that are neither variables in scope nor known (cel-go's "undeclared reference"). */
export function checkReferences(src: string, e: Expr, scope: ReadonlySet<string>): void {
  const visit = (x: Expr, vars: ReadonlySet<string>): void => {
    switch (x.k) {
      case 'ident':
        if (!vars.has(x.name)) throw new CelCompileError(formatCelError(src, x.pos, `undeclared reference to '${x.name}' (in container '')`));
        return;
      case 'lit':
        return;
      case 'select':
      case 'has':
        return visit(x.operand, vars);
      case 'index':
        visit(x.operand, vars);
        return visit(x.index, vars);
      case 'call':
        if (x.target !== undefined) visit(x.target, vars);
        for (const a of x.args) visit(a, vars);
        return;
      case 'list':
        for (const a of x.elems) visit(a, vars);
        return;
      case 'map':
        for (const [k, v] of x.entries) {
          visit(k, vars);
          visit(v, vars);
        }
        return;
      case 'cond':
        visit(x.c, vars);
        visit(x.t, vars);
        return visit(x.f, vars);
      case 'and':
      case 'or':
      case 'bin':
        visit(x.l, vars);
        return visit(x.r, vars);
      case 'not':
      case 'neg':
        return visit(x.e, vars);
      case 'macro': {
        visit(x.range, vars);
        const inner = new Set(vars).add(x.v);
        if (x.filter !== undefined) visit(x.filter, inner);
        return visit(x.body, inner);
      }
    }
  };
  visit(e, scope);
}

/** Calls `visit` for every node of the expression, the node itself first. */
export function walk(e: Expr, visit: (x: Expr) => void): void {
  visit(e);
  switch (e.k) {
    case 'select':
    case 'has':
      return walk(e.operand, visit);
    case 'index':
      walk(e.operand, visit);
      return walk(e.index, visit);
    case 'call':
      if (e.target !== undefined) walk(e.target, visit);
      return e.args.forEach((a) => walk(a, visit));
    case 'list':
      return e.elems.forEach((a) => walk(a, visit));
    case 'map':
      return e.entries.forEach(([k, v]) => (walk(k, visit), walk(v, visit)));
    case 'cond':
      walk(e.c, visit);
      walk(e.t, visit);
      return walk(e.f, visit);
    case 'and':
    case 'or':
    case 'bin':
      walk(e.l, visit);
      return walk(e.r, visit);
    case 'not':
    case 'neg':
      return walk(e.e, visit);
    case 'macro':
      walk(e.range, visit);
      if (e.filter !== undefined) walk(e.filter, visit);
      return walk(e.body, visit);
    default:
      return;
  }
}

/** The identifiers an expression mentions (variables and macro variables alike). */
export function identifiers(e: Expr): Set<string> {
  const names = new Set<string>();
  walk(e, (x) => {
    if (x.k === 'ident') names.add(x.name);
  });
  return names;
}

/** True when the expression mentions `oldSelf` (a transition rule). */
export function usesOldSelf(e: Expr): boolean {
  return identifiers(e).has('oldSelf');
}
