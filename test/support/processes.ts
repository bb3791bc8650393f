// Processes of a test, seen through /proc (Linux): whether one still runs, and which it started.
import { readdirSync, readFileSync } from 'node:fs';
import { processAlive } from '../../src/util/bound-child.js';

/** Whether the process exists and has not exited (an exited child nobody reaped yet, a zombie, counts as gone). */
export const processRunning = processAlive;

/** The running processes started by `pid`, their children, and so on. */
export function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid ...`; comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number): void => {
    for (const [child, ppid] of parentOf) {
      if (ppid === parent && processRunning(child)) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}
