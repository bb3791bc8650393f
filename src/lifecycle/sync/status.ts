// Status helpers both sync controllers share: a status is written only when it differs by value,
// leaving out when its parts were written (otherwise every pass would write).
import type { Condition } from '../../api/schema.js';
import { jsonEqual } from '../../kube/json.js';

interface TimedStatus {
  lastOperation?: { operation: string; lastUpdateTime?: string };
  conditions?: Condition[];
}

/** Equal statuses, ignoring lastOperation.lastUpdateTime and the conditions' lastTransitionTime. */
export function sameStatusIgnoringTimes<S extends TimedStatus>(a: S | undefined, b: S | undefined): boolean {
  const strip = (s: S | undefined) =>
    s && {
      ...s,
      lastOperation: s.lastOperation && { operation: s.lastOperation.operation },
      conditions: (s.conditions ?? []).map((c) => ({ ...c, lastTransitionTime: undefined })),
    };
  return jsonEqual(strip(a), strip(b));
}
