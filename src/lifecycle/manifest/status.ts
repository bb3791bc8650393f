// The Manifest's status as one value the reconciler edits and writes once at the end: state,
// conditions (Resources, Installation, ModuleCR), the inventory and the last operation.
import type { Condition } from '../../api/schema.js';
import { type ManifestObject, type ManifestStatus, type State } from '../../api/operator/index.js';
import type { ResourceRef } from './inventory.js';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export class StatusDraft {
  readonly before: ManifestStatus | undefined;
  state: State;
  conditions: Condition[];
  /** The inventory; replace it (the array is the one the Manifest read holds). */
  synced: ResourceRef[];
  operation: string;
  private readonly generation: number | undefined;

  constructor(manifest: ManifestObject) {
    this.before = manifest.status;
    this.generation = manifest.metadata.generation;
    this.state = manifest.status?.state ?? '';
    this.conditions = structuredClone(manifest.status?.conditions ?? []);
    // Replaced, never changed in place: while it is the same array, the inventory did not change.
    this.synced = manifest.status?.synced ?? [];
    this.operation = manifest.status?.lastOperation?.operation ?? '';
  }

  /** Sets a condition; its lastTransitionTime changes only when its status does (as meta.SetStatusCondition). */
  condition(type: string, status: ConditionStatus, reason: string, message: string): this {
    const existing = this.conditions.find((c) => c.type === type);
    const next: Condition = {
      type,
      status,
      reason,
      message,
      lastTransitionTime: existing && existing.status === status ? existing.lastTransitionTime : new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      ...(this.generation !== undefined ? { observedGeneration: this.generation } : {}),
    };
    if (existing) Object.assign(existing, next);
    else this.conditions.push(next);
    return this;
  }

  /** Adds a condition only when the status has none of its type yet (upstream's initial conditions). */
  initial(type: string, status: ConditionStatus, reason: string, message: string): this {
    return this.conditions.some((c) => c.type === type) ? this : this.condition(type, status, reason, message);
  }

  set(state: State, operation: string): this {
    this.state = state;
    this.operation = operation;
    return this;
  }

  /** The status to write, or undefined when it equals the current one (no write needed). */
  toWrite(): ManifestStatus | undefined {
    const next: ManifestStatus = {
      state: this.state,
      conditions: this.conditions,
      synced: this.synced,
      lastOperation: { operation: this.operation, lastUpdateTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') },
    };
    const b = this.before;
    const same =
      b !== undefined &&
      b.state === next.state &&
      canonicalConditions(b.conditions ?? []) === canonicalConditions(this.conditions) &&
      (b.synced === this.synced || canonicalRefs(b.synced ?? []) === canonicalRefs(this.synced)) &&
      (b.lastOperation?.operation ?? '') === this.operation;
    return same ? undefined : next;
  }
}

// Key order of objects read back from the server may differ from ours: compare field by field.
function canonicalConditions(cs: readonly Condition[]): string {
  return cs.map((c) => [c.type, c.status, c.reason, c.message, c.lastTransitionTime, c.observedGeneration ?? ''].join('\u0000')).join('\n');
}

function canonicalRefs(rs: readonly ResourceRef[]): string {
  return rs.map((r) => [r.group, r.version, r.kind, r.namespace, r.name].join('/')).join('\n');
}
