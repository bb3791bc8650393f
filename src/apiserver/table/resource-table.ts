// Tables for a served resource type: the columns of its built-in printer or its CRD version, the
// `includeObject` query parameter, and the per-event Tables of a watch asked for `as=Table`.
import type { ObjectWithMeta } from '../../kube/object.js';
import { servedJson } from '../objects.js';
import type { ResourceType } from '../resources.js';
import { builtinColumns, crdColumns, toTable } from './table.js';

/** The Table of a list (give `listMeta`) or of single objects of type `t`. */
export function tableFor(t: ResourceType, objects: ObjectWithMeta[], q: URLSearchParams, listMeta: Record<string, unknown> | undefined, noHeaders = false): Record<string, unknown> {
  const columns = t.crd ? crdColumns(t.crd.version) : builtinColumns(t.group, t.kind);
  const include = (q.get('includeObject') as 'None' | 'Metadata' | 'Object' | null) ?? 'Metadata';
  return toTable(columns, objects, { group: t.group, kind: t.kind, listMeta, includeObject: include, noHeaders, now: new Date() });
}

/**
 * What a watch asked for `as=Table` sends as each event's object: a Table with that object's row,
 * its resourceVersion in the Table's metadata, and the column definitions only in the first event
 * (later ones carry `"columnDefinitions": null`), as kube-apiserver's watch encoder does.
 */
export function watchTableEncoder(t: ResourceType, q: URLSearchParams): (storedJson: string) => string {
  let first = true;
  return (storedJson) => {
    const obj = JSON.parse(servedJson(t, storedJson)) as ObjectWithMeta;
    const table = tableFor(t, [obj], q, undefined, !first);
    first = false;
    return JSON.stringify(table);
  };
}
