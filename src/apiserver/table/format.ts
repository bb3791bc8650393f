// Small formatters shared by the built-in printers (selectors, container lists, ports).
import { isPlainObject } from '../../kube/json.js';

export type Json = Record<string, unknown>;
export const obj = (v: unknown): Json => (isPlainObject(v) ? v : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** metav1.FormatLabelSelector: `app=x,tier in (a,b)`, or `<none>` when empty. */
export function formatLabelSelector(selector: unknown): string {
  if (!isPlainObject(selector)) return '<none>';
  const parts: Array<[string, string]> = [];
  const labels = obj(selector.matchLabels);
  for (const k of Object.keys(labels)) parts.push([k, `${k}=${str(labels[k])}`]);
  for (const e of arr(selector.matchExpressions).map(obj)) {
    const key = str(e.key);
    const values = arr(e.values).map(str).sort().join(',');
    switch (str(e.operator)) {
      case 'In':
        parts.push([key, `${key} in (${values})`]);
        break;
      case 'NotIn':
        parts.push([key, `${key} notin (${values})`]);
        break;
      case 'Exists':
        parts.push([key, key]);
        break;
      case 'DoesNotExist':
        parts.push([key, `!${key}`]);
        break;
    }
  }
  if (parts.length === 0) return '<none>';
  return parts
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map((p) => p[1])
    .join(',');
}

/** labels.FormatLabels for a plain map: sorted `k=v` pairs, `<none>` when empty. */
export function formatLabels(m: unknown): string {
  const rec = obj(m);
  const keys = Object.keys(rec).sort();
  return keys.length === 0 ? '<none>' : keys.map((k) => `${k}=${str(rec[k])}`).join(',');
}

export function podTemplateSpec(o: Json): Json {
  return obj(obj(obj(o.spec).template).spec);
}

export function containerNames(podSpec: Json): string {
  return arr(podSpec.containers).map((c) => str(obj(c).name)).join(',');
}

export function containerImages(podSpec: Json): string {
  return arr(podSpec.containers).map((c) => str(obj(c).image)).join(',');
}

export function noneIfEmpty(s: string): string {
  return s === '' ? '<none>' : s;
}
