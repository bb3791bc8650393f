// The one label-selector parser and matcher (src/kube/labels.ts), shared by the embedded API server
// and the runtime's informer cache.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LabelSelectorError, labelSelectorFromObject, matchesLabels, parseLabelSelector } from '../../src/kube/labels.js';

describe('label selectors', () => {
  it('parses and matches every operator', () => {
    const sel = parseLabelSelector('a=b, c!=d,e in (f, g),h notin (i),j,!k');
    assert.equal(sel.length, 6);
    assert.equal(matchesLabels(sel, { a: 'b', e: 'g', j: '' }), true);
    assert.equal(matchesLabels(sel, { a: 'b', e: 'g', j: '', k: 'x' }), false);
    assert.equal(matchesLabels(sel, { a: 'b', c: 'd', e: 'g', j: '' }), false);
    assert.equal(matchesLabels(sel, { a: 'b', e: 'g', h: 'i', j: '' }), false);
    assert.deepEqual(parseLabelSelector(''), []);
  });

  it('rejects bad syntax with kube-apiserver messages', () => {
    assert.throws(() => parseLabelSelector('a in b'), (e: unknown) => e instanceof LabelSelectorError && e.message === "unable to parse requirement: found 'b', expected: '('");
    assert.throws(() => parseLabelSelector('a,,b'), LabelSelectorError);
  });

  it('reads metav1.LabelSelector objects', () => {
    const sel = labelSelectorFromObject({ matchLabels: { app: 'x' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] });
    assert.ok(sel);
    assert.equal(matchesLabels(sel, { app: 'x', tier: 'web' }), true);
    assert.equal(matchesLabels(sel, { app: 'x', tier: 'db' }), false);
  });
});
