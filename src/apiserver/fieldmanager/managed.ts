// managedFields bookkeeping for writes: who owns which fields after an update, and server-side apply.
import type { ObjectWithMeta, ManagedFieldsEntry } from '../../kube/object.js';
import { isPlainObject, type JsonValue } from '../../kube/json.js';
import type { Conflict, ManagerIdentity } from './conflicts.js';
import { applyConflictError, conflictsOf } from './conflicts.js';
import type { FieldSet } from './fieldset.js';
import { difference, fromFieldsV1, intersection, restrictTo, toFieldsV1, union, without } from './fieldset.js';
import { copyJson, mergeApplied, pruneReleased } from './merge.js';
import type { SchemaNode } from './schema.js';
import { zeroObject } from './schema.js';
import type { Comparison } from './typed.js';
import { compare, isSame, toFieldSet } from './typed.js';

export interface UpdateParams {
  oldObject: ObjectWithMeta | undefined; // undefined on create
  newObject: ObjectWithMeta; // the object about to be stored (metadata.managedFields ignored)
  previous: ManagedFieldsEntry[]; // managedFields of the old object (or what the client sent on create)
  manager: string; // fieldManager query parameter, or derived from User-Agent, 'unknown' without one
  apiVersion: string; // e.g. 'v1', 'apps/v1', 'conf.example.com/v1'
  subresource?: string; // 'status' for writes to /status
  time: string; // RFC3339 seconds, e.g. '2026-11-22T10:00:00Z'
  schema: SchemaNode;
  /** The kind has a status subresource: writes to the main resource neither own nor change `status`. */
  statusSubresource?: boolean;
  /**
   * Set for built-in kinds: writes to `/status` own the metadata they change except these fields
   * (below `metadata`, e.g. `labels`), which the kind's status strategy resets. Unset: writes to
   * `/status` own only status (custom resources).
   */
  statusMetadataResets?: readonly string[];
  /**
   * `previous` is the stored object's managedFields (as the server wrote them), not a client's:
   * the entries whose fields the write leaves alone are kept as they are instead of written anew.
   */
  previousIsStored?: boolean;
}

/** What a write may own: the endpoint and the kind's reset fields (upstream's GetResetFields). */
type Scope = Pick<UpdateParams, 'subresource' | 'statusSubresource' | 'statusMetadataResets'>;

export interface ApplyParams {
  live: ObjectWithMeta | undefined; // current object, undefined when apply creates it
  applied: ObjectWithMeta; // the apply configuration (parsed from YAML/JSON body)
  previous: ManagedFieldsEntry[];
  manager: string;
  apiVersion: string;
  subresource?: string;
  time: string;
  force: boolean;
  schema: SchemaNode;
  /** As in UpdateParams: `status` in a configuration sent to the main resource is ignored. */
  statusSubresource?: boolean;
  /** As in UpdateParams. */
  statusMetadataResets?: readonly string[];
  /** As in UpdateParams. */
  previousIsStored?: boolean;
}

/** The manager that owns the fields of an untracked object when it is first applied to. */
export const BEFORE_FIRST_APPLY = 'before-first-apply';

/** One managedFields entry while it is being worked on. */
export interface Owner {
  id: ManagerIdentity;
  time: string | undefined;
  fields: FieldSet;
  /** The entry's fieldsV1 as read, while `fields` is still the set read from it (a stored entry only). */
  read?: { fields: FieldSet; fieldsV1: JsonValue };
}

function sameOwner(a: ManagerIdentity, b: ManagerIdentity): boolean {
  if (a.manager !== b.manager || a.operation !== b.operation || (a.subresource ?? '') !== (b.subresource ?? '')) return false;
  // Appliers are one entry whatever version they applied at; updaters get an entry per version.
  return a.operation === 'Apply' || a.apiVersion === b.apiVersion;
}

/** `stored`: the entries are a stored object's, whose fieldsV1 the server wrote (kept for writeOwners). */
export function readOwners(previous: readonly ManagedFieldsEntry[], stored = false): Owner[] {
  const owners: Owner[] = [];
  for (const e of previous) {
    if (!isPlainObject(e) || typeof e.manager !== 'string') continue;
    const id: ManagerIdentity = { manager: e.manager, operation: e.operation === 'Apply' ? 'Apply' : 'Update', apiVersion: e.apiVersion ?? '' };
    if (e.subresource) id.subresource = e.subresource;
    const fields = fromFieldsV1(e.fieldsV1);
    owners.push(stored && e.fieldsV1 !== undefined ? { id, time: e.time, fields, read: { fields, fieldsV1: e.fieldsV1 as JsonValue } } : { id, time: e.time, fields });
  }
  return owners;
}

/** Upstream's order: operation (Apply first), then time, manager, apiVersion, subresource. */
function entryOrder(a: Owner, b: Owner): number {
  return (
    cmp(a.id.operation, b.id.operation) ||
    cmp(a.time ?? '', b.time ?? '') ||
    cmp(a.id.manager, b.id.manager) ||
    cmp(a.id.apiVersion, b.id.apiVersion) ||
    cmp(a.id.subresource ?? '', b.id.subresource ?? '')
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Entries of the non-empty owners, in upstream's order and key order. */
export function writeOwners(owners: Owner[]): ManagedFieldsEntry[] {
  const out: ManagedFieldsEntry[] = [];
  for (const o of owners.filter((x) => !x.fields.isEmpty()).sort(entryOrder)) {
    // Key order as the server writes an entry.
    const e: Partial<ManagedFieldsEntry> = { manager: o.id.manager, operation: o.id.operation, apiVersion: o.id.apiVersion };
    if (o.time !== undefined) e.time = o.time;
    e.fieldsType = 'FieldsV1';
    // Rendering a set is the costly part of a write's bookkeeping: an owner the write left alone keeps its entry's.
    e.fieldsV1 = o.read !== undefined && o.read.fields === o.fields ? (o.read.fieldsV1 as ManagedFieldsEntry['fieldsV1']) : toFieldsV1(o.fields);
    if (o.id.subresource) e.subresource = o.id.subresource;
    out.push(e as ManagedFieldsEntry);
  }
  return out;
}

/** Keeps a comparison or set to what a write through this endpoint may own. */
function scopeSet(set: FieldSet, scope: Scope): FieldSet {
  if (scope.subresource === 'status') {
    const status = restrictTo(set, 'status');
    if (scope.statusMetadataResets === undefined) return status;
    let meta = restrictTo(set, 'metadata');
    for (const f of scope.statusMetadataResets) meta = without(meta, ['metadata', f]);
    return union(status, meta);
  }
  if (scope.statusSubresource) return without(set, ['status']);
  return set;
}

function scopeComparison(c: Comparison, scope: Scope): Comparison {
  return { added: scopeSet(c.added, scope), modified: scopeSet(c.modified, scope), removed: scopeSet(c.removed, scope) };
}

/**
 * What changed, within what a write through this endpoint may own. Top-level fields are compared
 * independently, so a custom resource's `/status` write compares only `status`, and a main-resource
 * write of a kind with a status subresource everything but `status`.
 */
function scopedCompare(oldObj: Record<string, unknown>, newObj: Record<string, unknown>, schema: SchemaNode, scope: Scope): Comparison {
  if (scope.subresource === 'status' && scope.statusMetadataResets === undefined) {
    return scopeComparison(compare(statusOnly(oldObj), statusOnly(newObj), schema), scope);
  }
  if (scope.subresource === undefined && scope.statusSubresource) {
    return scopeComparison(compare({ ...oldObj, status: undefined }, { ...newObj, status: undefined }, schema), scope);
  }
  return scopeComparison(compare(oldObj, newObj, schema), scope);
}

function statusOnly(o: Record<string, unknown>): Record<string, unknown> {
  return o.status === undefined ? {} : { status: o.status };
}

/** managedFields after a create/update/patch (operation Update): the manager takes ownership of the fields it changed, others lose them; fields gone from the object leave every set. */
export function recordUpdate(p: UpdateParams): ManagedFieldsEntry[] {
  const oldObj = (p.oldObject ?? zeroObject(p.schema)) as Record<string, unknown>;
  const diff = scopedCompare(oldObj, p.newObject as Record<string, unknown>, p.schema, p);
  const owners = readOwners(p.previous, p.previousIsStored);
  if (isSame(diff)) return p.oldObject === undefined ? writeOwners(owners) : p.previous;

  const id: ManagerIdentity = { manager: p.manager, operation: 'Update', apiVersion: p.apiVersion };
  if (p.subresource) id.subresource = p.subresource;
  const changed = union(diff.modified, diff.added);
  const taken = difference(changed, diff.removed);
  let mine = owners.find((o) => sameOwner(o.id, id));
  for (const o of owners) {
    // An update always wins: other owners lose what it changed, and everyone loses what it removed.
    const next = difference(difference(o.fields, changed), diff.removed);
    if (!next.equals(o.fields)) o.fields = next;
  }
  if (!taken.isEmpty()) {
    if (mine === undefined) {
      mine = { id, time: undefined, fields: taken };
      owners.push(mine);
    } else {
      mine.fields = union(mine.fields, taken);
      mine.id = id;
    }
    mine.time = p.time;
  }
  return writeOwners(owners);
}

/** Server-side apply. Returns the merged object with its new managedFields, or throws a 409 Conflict listing every conflicting field when force is false. */
export function applyPatch(p: ApplyParams): ObjectWithMeta {
  const config = scopeConfig(p.applied as Record<string, unknown>, p.subresource, p.statusSubresource);
  const claimed = scopeSet(toFieldSet(config, p.schema), p);
  const owners = readOwners(p.previous, p.previousIsStored);
  if (p.live !== undefined && owners.length === 0) {
    // An object nobody tracked yet (written without managedFields): its fields count as one updater's, as upstream does.
    const before = recordUpdate({ oldObject: undefined, newObject: p.live, previous: [], manager: BEFORE_FIRST_APPLY, apiVersion: p.apiVersion, time: p.time, schema: p.schema, statusSubresource: p.statusSubresource });
    owners.push(...readOwners(before));
  }
  const id: ManagerIdentity = { manager: p.manager, operation: 'Apply', apiVersion: p.apiVersion };
  if (p.subresource) id.subresource = p.subresource;
  const mineIndex = owners.findIndex((o) => sameOwner(o.id, id));
  const mine = mineIndex >= 0 ? owners[mineIndex] : undefined;
  const others = owners.filter((o) => o !== mine);

  const live = (p.live ?? { metadata: {} }) as Record<string, unknown>;
  const merged = mergeApplied(live, config, p.schema);
  if (mine !== undefined) {
    const released = difference(mine.fields, claimed);
    if (!released.isEmpty()) pruneReleased(merged, released, union(claimed, ...others.map((o) => o.fields)), p.schema);
  }

  let objectChanged = p.live === undefined;
  if (p.live !== undefined) {
    const diff = scopedCompare(live, merged, p.schema, p);
    objectChanged = !isSame(diff);
    const changed = union(diff.modified, diff.added);
    const conflicts: Conflict[] = [];
    const lost = new Map<Owner, FieldSet>();
    for (const o of others) {
      const clash = intersection(o.fields, changed);
      if (clash.isEmpty()) continue;
      lost.set(o, clash);
      conflicts.push(...conflictsOf(o.id, clash));
    }
    if (conflicts.length > 0 && !p.force) throw applyConflictError(conflicts);
    for (const o of others) {
      let next = o.fields;
      const clash = lost.get(o);
      if (clash !== undefined) next = difference(next, clash);
      if (!diff.removed.isEmpty()) next = difference(next, diff.removed);
      o.fields = next;
    }
  }

  const setChanged = mine === undefined || !mine.fields.equals(claimed);
  if (!objectChanged && !setChanged) {
    // A no-op apply leaves the object, and its managedFields, exactly as they were.
    const same = copyJson(p.live!) as ObjectWithMeta;
    return same;
  }
  if (mine === undefined) owners.push({ id, time: p.time, fields: claimed });
  else {
    mine.id = id;
    mine.fields = claimed;
    mine.time = p.time;
  }
  const result = merged as ObjectWithMeta;
  if (!isPlainObject(result.metadata)) result.metadata = {};
  result.metadata.managedFields = writeOwners(owners);
  return result;
}

/** The part of an apply configuration this endpoint acts on: `/status` applies only status; the main resource of a kind with a status subresource ignores it. */
function scopeConfig(applied: Record<string, unknown>, subresource: string | undefined, statusSubresource: boolean | undefined): Record<string, unknown> {
  if (subresource === 'status') {
    const out: Record<string, unknown> = {};
    for (const k of ['apiVersion', 'kind', 'metadata', 'status']) if (applied[k] !== undefined) out[k] = applied[k];
    return out;
  }
  if (statusSubresource && applied.status !== undefined) {
    const { status: _status, ...rest } = applied;
    return rest;
  }
  return applied;
}
