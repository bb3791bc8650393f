// Server-side apply of a module's objects into the target cluster with one field manager, phase
// by phase (CRDs first and established before anything that may use them).
import type { Client } from '../../runtime/client/interface.js';
import type { KubeObject } from '../../kube/object.js';
import { CrdNotEstablishedError, waitEstablished } from '../crd-established.js';
import { applyPhases, type ResourceRef, refKey, refOf } from './inventory.js';
import { sharedStrings } from '../../util/intern.js';
import { mapLimit } from '../../util/map-limit.js';

/** What the cluster answered for an applied object: enough to notice a later change cheaply. */
export interface AppliedRecord {
  resourceVersion: string;
  generation?: number;
}

export interface ApplyOptions {
  fieldManager: string;
  concurrency: number;
  /** How long to wait for new CRDs to be established before giving up for this reconcile. */
  crdEstablishTimeoutMs: number;
  signal: AbortSignal;
}

export { CrdNotEstablishedError };

export function recordOf(obj: KubeObject): AppliedRecord {
  return { resourceVersion: obj.metadata.resourceVersion ?? '', generation: obj.metadata.generation };
}

/** Applies one object and returns what the server stored. */
export function applyOne(client: Client, obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
  return client.apply(obj, { fieldManager: opts.fieldManager, force: true, signal: opts.signal });
}

/** What applyAll stored, by inventory key: the records to keep, and the objects as the server answered (for this pass only). */
export interface Applied {
  records: Map<string, AppliedRecord>;
  stored: Map<string, KubeObject>;
}

/**
 * Applies `objects` in phases; returns the records of everything applied and the objects the server
 * stored. On an error the keys of what was applied before it are in `appliedKeys` of the thrown
 * ApplyError.
 */
export async function applyAll(client: Client, objects: readonly KubeObject[], opts: ApplyOptions): Promise<Applied> {
  const records = new Map<string, AppliedRecord>();
  const applied = new Map<string, KubeObject>();
  try {
    for (const phase of applyPhases(objects)) {
      await mapLimit(phase, opts.concurrency, async (obj) => {
        const stored = await applyOne(client, obj, opts);
        // Kept per Manifest for as long as it lives; the same keys recur in every runtime.
        const key = sharedStrings.intern(refKey(refOf(obj)));
        records.set(key, recordOf(stored));
        applied.set(key, stored);
      });
      const crds = phase.filter((o) => o.kind === 'CustomResourceDefinition');
      if (crds.length > 0) await waitEstablished(client, new Map(crds.map((c) => [c.metadata.name ?? '', applied.get(refKey(refOf(c))) ?? c])), opts.crdEstablishTimeoutMs, opts.signal);
    }
  } catch (e) {
    throw new ApplyError(e, [...records.keys()]);
  }
  return { records, stored: applied };
}

/** An apply that failed part-way; `appliedKeys` lists the objects that were applied (inventory keys). */
export class ApplyError extends Error {
  constructor(
    cause: unknown,
    readonly appliedKeys: string[],
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'ApplyError';
  }
}

export type { ResourceRef };
