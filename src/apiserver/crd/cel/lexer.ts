// Tokenizer for the CEL subset.
import { CelCompileError } from './ast.js';

export type TokenKind = 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'ident' | 'punct' | 'eof';
export interface Token {
  kind: TokenKind;
  text: string;
  value?: string | number | bigint;
  pos: number;
}

const puncts = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '+', '-', '*', '/', '%', '!', '?', ':', '.', ',', '(', ')', '[', ']', '{', '}'];

export function syntaxError(source: string, pos: number, message: string): CelCompileError {
  return new CelCompileError(formatCelError(source, pos, `Syntax error: ${message}`));
}

/** cel-go's error layout: `ERROR: <input>:L:C: msg` followed by the line and a caret. */
export function formatCelError(source: string, pos: number, message: string): string {
  const before = source.slice(0, pos);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const col = pos - lineStart;
  const lineText = source.slice(lineStart).split('\n')[0];
  return `ERROR: <input>:${line}:${col + 1}: ${message}\n | ${lineText}\n | ${'.'.repeat(col)}^`;
}

const escapes: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '`': '`', '?': '?' };

function readString(src: string, start: number, raw: boolean): { value: string; end: number } {
  const quote = src[start];
  const triple = src.startsWith(quote.repeat(3), start);
  const delim = triple ? quote.repeat(3) : quote;
  let i = start + delim.length;
  let out = '';
  while (i < src.length) {
    if (src.startsWith(delim, i)) return { value: out, end: i + delim.length };
    const c = src[i];
    if (!triple && (c === '\n' || c === '\r')) break;
    if (c === '\\' && !raw) {
      const n = src[i + 1];
      if (n in escapes) {
        out += escapes[n];
        i += 2;
      } else if (n === 'x' || n === 'u' || n === 'U') {
        const len = n === 'x' ? 2 : n === 'u' ? 4 : 8;
        const hex = src.slice(i + 2, i + 2 + len);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) throw syntaxError(src, i, 'invalid escape sequence');
        out += String.fromCodePoint(parseInt(hex, 16));
        i += 2 + len;
      } else if (/[0-3]/.test(n)) {
        const oct = src.slice(i + 1, i + 4);
        if (!/^[0-7]{3}$/.test(oct)) throw syntaxError(src, i, 'invalid escape sequence');
        out += String.fromCharCode(parseInt(oct, 8));
        i += 4;
      } else throw syntaxError(src, i, 'invalid escape sequence');
      continue;
    }
    out += c;
    i++;
  }
  throw syntaxError(src, start, 'unterminated string literal');
}

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    const start = i;
    const prefix = /^[rRbB]{1,2}(?=['"])/.exec(src.slice(i, i + 3));
    if (c === '"' || c === "'" || prefix !== null) {
      const flags = prefix === null ? '' : prefix[0].toLowerCase();
      const { value, end } = readString(src, i + flags.length, flags.includes('r'));
      tokens.push({ kind: flags.includes('b') ? 'bytes' : 'string', text: src.slice(start, end), value, pos: start });
      i = end;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const hex = /^0[xX][0-9a-fA-F]+[uU]?/.exec(src.slice(i));
      if (hex !== null) {
        const text = hex[0];
        const unsigned = /[uU]$/.test(text);
        tokens.push({ kind: unsigned ? 'uint' : 'int', text, value: BigInt(unsigned ? text.slice(0, -1) : text), pos: start });
        i += text.length;
        continue;
      }
      const m = /^(\d*\.\d+([eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d+\.(?!\w)|\d+)([uU]?)/.exec(src.slice(i));
      if (m === null) throw syntaxError(src, i, `token recognition error at: '${c}'`);
      const text = m[0];
      if (m[3] !== '') tokens.push({ kind: 'uint', text, value: BigInt(text.slice(0, -1)), pos: start });
      else if (/^\d+$/.test(text)) tokens.push({ kind: 'int', text, value: BigInt(text), pos: start });
      else tokens.push({ kind: 'double', text, value: Number(text), pos: start });
      i += text.length;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
      const text = m === null ? c : m[0];
      tokens.push({ kind: 'ident', text, pos: start });
      i += text.length;
      continue;
    }
    const p = puncts.find((q) => src.startsWith(q, i));
    if (p === undefined) throw syntaxError(src, i, `token recognition error at: '${c}'`);
    tokens.push({ kind: 'punct', text: p, pos: start });
    i += p.length;
  }
  tokens.push({ kind: 'eof', text: '<EOF>', pos: src.length });
  return tokens;
}
