// Child processes that do not outlive the process that started them, SIGKILL included.
//
// Node has no prctl(PR_SET_PDEATHSIG). util-linux's `setpriv --pdeathsig KILL CMD ARGS` sets it and
// then execs CMD (same pid, same argv for `ps`), so the kernel kills CMD when the thread that spawned
// it ends; Node spawns from its main thread, which ends only with the process. Where setpriv is
// missing or too old (no --pdeathsig: util-linux before 2.33, or not Linux) the command runs as it is
// and `bound` says so; callers then need another way to clean up (a process group, a pid file).
//
//   const { child, bound } = spawnBoundToThisProcess('/usr/bin/docker-registry', ['serve', cfg], { stdio: 'ignore' });
import { type ChildProcess, spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const SETPRIV = '/usr/bin/setpriv';

let setprivWorks: boolean | undefined;

/** Whether setpriv can set a parent-death signal here (asked once per process). */
export function parentDeathSignalAvailable(): boolean {
  if (setprivWorks === undefined) {
    setprivWorks = process.platform === 'linux' && existsSync(SETPRIV) && spawnSync(SETPRIV, ['--pdeathsig', 'KILL', 'true'], { stdio: 'ignore', timeout: 5000 }).status === 0;
  }
  return setprivWorks;
}

/** Spawns `command` so that the kernel kills it (SIGKILL) when this process ends, however it ends. */
export function spawnBoundToThisProcess(command: string, args: readonly string[], options: SpawnOptions): { child: ChildProcess; bound: boolean } {
  if (!parentDeathSignalAvailable()) return { child: spawn(command, args, options), bound: false };
  return { child: spawn(SETPRIV, ['--pdeathsig', 'KILL', command, ...args], options), bound: true };
}

/**
 * Pids of running processes whose command line is exactly `argv` (Linux /proc; none elsewhere), e.g.
 * a registry an earlier run left serving the same config file. Zombies do not count.
 */
export function processesWithCommandLine(argv: readonly string[]): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const wanted = `${argv.join('\0')}\0`;
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8') === wanted && processAlive(Number(entry))) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/**
 * Whether the process exists and has not exited. An exited process nobody reaped yet (a zombie) has
 * exited once all its threads have: until then they may still hold its files and sockets.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    if (!/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))) return true;
    return readdirSync(`/proc/${pid}/task`).length > 1;
  } catch {
    return process.platform !== 'linux'; // no /proc to tell a zombie: kill(pid, 0) succeeded
  }
}
