// Label and field selectors as the list and watch query parameters carry them.
import { badRequest } from './errors.js';

export type LabelRequirement =
  | { op: 'eq' | 'neq'; key: string; value: string }
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: 'exists' | 'notexists'; key: string };

export type LabelSelector = LabelRequirement[];

/** Parses `a=b,c!=d,e in (f,g),h notin (i),j,!k`. An empty string selects everything. */
export function parseLabelSelector(text: string): LabelSelector {
  const out: LabelSelector = [];
  let i = 0;
  const s = text;
  const fail = (why: string) => badRequest(`unable to parse requirement: ${why}`);
  const skipWs = () => {
    while (i < s.length && s[i] === ' ') i++;
  };
  const readKey = (): string => {
    const start = i;
    while (i < s.length && !' ,=!()'.includes(s[i])) i++;
    return s.slice(start, i);
  };
  while (true) {
    skipWs();
    if (i >= s.length) break;
    if (s[i] === '!') {
      i++;
      skipWs();
      const key = readKey();
      if (!key) throw fail('found empty key');
      out.push({ op: 'notexists', key });
    } else {
      const key = readKey();
      if (!key) throw fail(`found '${s[i]}', expected: identifier`);
      skipWs();
      if (i >= s.length || s[i] === ',') {
        out.push({ op: 'exists', key });
      } else if (s.startsWith('==', i) || s[i] === '=' || s.startsWith('!=', i)) {
        const op = s.startsWith('!=', i) ? 'neq' : 'eq';
        i += s.startsWith('==', i) || s.startsWith('!=', i) ? 2 : 1;
        skipWs();
        const value = readKey();
        out.push({ op, key, value });
      } else if (s.startsWith('in', i) || s.startsWith('notin', i)) {
        const op = s.startsWith('notin', i) ? 'notin' : 'in';
        i += op.length;
        skipWs();
        if (s[i] !== '(') throw fail(`found '${s.slice(i).split(/[ ,]/)[0]}', expected: '('`);
        const close = s.indexOf(')', i);
        if (close < 0) throw fail("found '', expected: ')'");
        const values = s
          .slice(i + 1, close)
          .split(',')
          .map((v) => v.trim());
        i = close + 1;
        out.push({ op, key, values });
      } else {
        throw fail(`found '${s[i]}', expected: in, notin, =, ==, !=, gt, lt`);
      }
    }
    skipWs();
    if (i < s.length) {
      if (s[i] !== ',') throw fail(`found '${s[i]}', expected: ',' or 'end of string'`);
      i++;
    }
  }
  return out;
}

export function matchesLabels(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  for (const r of sel) {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = has ? labels[r.key] : undefined;
    switch (r.op) {
      case 'eq':
        if (v !== r.value) return false;
        break;
      case 'neq':
        if (v === r.value) return false;
        break;
      case 'in':
        if (v === undefined || !r.values.includes(v)) return false;
        break;
      case 'notin':
        if (v !== undefined && r.values.includes(v)) return false;
        break;
      case 'exists':
        if (!has) return false;
        break;
      case 'notexists':
        if (has) return false;
        break;
    }
  }
  return true;
}

/** A metav1.LabelSelector object (matchLabels, matchExpressions) as a requirement list. */
export function labelSelectorFromObject(sel: unknown): LabelSelector | undefined {
  if (typeof sel !== 'object' || sel === null) return undefined;
  const out: LabelSelector = [];
  const o = sel as { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
  for (const [key, value] of Object.entries(o.matchLabels ?? {})) out.push({ op: 'eq', key, value });
  for (const e of o.matchExpressions ?? []) {
    if (e.operator === 'In') out.push({ op: 'in', key: e.key, values: e.values ?? [] });
    else if (e.operator === 'NotIn') out.push({ op: 'notin', key: e.key, values: e.values ?? [] });
    else if (e.operator === 'Exists') out.push({ op: 'exists', key: e.key });
    else if (e.operator === 'DoesNotExist') out.push({ op: 'notexists', key: e.key });
    // An unknown operator selects nothing (validation reports it separately).
    else out.push({ op: 'in', key: e.key, values: [] });
  }
  return out;
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
