// The pod-template-hash: FNV-32a and rand.SafeEncodeString as kube-controller-manager uses them,
// over the template's canonical JSON.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podTemplateHash, safeEncode } from '../../src/landscape/workloads/hash.js';
import { fnv1a32Bytes } from '../../src/util/fnv.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('pod template hash', () => {
  it('FNV-1a 32 matches the published test vectors', () => {
    assert.equal(fnv1a32Bytes(bytes('')), 0x811c9dc5);
    assert.equal(fnv1a32Bytes(bytes('a')), 0xe40c292c);
    assert.equal(fnv1a32Bytes(bytes('foobar')), 0xbf9cf968);
  });

  it('SafeEncodeString maps each character through the vowel-free alphabet by its code', () => {
    assert.equal(safeEncode('0123456789'), '456789bcdf');
    assert.equal(safeEncode('abc'), 'vwx');
  });

  it('is the safe-encoded decimal FNV-32a of the template, stable for equal templates whatever their key order', () => {
    const a = { metadata: { labels: { app: 'web', tier: 'front' } }, spec: { containers: [{ name: 'main', image: 'nginx' }] } };
    const b = { spec: { containers: [{ image: 'nginx', name: 'main' }] }, metadata: { labels: { tier: 'front', app: 'web' } } };
    const h = podTemplateHash(a);
    const canonical = '{"metadata":{"labels":{"app":"web","tier":"front"}},"spec":{"containers":[{"image":"nginx","name":"main"}]}}';
    assert.equal(h, safeEncode(String(fnv1a32Bytes(bytes(canonical)))));
    assert.equal(podTemplateHash(b), h);
    assert.match(h, /^[456789bcdf]{1,10}$/);
    assert.notEqual(podTemplateHash({ ...a, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } }), h);
  });

  it('a collision count changes the hash (the count appended as 8 little-endian bytes)', () => {
    const t = { metadata: { labels: { app: 'web' } } };
    const h0 = podTemplateHash(t, 0);
    const extra = new Uint8Array(8);
    assert.equal(h0, safeEncode(String(fnv1a32Bytes(extra, fnv1a32Bytes(bytes(JSON.stringify(t)))))));
    assert.notEqual(podTemplateHash(t, 1), h0);
    assert.notEqual(h0, podTemplateHash(t));
  });
});
