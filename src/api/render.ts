// Renders the kinds' single source of truth into files: CRD manifests for config/crd/ and the
// API reference docs/api.md. `npm run generate` writes them; a test fails when they are stale.
import yaml from 'js-yaml';
import { crdOf, type Kind } from './crd.js';
import type { JSONSchemaProps, Schema } from './schema.js';

export type AnyKind = Kind<Schema<unknown>, Schema<unknown> | undefined>;

/** File name as kubebuilder names CRD files: `<group>_<plural>.yaml`. */
export function crdFileName(k: AnyKind): string {
  return `${k.group}_${k.plural}.yaml`;
}

/** CRD manifests by file name; versions of the same group and kind share one CRD (first = storage). */
export function renderCrds(kinds: AnyKind[]): Map<string, string> {
  const byResource = new Map<string, AnyKind[]>();
  for (const k of kinds) {
    const key = `${k.group}/${k.plural}`;
    byResource.set(key, [...(byResource.get(key) ?? []), k]);
  }
  const out = new Map<string, string>();
  for (const versions of byResource.values()) {
    const header = '# Generated from src/api by `npm run generate`; edit the schema there, not this file.\n';
    out.set(crdFileName(versions[0]), header + yaml.dump(crdOf(...versions), { lineWidth: -1, noRefs: true, sortKeys: false }));
  }
  return out;
}

interface Row {
  path: string;
  type: string;
  required: boolean;
  details: string;
  description: string;
}

function typeOf(s: JSONSchemaProps): string {
  if (s['x-kubernetes-int-or-string']) return 'int-or-string';
  if (s['x-kubernetes-embedded-resource']) return 'object (embedded resource)';
  const t = typeof s.type === 'string' ? s.type : 'any';
  if (t === 'array') {
    const items = (s.items as JSONSchemaProps | undefined) ?? {};
    return `[]${typeOf(items)}`;
  }
  if (t === 'object' && s.additionalProperties) return `map[string]${typeOf(s.additionalProperties as JSONSchemaProps)}`;
  return t;
}

function details(s: JSONSchemaProps): string {
  const d: string[] = [];
  if (s.default !== undefined) d.push(`default \`${JSON.stringify(s.default)}\``);
  if (Array.isArray(s.enum)) d.push(`one of ${s.enum.map((e) => `\`${String(e)}\``).join(', ')}`);
  if (typeof s.pattern === 'string') d.push(`pattern \`${s.pattern}\``);
  if (typeof s.format === 'string') d.push(`format ${s.format}`);
  for (const [k, label] of [['minimum', 'min'], ['maximum', 'max'], ['minLength', 'min length'], ['maxLength', 'max length'], ['minItems', 'min items'], ['maxItems', 'max items']] as const) {
    if (typeof s[k] === 'number') d.push(`${label} ${String(s[k])}`);
  }
  if (s['x-kubernetes-list-type'] === 'map') d.push(`list map by ${(s['x-kubernetes-list-map-keys'] as string[]).map((k) => `\`${k}\``).join(', ')}`);
  if (s['x-kubernetes-list-type'] === 'set') d.push('set');
  if (s['x-kubernetes-preserve-unknown-fields'] && !s['x-kubernetes-embedded-resource']) d.push('any fields kept');
  for (const r of (s['x-kubernetes-validations'] as { rule: string; message?: string }[] | undefined) ?? []) d.push(`rule: ${r.message ?? `\`${r.rule}\``}`);
  return d.join('; ');
}

function walk(s: JSONSchemaProps, path: string, required: boolean, rows: Row[]): void {
  rows.push({ path, type: typeOf(s), required, details: details(s), description: String(s.description ?? '') });
  const props = s.properties as Record<string, JSONSchemaProps> | undefined;
  const req = new Set((s.required as string[] | undefined) ?? []);
  if (props) for (const [k, v] of Object.entries(props)) walk(v, `${path}.${k}`, req.has(k), rows);
  const items = s.items as JSONSchemaProps | undefined;
  if (items?.properties) {
    const ireq = new Set((items.required as string[] | undefined) ?? []);
    for (const [k, v] of Object.entries(items.properties as Record<string, JSONSchemaProps>)) walk(v, `${path}[].${k}`, ireq.has(k), rows);
  }
  const add = s.additionalProperties as JSONSchemaProps | undefined;
  if (add?.properties) {
    for (const [k, v] of Object.entries(add.properties as Record<string, JSONSchemaProps>)) walk(v, `${path}[*].${k}`, false, rows);
  }
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n+/g, ' ');

function kindSection(k: AnyKind): string {
  const lines: string[] = [`### ${k.kind} (\`${k.apiVersion}\`)`, '', k.description, ''];
  const facts = [`scope ${k.scope}`, `plural \`${k.plural}\``];
  if (k.shortNames?.length) facts.push(`short names ${k.shortNames.map((n) => `\`${n}\``).join(', ')}`);
  if (k.status) facts.push('status subresource');
  lines.push(`${facts.join(', ')}. CRD: \`config/crd/${crdFileName(k)}\`.`, '');
  if (k.notes) lines.push(k.notes.trim(), '');
  for (const r of k.validations ?? []) lines.push(`- Rule: ${r.message ?? r.rule}`);
  if (k.validations?.length) lines.push('');
  if (k.printerColumns?.length) lines.push(`Printer columns: ${k.printerColumns.map((c) => `${c.name} (\`${c.jsonPath}\`)`).join(', ')}.`, '');
  const rows: Row[] = [];
  walk(k.spec.openapi, 'spec', k.specRequired !== false, rows);
  if (k.status) walk(k.status.openapi, 'status', false, rows);
  lines.push('| field | type | required | constraints | description |', '| --- | --- | --- | --- | --- |');
  for (const r of rows) lines.push(`| \`${r.path}\` | ${cell(r.type)} | ${r.required ? 'yes' : ''} | ${cell(r.details)} | ${cell(r.description)} |`);
  lines.push('');
  return lines.join('\n');
}

/** docs/api.md: an introduction, then every kind grouped by API group, with its field table. */
export function renderApiReference(kinds: AnyKind[], intro: string): string {
  const groups = [...new Set(kinds.map((k) => k.apiVersion))];
  const parts = ['<!-- Generated from src/api by `npm run generate`; edit the schemas and notes there. -->', '', intro.trim(), ''];
  for (const gv of groups) {
    parts.push(`## ${gv}`, '');
    for (const k of kinds.filter((x) => x.apiVersion === gv)) parts.push(kindSection(k));
  }
  return parts.join('\n');
}
