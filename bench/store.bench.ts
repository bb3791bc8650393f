// npm run bench:store — the embedded API server's durable store (src/apiserver/persistence.ts):
// what the checksum adds to appending one record, the write path with a data dir against memory
// only, the restart (restore) of a store of --objects N objects (default 100,000), and a compaction
// of it while running: how long it takes and the longest the event loop was held during it.
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { encodeLine, encodeRecord, type StoreRecord } from '../src/apiserver/persistence-format.js';
import { type RunningApiServer, startApiServer } from '../src/apiserver/server.js';
import { option } from './stats.js';

const PER_CLUSTER = 100;

function configMap(i: number, round = 0) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `obj-${i}`, labels: { app: 'bench', index: String(i % 10) } }, data: { key: `value-${i}-${round}`, other: 'some configuration text' } };
}

/** Updates per second of one ConfigMap after another, in-process (no HTTP): the server's own cost per write. */
async function updateRate(server: RunningApiServer, count: number): Promise<number> {
  const c = server.cluster('default');
  const cm = c.resolve('', 'v1', 'configmaps')!;
  for (let i = 0; i < 100; i++) await c.create(cm, 'default', configMap(i), { internal: true });
  const t0 = performance.now();
  for (let i = 0; i < count; i++) await c.update(cm, 'default', `obj-${i % 100}`, configMap(i % 100, i), { internal: true });
  return count / ((performance.now() - t0) / 1000);
}

/**
 * Microseconds to append one record as the log does (serialize, write(2) to the page cache), as
 * the record's JSON alone (as format 1 had no checksum) and as a checksummed line; rounds alternate.
 */
function appendCost(dir: string, record: StoreRecord, count: number): { plainUs: number; checksummedUs: number } {
  const time = (encode: (r: StoreRecord) => string) => {
    const fd = openSync(join(dir, 'append.log'), 'w');
    const t0 = performance.now();
    for (let i = 0; i < count; i++) writeSync(fd, encode({ ...record, rv: i } as StoreRecord));
    const us = ((performance.now() - t0) * 1000) / count;
    closeSync(fd);
    return us;
  };
  const plain: number[] = [];
  const checksummed: number[] = [];
  for (let round = 0; round < 5; round++) {
    plain.push(time((r) => `${encodeRecord(r)}\n`));
    checksummed.push(time(encodeLine));
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { plainUs: median(plain), checksummedUs: median(checksummed) };
}

function storeMiB(dir: string): number {
  const store = join(dir, 'store');
  return readdirSync(store).reduce((n, f) => n + statSync(join(store, f)).size, 0) / 2 ** 20;
}

async function main(): Promise<void> {
  const objects = option('--objects', 'BENCH_OBJECTS', 100_000);
  const updates = option('--updates', 'BENCH_UPDATES', 20_000);
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, load average ${os.loadavg()[0].toFixed(1)}`);
  const dir = mkdtempSync(join(os.tmpdir(), 'kcp-bench-store-'));
  try {
    for (const size of [500, 4000]) {
      const j = JSON.stringify({ ...configMap(1), data: { key: 'x'.repeat(size) } });
      const { plainUs, checksummedUs } = appendCost(dir, { op: 'put', c: 'rt-1', r: '/configmaps', ns: 'default', n: 'obj-1', rv: 1, j }, 20_000);
      console.log(`append of a ${j.length}-byte object (median of 5 rounds of 20,000): plain JSON ${plainUs.toFixed(2)} us, with checksum ${checksummedUs.toFixed(2)} us (+${(checksummedUs - plainUs).toFixed(2)} us)`);
    }
    // Alternating rounds, so that load from elsewhere hits both alike.
    for (let round = 0; round < 2; round++) {
      const memory = await startApiServer({ port: 0 });
      const inMemory = await updateRate(memory, updates);
      await memory.stop();
      const wdir = mkdtempSync(join(os.tmpdir(), 'kcp-bench-wal-'));
      const durable = await startApiServer({ port: 0, dataDir: wdir });
      const withLog = await updateRate(durable, updates);
      await durable.stop();
      rmSync(wdir, { recursive: true, force: true });
      console.log(`updates in-process, round ${round + 1}: memory only ${inMemory.toFixed(0)}/s, with a data dir ${withLog.toFixed(0)}/s (${((inMemory / withLog - 1) * 100).toFixed(0)}% more time per write)`);
    }

    const server = await startApiServer({ port: 0, dataDir: dir });
    const t0 = performance.now();
    for (let k = 0; k * PER_CLUSTER < objects; k++) {
      const name = `rt-${k}`;
      await server.createCluster(name);
      const c = server.cluster(name);
      const cm = c.resolve('', 'v1', 'configmaps')!;
      for (let i = 0; i < PER_CLUSTER && k * PER_CLUSTER + i < objects; i++) await c.create(cm, 'default', configMap(i), { internal: true });
    }
    await server.idle();
    const stored = server.clusterNames().reduce((n, name) => n + server.cluster(name).store.size(), 0);
    console.log(`${objects} ConfigMaps in ${server.clusterNames().length} logical clusters (${stored} objects with the default ones): written in ${((performance.now() - t0) / 1000).toFixed(1)} s, store ${storeMiB(dir).toFixed(0)} MiB`);
    await server.stop();

    const t1 = performance.now();
    const restarted = await startApiServer({ port: 0, dataDir: dir });
    console.log(`restart (restore of ${stored} objects): ${((performance.now() - t1) / 1000).toFixed(1)} s, heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`);
    const compact = (restarted as { compactStore?: () => Promise<void> }).compactStore;
    if (compact) {
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const t2 = performance.now();
      await compact.call(restarted);
      delay.disable();
      console.log(`compaction while running: ${((performance.now() - t2) / 1000).toFixed(1)} s, event loop delay max ${(delay.max / 1e6).toFixed(0)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms, store ${storeMiB(dir).toFixed(0)} MiB`);
    }
    await restarted.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
