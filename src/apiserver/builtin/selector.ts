// Go renderings of LabelSelector and IntOrString values, as field errors print them (%#v).
import { asArr, asObj, asStr, sortedKeys, type Obj } from './json.js';
import { goStringSlice } from './render.js';

export function goLabelSelector(selector: Obj | undefined): string {
  if (!selector) return '(*v1.LabelSelector)(nil)';
  const labels = asObj(selector.matchLabels);
  const ml = labels ? `map[string]string{${sortedKeys(labels).map((k) => `${JSON.stringify(k)}:${JSON.stringify(asStr(labels[k]))}`).join(', ')}}` : 'map[string]string(nil)';
  const exprs = Array.isArray(selector.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${asArr(selector.matchExpressions)
        .map((e) => {
          const r = asObj(e) ?? {};
          return `v1.LabelSelectorRequirement{Key:${JSON.stringify(asStr(r.key))}, Operator:${JSON.stringify(asStr(r.operator))}, Values:${Array.isArray(r.values) ? goStringSlice(r.values) : '[]string(nil)'}}`;
        })
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${ml}, MatchExpressions:${exprs}}`;
}

export function goIntOrString(v: unknown): string {
  if (typeof v === 'number') return `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}`;
  return `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(asStr(v))}}`;
}
