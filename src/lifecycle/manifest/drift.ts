// Drift: an object the Manifest applied was changed or deleted in the target cluster. Instead of
// applying every object on every reconcile, each object is read once and compared with what the
// last apply returned: a new generation (spec changed), a new resourceVersion for kinds without
// generation, or a label/annotation of ours changed or gone means the object is applied again.
import { isNotFound } from '../../runtime/client/errors.js';
import type { Client } from '../../runtime/client/interface.js';
import type { KubeObject } from '../../kube/object.js';
import type { AppliedRecord } from './apply.js';
import { refKey, refOf } from './inventory.js';
import { mapLimit } from '../../util/map-limit.js';

function subsetHolds(want: Record<string, string> | undefined, have: Record<string, string> | undefined): boolean {
  if (!want) return true;
  for (const k in want) if (have?.[k] !== want[k]) return false;
  return true;
}

/** Whether `live` still is what applying `desired` produced (recorded in `record`). */
export function unchanged(desired: KubeObject, live: KubeObject, record: AppliedRecord): boolean {
  if (!subsetHolds(desired.metadata.labels, live.metadata.labels)) return false;
  if (!subsetHolds(desired.metadata.annotations, live.metadata.annotations)) return false;
  if (live.metadata.deletionTimestamp) return false;
  if (record.generation !== undefined && live.metadata.generation !== undefined) return live.metadata.generation === record.generation;
  return live.metadata.resourceVersion === record.resourceVersion;
}

export interface DriftCheck {
  /** Desired objects whose live copy differs or is missing. */
  drifted: KubeObject[];
  /** Live copies of the unchanged objects, by inventory key (readiness reads the manager from here). */
  live: Map<string, KubeObject>;
}

/** Reads every desired object once (bounded concurrency) and reports those to apply again. */
export async function checkDrift(client: Client, desired: readonly KubeObject[], records: ReadonlyMap<string, AppliedRecord>, concurrency: number, signal: AbortSignal): Promise<DriftCheck> {
  const drifted: KubeObject[] = [];
  const live = new Map<string, KubeObject>();
  await mapLimit(desired, concurrency, async (obj) => {
    const key = refKey(refOf(obj));
    const record = records.get(key);
    if (!record) {
      drifted.push(obj);
      return;
    }
    try {
      const current = await client.get(obj, { namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' }, { signal });
      if (unchanged(obj, current, record)) live.set(key, current);
      else drifted.push(obj);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      drifted.push(obj);
    }
  });
  return { drifted, live };
}
