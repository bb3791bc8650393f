// Durable storage for the embedded server: a snapshot plus an append-only write-ahead log, in
// `<dataDir>/store/`, in the line format of persistence-format.ts (a checksum per record).
//
// Every committed change is appended to the live log segment with a synchronous write before the
// API answers, so an acknowledged write survives a crash of the process (kill -9): the bytes are in
// the kernel's page cache. Surviving a power loss needs fsync per write, which costs more than the
// 5,000 writes/s target allows; `fsync: true` turns it on for those who want it.
//
// Files: `snapshot.log` (header naming the first log segment it does not contain) and
// `wal-<n>.log` segments. When the log outgrows its bound, it is folded into a new snapshot while
// the server runs: new commits go to a new segment, the snapshot is written beside (`snapshot.log.tmp`)
// in chunks, yielding to the event loop between them, fsynced and renamed into place; only then are
// the older segments removed. A crash at any point leaves either the old snapshot with every
// segment, or the new one with the segments it names: replay restores every acknowledged write.
//
// The snapshot is written from the live state while writes go on ("fuzzy"): each object is taken
// as it is when reached, at or after the switch, and every change after the switch is also in the
// new segment, which replay applies after the snapshot; replaying a change on a newer copy ends at
// the same object, because the segment's last record of each object is its latest state.
//
// Damage is loud: a record that fails its checksum or cannot be read anywhere but in the cut-off
// last line of the live segment (a write the process did not finish, never acknowledged) stops the
// start with what was lost, unless `recover` is set: then the server starts with the rest, and the
// damaged files are kept in `store/damaged-<time>/`.
import { closeSync, copyFileSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, truncateSync, unlinkSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { LogicalCluster } from './cluster.js';
import { decodeLine, encodeLine, type FileHeader, isHeader, readLines, STORE_FORMAT, STORE_VERSION, type StoreRecord } from './persistence-format.js';
import type { StoreEvent } from './store.js';

export type StoreLogLevel = 'info' | 'warn' | 'error';
/** Where the store reports what it did at start and while compacting (the server's logger or stderr). */
export type StoreLog = (level: StoreLogLevel, message: string, fields?: Record<string, unknown>) => void;

export interface PersistenceOptions {
  /** fsync after every append: an acknowledged write survives a power loss too (costs a disk flush per write). */
  fsync?: boolean;
  /** Start on a damaged store with what can be read; the damaged files are kept in `store/damaged-<time>/`. */
  recover?: boolean;
  /** The log is compacted once it is larger than this many bytes ... (default 64 MiB) */
  compactMinBytes?: number;
  /** ... and larger than this multiple of the last snapshot (default 1). */
  compactRatio?: number;
  /** Bytes of snapshot written between two yields to the event loop (default 64 KiB). */
  compactChunkBytes?: number;
  /** Bytes read at a time at restore (default 1 MiB). */
  readChunkBytes?: number;
  log?: StoreLog;
}

export interface StoreStats {
  snapshotBytes: number;
  /** Bytes of the log segments after the snapshot. */
  logBytes: number;
  /** Compactions finished since the start. */
  compactions: number;
  compacting: boolean;
}

/** One record that could not be used at restore. */
export interface DamagedRecord {
  file: string;
  line: number;
  offset: number;
  reason: string;
  /** What the damaged line still tells: operation, logical cluster, resource, namespace, name. */
  record?: Partial<Record<'op' | 'c' | 'r' | 'ns' | 'n', string>>;
}

/** The store has damaged records and the server was not told to recover. */
export class StoreDamagedError extends Error {
  constructor(
    readonly damaged: DamagedRecord[],
    readonly storeDir: string,
  ) {
    super(
      [
        `the API server's store in ${storeDir} is damaged: ${damaged.length} record(s) cannot be read (${perFile(damaged)})`,
        ...describeDamage(damaged),
        'What they held would be lost. To start with everything else, run again with --recover-store (the recoverStore option',
        `of the API server): the damaged files are then moved to ${join(storeDir, 'damaged-<time>')}/, never deleted.`,
      ].join('\n'),
    );
    this.name = 'StoreDamagedError';
  }
}

function perFile(damaged: DamagedRecord[]): string {
  const counts = new Map<string, number>();
  for (const d of damaged) counts.set(d.file, (counts.get(d.file) ?? 0) + 1);
  return [...counts].map(([f, n]) => `${f}: ${n}`).join(', ');
}

/** One line per damaged record (the first 20, then how many more). */
export function describeDamage(damaged: DamagedRecord[]): string[] {
  const lines = damaged.slice(0, 20).map((d) => {
    const r = d.record;
    const what = r ? ` (${[r.op, r.c && `cluster ${r.c}`, r.r && `resource ${r.r}`, r.n && `${r.ns ? `${r.ns}/` : ''}${r.n}`].filter(Boolean).join(', ')})` : '';
    return `  ${d.file} line ${d.line} (byte ${d.offset}): ${d.reason}${what}`;
  });
  if (damaged.length > 20) lines.push(`  ... and ${damaged.length - 20} more`);
  return lines;
}

const SNAPSHOT = 'snapshot.log';
const SNAPSHOT_TMP = 'snapshot.log.tmp';
/** The log of format 1 (before segments and checksums). */
const LEGACY_WAL = 'wal.log';
const SEGMENT = /^wal-(\d+)\.log$/;
const segmentName = (n: number) => `wal-${String(n).padStart(8, '0')}.log`;

/** A failed compaction is tried again after this long, not at every write. */
const COMPACTION_RETRY_MS = 60_000;

class CompactionAborted extends Error {}

export class Persistence {
  private readonly dir: string;
  private fd: number | undefined;
  private segment = 0;
  private readonly detach = new Map<string, () => void>();
  /** The logical clusters as persisted: what a snapshot holds. */
  private readonly clusters = new Map<string, LogicalCluster>();
  private snapshotBytes = 0;
  private logBytes = 0;
  private compactions = 0;
  private compacting: Promise<void> | undefined;
  private compactionScheduled = false;
  private retryCompactionAt = 0;
  private closed = false;
  private readonly log: StoreLog;

  constructor(
    dataDir: string,
    private readonly opts: PersistenceOptions = {},
  ) {
    this.dir = join(dataDir, 'store');
    mkdirSync(this.dir, { recursive: true });
    this.log = opts.log ?? (() => undefined);
  }

  private path(name: string): string {
    return join(this.dir, name);
  }

  /**
   * Rebuilds every logical cluster from the snapshot and the log (`create` makes an empty one) and
   * opens the log for appends. Throws StoreDamagedError on damage unless told to recover.
   */
  async restore(create: (name: string, initialRv: number) => LogicalCluster): Promise<LogicalCluster[]> {
    const files = readdirSync(this.dir);
    // An unfinished compaction's snapshot: the old snapshot and all segments are still there.
    if (files.includes(SNAPSHOT_TMP)) unlinkSync(this.path(SNAPSHOT_TMP));
    const segments = files
      .map((f) => SEGMENT.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);

    const damaged: DamagedRecord[] = [];
    const damagedFiles = new Set<string>();
    const clusters = new Map<string, LogicalCluster>();
    const apply = (rec: StoreRecord) => {
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

    /** Replays one file; returns its header (formats 2 and 3), its format, and where its last complete line ends. */
    const replay = (name: string, live: boolean): { header?: FileHeader; version: number; goodBytes: number; torn: boolean } => {
      let version = 0;
      let header: FileHeader | undefined;
      let goodBytes = 0;
      let torn = false;
      for (const l of readLines(this.path(name), this.opts.readChunkBytes)) {
        if (version === 0) version = l.bytes[0] === 0x7b /* '{' */ ? 1 : STORE_VERSION;
        if (!l.terminated && live) {
          // The process died in the middle of this append: it was never acknowledged.
          torn = true;
          break;
        }
        const decoded = l.terminated ? decodeLine(l.bytes, version) : { damage: 'cut off (no newline) in a file that was complete', readable: undefined };
        if ('damage' in decoded) {
          damaged.push({ file: name, line: l.line, offset: l.offset, reason: decoded.damage, ...(decoded.readable ? { record: decoded.readable } : {}) });
          damagedFiles.add(name);
        } else if (isHeader(decoded.value)) {
          if (decoded.value.version > STORE_VERSION) throw new Error(`${this.path(name)} was written by a newer kcp (store format ${decoded.value.version}; this one reads up to ${STORE_VERSION})`);
          if (l.line !== 1) {
            damaged.push({ file: name, line: l.line, offset: l.offset, reason: 'a file header in the middle of the file' });
            damagedFiles.add(name);
          } else header = decoded.value;
        } else apply(decoded.value);
        goodBytes = l.offset + l.bytes.length + 1;
      }
      // The header's format, which says whether appends may go on in the file; its lines are read
      // by the form each one has (plain JSON in format 1, else a checksum first).
      return { header, version: header?.version ?? (version || STORE_VERSION), goodBytes, torn };
    };

    // The snapshot, then the log: the format-1 wal.log (only after a format-1 snapshot or none), then
    // the segments from the one the snapshot names. Older segments were folded in already.
    let firstSegment = segments[0] ?? 1;
    let legacy = false;
    const logs: string[] = [];
    if (existsSync(this.path(SNAPSHOT))) {
      const snap = replay(SNAPSHOT, false);
      if (snap.version === 1) legacy = true;
      else if (snap.header?.kind === 'snapshot') firstSegment = snap.header.firstSegment;
      this.snapshotBytes = statSync(this.path(SNAPSHOT)).size;
    } else if (segments.length > 0 && segments[0] > 1) {
      // Segments after the first exist only beside a snapshot that holds what came before them.
      damaged.push({ file: SNAPSHOT, line: 0, offset: 0, reason: `missing, but the log begins at segment ${segments[0]}: everything before it was only in the snapshot` });
    }
    const legacyWal = existsSync(this.path(LEGACY_WAL));
    if (legacyWal && (legacy || !existsSync(this.path(SNAPSHOT)))) {
      legacy = true;
      logs.push(LEGACY_WAL);
    }
    const obsolete = segments.filter((n) => n < firstSegment).map(segmentName);
    if (legacyWal && !legacy) obsolete.push(LEGACY_WAL);
    for (const n of segments) if (n >= firstSegment) logs.push(segmentName(n));

    let live: { name: string; version: number; goodBytes: number; torn: boolean } | undefined;
    for (const [i, name] of logs.entries()) {
      const r = replay(name, i === logs.length - 1);
      if (i === logs.length - 1) live = { name, version: r.version, goodBytes: r.goodBytes, torn: r.torn };
      this.logBytes += r.goodBytes;
    }
    for (const c of clusters.values()) c.reloadTypes();
    for (const c of clusters.values()) this.clusters.set(c.name, c);

    if (damaged.length > 0) {
      if (!this.opts.recover) throw new StoreDamagedError(damaged, this.dir);
      const aside = this.path(`damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`);
      mkdirSync(aside, { recursive: true });
      // Kept by a second name first: the originals go only once a new snapshot holds the rest.
      for (const f of damagedFiles) keepCopy(this.path(f), join(aside, f));
      this.log('warn', `store: started with damaged records dropped (--recover-store); the damaged files are kept in ${aside}`, { dropped: damaged.length });
      for (const line of describeDamage(damaged)) this.log('warn', `store: dropped ${line.trim()}`);
    }
    for (const f of obsolete) unlinkSync(this.path(f));
    if (live?.torn) {
      // Cut off, so that the file is whole again whether appends go on in it or not.
      const size = statSync(this.path(live.name)).size;
      truncateSync(this.path(live.name), live.goodBytes);
      this.log('info', 'store: dropped the last log record, cut off by a crash while it was being written (never acknowledged)', { file: live.name, offset: live.goodBytes, bytes: size - live.goodBytes });
    }

    // Appends go on in the live segment when it is a clean one of this format, else in a new segment.
    const continueLive = live !== undefined && live.version === STORE_VERSION && !damagedFiles.has(live.name) && live.goodBytes > 0;
    const lastSegment = segments.length > 0 ? segments[segments.length - 1] : 0;
    if (continueLive) {
      this.segment = lastSegment;
      this.fd = openSync(this.path(segmentName(lastSegment)), 'a');
    } else if (live && live.name !== LEGACY_WAL && live.goodBytes === 0) {
      // Created, but not even its header was written: begun again.
      this.openSegment(lastSegment);
    } else {
      this.openSegment(Math.max(lastSegment + 1, firstSegment));
    }
    // Damaged files and the format-1 files are replaced by a snapshot now (the damaged ones before
    // serving, so that they can go); a log over its bound is compacted in the background.
    if (damaged.length > 0) await this.compact();
    else if (legacy || this.logBytes > this.bound()) this.scheduleCompaction();
    return [...this.clusters.values()];
  }

  private bound(): number {
    return Math.max(this.opts.compactMinBytes ?? 64 * 2 ** 20, (this.opts.compactRatio ?? 1) * this.snapshotBytes);
  }

  /** Opens a new log segment for appends (its header written) and makes it the live one. */
  private openSegment(n: number): void {
    const previous = this.fd;
    const fd = openSync(this.path(segmentName(n)), 'w');
    this.writeAll(fd, encodeLine({ format: STORE_FORMAT, version: STORE_VERSION, kind: 'segment', segment: n }));
    if (this.opts.fsync) {
      fsyncSync(fd);
      syncDir(this.dir);
    }
    this.fd = fd;
    this.segment = n;
    if (previous !== undefined) closeSync(previous);
  }

  private writeAll(fd: number, line: string): number {
    const written = writeSync(fd, line);
    const length = Buffer.byteLength(line);
    if (written < length) {
      const rest = Buffer.from(line).subarray(written);
      for (let off = 0; off < rest.length; ) off += writeSync(fd, rest, off);
    }
    return length;
  }

  private append(rec: StoreRecord): void {
    if (this.fd === undefined) return;
    this.logBytes += this.writeAll(this.fd, encodeLine(rec));
    if (this.opts.fsync) fsyncSync(this.fd);
    if (this.logBytes > this.bound()) this.scheduleCompaction();
  }

  private scheduleCompaction(): void {
    if (this.compacting || this.compactionScheduled || this.closed || Date.now() < this.retryCompactionAt) return;
    this.compactionScheduled = true;
    // Not inside the commit that crossed the bound: on a turn of its own.
    setImmediate(() => {
      this.compactionScheduled = false;
      this.compact().catch((err: unknown) => {
        if (err instanceof CompactionAborted) return;
        this.retryCompactionAt = Date.now() + COMPACTION_RETRY_MS;
        this.log('error', 'store: compaction failed; the log keeps every write and compaction is tried again later', { error: err instanceof Error ? err.message : String(err) });
      });
    });
  }

  /** Folds the log into a new snapshot now (or joins the one running); resolves when it is in place. */
  compact(): Promise<void> {
    if (this.closed) return Promise.reject(new CompactionAborted('the store is closed'));
    this.compacting ??= this.writeSnapshot().finally(() => (this.compacting = undefined));
    return this.compacting;
  }

  private async writeSnapshot(): Promise<void> {
    const started = performance.now();
    // From here on every commit goes to the new segment, which replay applies after this snapshot.
    const firstSegment = this.segment + 1;
    this.openSegment(firstSegment);
    this.logBytes = statSync(this.path(segmentName(firstSegment))).size;
    const tmp = this.path(SNAPSHOT_TMP);
    const file = await open(tmp, 'w');
    let bytes = 0;
    let objects = 0;
    try {
      const chunkBytes = this.opts.compactChunkBytes ?? 64 * 1024;
      let chunk: string[] = [encodeLine({ format: STORE_FORMAT, version: STORE_VERSION, kind: 'snapshot', firstSegment })];
      let chunkLength = chunk[0].length;
      const flush = async () => {
        const data = chunk.join('');
        chunk = [];
        chunkLength = 0;
        bytes += (await file.write(data)).bytesWritten;
        if (this.closed) throw new CompactionAborted('the store was closed during a compaction');
      };
      for (const c of [...this.clusters.values()]) {
        // Deleted since: its drop is in the new segment (and so is its re-creation).
        if (this.clusters.get(c.name) !== c) continue;
        chunk.push(encodeLine({ op: 'cluster', c: c.name, rv: c.store.rv }));
        for (const r of c.store.resources()) {
          for (const o of c.store.all(r)) {
            const line = encodeLine({ op: 'put', c: c.name, r, ns: o.namespace, n: o.name, rv: o.rv, j: o.json, l: o.labels });
            chunk.push(line);
            chunkLength += line.length;
            objects++;
            if (chunkLength >= chunkBytes) await flush();
          }
        }
      }
      await flush();
      await file.sync();
      await file.close();
    } catch (err) {
      await file.close().catch(() => undefined);
      rmSync(tmp, { force: true });
      throw err;
    }
    if (this.closed) {
      unlinkSync(tmp);
      throw new CompactionAborted('the store was closed during a compaction');
    }
    renameSync(tmp, this.path(SNAPSHOT));
    syncDir(this.dir);
    // Folded into the snapshot now: the older segments and a format-1 log.
    for (const f of readdirSync(this.dir)) {
      const m = SEGMENT.exec(f);
      if ((m && Number(m[1]) < firstSegment) || f === LEGACY_WAL) unlinkSync(this.path(f));
    }
    this.snapshotBytes = bytes;
    this.compactions++;
    this.log('info', 'store: log compacted into a new snapshot', { objects, snapshotBytes: bytes, ms: Math.round(performance.now() - started) });
  }

  stats(): StoreStats {
    return { snapshotBytes: this.snapshotBytes, logBytes: this.logBytes, compactions: this.compactions, compacting: this.compacting !== undefined };
  }

  /** Starts logging a cluster's commits. */
  attach(c: LogicalCluster): void {
    this.detach.get(c.name)?.();
    this.clusters.set(c.name, c);
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
    this.clusters.delete(c.name);
    this.append({ op: 'drop', c: c.name });
  }

  /** Stops logging; a compaction under way is abandoned (the log keeps everything). */
  async close(): Promise<void> {
    this.closed = true;
    await this.compacting?.catch(() => undefined);
    for (const off of this.detach.values()) off();
    this.detach.clear();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** A second name for a file (a copy where hard links are not possible). */
function keepCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

/** Makes a rename or a new file in `dir` durable (where the platform allows syncing a directory). */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // not possible on this platform (Windows): the rename is still atomic
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
