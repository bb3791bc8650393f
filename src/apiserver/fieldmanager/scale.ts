// managedFields across the scale subresource, as upstream's ScaleHandler does: a write to /scale
// sees the parent's owners of the replicas field as owners of the Scale's `spec.replicas` (at
// autoscaling/v1), and its result is folded back: owners that lost the field on the Scale lose it
// on the parent, and new owners get the parent's replicas path at the request's version.
import type { ManagedFieldsEntry } from '../../kube/object.js';
import type { ManagerIdentity } from './conflicts.js';
import { difference, FieldSet } from './fieldset.js';
import { type Owner, readOwners, writeOwners } from './managed.js';

/** The replicas path (fieldsV1 elements, `f:spec`, `f:replicas`) of each apiVersion of the parent; undefined for a version without scale. */
export type ReplicasPaths = ReadonlyMap<string, readonly string[] | undefined>;

const SCALE_API_VERSION = 'autoscaling/v1';
const SCALE_REPLICAS = ['f:spec', 'f:replicas'];

/** Upstream's manager identifier: appliers are one manager whatever their version, updaters one per version. */
function identifier(id: ManagerIdentity): string {
  return JSON.stringify([id.manager, id.operation, id.operation === 'Apply' ? '' : id.apiVersion, id.subresource ?? '']);
}

/** Owners by identifier; a later entry with the same identifier replaces an earlier one, as decoding upstream does. */
function byIdentifier(entries: readonly ManagedFieldsEntry[]): Map<string, Owner> {
  const out = new Map<string, Owner>();
  for (const o of readOwners(entries)) out.set(identifier(o.id), o);
  return out;
}

function setOf(path: readonly string[]): FieldSet {
  const s = new FieldSet();
  s.insert(path);
  return s;
}

/** The Scale's managedFields: the parent's owners of the replicas field, at autoscaling/v1. */
export function toScaleEntries(parent: readonly ManagedFieldsEntry[], paths: ReplicasPaths): ManagedFieldsEntry[] {
  const out: Owner[] = [];
  for (const o of byIdentifier(parent).values()) {
    const path = paths.get(o.id.apiVersion);
    if (path === undefined || !o.fields.has(path)) continue;
    out.push({ id: { ...o.id, apiVersion: SCALE_API_VERSION }, time: o.time, fields: setOf(SCALE_REPLICAS) });
  }
  return writeOwners(out);
}

/**
 * The parent's managedFields after a Scale write. Entries of versions the kind does not have are
 * dropped; owners of the replicas path keep it only if the Scale kept them (appliers, whose identity
 * has no version); owners of the Scale's replicas join at `apiVersion`, with the time of a parent
 * entry of the same identity (none for updaters: upstream leaves their time out).
 */
export function toParentEntries(parent: readonly ManagedFieldsEntry[], scale: readonly ManagedFieldsEntry[], paths: ReplicasPaths, apiVersion: string): ManagedFieldsEntry[] {
  const parentOwners = byIdentifier(parent);
  const scaleOwners = byIdentifier(scale);
  const out = new Map<string, Owner>();
  for (const [key, o] of parentOwners) {
    if (!paths.has(o.id.apiVersion)) continue;
    const path = paths.get(o.id.apiVersion);
    if (path === undefined || !o.fields.has(path)) {
      out.set(key, o);
    } else if (!scaleOwners.has(key)) {
      const rest = difference(o.fields, setOf(path));
      if (!rest.isEmpty()) out.set(key, { ...o, fields: rest });
    } else {
      out.set(key, o);
      scaleOwners.delete(key);
    }
  }
  const target = paths.get(apiVersion);
  for (const [key, o] of scaleOwners) {
    if (target === undefined || !o.fields.has(SCALE_REPLICAS)) continue;
    out.set(key, { id: { ...o.id, apiVersion }, time: parentOwners.get(key)?.time, fields: setOf(target) });
  }
  return writeOwners([...out.values()]);
}
