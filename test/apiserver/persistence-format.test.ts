// The store's line format: records read back through any chunk size (a store is never read as one
// string), checksums that catch a changed byte, and what a damaged line still tells.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { decodeLine, encodeLine, readLines, type StoreRecord } from '../../src/apiserver/persistence-format.js';

describe('store line format', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kcp-store-format-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const records: StoreRecord[] = [
    { op: 'cluster', c: 'rt-1', rv: 3 },
    // Multi-byte characters, so that chunk edges also fall inside a character.
    { op: 'put', c: 'rt-1', r: '/configmaps', ns: 'default', n: 'grüße', rv: 4, j: JSON.stringify({ data: { text: 'ünïcödé ✓ 𝄞'.repeat(20) } }), l: { app: 'x' } },
    { op: 'del', c: 'rt-1', r: '/configmaps', ns: 'default', n: 'old', rv: 5 },
    { op: 'put', c: 'rt-1', r: '/secrets', ns: 'kyma-system', n: 'big', rv: 6, j: JSON.stringify({ data: { blob: 'x'.repeat(5000) } }) },
    { op: 'drop', c: 'rt-2' },
  ];

  it('reads every record back whole with chunks smaller than a record, at every alignment', () => {
    const file = join(dir, 'lines.log');
    const text = records.map(encodeLine).join('');
    writeFileSync(file, text);
    for (const chunk of [1, 2, 3, 7, 64, 1000, 1 << 20]) {
      const got: StoreRecord[] = [];
      let offsets = 0;
      for (const l of readLines(file, chunk)) {
        assert.equal(l.terminated, true);
        assert.equal(l.offset, offsets, `line ${l.line} starts where the previous one ended (chunk ${chunk})`);
        offsets += l.bytes.length + 1;
        const d = decodeLine(l.bytes, 2);
        assert.ok('value' in d, `line ${l.line} decodes with chunks of ${chunk} bytes`);
        got.push(d.value as StoreRecord);
      }
      assert.deepEqual(got, records, `chunks of ${chunk} bytes`);
    }
  });

  it('gives a last line without a newline as not terminated', () => {
    const file = join(dir, 'torn.log');
    const whole = encodeLine(records[0]);
    const torn = encodeLine(records[1]).slice(0, 40);
    writeFileSync(file, whole + torn);
    const lines = [...readLines(file, 16)].map((l) => ({ text: l.bytes.toString('utf8'), terminated: l.terminated, line: l.line }));
    assert.deepEqual(lines, [
      { text: whole.slice(0, -1), terminated: true, line: 1 },
      { text: torn, terminated: false, line: 2 },
    ]);
  });

  it('finds a changed byte through the checksum and says what the record was', () => {
    const line = Buffer.from(encodeLine(records[1]).slice(0, -1));
    // One byte of the object's text changed: still JSON, but not what was written.
    const at = line.indexOf('text') + 1;
    line[at] = 'X'.charCodeAt(0);
    const d = decodeLine(line, 2);
    assert.ok('damage' in d);
    assert.equal(d.damage, 'checksum mismatch');
    assert.deepEqual(d.readable, { op: 'put', c: 'rt-1', r: '/configmaps', ns: 'default', n: 'grüße' });
  });

  it('reads a format-1 line (JSON without a checksum) and rejects it in format 2', () => {
    const plain = Buffer.from(JSON.stringify(records[2]));
    const v1 = decodeLine(plain, 1);
    assert.ok('value' in v1);
    assert.deepEqual(v1.value, records[2]);
    const v2 = decodeLine(plain, 2);
    assert.ok('damage' in v2);
    assert.equal(v2.damage, 'no checksum');
  });

  it('rejects JSON that is not a store record', () => {
    const d = decodeLine(Buffer.from(encodeLine({ op: 'put', c: 'a' } as unknown as StoreRecord).slice(0, -1)), 2);
    assert.ok('damage' in d);
    assert.equal(d.damage, 'not a store record');
  });

  it('writes an object as its own JSON text (not escaped into a string) and slices it back out exactly', () => {
    const json = JSON.stringify({ kind: 'ConfigMap', metadata: { name: 'x', annotations: { note: 'a "quoted" \\ back,"o":{slash}' } }, data: { o: '}' } });
    // A head whose strings and labels hold what the object member looks like, outside and inside the labels map.
    const rec: StoreRecord = { op: 'put', c: 'rt-1', r: '/configmaps', ns: 'default', n: 'we\\ird","o":{', rv: 9, j: json, l: { a: 'x', o: '{', 'b,"o":': '}' } };
    const line = encodeLine(rec);
    assert.ok(line.includes(`,"o":${json}}\n`), 'the object is the last member, as it is');
    const d = decodeLine(Buffer.from(line.slice(0, -1)), 3);
    assert.ok('value' in d);
    assert.deepEqual(d.value, rec);
    assert.equal((d.value as { j: string }).j, json);
  });

  it('reads a format-2 line, whose object is a JSON string', () => {
    const rec = records[1];
    const json = JSON.stringify(rec);
    const line = Buffer.from(`${createHash('sha256').update(json).digest('hex').slice(0, 16)} ${json}`);
    const d = decodeLine(line, 2);
    assert.ok('value' in d);
    assert.deepEqual(d.value, rec);
  });

  it('finds a changed byte in an object written as it is', () => {
    const line = Buffer.from(encodeLine(records[3]).slice(0, -1));
    line[line.lastIndexOf('x')] = 'y'.charCodeAt(0);
    const d = decodeLine(line, 3);
    assert.ok('damage' in d);
    assert.equal(d.damage, 'checksum mismatch');
  });
});
