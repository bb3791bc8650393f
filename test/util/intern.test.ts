import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { internStrings, StringPool } from '../../src/util/intern.js';
import { cacheTransform } from '../../src/runtime/cache/store.js';
import type { KubeObject } from '../../src/kube/object.js';

describe('string pool', () => {
  it('keeps one entry per distinct string, and lets go of strings not seen for two generations', () => {
    const pool = new StringPool(3);
    for (const s of ['a', 'b', 'a', 'b', 'c']) pool.intern(s);
    assert.equal(pool.size, 3, 'repeats add nothing');
    pool.intern('d'); // the young generation is full: it becomes the old one
    assert.equal(pool.size, 4);
    pool.intern('a'); // seen in the old generation: carried into the young one
    pool.intern('e');
    pool.intern('f'); // rotates again: b, c and d were not seen in the last two generations
    assert.equal(pool.size, 4, 'a, d and e in the old generation, f in the young');
    for (let i = 0; i < 100; i++) pool.intern(`unique-${i}`);
    assert.ok(pool.size <= 6, `bounded by two generations: ${pool.size}`);
  });

  it('a generation also ends at its size in characters', () => {
    const pool = new StringPool(1000, 10);
    pool.intern('aaaaaa');
    pool.intern('bbbbbb'); // 12 characters: the next new string starts a generation
    pool.intern('c');
    pool.intern('dddddddddd'); // young: c, d (11 characters); old: a, b
    pool.intern('e'); // rotates: a and b are let go
    assert.equal(pool.size, 3, 'c and d in the old generation, e in the young');
  });

  it('interns the string values of an object in place, leaving values equal, skipping per-write fields, long strings and frozen objects', () => {
    const pool = new StringPool();
    const long = 'x'.repeat(20_000);
    const frozen = Object.freeze({ note: 'frozen value' });
    const obj = {
      metadata: { name: 'n', namespace: 'kyma-system', uid: 'u-1', resourceVersion: '42', labels: { a: 'kyma-system' } },
      status: { conditions: [{ type: 'Ready', lastTransitionTime: '2026-11-28T00:00:00Z' }], list: ['kyma-system', 7, null, ['nested']] },
      data: { big: long },
      frozen,
    };
    const before = structuredClone(obj);
    assert.equal(internStrings(obj, pool), obj);
    assert.deepEqual(obj, before);
    // n, kyma-system, Ready, nested: not the uid, the resourceVersion, the timestamp, the long string nor the frozen object's value.
    assert.equal(pool.size, 4);
  });

  it("the caches' transform drops managedFields and shares strings", () => {
    const obj: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns', managedFields: [{ manager: 'm', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }] }, data: { k: 'v' } };
    const stored = cacheTransform(obj);
    assert.equal(stored.metadata.managedFields, undefined);
    assert.deepEqual(stored, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns' }, data: { k: 'v' } });
    assert.ok(obj.metadata.managedFields, 'the object handed in keeps its managedFields');
  });
});
