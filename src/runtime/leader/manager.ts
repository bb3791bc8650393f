// Wiring of leader election into a Manager: the elector runs as one of the manager's runnables,
// the manager's gate lets controllers reconcile only while this replica leads, and gaining
// leadership re-enqueues every cached key (keys refused while following were dropped).
import type { GatedHost, Runnable } from '../manager.js';
import { untilAborted } from '../../util/sleep.js';
import { LeaderElector, type LeaderElectionOptions } from './election.js';

/** A runnable that campaigns until the manager's signal aborts, then steps down (releasing the Lease). */
export function electorRunnable(elector: LeaderElector, name = 'leader-election'): Runnable {
  return {
    name,
    start: async (signal) => {
      elector.start();
      await untilAborted(signal);
      await elector.stop();
    },
  };
}

/**
 * Makes a manager leader-elected: returns the elector (already added as a runnable). The caller's
 * own callbacks in `opts` still run.
 */
export function useLeaderElection(manager: GatedHost, opts: LeaderElectionOptions): LeaderElector {
  const elector = new LeaderElector({
    ...opts,
    onStartedLeading: (signal) => {
      manager.requeueAll();
      return opts.onStartedLeading?.(signal);
    },
  });
  manager.setGate(() => elector.isLeader());
  manager.add(electorRunnable(elector));
  return elector;
}
