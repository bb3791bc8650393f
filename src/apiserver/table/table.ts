// meta.k8s.io/v1 Table responses (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), the
// form kubectl get asks for: column definitions plus one row of cells per object.
import type { ObjectWithMeta } from '../../kube/object.js';
import { isPlainObject } from '../../kube/json.js';
import { ageSince } from './age.js';
import { printerFor } from './builtin-printers.js';
import { desc } from './descriptions.js';
import { evaluateJsonPath, printJsonPathValue } from '../../kube/jsonpath.js';

export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  jsonPath?: string;
}

/** Columns of the built-in printer for a kind (all priorities, as the server sends them). */
export function builtinColumns(group: string, kind: string): TableColumn[] {
  return printerFor(group, kind).columns.map((c) => ({ ...c }));
}

/**
 * Columns for a CRD version: Name, then additionalPrinterColumns; a version without printer
 * columns gets the default Age column (`.metadata.creationTimestamp`, type date).
 */
export function crdColumns(crdVersion: Record<string, unknown>): TableColumn[] {
  const columns: TableColumn[] = [{ name: 'Name', type: 'string', format: 'name', description: desc.name, priority: 0 }];
  const defined = Array.isArray(crdVersion.additionalPrinterColumns) ? crdVersion.additionalPrinterColumns.filter(isPlainObject) : [];
  const specs = defined.length > 0 ? defined : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: desc.creationTimestamp }];
  for (const c of specs) {
    const jsonPath = typeof c.jsonPath === 'string' ? c.jsonPath : '';
    const description = typeof c.description === 'string' && c.description !== '' ? c.description : `Custom resource definition column (in JSONPath format): ${jsonPath}`;
    columns.push({
      name: typeof c.name === 'string' ? c.name : '',
      type: typeof c.type === 'string' ? c.type : '',
      format: typeof c.format === 'string' ? c.format : '',
      description,
      priority: typeof c.priority === 'number' ? c.priority : 0,
      jsonPath,
    });
  }
  return columns;
}

/** A cell for a CRD column, as the custom resource table convertor computes it. */
function crdCell(column: TableColumn, o: ObjectWithMeta, now: Date): unknown {
  let results: unknown[];
  try {
    results = evaluateJsonPath(column.jsonPath ?? '', o);
  } catch {
    return null;
  }
  if (results.length === 0) return null;
  const value = results[0];
  if (column.type === 'string') return printJsonPathValue(value);
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : ageSince(value, now);
    default:
      return null;
  }
}

function partialObjectMetadata(o: ObjectWithMeta): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

export interface TableOptions {
  group: string;
  kind: string;
  /** ListMeta of the list being converted; absent for a single object. */
  listMeta?: Record<string, unknown>;
  includeObject?: 'None' | 'Metadata' | 'Object';
  /**
   * Leave out the column definitions (`"columnDefinitions": null`), as kube-apiserver does for every
   * watch event after the first: clients keep the columns they were sent first.
   */
  noHeaders?: boolean;
  now: Date;
}

/** Builds the Table for a list (give `listMeta`) or a single object. */
export function toTable(columns: TableColumn[], objects: ObjectWithMeta[], opts: TableOptions): Record<string, unknown> {
  const isCrd = columns.some((c) => c.jsonPath !== undefined);
  const printer = isCrd ? undefined : printerFor(opts.group, opts.kind);
  const include = opts.includeObject ?? 'Metadata';
  const rows = objects.map((o) => {
    const cells = printer === undefined ? [o.metadata.name ?? '', ...columns.slice(1).map((c) => crdCell(c, o, opts.now))] : printer.cells(o as Record<string, unknown>, opts.now);
    const row: Record<string, unknown> = { cells };
    const conditions = printer?.conditions?.(o as Record<string, unknown>);
    if (conditions !== undefined) row.conditions = conditions;
    row.object = include === 'None' ? null : include === 'Object' ? o : partialObjectMetadata(o);
    return row;
  });
  const metadata: Record<string, unknown> = {};
  if (opts.listMeta !== undefined) {
    for (const key of ['resourceVersion', 'continue', 'remainingItemCount']) {
      const v = opts.listMeta[key];
      if (v !== undefined && v !== '') metadata[key] = v;
    }
  } else if (objects.length === 1 && objects[0].metadata.resourceVersion) {
    metadata.resourceVersion = objects[0].metadata.resourceVersion;
  }
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata, columnDefinitions: opts.noHeaders ? null : columns.map(stripJsonPath), rows };
}

function stripJsonPath(c: TableColumn): Record<string, unknown> {
  return { name: c.name, type: c.type, format: c.format, description: c.description, priority: c.priority };
}
