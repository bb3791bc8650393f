// A damaged store is loud: a record that fails its checksum stops the start with what would be
// lost, and --recover-store starts with the rest while keeping the damaged file. A record cut off
// by a crash at the end of the log was never acknowledged and is dropped quietly. A data dir written
// before checksums (format 1) is still read, and rewritten in the new format.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { decodeLine, encodeLine, STORE_VERSION, type StoreRecord } from '../../src/apiserver/persistence-format.js';
import { startApiServer, StoreDamagedError } from '../../src/apiserver/server.js';
import { waitFor } from '../support/wait.js';
import { capturingLog, configMap, populate, stateOf, storeFiles, storeTestServers } from '../support/store.js';

function digestOf(dir: string): Record<string, string> {
  const store = join(dir, 'store');
  return Object.fromEntries(
    readdirSync(store)
      .filter((f) => statSync(join(store, f)).isFile())
      .map((f) => [f, createHash('sha256').update(readFileSync(join(store, f))).digest('hex')]),
  );
}

/** Changes one byte inside the object text of the record of `name` in cluster `cluster` (the line stays JSON). */
function damageRecord(file: string, cluster: string, name: string): void {
  const bytes = readFileSync(file);
  const at = bytes.indexOf(`"c":"${cluster}","r":"/configmaps","ns":"default","n":"${name}"`);
  assert.ok(at > 0, `the record of ${cluster} ${name} is in ${file}`);
  const value = bytes.indexOf('value', at);
  bytes[value] = 'V'.charCodeAt(0);
  writeFileSync(file, bytes);
}

/** The records of a store file of this format, header left out (as the server holds them: each object's text in `j`). */
function recordsOf(file: string): StoreRecord[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l && !l.includes('"format":"kcp-store"'))
    .map((l) => {
      const d = decodeLine(Buffer.from(l), STORE_VERSION);
      assert.ok('value' in d, `a line of ${file} decodes`);
      return d.value as StoreRecord;
    });
}

/** The StoreDamagedError a start on `dataDir` fails with. */
async function refusedStart(dataDir: string, what: string): Promise<StoreDamagedError> {
  const err = await startApiServer({ port: 0, dataDir, log: capturingLog().log }).then(
    () => assert.fail(what),
    (e: unknown) => e,
  );
  assert.ok(err instanceof StoreDamagedError, `a StoreDamagedError, not ${String(err)}`);
  return err;
}

describe('store damage and old formats', () => {
  const { fresh, start } = storeTestServers('kcp-store-damage-');

  it('refuses to start on a record that fails its checksum in the middle of the log, saying what and how to recover', async () => {
    const dataDir = fresh();
    const server = await start(dataDir);
    await populate(server, 2, 20);
    await server.stop();
    const segment = join(dataDir, 'store', 'wal-00000001.log');
    damageRecord(segment, 'rt-1', 'cm-7');
    const before = digestOf(dataDir);

    const err = await refusedStart(dataDir, 'the server started on a damaged store');
    assert.equal(err.damaged.length, 1);
    assert.deepEqual(
      { file: err.damaged[0].file, reason: err.damaged[0].reason, record: err.damaged[0].record },
      { file: 'wal-00000001.log', reason: 'checksum mismatch', record: { op: 'put', c: 'rt-1', r: '/configmaps', ns: 'default', n: 'cm-7' } },
    );
    assert.equal(readFileSync(segment).toString('utf8', err.damaged[0].offset).indexOf('"n":"cm-7"') < 200, true, 'the byte offset is where the record starts');
    assert.match(err.message, /damaged: 1 record\(s\) cannot be read \(wal-00000001\.log: 1\)/);
    assert.match(err.message, new RegExp(`wal-00000001\\.log line ${err.damaged[0].line} \\(byte ${err.damaged[0].offset}\\): checksum mismatch \\(put, cluster rt-1, resource /configmaps, default/cm-7\\)`));
    assert.match(err.message, /run again with --recover-store/);
    assert.deepEqual(digestOf(dataDir), before, 'a refused start changes no file of the store');
  });

  it('refuses a damaged snapshot as well', async () => {
    const dataDir = fresh();
    const server = await start(dataDir);
    await populate(server, 2, 20);
    await server.compactStore();
    await server.stop();
    damageRecord(join(dataDir, 'store', 'snapshot.log'), 'rt-0', 'cm-4');
    const err = await refusedStart(dataDir, 'the server started on a damaged snapshot');
    assert.match(err.message, /snapshot\.log line \d+ \(byte \d+\): checksum mismatch \(put, cluster rt-0, resource \/configmaps, default\/cm-4\)/);
  });

  it('refuses a store whose snapshot is missing while the log begins after it', async () => {
    const dataDir = fresh();
    const server = await start(dataDir);
    await populate(server, 1, 5);
    await server.compactStore();
    await server.stop();
    unlinkSync(join(dataDir, 'store', 'snapshot.log'));
    const err = await refusedStart(dataDir, 'the server started without its snapshot');
    assert.match(err.message, /snapshot\.log line 0 \(byte 0\): missing, but the log begins at segment 2/);
  });

  it('with recover, starts with the rest, reports what was dropped and keeps the damaged file', async () => {
    const dataDir = fresh();
    const server = await start(dataDir);
    await populate(server, 2, 20);
    await server.idle();
    const expected = stateOf(server);
    await server.stop();
    const segment = join(dataDir, 'store', 'wal-00000001.log');
    // cm-7 was created once (never updated nor deleted): with its record gone, it is gone.
    damageRecord(segment, 'rt-1', 'cm-7');
    const damagedBytes = readFileSync(segment);
    delete expected['rt-1'].objects['/configmaps default/cm-7'];

    const { log, lines } = capturingLog();
    const recovered = await start(dataDir, { recoverStore: true, log });
    await recovered.idle();
    assert.deepEqual(stateOf(recovered), expected, 'everything but the damaged record, resourceVersions included');
    const warnings = lines.filter((l) => l.level === 'warn').map((l) => l.message);
    assert.ok(
      warnings.some((m) => /wal-00000001\.log line \d+ \(byte \d+\): checksum mismatch \(put, cluster rt-1, resource \/configmaps, default\/cm-7\)/.test(m)),
      `the dropped record is reported: ${warnings.join(' | ')}`,
    );
    const aside = readdirSync(join(dataDir, 'store')).filter((f) => f.startsWith('damaged-'));
    assert.equal(aside.length, 1);
    assert.deepEqual(readFileSync(join(dataDir, 'store', aside[0], 'wal-00000001.log')), damagedBytes, 'the damaged file is kept as it was');
    assert.equal(existsSync(segment), false, 'and is no longer part of the store: a new snapshot holds the rest');
    await recovered.stop();

    // The store is whole again: an ordinary start reads it.
    const again = await start(dataDir);
    await again.idle();
    assert.deepEqual(stateOf(again), expected);
    await again.stop();
  });

  it('drops a record cut off at the end of the log quietly (logged at info) and goes on appending', async () => {
    const dataDir = fresh();
    const server = await start(dataDir);
    await populate(server, 1, 10);
    await server.idle();
    const expected = stateOf(server);
    await server.stop();
    const segment = join(dataDir, 'store', 'wal-00000001.log');
    const whole = statSync(segment).size;
    // The process died in the middle of writing this record: it was never acknowledged.
    const record = encodeLine({ op: 'put', c: 'rt-0', r: '/configmaps', ns: 'default', n: 'never-acked', rv: 999, j: JSON.stringify(configMap('never-acked', 'x')) });
    appendFileSync(segment, record.slice(0, record.length / 2));

    const { log, lines } = capturingLog();
    const again = await start(dataDir, { log });
    await again.idle();
    assert.deepEqual(stateOf(again), expected);
    const info = lines.filter((l) => /cut off by a crash/.test(l.message));
    assert.deepEqual(
      info.map((l) => [l.level, l.fields?.file, l.fields?.offset]),
      [['info', 'wal-00000001.log', whole]],
    );
    assert.equal(lines.filter((l) => l.level !== 'info').length, 0, 'nothing louder than info');
    const c = again.cluster('rt-0');
    await c.create(c.resolve('', 'v1', 'configmaps')!, 'default', configMap('after-the-cut', 'y'), { internal: true });
    await again.idle();
    const later = stateOf(again);
    await again.stop();

    const third = await start(dataDir);
    await third.idle();
    assert.deepEqual(stateOf(third), later, 'the write after the cut is read back: the cut-off bytes are gone from the middle');
    await third.stop();
  });

  it('reads a data dir written before checksums (format 1) and rewrites it in the new format', async () => {
    const dataDir = fresh();
    const server = await start(dataDir);
    await populate(server, 2, 30);
    await server.compactStore();
    const c = server.cluster('rt-0');
    const cm = c.resolve('', 'v1', 'configmaps')!;
    await c.update(cm, 'default', 'cm-1', configMap('cm-1', 'in-the-log'), { internal: true });
    await c.delete(cm, 'default', 'cm-2', {}, { internal: true });
    await server.idle();
    const expected = stateOf(server);
    await server.stop();

    // As the earlier format wrote them: snapshot.log and wal.log, JSON lines without checksums or
    // headers, each object a JSON string (`j`).
    const store = join(dataDir, 'store');
    const plain = (file: string) => recordsOf(join(store, file)).map((r) => `${JSON.stringify(r)}\n`).join('');
    writeFileSync(join(store, 'snapshot.log'), plain('snapshot.log'));
    writeFileSync(join(store, 'wal.log'), `${plain('wal-00000002.log')}{"op":"put","c":"rt-0","r":"/configmaps","ns":"def`);
    for (const f of readdirSync(store)) if (f.startsWith('wal-')) unlinkSync(join(store, f));
    assert.ok(readFileSync(join(store, 'snapshot.log'), 'utf8').startsWith('{"op":"cluster"'));

    const again = await start(dataDir);
    await again.idle();
    assert.deepEqual(stateOf(again), expected);
    // Rewritten in the new format by a compaction of its own.
    await waitFor('the format-1 files rewritten', () => again.storeStats()!.compactions >= 1);
    assert.deepEqual(Object.keys(storeFiles(dataDir)), ['snapshot.log', 'wal-00000002.log']);
    assert.match(readFileSync(join(store, 'snapshot.log'), 'utf8'), new RegExp(`^[0-9a-f]{16} \\{"format":"kcp-store","version":${STORE_VERSION},"kind":"snapshot","firstSegment":2\\}\\n`));
    await again.stop();

    const third = await start(dataDir);
    await third.idle();
    assert.deepEqual(stateOf(third), expected);
    await third.stop();
  });

  it('reads a data dir of format 2 (objects as JSON strings), appends in a new segment of this format, and rewrites it at compaction', async () => {
    const dataDir = fresh();
    const server = await start(dataDir);
    await populate(server, 2, 30);
    await server.compactStore();
    const c = server.cluster('rt-1');
    const cm = c.resolve('', 'v1', 'configmaps')!;
    await c.update(cm, 'default', 'cm-3', configMap('cm-3', 'in-the-log'), { internal: true });
    await server.idle();
    const expected = stateOf(server);
    await server.stop();

    // As format 2 wrote them: the same records, each object escaped into a string, under version-2 headers.
    const store = join(dataDir, 'store');
    const line = (json: string) => `${createHash('sha256').update(json).digest('hex').slice(0, 16)} ${json}\n`;
    const formatTwo = (file: string, header: Record<string, unknown>) =>
      writeFileSync(join(store, file), [line(JSON.stringify({ format: 'kcp-store', version: 2, ...header })), ...recordsOf(join(store, file)).map((r) => line(JSON.stringify(r)))].join(''));
    assert.deepEqual(Object.keys(storeFiles(dataDir)), ['snapshot.log', 'wal-00000002.log']);
    formatTwo('snapshot.log', { kind: 'snapshot', firstSegment: 2 });
    formatTwo('wal-00000002.log', { kind: 'segment', segment: 2 });
    assert.match(readFileSync(join(store, 'wal-00000002.log'), 'utf8'), /"j":"\{/);

    const again = await start(dataDir);
    await again.idle();
    assert.deepEqual(stateOf(again), expected);
    // Appends do not go on in the format-2 segment: a new one holds them, in this format.
    await again.cluster('rt-0').update(cm, 'default', 'cm-4', configMap('cm-4', 'after-the-upgrade'), { internal: true });
    await again.idle();
    const after = stateOf(again);
    assert.deepEqual(Object.keys(storeFiles(dataDir)), ['snapshot.log', 'wal-00000002.log', 'wal-00000003.log']);
    const appended = readFileSync(join(store, 'wal-00000003.log'), 'utf8');
    assert.match(appended, new RegExp(`"version":${STORE_VERSION},"kind":"segment"`));
    assert.match(appended, /"n":"cm-4","rv":\d+,"l":\{[^}]*\},"o":\{"kind":"ConfigMap"/);
    await again.compactStore();
    assert.doesNotMatch(readFileSync(join(store, 'snapshot.log'), 'utf8'), /"j":/);
    await again.stop();

    const third = await start(dataDir);
    await third.idle();
    assert.deepEqual(stateOf(third), after);
    await third.stop();
  });
});
