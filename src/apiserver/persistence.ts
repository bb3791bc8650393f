// Durable storage for the embedded server: a snapshot plus an append-only write-ahead log.
//
// Every committed change is appended to the log with a synchronous write before the API answers,
// so an acknowledged write survives a crash of the process (kill -9): the bytes are in the
// kernel's page cache. Surviving a power loss would need fsync per write, which costs more than
// the 5,000 writes/s target allows; `fsync: true` turns it on for those who want it.
// At start the snapshot and the log are replayed, then folded into a new snapshot.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { LogicalCluster } from './cluster.js';
import type { StoreEvent } from './store.js';

type Record =
  | { op: 'put'; c: string; r: string; ns: string; n: string; rv: number; j: string; l?: { [k: string]: string } }
  | { op: 'del'; c: string; r: string; ns: string; n: string; rv: number }
  | { op: 'cluster'; c: string; rv: number }
  | { op: 'drop'; c: string };

export class Persistence {
  restoring = false;
  private readonly dir: string;
  private fd: number | undefined;
  private readonly detach = new Map<string, () => void>();

  constructor(
    dataDir: string,
    private readonly opts: { fsync?: boolean } = {},
  ) {
    this.dir = join(dataDir, 'store');
    mkdirSync(this.dir, { recursive: true });
  }

  private get walPath(): string {
    return join(this.dir, 'wal.log');
  }

  private get snapshotPath(): string {
    return join(this.dir, 'snapshot.log');
  }

  /**
   * Rebuilds every logical cluster from the snapshot and the log. `create` makes an empty
   * cluster. Afterwards the state is written as a fresh snapshot and the log starts empty.
   */
  restore(create: (name: string, initialRv: number) => LogicalCluster): Set<string> {
    this.restoring = true;
    const clusters = new Map<string, LogicalCluster>();
    const apply = (rec: Record) => {
      if (rec.op === 'cluster') {
        if (!clusters.has(rec.c)) clusters.set(rec.c, create(rec.c, rec.rv));
        return;
      }
      if (rec.op === 'drop') {
        clusters.delete(rec.c);
        return;
      }
      let c = clusters.get(rec.c);
      if (!c) clusters.set(rec.c, (c = create(rec.c, 0)));
      if (rec.op === 'put') c.store.load(rec.r, { json: rec.j, rv: rec.rv, namespace: rec.ns, name: rec.n, labels: rec.l });
      else {
        c.store.unload(rec.r, rec.ns, rec.n);
        c.store.advanceTo(rec.rv);
      }
    };
    for (const path of [this.snapshotPath, this.walPath]) {
      if (!existsSync(path)) continue;
      const text = readFileSync(path, 'utf8');
      for (const line of text.split('\n')) {
        if (!line) continue;
        try {
          apply(JSON.parse(line) as Record);
        } catch {
          // A torn last line (the process died mid-append) was never acknowledged: skip it.
        }
      }
    }
    for (const c of clusters.values()) c.reloadTypes();
    this.writeSnapshot([...clusters.values()]);
    this.fd = openSync(this.walPath, 'w');
    this.restoring = false;
    return new Set(clusters.keys());
  }

  private writeSnapshot(clusters: LogicalCluster[]): void {
    const tmp = `${this.snapshotPath}.tmp`;
    const fd = openSync(tmp, 'w');
    const chunk: string[] = [];
    const flush = () => {
      if (chunk.length > 0) writeSync(fd, chunk.join(''));
      chunk.length = 0;
    };
    for (const c of clusters) {
      chunk.push(`${JSON.stringify({ op: 'cluster', c: c.name, rv: c.store.rv })}\n`);
      for (const r of c.store.resources()) {
        for (const o of c.store.list(r)) {
          chunk.push(`${JSON.stringify({ op: 'put', c: c.name, r, ns: o.namespace, n: o.name, rv: o.rv, j: o.json, l: o.labels })}\n`);
          if (chunk.length >= 1000) flush();
        }
      }
    }
    flush();
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, this.snapshotPath);
  }

  private append(rec: Record): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, `${JSON.stringify(rec)}\n`);
    if (this.opts.fsync) fsyncSync(this.fd);
  }

  /** Starts logging a cluster's commits. */
  attach(c: LogicalCluster): void {
    this.detach.get(c.name)?.();
    const off = c.store.onCommit((ev: StoreEvent) => {
      if (ev.type === 'DELETED') this.append({ op: 'del', c: c.name, r: ev.resource, ns: ev.namespace, n: ev.name, rv: ev.rv });
      else this.append({ op: 'put', c: c.name, r: ev.resource, ns: ev.namespace, n: ev.name, rv: ev.rv, j: ev.object.json, l: ev.object.labels });
    });
    this.detach.set(c.name, off);
  }

  clusterCreated(c: LogicalCluster): void {
    this.append({ op: 'cluster', c: c.name, rv: c.store.rv });
  }

  clusterDeleted(c: LogicalCluster): void {
    this.detach.get(c.name)?.();
    this.detach.delete(c.name);
    this.append({ op: 'drop', c: c.name });
  }

  close(): void {
    for (const off of this.detach.values()) off();
    this.detach.clear();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
