// The 409 an apply gets when other managers own fields it would change, worded as kube-apiserver words it.
import { StatusError } from '../errors.js';
import type { FieldSet } from './fieldset.js';
import { forEachMember, renderPath } from './fieldset.js';

export interface ManagerIdentity {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource?: string;
}

export interface Conflict {
  owner: ManagerIdentity;
  path: string;
}

/** `"alpha"`, `"kubectl" with subresource "status"`, `"editor" using v1` (Update managers name their version). */
export function describeManager(m: ManagerIdentity): string {
  let out = JSON.stringify(m.manager);
  if (m.subresource) out += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') out += ` using ${m.apiVersion}`;
  return out;
}

export function conflictsOf(owner: ManagerIdentity, fields: FieldSet): Conflict[] {
  const out: Conflict[] = [];
  forEachMember(fields, (path) => out.push({ owner, path: renderPath(path) }));
  return out;
}

export function applyConflictError(conflicts: Conflict[]): StatusError {
  const sorted = [...conflicts].sort((a, b) => {
    const ma = describeManager(a.owner);
    const mb = describeManager(b.owner);
    return ma < mb ? -1 : ma > mb ? 1 : 0;
  });
  const causes = sorted.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${describeManager(c.owner)}`, field: c.path }));
  let message: string;
  if (sorted.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${describeManager(sorted[0].owner)}: ${sorted[0].path}`;
  } else {
    const lines: string[] = [];
    let current = '';
    for (const c of sorted) {
      const who = describeManager(c.owner);
      if (who !== current) {
        lines.push(`conflicts with ${who}:`);
        current = who;
      }
      lines.push(`- ${c.path}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError(409, 'Conflict', message, { causes });
}
