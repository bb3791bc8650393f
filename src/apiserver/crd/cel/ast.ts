// Syntax tree and runtime values of the CEL subset used by x-kubernetes-validations rules.

/** Runtime values: ints are bigint (int64 semantics), doubles are number, maps are Map. */
export type CelValue = null | boolean | bigint | number | string | CelValue[] | CelMap;
export type CelMapKey = string | bigint | boolean;
export type CelMap = Map<CelMapKey, CelValue>;

export type MacroName = 'all' | 'exists' | 'exists_one' | 'map' | 'filter';

export type Expr = { pos: number } & (
  | { k: 'lit'; v: CelValue }
  | { k: 'ident'; name: string }
  | { k: 'select'; operand: Expr; field: string }
  | { k: 'has'; operand: Expr; field: string }
  | { k: 'index'; operand: Expr; index: Expr }
  | { k: 'call'; fn: string; target?: Expr; args: Expr[] }
  | { k: 'list'; elems: Expr[] }
  | { k: 'map'; entries: Array<[Expr, Expr]> }
  | { k: 'cond'; c: Expr; t: Expr; f: Expr }
  | { k: 'and' | 'or'; l: Expr; r: Expr }
  | { k: 'not' | 'neg'; e: Expr }
  | { k: 'bin'; op: BinaryOp; l: Expr; r: Expr }
  | { k: 'macro'; macro: MacroName; range: Expr; v: string; body: Expr; filter?: Expr }
);

export type BinaryOp = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | '+' | '-' | '*' | '/' | '%';

/** A rule that failed to parse or references unknown names; `message` follows cel-go's layout. */
export class CelCompileError extends Error {}

/** An evaluation error such as `no such key: x` or `division by zero`. */
export class CelEvalError extends Error {}
