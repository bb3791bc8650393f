// A set of field paths, stored as the tree that `fieldsV1` serializes. Child keys are fieldsV1 path
// elements: `f:<name>`, `k:<json of list-map keys>`, `v:<json of a set element>`, `i:<index>`.
import { type JsonObject, type JsonValue, isPlainObject } from '../../kube/json.js';

export class FieldSet {
  /** The path ending here is itself in the set (serialized as `".": {}` when it also has children). */
  member = false;
  children: Map<string, FieldSet> | undefined;

  child(key: string): FieldSet | undefined {
    return this.children?.get(key);
  }

  /** The child for `key`, created when missing. */
  descend(key: string): FieldSet {
    if (this.children === undefined) this.children = new Map();
    let c = this.children.get(key);
    if (c === undefined) {
      c = new FieldSet();
      this.children.set(key, c);
    }
    return c;
  }

  insert(path: readonly string[]): void {
    let node = path.length > 0 ? this.descend(path[0]) : undefined;
    for (let i = 1; i < path.length; i++) node = node!.descend(path[i]);
    (node ?? this).member = true;
  }

  has(path: readonly string[]): boolean {
    let node = path.length > 0 ? this.child(path[0]) : undefined;
    for (let i = 1; i < path.length && node !== undefined; i++) node = node.child(path[i]);
    return path.length === 0 ? this.member : (node?.member ?? false);
  }

  isEmpty(): boolean {
    if (this.member) return false;
    if (this.children === undefined) return true;
    for (const c of this.children.values()) if (!c.isEmpty()) return false;
    return true;
  }

  /** True when this node or anything below it is a member. */
  hasMembers(): boolean {
    return !this.isEmpty();
  }

  clone(): FieldSet {
    const out = new FieldSet();
    out.member = this.member;
    if (this.children !== undefined) {
      out.children = new Map();
      for (const [k, c] of this.children) out.children.set(k, c.clone());
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this.member !== other.member) return false;
    const a = this.children?.size ?? 0;
    const b = other.children?.size ?? 0;
    if (a !== b) return false;
    if (a === 0) return true;
    for (const [k, c] of this.children!) {
      const o = other.children!.get(k);
      if (o === undefined || !c.equals(o)) return false;
    }
    return true;
  }
}

export function union(...sets: FieldSet[]): FieldSet {
  const out = new FieldSet();
  for (const s of sets) addInto(out, s);
  return out;
}

function addInto(target: FieldSet, source: FieldSet): void {
  if (source.member) target.member = true;
  if (source.children === undefined) return;
  for (const [k, c] of source.children) addInto(target.descend(k), c);
}

/** Members of `a` that are not members of `b` (exact paths, not subtrees). */
export function difference(a: FieldSet, b: FieldSet | undefined): FieldSet {
  const out = new FieldSet();
  out.member = a.member && !(b?.member ?? false);
  if (a.children !== undefined) {
    for (const [k, c] of a.children) {
      const d = difference(c, b?.child(k));
      if (!d.isEmpty()) (out.children ??= new Map()).set(k, d);
    }
  }
  return out;
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  const out = new FieldSet();
  out.member = a.member && b.member;
  if (a.children !== undefined && b.children !== undefined) {
    for (const [k, c] of a.children) {
      const o = b.children.get(k);
      if (o === undefined) continue;
      const i = intersection(c, o);
      if (!i.isEmpty()) (out.children ??= new Map()).set(k, i);
    }
  }
  return out;
}

/** Only the part of `set` below the top-level field `name`. */
export function restrictTo(set: FieldSet, name: string): FieldSet {
  const out = new FieldSet();
  const c = set.child(`f:${name}`);
  if (c !== undefined) (out.children = new Map()).set(`f:${name}`, c);
  return out;
}

/** `set` without the field at `path` (field names from the top: `['metadata', 'labels']`) and anything below it. */
export function without(set: FieldSet, path: readonly string[]): FieldSet {
  const key = `f:${path[0]}`;
  const c = set.child(key);
  if (c === undefined) return set;
  const rest = path.length > 1 ? without(c, path.slice(1)) : undefined;
  if (rest === c) return set;
  const out = new FieldSet();
  out.member = set.member;
  out.children = new Map(set.children);
  if (rest === undefined || rest.isEmpty()) out.children.delete(key);
  else out.children.set(key, rest);
  return out;
}

// ---- fieldsV1 ----

export function fromFieldsV1(fields: JsonValue | undefined): FieldSet {
  const out = new FieldSet();
  if (isPlainObject(fields)) readInto(out, fields);
  return out;
}

function readInto(node: FieldSet, fields: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(fields)) {
    if (k === '.') {
      node.member = true;
      continue;
    }
    const c = node.descend(k);
    // `{}` is a leaf member; anything with keys is a level (a member only when it holds ".").
    if (isPlainObject(v) && Object.keys(v).length > 0) readInto(c, v);
    else c.member = true;
  }
}

export function toFieldsV1(set: FieldSet): JsonObject {
  const out: JsonObject = {};
  if (set.children === undefined) return out;
  for (const k of sortedKeys(set.children)) {
    const c = set.children.get(k)!;
    if (c.isEmpty()) continue;
    out[k] = childFields(c);
  }
  return out;
}

function childFields(node: FieldSet): JsonObject {
  const inner = toFieldsV1(node);
  if (node.member && Object.keys(inner).length > 0) return { '.': {}, ...inner };
  return inner;
}

/** Upstream orders path elements by kind (field names, then keys, then values, then indexes), then by text. */
function sortedKeys(children: Map<string, FieldSet>): string[] {
  return [...children.keys()].sort(compareElements);
}

const kindRank: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

export function compareElements(a: string, b: string): number {
  const ra = kindRank[a[0]] ?? 4;
  const rb = kindRank[b[0]] ?? 4;
  if (ra !== rb) return ra - rb;
  if (a[0] === 'i' && b[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---- path elements ----

export function fieldKey(name: string): string {
  return `f:${name}`;
}

/** `k:{...}` with keys in sorted order, as the server writes them. */
export function listMapKey(item: Record<string, unknown>, keys: readonly string[], defaults?: Record<string, JsonValue>): string | undefined {
  const names = keys.length > 1 ? [...keys].sort() : keys;
  const parts: string[] = [];
  for (const name of names) {
    let v = item[name];
    if (v === undefined) v = defaults?.[name];
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(name)}:${JSON.stringify(v)}`);
  }
  if (parts.length === 0) return undefined;
  return `k:{${parts.join(',')}}`;
}

export function setValueKey(v: unknown): string {
  return `v:${JSON.stringify(v)}`;
}

/** How a conflict names a path: `.spec.containers[name="app"].image`, `[="x"]` for set values. */
export function renderPath(path: readonly string[]): string {
  let out = '';
  for (const el of path) {
    const body = el.slice(2);
    switch (el[0]) {
      case 'f':
        out += `.${body}`;
        break;
      case 'k': {
        const keys = JSON.parse(body) as Record<string, unknown>;
        out += `[${Object.entries(keys)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(',')}]`;
        break;
      }
      case 'v':
        out += `[=${body}]`;
        break;
      default:
        out += `[${body}]`;
    }
  }
  return out;
}

/** Calls `fn` for every member path, in upstream's order: the members of a level, then the levels below. */
export function forEachMember(set: FieldSet, fn: (path: string[]) => void, prefix: string[] = []): void {
  if (set.children === undefined) return;
  const keys = sortedKeys(set.children);
  for (const k of keys) if (set.children.get(k)!.member) fn([...prefix, k]);
  for (const k of keys) {
    const c = set.children.get(k)!;
    if (c.children !== undefined) forEachMember(c, fn, [...prefix, k]);
  }
}
