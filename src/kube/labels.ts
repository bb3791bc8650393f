// Label selectors, as kube-apiserver parses and matches them (the `labelSelector` parameter of lists
// and watches, `a=b,c!=d,e in (f,g),h notin (i),j,!k`) and as metav1.LabelSelector objects
// (matchLabels, matchExpressions) carry them. The embedded API server (conformance-tested against
// kube-apiserver) and the runtime's informer cache both use this one.

/** A label selector that does not parse; the message is kube-apiserver's. */
export class LabelSelectorError extends Error {
  override name = 'LabelSelectorError';
}

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
  const fail = (why: string) => new LabelSelectorError(`unable to parse requirement: ${why}`);
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
