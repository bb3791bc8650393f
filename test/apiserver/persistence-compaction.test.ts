// The store folds its log into a new snapshot while the server runs: no acknowledged write and no
// resourceVersion is lost, whether the compaction finishes or the process dies in the middle of it,
// and the files stay bounded under a steady write load.
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { configMap, populate, stateOf, storeFiles, storeTestServers } from '../support/store.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('store compaction while running', () => {
  const { fresh, start } = storeTestServers('kcp-compaction-');

  it('keeps every object and resourceVersion when writes go on during the compaction, across a restart', async () => {
    const dataDir = fresh();
    const server = await start(dataDir, { storage: { compactChunkBytes: 2048 } });
    await populate(server, 3, 150);
    const c = server.cluster('rt-0');
    const cm = c.resolve('', 'v1', 'configmaps')!;
    let finished = false;
    const compaction = server.compactStore().then(() => (finished = true));
    let writesWhileCompacting = 0;
    for (let i = 0; !finished; i++) {
      // Creates, updates and deletes of objects the snapshot has or has not reached yet.
      if (server.storeStats()!.compacting) writesWhileCompacting++;
      await c.create(cm, 'default', configMap(`during-${i}`, 'new'), { internal: true });
      if (i < 150 && i % 5 !== 0) await c.update(cm, 'default', `cm-${i}`, configMap(`cm-${i}`, `during-${i}`), { internal: true });
      if (i > 0 && i % 2 === 0) await c.delete(cm, 'default', `during-${i - 1}`, {}, { internal: true });
      await turn();
    }
    await compaction;
    assert.ok(writesWhileCompacting > 0, 'writes were committed while the snapshot was being written');
    await server.idle();
    const before = stateOf(server);
    assert.equal(server.storeStats()!.compactions, 1);
    const files = storeFiles(dataDir);
    assert.deepEqual(Object.keys(files), ['snapshot.log', 'wal-00000002.log'], 'the new snapshot and the segment begun at the switch; the folded segment is gone');
    await server.stop();

    const again = await start(dataDir);
    await again.idle();
    assert.deepEqual(stateOf(again), before);
    // The resourceVersion sequence goes on from where it was.
    const next = await again.cluster('rt-0').create(cm, 'default', configMap('after-restart', 'x'), { internal: true });
    assert.ok(Number(next.object.metadata.resourceVersion) > before['rt-0'].rv);
    await again.stop();
  });

  it('restores every acknowledged write after a crash in the middle of a compaction', async () => {
    const dataDir = fresh();
    // One record per chunk: the snapshot takes many turns of the event loop to write.
    const server = await start(dataDir, { storage: { compactChunkBytes: 1 } });
    await populate(server, 4, 300);
    const c = server.cluster('rt-2');
    const cm = c.resolve('', 'v1', 'configmaps')!;
    const tmp = join(dataDir, 'store', 'snapshot.log.tmp');
    const compaction = server.compactStore();
    for (let i = 0; !(existsSync(tmp) && statSync(tmp).size > 0); i++) {
      assert.ok(i < 10_000, 'the compaction began writing its snapshot');
      await turn();
    }
    // Acknowledged after the switch: in the new segment only.
    for (let i = 0; i < 20; i++) await c.create(cm, 'default', configMap(`after-switch-${i}`, 'x'), { internal: true });
    await c.update(cm, 'default', 'cm-1', configMap('cm-1', 'after-switch'), { internal: true });
    await c.delete(cm, 'default', 'cm-2', {}, { internal: true });
    await server.deleteCluster('rt-3');
    // What kill -9 leaves at this moment: the files as they are (the page cache is the file).
    assert.equal(server.storeStats()!.compacting, true, 'the compaction is still under way at the crash');
    const acknowledged = stateOf(server);
    const crashed = fresh();
    cpSync(dataDir, crashed, { recursive: true });
    assert.deepEqual(
      Object.keys(storeFiles(crashed)).filter((f) => f !== 'snapshot.log'),
      ['snapshot.log.tmp', 'wal-00000001.log', 'wal-00000002.log'],
      'an unfinished snapshot beside the old log and the new segment',
    );
    await compaction;
    await server.stop();

    const restored = await start(crashed);
    await restored.idle();
    assert.deepEqual(stateOf(restored), acknowledged);
    assert.equal(existsSync(join(crashed, 'store', 'snapshot.log.tmp')), false, 'the unfinished snapshot is removed');
    await restored.stop();
  });

  it('does not replay an old segment left by a crash between the snapshot rename and its removal', async () => {
    const dataDir = fresh();
    const server = await start(dataDir);
    const c = server.cluster('default');
    const cm = c.resolve('', 'v1', 'configmaps')!;
    await c.create(cm, 'default', configMap('doomed', 'v1'), { internal: true });
    await c.update(cm, 'default', 'doomed', configMap('doomed', 'v2'), { internal: true });
    const oldSegment = join(dataDir, 'store', 'wal-00000001.log');
    await c.delete(cm, 'default', 'doomed', {}, { internal: true });
    const folded = readFileSync(oldSegment);
    await server.compactStore();
    assert.equal(existsSync(oldSegment), false, 'the compaction removed the folded segment');
    await server.idle();
    const before = stateOf(server);
    await server.stop();
    // As if the process had died right after the rename: the folded segment is still there.
    writeFileSync(oldSegment, folded);

    const again = await start(dataDir);
    await again.idle();
    assert.equal(again.cluster('default').tryGet(cm, 'default', 'doomed'), undefined, 'the deleted object does not come back');
    assert.deepEqual(stateOf(again), before);
    assert.equal(existsSync(oldSegment), false, 'the folded segment is removed at start');
    await again.stop();
  });

  it('keeps the store bounded under a steady write load', async () => {
    const dataDir = fresh();
    const minBytes = 32 * 1024;
    const server = await start(dataDir, { storage: { compactMinBytes: minBytes, compactRatio: 1 } });
    const c = server.cluster('default');
    const cm = c.resolve('', 'v1', 'configmaps')!;
    const payload = 'x'.repeat(1000);
    for (let i = 0; i < 20; i++) await c.create(cm, 'default', configMap(`cm-${i}`, payload), { internal: true });
    let logged = 0;
    let largest = 0;
    for (let i = 0; i < 3000; i++) {
      const r = await c.update(cm, 'default', `cm-${i % 20}`, configMap(`cm-${i % 20}`, `${payload}${i}`), { internal: true });
      logged += Buffer.byteLength(JSON.stringify(r.object));
      if (i % 20 === 19) {
        await turn(); // the next requests come on a later turn: a compaction the log called for begins
        largest = Math.max(largest, Object.values(storeFiles(dataDir)).reduce((a, b) => a + b, 0));
        // How much the new segment grows during a compaction depends on the disk (the fsync) and the
        // write rate; this writer waits for a running compaction (joins it) to measure the bound itself.
        if (server.storeStats()!.compacting) await server.compactStore();
      }
    }
    const stats = server.storeStats()!;
    assert.ok(stats.compactions >= 5, `the log was compacted again and again by itself (${stats.compactions} times)`);
    // At most: the snapshot and the one being written (each the live state, one bound), the log up
    // to its bound plus the 20 writes before the compaction's turn (31 KB, under one bound here),
    // and the new segment's header: under 5 bounds.
    const bound = Math.max(minBytes, stats.snapshotBytes);
    assert.ok(largest <= 5 * bound, `the store stayed within 5 x ${bound} bytes (largest ${largest})`);
    assert.ok(logged > 20 * bound, `far more was written (${logged} bytes) than the store ever held`);
    await server.stop();
  });

  it('keeps a deleted logical cluster deleted across a restart without a compaction', async () => {
    const dataDir = fresh();
    const server = await start(dataDir);
    await server.createCluster('temporary');
    const c = server.cluster('temporary');
    await c.create(c.resolve('', 'v1', 'configmaps')!, 'default', configMap('x', 'y'), { internal: true });
    await server.createCluster('kept');
    await server.deleteCluster('temporary');
    await server.idle();
    const before = stateOf(server);
    assert.equal(server.storeStats()!.compactions, 0, 'the drop is in the log, not folded into a snapshot');
    await server.stop();

    const again = await start(dataDir);
    await again.idle();
    assert.deepEqual(again.clusterNames().sort(), ['default', 'kept']);
    assert.deepEqual(stateOf(again), before);
    const tokens = JSON.parse(readFileSync(join(dataDir, 'tokens.json'), 'utf8')) as { tokens: Record<string, string> };
    assert.deepEqual(Object.keys(tokens.tokens).sort(), ['default', 'kept'], 'no token is made again for the deleted cluster');
    await again.stop();
  });

  it('restores the same store read in chunks of a few bytes (records across every chunk edge)', async () => {
    const dataDir = fresh();
    const server = await start(dataDir);
    await populate(server, 2, 40);
    await server.compactStore();
    const c = server.cluster('rt-1');
    await c.create(c.resolve('', 'v1', 'configmaps')!, 'default', configMap('in-the-log', 'ünïcödé ✓'), { internal: true });
    await server.idle();
    const before = stateOf(server);
    await server.stop();
    assert.ok(readdirSync(join(dataDir, 'store')).includes('snapshot.log'));

    const again = await start(dataDir, { storage: { readChunkBytes: 5 } });
    await again.idle();
    assert.deepEqual(stateOf(again), before);
    await again.stop();
  });
});
