// Checks the API server cannot make: labels (CEL sees only metadata.name and generateName), names
// derived from spec fields, and rules across objects' fields. Controllers run these before acting
// on an object and report the problems in its status instead of acting.
import type { ObjectMeta } from '../../kube/object.js';
import { Labels, NONE_CHANNEL, RAW_MANIFEST_RESOURCE } from './constants.js';
import { MODULE_VERSION_PATTERN, SEMVER_PATTERN } from './v1beta2/common.js';
import type { KymaObject } from './v1beta2/kyma.js';
import type { ManifestObject } from './v1beta2/manifest.js';
import type { ModuleConfigObject } from './v1alpha1/moduleconfig.js';
import type { ModuleReleaseMetaObject } from './v1beta2/modulereleasemeta.js';
import type { ModuleTemplateObject } from './v1beta2/moduletemplate.js';
import type { SyncResourceObject } from './v1alpha1/syncresource.js';
import type { WatcherObject } from './v1beta2/watcher.js';

export interface FieldProblem {
  /** Path of the offending field, e.g. `metadata.labels[operator.kyma-project.io/kyma-name]` or `spec.modules[0].channel`. */
  field: string;
  message: string;
}

/** An object as read from the API: spec may be missing where the schema allows it. */
type AsRead<T extends { spec: unknown }> = Omit<T, 'spec'> & { spec?: T['spec'] };

const moduleVersionRe = new RegExp(MODULE_VERSION_PATTERN);
const semverRe = new RegExp(SEMVER_PATTERN);

function labelPath(key: string): string {
  return `metadata.labels[${key}]`;
}

function requireLabel(meta: ObjectMeta, key: string, problems: FieldProblem[], expected?: string): string | undefined {
  const value = meta.labels?.[key];
  if (value === undefined || value === '') {
    problems.push({ field: labelPath(key), message: expected ? `label ${key} is required and must be "${expected}"` : `label ${key} is required` });
    return undefined;
  }
  if (expected !== undefined && value !== expected) problems.push({ field: labelPath(key), message: `label ${key} is "${value}" but must be "${expected}"` });
  return value;
}

function checkLink(link: string, field: string, problems: FieldProblem[]): void {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    problems.push({ field, message: `"${link}" is not a URL` });
    return;
  }
  if (!['https:', 'http:', 'oci:'].includes(url.protocol)) problems.push({ field, message: `link must be an https://, http:// or oci:// URL, not ${url.protocol}` });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkEmbedded(obj: unknown, field: string, problems: FieldProblem[], needName: boolean): void {
  if (!isRecord(obj)) {
    problems.push({ field, message: 'must be an object' });
    return;
  }
  if (typeof obj.apiVersion !== 'string' || obj.apiVersion === '') problems.push({ field: `${field}.apiVersion`, message: 'apiVersion is required' });
  if (typeof obj.kind !== 'string' || obj.kind === '') problems.push({ field: `${field}.kind`, message: 'kind is required' });
  const meta = obj.metadata;
  if (needName && (!isRecord(meta) || typeof meta.name !== 'string' || meta.name === '')) problems.push({ field: `${field}.metadata.name`, message: 'metadata.name is required' });
}

export interface ValidateKymaOptions {
  /** The Kyma mirrored into a runtime (`kyma-system/default`), which carries no kyma-name label. */
  remote?: boolean;
}

export function validateKyma(kyma: AsRead<KymaObject>, opts: ValidateKymaOptions = {}): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!opts.remote) requireLabel(kyma.metadata, Labels.KymaName, problems);
  const spec = kyma.spec;
  if (!spec) return [...problems, { field: 'spec', message: 'spec is required' }];
  if (!spec.channel) problems.push({ field: 'spec.channel', message: 'spec.channel is required' });
  else if (spec.channel === NONE_CHANNEL) problems.push({ field: 'spec.channel', message: `channel "${NONE_CHANNEL}" is not allowed` });
  const seen = new Set<string>();
  (spec.modules ?? []).forEach((m, i) => {
    const at = `spec.modules[${i}]`;
    if (seen.has(m.name)) problems.push({ field: `${at}.name`, message: `duplicate module name "${m.name}"` });
    seen.add(m.name);
    if (m.channel === NONE_CHANNEL) problems.push({ field: `${at}.channel`, message: `channel "${NONE_CHANNEL}" is not allowed` });
    if (m.version !== undefined && m.channel !== undefined) problems.push({ field: `${at}.version`, message: 'version and channel are mutually exclusive' });
    if (m.version !== undefined && (m.version === '' || !moduleVersionRe.test(m.version))) problems.push({ field: `${at}.version`, message: `"${m.version}" is not a module version (MAJOR.MINOR.PATCH[-pre])` });
  });
  return problems;
}

/** Name a ModuleTemplate of a module version must have. */
export function moduleTemplateName(moduleName: string, version: string): string {
  return `${moduleName}-${version}`;
}

export function validateModuleTemplate(t: AsRead<ModuleTemplateObject>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const spec = t.spec;
  if (!spec) return [{ field: 'spec', message: 'spec is required' }];
  if (!spec.moduleName) problems.push({ field: 'spec.moduleName', message: 'spec.moduleName is required' });
  if (!spec.version) problems.push({ field: 'spec.version', message: 'spec.version is required' });
  else if (!moduleVersionRe.test(spec.version)) problems.push({ field: 'spec.version', message: `"${spec.version}" is not a module version` });
  if (spec.moduleName && spec.version) {
    const want = moduleTemplateName(spec.moduleName, spec.version);
    if (t.metadata.name !== want) problems.push({ field: 'metadata.name', message: `name must be "${want}" (<moduleName>-<version>), not "${t.metadata.name ?? ''}"` });
    const label = t.metadata.labels?.[Labels.ModuleName];
    if (label !== undefined && label !== spec.moduleName) problems.push({ field: labelPath(Labels.ModuleName), message: `label ${Labels.ModuleName} is "${label}" but spec.moduleName is "${spec.moduleName}"` });
  }
  const resources = spec.resources ?? [];
  const raw = resources.findIndex((r) => r.name === RAW_MANIFEST_RESOURCE);
  if (raw < 0) problems.push({ field: 'spec.resources', message: `a resource named "${RAW_MANIFEST_RESOURCE}" (the module's manifest) is required` });
  resources.forEach((r, i) => checkLink(r.link, `spec.resources[${i}].link`, problems));
  if (spec.data !== undefined) checkEmbedded(spec.data, 'spec.data', problems, false);
  return problems;
}

export function validateModuleReleaseMeta(m: AsRead<ModuleReleaseMetaObject>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const spec = m.spec;
  if (!spec) return [{ field: 'spec', message: 'spec is required' }];
  if (!spec.moduleName) problems.push({ field: 'spec.moduleName', message: 'spec.moduleName is required' });
  else if (m.metadata.name !== spec.moduleName) problems.push({ field: 'metadata.name', message: `name must equal spec.moduleName "${spec.moduleName}"` });
  const hasChannels = spec.channels !== undefined;
  const hasMandatory = spec.mandatory !== undefined;
  if (hasChannels === hasMandatory) problems.push({ field: 'spec', message: "exactly one of 'mandatory' or 'channels' must be specified" });
  const seen = new Set<string>();
  (spec.channels ?? []).forEach((c, i) => {
    if (seen.has(c.channel)) problems.push({ field: `spec.channels[${i}].channel`, message: `duplicate channel "${c.channel}"` });
    seen.add(c.channel);
    if (c.channel === NONE_CHANNEL) problems.push({ field: `spec.channels[${i}].channel`, message: `channel "${NONE_CHANNEL}" cannot be assigned a version` });
    if (!c.version || !moduleVersionRe.test(c.version)) problems.push({ field: `spec.channels[${i}].version`, message: `"${c.version}" is not a module version` });
  });
  if (spec.mandatory && !semverRe.test(spec.mandatory.version)) problems.push({ field: 'spec.mandatory.version', message: `"${spec.mandatory.version}" is not a semantic version` });
  return problems;
}

/** Fields of spec.install.source this project reads: `url` (project extension) or upstream's image spec. */
export function validateManifest(m: AsRead<ManifestObject>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  requireLabel(m.metadata, Labels.KymaName, problems);
  requireLabel(m.metadata, Labels.ModuleName, problems);
  const spec = m.spec;
  if (!spec) return [...problems, { field: 'spec', message: 'spec is required' }];
  const source = spec.install.source;
  if (typeof source.url === 'string') checkLink(source.url, 'spec.install.source.url', problems);
  else if (typeof source.repo !== 'string' || typeof source.name !== 'string' || typeof source.ref !== 'string') {
    problems.push({ field: 'spec.install.source', message: 'source needs either url, or repo, name and ref' });
  }
  if (spec.resource) checkEmbedded(spec.resource, 'spec.resource', problems, true);
  return problems;
}

export function validateWatcher(w: AsRead<WatcherObject>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!w.spec) return [{ field: 'spec', message: 'spec is required' }];
  const managedBy = w.metadata.labels?.[Labels.ManagedBy];
  if (!w.spec.manager && !managedBy) problems.push({ field: 'spec.manager', message: `spec.manager (or the deprecated label ${Labels.ManagedBy}) is required` });
  if (w.spec.serviceInfo.port < 1 || w.spec.serviceInfo.port > 65535) problems.push({ field: 'spec.serviceInfo.port', message: 'port must be between 1 and 65535' });
  return problems;
}

export function validateModuleConfig(c: ModuleConfigObject): FieldProblem[] {
  const problems: FieldProblem[] = [];
  requireLabel(c.metadata, Labels.KymaName, problems, c.spec.kyma);
  requireLabel(c.metadata, Labels.ModuleName, problems, c.spec.module);
  if (c.spec.resource !== undefined) checkEmbedded(c.spec.resource, 'spec.resource', problems, true);
  return problems;
}

export function validateSyncResource(s: SyncResourceObject): FieldProblem[] {
  const problems: FieldProblem[] = [];
  requireLabel(s.metadata, Labels.KymaName, problems, s.spec.kyma);
  const names = new Set<string>();
  const targets = new Map<string, number>();
  s.spec.items.forEach((item, i) => {
    const at = `spec.items[${i}]`;
    if (names.has(item.name)) problems.push({ field: `${at}.name`, message: `duplicate item name "${item.name}"` });
    names.add(item.name);
    checkEmbedded(item.resource, `${at}.resource`, problems, true);
    const meta = isRecord(item.resource.metadata) ? item.resource.metadata : {};
    const key = [item.resource.apiVersion, item.resource.kind, meta.namespace ?? '', meta.name].join('/');
    const other = targets.get(key);
    if (other !== undefined) problems.push({ field: `${at}.resource`, message: `the same object as spec.items[${other}]` });
    else targets.set(key, i);
  });
  return problems;
}
