// Event filters for controllers (controller-runtime's predicates): which informer events
// enqueue a reconcile. A missing method lets the event through.
import type { KubeObject } from '../kube/object.js';

export interface Predicate<T extends KubeObject = KubeObject> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
}

export type ObjectEvent<T extends KubeObject = KubeObject> =
  | { type: 'create'; object: T }
  | { type: 'update'; oldObject: T; object: T }
  | { type: 'delete'; object: T };

/** Whether an event passes a predicate. */
export function admits<T extends KubeObject>(p: Predicate<T>, ev: ObjectEvent<T>): boolean {
  switch (ev.type) {
    case 'create':
      return p.create ? p.create(ev.object) : true;
    case 'update':
      return p.update ? p.update(ev.oldObject, ev.object) : true;
    case 'delete':
      return p.delete ? p.delete(ev.object) : true;
  }
}

/** Builds a predicate from one function over every event. */
export function predicate<T extends KubeObject = KubeObject>(fn: (ev: ObjectEvent<T>) => boolean): Predicate<T> {
  return {
    create: (object) => fn({ type: 'create', object }),
    update: (oldObject, object) => fn({ type: 'update', oldObject, object }),
    delete: (object) => fn({ type: 'delete', object }),
  };
}

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ak = a ? Object.keys(a) : [];
  const bk = b ? Object.keys(b) : [];
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (a?.[k] !== b?.[k]) return false;
  return true;
}

/** Updates pass only when `metadata.generation` changed (spec changes, not status-only writes). */
export const generationChanged: Predicate = {
  update: (o, n) => o.metadata.generation !== n.metadata.generation,
};

export const labelsChanged: Predicate = {
  update: (o, n) => !sameRecord(o.metadata.labels, n.metadata.labels),
};

export const annotationsChanged: Predicate = {
  update: (o, n) => !sameRecord(o.metadata.annotations, n.metadata.annotations),
};

/** Updates pass when deletion started (deletionTimestamp set). */
export const deletionChanged: Predicate = {
  update: (o, n) => o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp,
};

/** Updates pass when the finalizers changed (in order, as the API keeps them). */
export const finalizersChanged: Predicate = {
  update: (o, n) => {
    const a = o.metadata.finalizers ?? [];
    const b = n.metadata.finalizers ?? [];
    return a.length !== b.length || a.some((f, i) => f !== b[i]);
  },
};

/** Updates pass when the resourceVersion changed (drops resync-style duplicates). */
export const resourceVersionChanged: Predicate = {
  update: (o, n) => o.metadata.resourceVersion !== n.metadata.resourceVersion,
};

export function and<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return predicate((ev) => ps.every((p) => admits(p, ev)));
}

export function or<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return predicate((ev) => ps.some((p) => admits(p, ev)));
}

export function not<T extends KubeObject>(p: Predicate<T>): Predicate<T> {
  return predicate((ev) => !admits(p, ev));
}
