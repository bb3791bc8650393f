// The embedded landscape (embedded.ts) in a process of its own, as `kcp up` runs it: the API server
// and the simulators get a core of their own, apart from the controllers, which talk to it over
// HTTPS through the kubeconfig files as they talk to real clusters in production.
//
// The parent forks process-main.ts (child_process.fork) and speaks over the IPC channel:
//
//   parent -> child   {type: 'start', options}    once, right after the fork
//                     {type: 'stop'}              stop the landscape and exit
//   child -> parent   {type: 'ready', info}       what the controllers and the banner need
//                     {type: 'failed', message}   the start failed (the child exits next)
//                     {type: 'log', line}         a log line, when the parent asked for them
//
// The child never outlives the parent: when the IPC channel closes (the parent exited or was killed,
// SIGKILL included) it stops the landscape and exits, within STOP_TIMEOUT_MS at most. It runs in a
// process group of its own, so Ctrl-C in a terminal reaches only the parent (which stops the
// controllers first and then asks the child), and so that when the child ends, by a stop or killed,
// the parent can end what it left of the group. Its docker-registry needs no one to survive it: the
// kernel kills it with the child (registry.ts), so killing both at once leaves nothing either. The
// child stops on SIGTERM and SIGINT; when it dies by itself, `done` rejects and `kcp up` exits 1.
//
//   const land = await startLandscapeProcess({ dataDir: '.kcp', port: 6443 });
//   land.info.files.kcpKubeconfig; land.info.pid; land.done.catch(...);
//   await land.stop();
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LogSink } from '../runtime/log.js';
import { type EmbeddedLandscape, type EmbeddedLandscapeOptions, startEmbeddedLandscape } from './embedded.js';
import type { LandscapeRegistry } from './registry.js';

const ENTRY = fileURLToPath(new URL('./process-main.js', import.meta.url));

/**
 * V8 settings of the landscape process, which holds every simulated runtime's API server (about
 * 2 GiB of heap at 10,000 runtimes) and answers their requests as they come. V8's memory reducer,
 * made for idle browser tabs, starts memory-reducing collections when allocation slows down: at
 * 10,000 runtimes that was 4 s of back-to-back collections with requests waiting. A larger young
 * generation lets the short-lived request garbage die there instead of being promoted, which makes
 * the costly full collections of the large old generation rarer. The parent's own flags come
 * after these and win.
 */
export const LANDSCAPE_V8_FLAGS = ['--no-memory-reducer', '--max-semi-space-size=64'];

/** Node options that name code to run instead of the entry (with their value when it is separate). */
const EVAL_OPTIONS = new Set(['-e', '--eval', '-p', '--print']);

/**
 * The child's Node options: the landscape's V8 flags, then the parent's own, without a second
 * inspector on the parent's port, the test runner, or code given with -e/-p (which the child would
 * run instead of its entry, forking again).
 */
export function childExecArgv(parent: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < parent.length; i++) {
    const a = parent[i];
    if (EVAL_OPTIONS.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('--inspect') || a.startsWith('--test') || a.startsWith('--eval=') || a.startsWith('--print=')) continue;
    kept.push(a);
  }
  return [...LANDSCAPE_V8_FLAGS, ...kept];
}

/** How long a stop may take before the process is killed (parent) or exits anyway (child). */
export const STOP_TIMEOUT_MS = 20_000;

/** What a running landscape offers, in either mode; plain data (it crosses the IPC channel). */
export interface LandscapeInfo {
  /** The API server's URL. */
  url: string;
  dataDir: string;
  files: EmbeddedLandscape['files'];
  project: string;
  projectNamespace: string;
  registry: Pick<LandscapeRegistry, 'kind' | 'host' | 'storage'>;
  catalog: EmbeddedLandscape['catalog'];
  urlChanged: boolean;
  /** Milliseconds the landscape took to start. */
  startupMs: number;
  /** The process the API server and the simulators run in (RSS measurements). */
  pid: number;
}

export function landscapeInfo(land: EmbeddedLandscape): LandscapeInfo {
  return {
    url: land.server.url,
    dataDir: land.dataDir,
    files: land.files,
    project: land.project,
    projectNamespace: land.projectNamespace,
    registry: { kind: land.registry.kind, host: land.registry.host, storage: land.registry.storage },
    catalog: land.catalog,
    urlChanged: land.urlChanged,
    startupMs: land.startupMs,
    pid: process.pid,
  };
}

/**
 * The landscape options that can cross to another process: no logger (the child writes
 * `<data-dir>/kcp.log`), no functions. `forwardLog`: the child also sends its log lines to the parent.
 */
export type LandscapeProcessOptions = Omit<EmbeddedLandscapeOptions, 'logger' | 'echoLog' | 'signal' | 'kubelet'> & {
  kubelet?: Omit<NonNullable<EmbeddedLandscapeOptions['kubelet']>, 'clusters' | 'onError' | 'registerNodes'>;
};

type ParentMessage = { type: 'start'; options: LandscapeProcessOptions; forwardLog: boolean } | { type: 'stop' };
type ChildMessage = { type: 'ready'; info: LandscapeInfo } | { type: 'failed'; message: string } | { type: 'log'; line: string };

export interface LandscapeProcess {
  info: LandscapeInfo;
  /** Settles when the process has ended: resolves after stop(), rejects when it ended by itself. */
  done: Promise<void>;
  /** Asks the process to stop, waits for it, and kills it after STOP_TIMEOUT_MS. */
  stop(): Promise<void>;
}

export interface StartLandscapeProcessOptions extends LandscapeProcessOptions {
  /** Receives the child's log lines (as written to its log file). */
  echoLog?: LogSink;
  /** Aborts the start (the child stops what it started and exits). */
  signal?: AbortSignal;
  stopTimeoutMs?: number;
  /** Node flags for the landscape process, after those it inherits (e.g. a heap limit of its own). */
  execArgv?: readonly string[];
}

/** Forks the landscape process; resolves once it runs, rejects with the child's error when it did not start. */
export function startLandscapeProcess(opts: StartLandscapeProcessOptions): Promise<LandscapeProcess> {
  const { echoLog, signal, stopTimeoutMs = STOP_TIMEOUT_MS, execArgv = [], ...options } = opts;
  if (signal?.aborted) return Promise.reject(new Error('the landscape start was aborted'));
  const child = fork(ENTRY, [], {
    // The child must not open a second inspector on the parent's port, nor run as a test file.
    execArgv: [...childExecArgv(process.execArgv), ...execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'json',
    detached: true,
  });
  let stopRequested = false;
  let failure: string | undefined;
  const send = (msg: ParentMessage): void => {
    if (child.connected) child.send(msg);
  };
  const closed = new Promise<string>((resolve) => {
    child.once('close', (code, sig) => {
      killGroup(child.pid);
      resolve(sig ? `signal ${sig}` : `code ${code}`);
    });
    child.once('error', (e) => {
      failure ??= `the landscape process failed: ${e.message}`;
      if (child.pid === undefined) resolve('no process'); // it never ran: no 'close' to wait for
    });
  });
  const done = closed.then((how) => {
    if (!stopRequested) throw new Error(`the landscape process (pid ${child.pid}) exited with ${how}`);
  });
  done.catch(() => undefined); // the caller may look at it, or not

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      stopRequested = true;
      send({ type: 'stop' });
      const kill = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
      await closed;
      clearTimeout(kill);
    })());
  const onAbort = (): void => {
    stop().catch(() => undefined);
  };
  signal?.addEventListener('abort', onAbort, { once: true });

  return new Promise<LandscapeProcess>((resolve, reject) => {
    child.on('message', (msg: ChildMessage) => {
      if (msg.type === 'log') echoLog?.(msg.line);
      else if (msg.type === 'failed') failure ??= msg.message;
      else if (msg.type === 'ready') {
        signal?.removeEventListener('abort', onAbort);
        resolve({ info: msg.info, done, stop });
      }
    });
    closed.then(
      (how) => reject(new Error(failure ?? (stopRequested ? 'the landscape start was aborted' : `the landscape process exited with ${how} before it was ready`))),
      reject,
    );
    send({ type: 'start', options, forwardLog: echoLog !== undefined });
  });
}

/**
 * Resident memory of a process, now and at its peak, in bytes (Linux: /proc/<pid>/status VmRSS and
 * VmHWM); undefined when it is gone or /proc is not there. Benchmarks read the landscape's with
 * `up.landscapeInfo.pid`, apart from the controllers' own `process.memoryUsage()`.
 */
export function processRss(pid: number): { rss: number; peakRss: number } | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string): number | undefined => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  const rss = kib('VmRSS');
  return rss === undefined ? undefined : { rss, peakRss: kib('VmHWM') ?? rss };
}

/** Kills what is left of the landscape process's group once the process ended (nothing after a clean stop). */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // no process left in the group
  }
}

/** The child's side (process-main.ts): starts the landscape on the parent's word, stops on its word or when it is gone. */
export function serveLandscape(): void {
  if (!process.send) throw new Error('the landscape process runs only as a child of kcp up (child_process.fork)');
  // Messages go out in order; `then` runs once the last one was handed to the channel (before exiting).
  let sent: Promise<void> = Promise.resolve();
  const send = (msg: ChildMessage): Promise<void> =>
    (sent = sent.then(
      () =>
        new Promise<void>((resolve) => {
          if (!process.connected || !process.send) return resolve();
          process.send(msg, undefined, {}, () => resolve());
        }),
    ));
  const lifetime = new AbortController();
  let starting: Promise<EmbeddedLandscape | undefined> | undefined;
  let ending = false;
  const stopLandscape = async (): Promise<boolean> => {
    try {
      await (await starting)?.stop();
      return true;
    } catch (e) {
      process.stderr.write(`kcp landscape: stop failed: ${e instanceof Error ? e.message : String(e)}\n`);
      return false;
    }
  };
  const end = (code: number): void => {
    if (ending) return;
    ending = true;
    lifetime.abort();
    setTimeout(() => process.exit(code || 1), STOP_TIMEOUT_MS).unref();
    stopLandscape().then(
      (ok) => process.exit(ok ? code : code || 1),
      () => process.exit(1),
    );
  };
  const start = (options: LandscapeProcessOptions, forwardLog: boolean): void => {
    const startingNow = startEmbeddedLandscape({
      ...options,
      ...(forwardLog ? { echoLog: (line: string) => { send({ type: 'log', line }).catch(() => undefined); } } : {}),
      signal: lifetime.signal,
    });
    starting = startingNow.then(
      (land) => land,
      () => undefined,
    );
    startingNow.then(
      (land) => send({ type: 'ready', info: landscapeInfo(land) }),
      async (e: unknown) => {
        if (!ending) await send({ type: 'failed', message: e instanceof Error ? e.message : String(e) });
        end(1);
      },
    ).catch(() => end(1));
  };
  process.on('message', (msg: ParentMessage) => {
    if (msg.type === 'start' && !starting) start(msg.options, msg.forwardLog);
    else if (msg.type === 'stop') end(0);
  });
  process.on('disconnect', () => end(0));
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => end(0));
}
