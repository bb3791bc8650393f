import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CelCompileError, CelEvalError, type CelValue } from '../../../../src/apiserver/crd/cel/ast.js';
import { evaluate } from '../../../../src/apiserver/crd/cel/eval.js';
import { checkReferences, parseCel } from '../../../../src/apiserver/crd/cel/parser.js';

function run(src: string, self: CelValue = null): CelValue {
  const e = parseCel(src);
  checkReferences(src, e, new Set(['self']));
  return evaluate(e, new Map([['self', self]]));
}

const obj = (o: Record<string, CelValue>): CelValue => new Map(Object.entries(o));

test('arithmetic, comparison and logic follow CEL semantics', () => {
  assert.equal(run('1 + 2 * 3 - 4 / 3 % 2'), 6n);
  assert.equal(run('-7 / 2'), -3n);
  assert.equal(run('1.5 * 2.0'), 3);
  assert.equal(run("'a' + 'b' == 'ab'"), true);
  assert.equal(run('1 < 2 && 2 <= 2 && 3 > 2 && !(1 >= 2) || false'), true);
  assert.equal(run('true ? 1 : 2'), 1n);
  assert.equal(run('[1, 2] + [3] == [1, 2, 3]'), true);
  assert.equal(run("2 in [1, 2] && 'k' in {'k': 1}"), true);
  assert.throws(() => run('1 / 0'), (e: unknown) => e instanceof CelEvalError && e.message === 'division by zero');
  assert.throws(() => run('9223372036854775807 + 1'), /integer overflow/);
});

test('&& and || absorb errors when the other side decides', () => {
  const self = obj({ a: 1n });
  assert.equal(run('self.missing == 1 || true', self), true);
  assert.equal(run('false && self.missing == 1', self), false);
  assert.throws(() => run('self.missing == 1 || false', self), /no such key: missing/);
});

test('field access, has(), index, size and string functions', () => {
  const self = obj({ name: 'web-1', tags: ['a', 'b'], 'foo-bar': 'x', labels: obj({ app: 'web' }) });
  assert.equal(run("has(self.name) && !has(self.other) && self.foo__dash__bar == 'x'", self), true);
  assert.equal(run("self.tags[1] == 'b' && size(self.tags) == 2 && self.name.size() == 5", self), true);
  assert.equal(run("self.name.startsWith('web') && self.name.endsWith('-1') && self.name.contains('b-') && self.name.matches('^[a-z]+-[0-9]$')", self), true);
  assert.equal(run("self.labels['app'] == 'web' && 'app' in self.labels", self), true);
  assert.equal(run("int('42') + 1 == 43 && string(7) == '7' && double(1) == 1.0 && self.name.upperAscii() == 'WEB-1'", self), true);
  assert.throws(() => run('self.tags[5]', self), /index out of bounds: 5/);
});

test('macros over lists and maps', () => {
  const self = obj({ items: [obj({ n: 1n }), obj({ n: 2n }), obj({ n: 3n })], m: obj({ a: 1n, b: 2n }) });
  assert.equal(run('self.items.all(i, i.n > 0)', self), true);
  assert.equal(run('self.items.exists(i, i.n == 2)', self), true);
  assert.equal(run('self.items.exists_one(i, i.n > 2)', self), true);
  assert.deepEqual(run('self.items.map(i, i.n * 2)', self), [2n, 4n, 6n]);
  assert.deepEqual(run('self.items.map(i, i.n > 1, i.n)', self), [2n, 3n]);
  assert.deepEqual(run("self.m.filter(k, self.m[k] > 1)", self), ['b']);
  assert.equal(run("self.m.all(k, k in ['a', 'b'])", self), true);
  assert.equal(run('self.items.all(i, i.missing == 1 || i.n > 0)', self), true);
});

test('syntax and reference errors use cel-go layout', () => {
  assert.throws(
    () => run('self.x >'),
    (e: unknown) => e instanceof CelCompileError && e.message.startsWith('ERROR: <input>:1:9: Syntax error: mismatched input'),
  );
  assert.throws(
    () => run('foo == 1'),
    (e: unknown) => e instanceof CelCompileError && e.message === "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo == 1\n | ^",
  );
});
