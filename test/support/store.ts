// Helpers for the durable-store tests (test/apiserver/persistence-*.test.ts): what a server holds,
// by value, to compare before a stop and after a restore, a way to fill a store, and servers on
// data dirs of their own that are stopped and removed after each test.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach } from 'node:test';
import { type ApiServerOptions, type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import type { StoreLog, StoreLogLevel } from '../../src/apiserver/persistence.js';

export interface ClusterState {
  rv: number;
  /** `resource namespace/name` -> the object (parsed), its resourceVersion and labels. */
  objects: Record<string, { rv: number; object: unknown; labels: unknown }>;
}

/** Every logical cluster's objects and resourceVersion sequence, by value. */
export function stateOf(server: RunningApiServer): Record<string, ClusterState> {
  const out: Record<string, ClusterState> = {};
  for (const name of server.clusterNames()) {
    const store = server.cluster(name).store;
    const objects: ClusterState['objects'] = {};
    for (const r of store.resources()) for (const o of store.all(r)) objects[`${r} ${o.namespace}/${o.name}`] = { rv: o.rv, object: JSON.parse(o.json), labels: o.labels ?? undefined };
    out[name] = { rv: store.rv, objects };
  }
  return out;
}

export function configMap(name: string, value: string) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'store-test' } }, data: { value } };
}

/**
 * Fills logical clusters rt-0..rt-(clusters-1) with `perCluster` ConfigMaps each, updates every
 * third, deletes every fifth, and creates and deletes one more cluster: every kind of record.
 */
export async function populate(server: RunningApiServer, clusters: number, perCluster: number): Promise<void> {
  for (let k = 0; k < clusters; k++) {
    await server.createCluster(`rt-${k}`);
    const c = server.cluster(`rt-${k}`);
    const cm = c.resolve('', 'v1', 'configmaps')!;
    for (let i = 0; i < perCluster; i++) await c.create(cm, 'default', configMap(`cm-${i}`, `v${i}`), { internal: true });
    for (let i = 0; i < perCluster; i += 3) await c.update(cm, 'default', `cm-${i}`, configMap(`cm-${i}`, `updated-${i}`), { internal: true });
    for (let i = 0; i < perCluster; i += 5) await c.delete(cm, 'default', `cm-${i}`, {}, { internal: true });
  }
  await server.createCluster('gone');
  await server.deleteCluster('gone');
  await server.idle();
}

/** Names and sizes of the files in `<dataDir>/store`. */
export function storeFiles(dataDir: string): Record<string, number> {
  const dir = join(dataDir, 'store');
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => statSync(join(dir, f)).isFile())
      .sort()
      .map((f) => [f, statSync(join(dir, f)).size]),
  );
}

/** A StoreLog that keeps what it is told. */
export function capturingLog(): { log: StoreLog; lines: { level: StoreLogLevel; message: string; fields?: Record<string, unknown> }[] } {
  const lines: { level: StoreLogLevel; message: string; fields?: Record<string, unknown> }[] = [];
  return { log: (level, message, fields) => lines.push({ level, message, ...(fields ? { fields } : {}) }), lines };
}

/**
 * For a describe block: fresh data dirs under one temporary root (removed at the end) and servers
 * started on them, in-process, with their store reports kept quiet; a server a failed assertion
 * left running is stopped after the test, so that the test process can end.
 */
export function storeTestServers(prefix: string): { fresh: () => string; start: (dataDir: string, opts?: Partial<ApiServerOptions>) => Promise<RunningApiServer> } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(root, { recursive: true, force: true }));
  const running = new Set<RunningApiServer>();
  afterEach(async () => {
    for (const s of running) await s.stop();
    running.clear();
  });
  let n = 0;
  return {
    fresh: () => mkdtempSync(join(root, `d${n++}-`)),
    start: async (dataDir, opts = {}) => {
      const s = await startApiServer({ port: 0, dataDir, log: capturingLog().log, ...opts });
      running.add(s);
      const stop = s.stop.bind(s);
      s.stop = () => {
        running.delete(s);
        return stop();
      };
      return s;
    },
  };
}
