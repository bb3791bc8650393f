// The API faults a runtime cluster of the landscape can be given (the API server's fault injection on
// its logical cluster, `shootClusterName(projectNamespace, shoot)`), one per kind of trouble a real runtime's API
// server causes: bench:faults and the scenario test of issue 15 inject them, docs/reliability.md
// ("API faults") says what the controllers make of each.
import type { FaultConfig } from '../apiserver/faults.js';

export const RUNTIME_FAULT_KINDS = ['server-errors', 'throttled', 'dropped-watches', 'gone-on-resume', 'latency', 'unreachable'] as const;
export type RuntimeFaultKind = (typeof RUNTIME_FAULT_KINDS)[number];

/**
 * The faults the controllers ride out: a Kyma and its modules stay Ready or Processing (never Error)
 * and take a change while the fault lasts. The others make the Kyma Error, with the reason, until
 * the runtime answers again.
 */
export const SURVIVABLE_FAULTS: ReadonlySet<RuntimeFaultKind> = new Set(['throttled', 'dropped-watches', 'gone-on-resume', 'latency']);

/** Share of requests a throttled runtime answers with 429 (each with Retry-After: 1 s). */
export const THROTTLED_SHARE = 0.3;

/** The fault configuration of a kind; `latencyMs` for `latency` (default 2 s). */
export function runtimeFault(kind: RuntimeFaultKind, opts: { latencyMs?: number } = {}): FaultConfig {
  switch (kind) {
    case 'server-errors':
      // Every request answered 500 or 503 (with Retry-After): an API server that is up but broken.
      return { errorRate: 1, errorCodes: [500, 503], retryAfterSeconds: 1 };
    case 'throttled':
      return { errorRate: THROTTLED_SHARE, errorCodes: [429], retryAfterSeconds: 1 };
    case 'dropped-watches':
      return { dropWatchesAfterMs: 500 };
    case 'gone-on-resume':
      // Watches are cut too, so that they resume (and get 410 Gone) while the fault lasts.
      return { dropWatchesAfterMs: 500, forceGoneOnResume: true };
    case 'latency':
      return { latencyMs: opts.latencyMs ?? 2000 };
    case 'unreachable':
      return { unreachable: true };
  }
}

