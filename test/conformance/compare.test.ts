import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareTranscripts, diffValues, SymbolCorrespondence, type Difference } from './compare.js';
import { loadGolden } from './corpus.js';
import { evaluate, formatDifference } from './report.js';
import type { JsonValue, Transcript, TranscriptStep } from './types.js';

function response(id: string, status: number, body?: JsonValue): TranscriptStep {
  return { id, request: { method: 'GET', path: '/x' }, response: body === undefined ? { status } : { status, body } };
}

function transcript(...steps: TranscriptStep[]): Transcript {
  return { name: 's', steps };
}

function renumber(value: JsonValue, shift: number): JsonValue {
  return JSON.parse(JSON.stringify(value).replace(/(uid|rv)#(\d+)/g, (_m, kind: string, n: string) => `${kind}#${Number(n) + shift}`)) as JsonValue;
}

test('a golden transcript agrees with itself and with a renumbered copy of itself', () => {
  const golden = loadGolden('core-configmap-crud');
  assert.equal(compareTranscripts(golden, golden).failed, 0);
  const renumbered = renumber(golden as unknown as JsonValue, 10) as unknown as Transcript;
  const result = compareTranscripts(golden, renumbered);
  assert.equal(result.failed, 0);
  assert.equal(result.passed, golden.steps.length);
});

test('a no-op update must keep the resourceVersion: symbols correspond across steps', () => {
  const golden = transcript(
    response('update', 200, { metadata: { resourceVersion: 'rv#2' } }),
    response('noop', 200, { metadata: { resourceVersion: 'rv#2' } }),
  );
  const bumped = transcript(
    response('update', 200, { metadata: { resourceVersion: 'rv#7' } }),
    response('noop', 200, { metadata: { resourceVersion: 'rv#8' } }),
  );
  const result = compareTranscripts(golden, bumped);
  assert.deepEqual(result.steps.map((s) => s.passed), [true, false]);
  assert.equal(result.steps[1].differences[0].path, 'response.body.metadata.resourceVersion');
  assert.match(result.steps[1].differences[0].note ?? '', /expected rv#2 \(= actual rv#7 elsewhere/);
});

test('one-to-one: an actual symbol cannot stand for two golden symbols', () => {
  const golden = transcript(response('a', 200, { uid: 'uid#1' }), response('b', 200, { uid: 'uid#2' }));
  const actual = transcript(response('a', 200, { uid: 'uid#5' }), response('b', 200, { uid: 'uid#5' }));
  const result = compareTranscripts(golden, actual);
  assert.deepEqual(result.steps.map((s) => s.passed), [true, false]);
  assert.match(result.steps[1].differences[0].note ?? '', /uid#5, which stands for golden uid#1/);
});

test('symbols of different kinds never correspond; symbols inside messages and keys are matched too', () => {
  const symbols = new SymbolCorrespondence();
  const out: Difference[] = [];
  diffValues({ a: 'uid#1' }, { a: 'rv#1' }, 'body', symbols, out);
  assert.equal(out.length, 1);

  const golden = transcript(
    response('get', 200, { metadata: { uid: 'uid#1' } }),
    response('conflict', 409, { message: 'UID in record (uid#1) differs', fields: { 'k:{"uid":"uid#1"}': {} } }),
  );
  const good = transcript(
    response('get', 200, { metadata: { uid: 'uid#3' } }),
    response('conflict', 409, { message: 'UID in record (uid#3) differs', fields: { 'k:{"uid":"uid#3"}': {} } }),
  );
  assert.equal(compareTranscripts(golden, good).failed, 0);
  const bad = transcript(
    response('get', 200, { metadata: { uid: 'uid#3' } }),
    response('conflict', 409, { message: 'UID in record (uid#4) differs', fields: { 'k:{"uid":"uid#3"}': {} } }),
  );
  const result = compareTranscripts(golden, bad);
  assert.equal(result.failed, 1);
  assert.equal(result.steps[1].differences[0].path, 'response.body.message');
});

test('pairs seen in a failing step are not kept for later steps', () => {
  const golden = transcript(
    response('a', 200, { rv: 'rv#1', x: 1 }),
    response('b', 200, { rv: 'rv#1' }),
  );
  const actual = transcript(
    response('a', 200, { rv: 'rv#9', x: 2 }),
    response('b', 200, { rv: 'rv#4' }),
  );
  assert.deepEqual(compareTranscripts(golden, actual).steps.map((s) => s.passed), [false, true]);
});

test('differences name their paths: changed, missing and unexpected fields, array lengths, status', () => {
  const golden = transcript(response('a', 422, { message: 'bad', details: { causes: [{ field: 'x' }, { field: 'y' }] }, code: 422 }));
  const actual = transcript(response('a', 400, { message: 'bad', details: { causes: [{ field: 'x' }] }, extra: true }));
  const differences = compareTranscripts(golden, actual).steps[0].differences;
  assert.deepEqual(
    differences.map((d) => [d.path, d.note ?? '']),
    [
      ['response.status', ''],
      ['response.body.details.causes[1]', 'missing'],
      ['response.body.code', 'missing'],
      ['response.body.extra', 'not expected'],
    ],
  );
  assert.equal(formatDifference(differences[0], ''), 'response.status: expected 422, got 400');
});

test('key order is ignored; absent bodies (empty select) compare equal only to absent bodies', () => {
  const golden = transcript(response('a', 200, { a: 1, b: { c: 2, d: 3 } }), response('b', 200));
  const actual = transcript(response('a', 200, { b: { d: 3, c: 2 }, a: 1 }), response('b', 200, []));
  const result = compareTranscripts(golden, actual);
  assert.deepEqual(result.steps.map((s) => s.passed), [true, false]);
  assert.equal(result.steps[1].differences[0].note, 'not expected');
});

test('watch steps compare status, collects their events, and missing steps fail', () => {
  const golden = transcript(
    { id: 'w', watch: '/x?watch=1&resourceVersion=<rv>', status: 200 },
    { id: 'ev', collect: 'w', events: [{ type: 'ADDED', object: 'i1' }, { type: 'ADDED', object: 'i2' }] },
    response('last', 200),
  );
  const actual = transcript(
    { id: 'w', watch: '/other', status: 200 },
    { id: 'ev', collect: 'w', events: [{ type: 'ADDED', object: 'i1' }] },
  );
  const result = compareTranscripts(golden, actual);
  assert.deepEqual(result.steps.map((s) => s.passed), [true, false, false]);
  assert.equal(result.steps[1].differences[0].path, 'events[1]');
  assert.equal(result.steps[2].differences[0].note, 'step was not recorded');
});

test('evaluate: totals, unlisted failures and stale known deviations', () => {
  const golden = transcript(response('a', 200), response('b', 200), response('c', 200));
  const result = compareTranscripts(golden, transcript(response('a', 200), response('b', 500), response('c', 500)));
  const evaluation = evaluate([result], [
    { scenario: 's', step: 'b', reason: 'known' },
    { scenario: 's', step: 'a', reason: 'fixed meanwhile' },
    { scenario: 'not-run', step: 'x', reason: 'other scenario' },
  ]);
  assert.equal(evaluation.passed, 1);
  assert.equal(evaluation.failed, 2);
  assert.deepEqual(evaluation.unlisted, [{ scenario: 's', step: 'c' }]);
  assert.deepEqual(evaluation.stale.map((k) => k.step), ['a']);
});

test('object keys that differ only by symbols are paired by the symbols already agreed', () => {
  const golden = transcript(
    response('owners', 200, [{ uid: 'uid#1' }, { uid: 'uid#2' }]),
    response('fields', 200, { 'k:{"uid":"uid#1"}': { a: 1 }, 'k:{"uid":"uid#2"}': { a: 2 } }),
  );
  const actual = transcript(
    response('owners', 200, [{ uid: 'uid#7' }, { uid: 'uid#8' }]),
    response('fields', 200, { 'k:{"uid":"uid#8"}': { a: 2 }, 'k:{"uid":"uid#7"}': { a: 1 } }),
  );
  assert.equal(compareTranscripts(golden, actual).failed, 0);
});

test('inside custom resources key order counts (kube-apiserver sorts their keys); built-in kinds and keys with symbols are exempt', () => {
  const widget = (spec: JsonValue): JsonValue => ({ apiVersion: 'conf.example.com/v1', kind: 'Widget', metadata: { name: 'w', uid: 'uid#1' }, spec });
  const golden = transcript(
    response('cr', 200, widget({ a: 1, b: { c: 2, d: 3 } })),
    response('builtin', 200, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c' }, data: { a: '1', b: '2' } }),
    response('owner', 200, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { ownerReferences: [{ apiVersion: 'conf.example.com/v1', kind: 'Widget', name: 'w' }] } }),
    response('fields', 200, { ...(widget({}) as Record<string, JsonValue>), f: { 'k:{"uid":"uid#1"}': {}, 'k:{"uid":"uid#2"}': {} } }),
  );
  const actual = transcript(
    response('cr', 200, widget({ a: 1, b: { d: 3, c: 2 } })),
    response('builtin', 200, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { b: '2', a: '1' } }),
    response('owner', 200, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { ownerReferences: [{ name: 'w', kind: 'Widget', apiVersion: 'conf.example.com/v1' }] } }),
    response('fields', 200, { ...(widget({}) as Record<string, JsonValue>), f: { 'k:{"uid":"uid#2"}': {}, 'k:{"uid":"uid#1"}': {} } }),
  );
  const result = compareTranscripts(golden, actual);
  assert.deepEqual(result.steps.map((s) => s.passed), [false, true, true, true]);
  assert.deepEqual(result.steps[0].differences.map((d) => [d.path, d.note]), [['response.body.spec.b', 'key order: expected c, d; got d, c']]);
});
