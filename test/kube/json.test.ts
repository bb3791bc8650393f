import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson, jsonEqual, sortKeys } from '../../src/kube/json.js';
import { reversedKeys } from '../support/reorder.js';

const value = { spec: { zone: 'b', alpha: [{ y: 1, b: null }, 'x'] }, metadata: { name: 'n', labels: { z: '1', a: '2' } }, kind: 'K' };

test('sortKeys sorts object keys at every level and keeps arrays in order', () => {
  const sorted = sortKeys(value);
  assert.equal(JSON.stringify(sorted), '{"kind":"K","metadata":{"labels":{"a":"2","z":"1"},"name":"n"},"spec":{"alpha":[{"b":null,"y":1},"x"],"zone":"b"}}');
  assert.deepEqual(sorted, value);
  assert.equal(sortKeys('text'), 'text');
  assert.equal(sortKeys(null), null);
});

test('sortKeys copies only the parts out of order and leaves its argument as it was', () => {
  const before = JSON.stringify(value);
  const sorted = sortKeys(value);
  assert.equal(JSON.stringify(value), before, 'the argument is unchanged');
  assert.notEqual(sorted, value, 'the top level was out of order: a copy');
  assert.notEqual(sorted.metadata.labels, value.metadata.labels, 'labels were out of order: a copy');
  assert.notEqual(sorted.spec.alpha, value.spec.alpha, 'an array with an element out of order: a copy');
  assert.equal(sorted.spec.alpha[1], 'x');

  const inOrder = { a: { b: [{ c: 1, d: { e: 2 } }, 3], f: 'g' }, h: null };
  assert.equal(sortKeys(inOrder), inOrder, 'already sorted: the same object');
  const deep = { a: { b: [{ c: 1, d: { f: 2, e: 3 } }], x: { y: 1 } }, z: { k: 1 } };
  const deepSorted = sortKeys(deep);
  assert.equal(JSON.stringify(deepSorted), '{"a":{"b":[{"c":1,"d":{"e":3,"f":2}}],"x":{"y":1}},"z":{"k":1}}');
  assert.notEqual(deepSorted.a.b, deep.a.b, 'the path to the part out of order is copied');
  assert.equal(deepSorted.a.x, deep.a.x, 'a sorted sibling is shared');
  assert.equal(deepSorted.z, deep.z, 'a sorted sibling is shared');
  assert.equal(JSON.stringify(deep), '{"a":{"b":[{"c":1,"d":{"f":2,"e":3}}],"x":{"y":1}},"z":{"k":1}}', 'the argument is unchanged');
});

test('canonicalJson and jsonEqual do not depend on key order, and still see every difference of value', () => {
  const reordered = reversedKeys(value);
  assert.notEqual(JSON.stringify(reordered), JSON.stringify(value), 'the reordered copy serializes differently');
  assert.equal(canonicalJson(reordered), canonicalJson(value));
  assert.ok(jsonEqual(reordered, value));
  const changed = { ...value, spec: { ...value.spec, alpha: [{ y: 1, b: null }, 'y'] } };
  assert.notEqual(canonicalJson(changed), canonicalJson(value));
  assert.ok(!jsonEqual(changed, value));
  assert.ok(!jsonEqual({ a: [1, 2] }, { a: [2, 1] }), 'array order is part of the value');
  assert.ok(jsonEqual({ a: 1, b: undefined }, { a: 1 }), 'an undefined field is an absent one, as in JSON');
});
