// Metrics of the infrastructure manager, registered in the runtime's registry (served on /metrics):
//   im_runtime_state{runtimeId,runtimeName,shootName,state}  1 for the state each Runtime is in
//   im_runtime_fsm_stop_total{reason}                        reconciliations that stopped on an error
//                                                            the machine will not retry by itself
//   im_runtime_step_duration_seconds{step}                   time spent in each state machine step
import { exponentialBuckets, type Registry } from '../runtime/metrics.js';

export interface RuntimeStateLabels {
  runtimeId: string;
  runtimeName: string;
  shootName: string;
  state: string;
}

export interface InfrastructureMetrics {
  /** Records the state of a runtime (the previous state's series goes). */
  runtimeState(key: string, labels: RuntimeStateLabels): void;
  /** The runtime is gone: its series go. */
  runtimeGone(key: string): void;
  fsmStopped(reason: string): void;
  stepDuration(step: string, seconds: number): void;
}

export function infrastructureMetrics(registry: Registry): InfrastructureMetrics {
  const state = registry.gauge({
    name: 'im_runtime_state',
    help: 'State of a Runtime: 1 for the state it is in (Pending, Ready, Failed, Terminating).',
    labelNames: ['runtimeId', 'runtimeName', 'shootName', 'state'],
  });
  const stops = registry.counter({
    name: 'im_runtime_fsm_stop_total',
    help: 'Reconciliations of Runtimes that stopped on an error without a retry (the Runtime must change first).',
    labelNames: ['reason'],
  });
  const steps = registry.histogram({
    name: 'im_runtime_step_duration_seconds',
    help: 'Time spent in one step of the Runtime state machine.',
    labelNames: ['step'],
    buckets: exponentialBuckets(0.001, 4, 8),
  });
  const current = new Map<string, RuntimeStateLabels>();
  return {
    runtimeState(key, labels) {
      const old = current.get(key);
      if (old && (old.state !== labels.state || old.shootName !== labels.shootName || old.runtimeId !== labels.runtimeId)) state.remove({ ...old });
      current.set(key, labels);
      state.set({ ...labels }, 1);
    },
    runtimeGone(key) {
      const old = current.get(key);
      if (old) state.remove({ ...old });
      current.delete(key);
    },
    fsmStopped(reason) {
      stops.inc({ reason });
    },
    stepDuration(step, seconds) {
      steps.observe({ step }, seconds);
    },
  };
}
