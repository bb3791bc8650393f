import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPlainObject } from '../../src/kube/json.js';
import { loadGolden, loadScenario, scenarioNames } from './corpus.js';
import { Normalizer, normalizeTranscript, normalizeWatchPath } from './normalize.js';
import type { JsonValue, RawTranscript, Transcript, TranscriptStep } from './types.js';

const NS = 'kc-q8w2e4r6t0';
const HOOK = { id: 'hook', url: 'https://127.0.0.1:40123', caBundle: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJmake' };

/** Turns golden (normalized) values back into plausible raw ones, as a real server would send them. */
class Denormalizer {
  private readonly values = new Map<string, string>();
  private counter = 0;

  private raw(symbol: string): string {
    let value = this.values.get(symbol);
    if (value === undefined) {
      this.counter++;
      value = symbol.startsWith('uid#')
        ? `3f2a${String(this.counter).padStart(4, '0')}-1c2d-4e5f-8a9b-0c1d2e3f4a5b`
        : String(7_000_000 + this.counter * 37);
      this.values.set(symbol, value);
    }
    return value;
  }

  text(text: string): string {
    if (text === '<time>') return '2026-11-22T05:59:29Z';
    if (text === '<continue>') return 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzfQ';
    if (text === '<age>') return '5m2s';
    return text
      .replace(/\{\{hook\.url\}\}/g, HOOK.url)
      .replace(/\{\{hook\.caBundle\}\}/g, HOOK.caBundle)
      .replace(/\{\{ns\}\}/g, NS)
      .replace(/<generated>/g, 'x7k2q')
      .replace(/resourceVersion=<rv>/g, 'resourceVersion=6999999')
      .replace(/(?:uid|rv)#\d+/g, (symbol) => this.raw(symbol));
  }

  value(value: JsonValue, key = ''): JsonValue {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) {
      const items = value.map((item) => this.value(item));
      return key === 'managedFields' ? items.reverse() : items;
    }
    if (isPlainObject(value)) {
      const out: { [key: string]: JsonValue } = {};
      for (const [k, v] of Object.entries(value)) out[this.text(k)] = this.value(v as JsonValue, k);
      if (isPlainObject(out.metadata)) out.metadata = { ...out.metadata, selfLink: '/api/v1/x' };
      return out;
    }
    return value;
  }
}

function withoutRequests(transcript: Transcript): unknown[] {
  return transcript.steps.map((step) => {
    if (!('request' in step)) return step;
    const { request: _request, ...rest } = step;
    return rest;
  });
}

function rawFromGolden(name: string): RawTranscript {
  const golden = loadGolden(name);
  const unordered = loadScenario(name).steps.flatMap((s) => ('unordered' in s && s.unordered ? [s.id] : []));
  const denormalizer = new Denormalizer();
  const steps = golden.steps.map((step): TranscriptStep => {
    const raw = denormalizer.value(step as unknown as JsonValue) as unknown as TranscriptStep;
    if ('events' in raw && unordered.includes(raw.id)) raw.events.reverse();
    return raw;
  });
  return { ...golden, steps, namespace: NS, webhooks: [HOOK], unorderedCollects: unordered };
}

test('normalizing a raw version of every golden transcript gives the golden transcript back', () => {
  const names = scenarioNames();
  assert.ok(names.length >= 30);
  for (const name of names) {
    const golden = loadGolden(name);
    const normalized = normalizeTranscript(rawFromGolden(name));
    assert.deepEqual(withoutRequests(normalized), withoutRequests(golden), name);
  }
});

test('uids and resourceVersions are numbered separately, in order of first sight', () => {
  const n = new Normalizer({ namespace: NS });
  const out = n.value({
    metadata: { resourceVersion: '900', uid: 'aaaa', ownerReferences: [{ uid: 'bbbb' }] },
    items: [{ metadata: { uid: 'aaaa', resourceVersion: '901' } }, { metadata: { resourceVersion: '900' } }],
  });
  assert.deepEqual(out, {
    metadata: { resourceVersion: 'rv#1', uid: 'uid#1', ownerReferences: [{ uid: 'uid#2' }] },
    items: [{ metadata: { uid: 'uid#1', resourceVersion: 'rv#2' } }, { metadata: { resourceVersion: 'rv#1' } }],
  });
});

test('resourceVersion "0" and empty values stay; times, continue tokens and dropped keys', () => {
  const out = new Normalizer({ namespace: NS }).value({
    metadata: { resourceVersion: '0', selfLink: '/x', continue: '', creationTimestamp: null },
    status: { conditions: [{ lastTransitionTime: '2026-01-01T00:00:00Z' }] },
    storageVersionHash: 'abc',
    other: { continue: 'tok', renewTime: '2026-01-01T00:00:00.000000Z' },
  });
  assert.deepEqual(out, {
    metadata: { resourceVersion: '0', continue: '', creationTimestamp: null },
    status: { conditions: [{ lastTransitionTime: '<time>' }] },
    other: { continue: '<continue>', renewTime: '<time>' },
  });
});

test('strings: namespace, known uids, resourceVersion= queries, and known resourceVersions in messages only', () => {
  const n = new Normalizer({ namespace: NS, webhooks: [HOOK] });
  n.value({ uid: 'u-123', resourceVersion: '4711' });
  assert.equal(n.text(`configmaps "a" in ${NS} (u-123)`, false), 'configmaps "a" in {{ns}} (uid#1)');
  assert.equal(n.text('/api?watch=1&resourceVersion=4711', false), '/api?watch=1&resourceVersion=rv#1');
  assert.equal(n.text('record (4711), precondition (1)', true), 'record (rv#1), precondition (1)');
  assert.equal(n.text('record (4711)', false), 'record (4711)');
  assert.equal(n.text(`${HOOK.url}/validate`, false), '{{hook.url}}/validate');
  assert.equal(n.text(HOOK.caBundle, false), '{{hook.caBundle}}');
});

test('a name starting with its generateName becomes <generateName><generated>', () => {
  const out = new Normalizer({ namespace: NS }).value({
    items: [
      { metadata: { name: 'admin-x8k2p', generateName: 'admin-' } },
      { metadata: { name: 'other', generateName: 'admin-' } },
      { metadata: { name: 'admin-x8k2p' } },
    ],
  });
  assert.deepEqual(out, {
    items: [
      { metadata: { name: 'admin-<generated>', generateName: 'admin-' } },
      { metadata: { name: 'other', generateName: 'admin-' } },
      { metadata: { name: 'admin-x8k2p' } },
    ],
  });
});

test('Table cells that are ages become <age>; other cells stay', () => {
  const out = new Normalizer({ namespace: NS }).value([
    { cells: ['t1', 2, '0s', '5m2s', '3d', '2y30d', '10h', 'Ready', '5', ''] },
  ]);
  assert.deepEqual(out, [{ cells: ['t1', 2, '<age>', '<age>', '<age>', '<age>', '<age>', 'Ready', '5', ''] }]);
});

test('managedFields are sorted by manager|operation|subresource, uids in fieldsV1 keys become symbols', () => {
  const n = new Normalizer({ namespace: NS });
  const out = n.value({
    metadata: {
      uid: 'owner-uid',
      managedFields: [
        { manager: 'unknown', operation: 'Update', subresource: 'status', fieldsV1: {} },
        { manager: 'unknown', operation: 'Update', fieldsV1: { 'f:metadata': { 'k:{"uid":"owner-uid"}': {} } } },
        { manager: 'alpha', operation: 'Apply', fieldsV1: {} },
      ],
    },
  });
  assert.deepEqual(out, {
    metadata: {
      uid: 'uid#1',
      managedFields: [
        { manager: 'alpha', operation: 'Apply', fieldsV1: {} },
        { manager: 'unknown', operation: 'Update', fieldsV1: { 'f:metadata': { 'k:{"uid":"uid#1"}': {} } } },
        { manager: 'unknown', operation: 'Update', subresource: 'status', fieldsV1: {} },
      ],
    },
  });
});

test('watch paths hide the namespace and the starting resourceVersion', () => {
  assert.equal(
    normalizeWatchPath(`/api/v1/namespaces/${NS}/configmaps?watch=1&resourceVersion=12345`, NS),
    '/api/v1/namespaces/{{ns}}/configmaps?watch=1&resourceVersion=<rv>',
  );
});

test('unordered collects are sorted by their normalized JSON text; requests never number symbols', () => {
  const raw: RawTranscript = {
    name: 't',
    namespace: NS,
    webhooks: [],
    unorderedCollects: ['events'],
    steps: [
      {
        id: 'update',
        request: { method: 'PUT', path: `/api/v1/namespaces/${NS}/configmaps/a`, body: { metadata: { resourceVersion: '555' } } },
        response: { status: 200, body: { metadata: { resourceVersion: '556' } } },
      },
      { id: 'events', collect: 'w', events: [{ type: 'ADDED', object: 'i2' }, { type: 'ADDED', object: 'i1' }] },
    ],
  };
  const out = normalizeTranscript(raw);
  assert.deepEqual(out.steps[0], {
    id: 'update',
    request: { method: 'PUT', path: '/api/v1/namespaces/{{ns}}/configmaps/a', body: { metadata: { resourceVersion: 'rv#1' } } },
    response: { status: 200, body: { metadata: { resourceVersion: 'rv#1' } } },
  });
  assert.deepEqual(out.steps[1], { id: 'events', collect: 'w', events: [{ type: 'ADDED', object: 'i1' }, { type: 'ADDED', object: 'i2' }] });
});
