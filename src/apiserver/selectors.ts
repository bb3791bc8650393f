// Label and field selectors as the list and watch query parameters carry them. Label selectors are
// parsed and matched by src/kube/labels.ts; field selectors are only the API server's.
import { LabelSelectorError, parseLabelSelector, type LabelSelector } from '../kube/labels.js';
import { badRequest } from './errors.js';

/** The `labelSelector` query parameter: a syntax error is a 400 BadRequest. */
export function parseLabelSelectorParam(text: string): LabelSelector {
  try {
    return parseLabelSelector(text);
  } catch (e) {
    throw e instanceof LabelSelectorError ? badRequest(e.message) : e;
  }
}

export interface FieldRequirement {
  field: string;
  value: string;
  negate: boolean;
}

/** Field selectors each kind supports besides metadata.name and metadata.namespace. */
const extraFields: Record<string, string[]> = {
  '/secrets': ['type'],
  '/namespaces': ['status.phase'],
  '/pods': ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.phase', 'status.podIP', 'status.nominatedNodeName'],
  '/events': ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type'],
  'apps/replicasets': ['status.replicas'],
  'batch/jobs': ['status.successful'],
};

export function parseFieldSelector(text: string, resourceKey: string): FieldRequirement[] {
  if (!text) return [];
  const allowed = ['metadata.name', 'metadata.namespace', ...(extraFields[resourceKey] ?? [])];
  const out: FieldRequirement[] = [];
  for (const part of text.split(',')) {
    const m = /^([^!=]+)(==|!=|=)(.*)$/.exec(part.trim());
    if (!m) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    const field = m[1].trim();
    if (!allowed.includes(field)) {
      throw badRequest(`"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
    }
    out.push({ field, value: m[3].trim(), negate: m[2] === '!=' });
  }
  return out;
}

export function matchesFields(reqs: FieldRequirement[], obj: Record<string, unknown>): boolean {
  for (const r of reqs) {
    let v: unknown = obj;
    for (const p of r.field.split('.')) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[p] : undefined;
    if (r.field === 'source' && typeof v === 'object' && v !== null) v = (v as Record<string, unknown>).component;
    const s = v === undefined || v === null ? '' : String(v);
    if ((s === r.value) === r.negate) return false;
  }
  return true;
}
