// A module directory as module teams write it:
//   module.yaml       name, version, channels (or mandatory), flags, manager, info, and the module-sync
//                     opt-ins (enableModuleConfig, syncResourceKinds; docs/module-sync.md)
//   manifest.yaml     the raw manifest: every Kubernetes object of the module, a multi-document stream
//   default-cr.yaml   optional: the module's default custom resource
// readModuleDir reads and checks it; every problem is one line naming the file and field.
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { CHANNEL_PATTERN, MODULE_NAME_PATTERN, MODULE_VERSION_PATTERN, NONE_CHANNEL, OCM_COMPONENT_NAME_PATTERN, SEMVER_PATTERN, type ModuleTemplateSpec } from '../../api/operator/index.js';
import type { KubeObject } from '../../kube/object.js';
import { ArtifactError } from './types.js';
import { isRecord, parseObjects } from './yaml-stream.js';

export const MODULE_FILE = 'module.yaml';
export const MANIFEST_FILE = 'manifest.yaml';
export const DEFAULT_CR_FILE = 'default-cr.yaml';

export interface ModuleDefinition {
  name: string;
  version: string;
  /** Channels that offer this version (ModuleReleaseMeta). Empty for mandatory modules. */
  channels: string[];
  mandatory: boolean;
  beta: boolean;
  internal: boolean;
  requiresDowntime: boolean;
  ocmComponentName?: string;
  manager?: ModuleTemplateSpec['manager'];
  info?: ModuleTemplateSpec['info'];
  associatedResources?: ModuleTemplateSpec['associatedResources'];
  /** Set (true) only when module.yaml says so, so that the artifacts of other modules keep their bytes. */
  enableModuleConfig?: boolean;
  syncResourceKinds?: ModuleTemplateSpec['syncResourceKinds'];
}

export interface ModuleSource {
  definition: ModuleDefinition;
  /** The files' bytes as read, pushed unchanged. */
  rawManifest: Buffer;
  defaultCR?: Buffer;
  objects: KubeObject[];
  defaultCRObject?: KubeObject;
}

export class ModuleDirError extends Error {
  override name = 'ModuleDirError';
}

const KNOWN_FIELDS = new Set(['name', 'version', 'channels', 'mandatory', 'beta', 'internal', 'requiresDowntime', 'ocmComponentName', 'manager', 'info', 'associatedResources', 'enableModuleConfig', 'syncResourceKinds']);

export function readModuleDir(dir: string): ModuleSource {
  const file = (name: string) => path.join(dir, name);
  if (!existsSync(file(MODULE_FILE))) throw new ModuleDirError(`${file(MODULE_FILE)} is missing`);
  if (!existsSync(file(MANIFEST_FILE))) throw new ModuleDirError(`${file(MANIFEST_FILE)} is missing`);
  const definition = parseDefinition(readFileSync(file(MODULE_FILE), 'utf8'), file(MODULE_FILE));
  const rawManifest = readFileSync(file(MANIFEST_FILE));
  const objects = parseOrExplain(rawManifest, file(MANIFEST_FILE));
  if (objects.length === 0) throw new ModuleDirError(`${file(MANIFEST_FILE)} holds no Kubernetes objects`);
  const source: ModuleSource = { definition, rawManifest, objects };
  if (existsSync(file(DEFAULT_CR_FILE))) {
    const defaultCR = readFileSync(file(DEFAULT_CR_FILE));
    const crs = parseOrExplain(defaultCR, file(DEFAULT_CR_FILE));
    if (crs.length !== 1) throw new ModuleDirError(`${file(DEFAULT_CR_FILE)} must hold exactly one object, it holds ${crs.length}`);
    source.defaultCR = defaultCR;
    source.defaultCRObject = crs[0];
  }
  if (definition.manager) checkManagerListed(definition.manager, objects, file(MODULE_FILE));
  return source;
}

export function parseDefinition(text: string, where: string): ModuleDefinition {
  let doc: unknown;
  try {
    doc = yaml.load(text, { schema: yaml.CORE_SCHEMA });
  } catch (e) {
    throw new ModuleDirError(`${where}: invalid YAML: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
  if (!isRecord(doc)) throw new ModuleDirError(`${where} must be a mapping`);
  const fail = (field: string, message: string): never => {
    throw new ModuleDirError(`${where}: ${field}: ${message}`);
  };
  for (const key of Object.keys(doc)) if (!KNOWN_FIELDS.has(key)) fail(key, `unknown field (known: ${[...KNOWN_FIELDS].join(', ')})`);
  const name = requireString(doc, 'name', fail);
  if (!new RegExp(MODULE_NAME_PATTERN).test(name) || name.length > 64) fail('name', `"${name}" is not a module name (lower-case words of 3+ letters joined by dashes, e.g. "api-gateway")`);
  const version = requireString(doc, 'version', fail);
  if (!new RegExp(MODULE_VERSION_PATTERN).test(version) || version.length > 32) fail('version', `"${version}" is not a module version (MAJOR.MINOR.PATCH[-pre])`);
  const flag = (key: string): boolean => {
    const v = doc[key];
    if (v === undefined) return false;
    if (typeof v !== 'boolean') fail(key, 'must be true or false');
    return v === true;
  };
  const mandatory = flag('mandatory');
  const channels = doc.channels === undefined ? [] : doc.channels;
  if (!Array.isArray(channels) || !channels.every((c): c is string => typeof c === 'string')) return fail('channels', 'must be a list of channel names');
  const channelRe = new RegExp(CHANNEL_PATTERN);
  for (const c of channels) {
    if (!channelRe.test(c) || c.length < 3 || c.length > 32) fail('channels', `"${c}" is not a channel name (3 to 32 lower-case letters)`);
    if (c === NONE_CHANNEL) fail('channels', `channel "${NONE_CHANNEL}" cannot be assigned a version`);
  }
  if (new Set(channels).size !== channels.length) fail('channels', 'a channel is listed twice');
  if (mandatory && channels.length > 0) fail('channels', 'a mandatory module is installed everywhere and has no channels');
  if (!mandatory && channels.length === 0) fail('channels', 'list at least one channel (e.g. [regular]) or set mandatory: true');
  if (mandatory && !new RegExp(SEMVER_PATTERN).test(version)) fail('version', `"${version}" must be a semantic version for a mandatory module`);
  const def: ModuleDefinition = { name, version, channels, mandatory, beta: flag('beta'), internal: flag('internal'), requiresDowntime: flag('requiresDowntime') };
  if (doc.ocmComponentName !== undefined) {
    const ocm = requireString(doc, 'ocmComponentName', fail);
    if (!new RegExp(OCM_COMPONENT_NAME_PATTERN).test(ocm)) fail('ocmComponentName', `"${ocm}" is not an OCM component name (e.g. kyma-project.io/module/${name})`);
    def.ocmComponentName = ocm;
  }
  if (doc.manager !== undefined) def.manager = parseManager(doc.manager, fail);
  if (doc.info !== undefined) def.info = parseInfo(doc.info, fail);
  if (doc.associatedResources !== undefined) {
    const list = doc.associatedResources;
    if (!Array.isArray(list)) return fail('associatedResources', 'must be a list of {group, version, kind}');
    def.associatedResources = list.map((r, i) => {
      if (!isRecord(r) || typeof r.group !== 'string' || typeof r.version !== 'string' || typeof r.kind !== 'string') return fail(`associatedResources[${i}]`, 'needs group, version and kind (strings)');
      return { group: r.group, version: r.version, kind: r.kind };
    });
  }
  if (flag('enableModuleConfig')) def.enableModuleConfig = true;
  if (doc.syncResourceKinds !== undefined) def.syncResourceKinds = parseSyncResourceKinds(doc.syncResourceKinds, fail);
  return def;
}

type Fail = (field: string, message: string) => never;

function requireString(doc: Record<string, unknown>, key: string, fail: Fail): string {
  const v = doc[key];
  if (typeof v !== 'string' || v === '') return fail(key, 'is required (a string)');
  return v;
}

function parseManager(v: unknown, fail: Fail): NonNullable<ModuleDefinition['manager']> {
  if (!isRecord(v)) return fail('manager', 'must be a mapping with group, version, kind, name and optionally namespace');
  for (const key of ['group', 'version', 'kind', 'name']) if (typeof v[key] !== 'string') fail(`manager.${key}`, 'is required (a string; group may be "")');
  if (v.namespace !== undefined && typeof v.namespace !== 'string') fail('manager.namespace', 'must be a string');
  const m = { group: v.group as string, version: v.version as string, kind: v.kind as string, name: v.name as string };
  return typeof v.namespace === 'string' ? { ...m, namespace: v.namespace } : m;
}

function parseInfo(v: unknown, fail: Fail): NonNullable<ModuleDefinition['info']> {
  if (!isRecord(v)) return fail('info', 'must be a mapping with repository and documentation');
  const repository = requireString(v, 'repository', (f, m) => fail(`info.${f}`, m));
  const documentation = requireString(v, 'documentation', (f, m) => fail(`info.${f}`, m));
  if (v.icons === undefined) return { repository, documentation };
  if (!Array.isArray(v.icons)) return fail('info.icons', 'must be a list of {name, link}');
  const icons = v.icons.map((icon, i) => {
    if (!isRecord(icon) || typeof icon.name !== 'string' || typeof icon.link !== 'string') return fail(`info.icons[${i}]`, 'needs name and link (strings)');
    return { name: icon.name, link: icon.link };
  });
  return { repository, documentation, icons };
}

const SYNC_SCOPES = ['Namespaced', 'Cluster'] as const;
const KIND_PATTERN = /^[A-Z][A-Za-z0-9]*$/;
const GROUP_PATTERN = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$/;

function parseSyncResourceKinds(v: unknown, fail: Fail): NonNullable<ModuleDefinition['syncResourceKinds']> {
  if (!Array.isArray(v)) return fail('syncResourceKinds', 'must be a list of {group, kind, scope}');
  const seen = new Set<string>();
  return v.map((r: unknown, i) => {
    const at = `syncResourceKinds[${i}]`;
    if (!isRecord(r)) return fail(at, 'must be a mapping with group, kind and scope');
    for (const key of Object.keys(r)) if (!['group', 'kind', 'scope'].includes(key)) fail(`${at}.${key}`, 'unknown field (known: group, kind, scope)');
    if (typeof r.group !== 'string') return fail(`${at}.group`, 'is required (a string; "" for the core group)');
    if (!GROUP_PATTERN.test(r.group)) fail(`${at}.group`, `"${r.group}" is not an API group (e.g. "apps", or "" for the core group; no version)`);
    if (typeof r.kind !== 'string' || r.kind === '') return fail(`${at}.kind`, 'is required (a string, e.g. ConfigMap)');
    if (!KIND_PATTERN.test(r.kind)) fail(`${at}.kind`, `"${r.kind}" is not a kind (a capital letter, then letters and digits, e.g. ConfigMap)`);
    const scope = SYNC_SCOPES.find((s) => s === r.scope);
    if (!scope) return fail(`${at}.scope`, `must be ${SYNC_SCOPES.join(' or ')}`);
    const group = r.group;
    const kind = r.kind;
    const key = `${kind}.${group}`;
    if (seen.has(key)) fail(at, `${group ? `${group}/` : ''}${kind} is listed twice`);
    seen.add(key);
    return { group, kind, scope };
  });
}

function parseOrExplain(bytes: Buffer, where: string): KubeObject[] {
  try {
    return parseObjects(bytes.toString('utf8'), where);
  } catch (e) {
    if (e instanceof ArtifactError) throw new ModuleDirError(e.message);
    throw e;
  }
}

/** The manager must be one of the module's objects, or its readiness could never be seen. */
function checkManagerListed(m: NonNullable<ModuleDefinition['manager']>, objects: KubeObject[], where: string): void {
  const apiVersion = m.group ? `${m.group}/${m.version}` : m.version;
  const found = objects.some((o) => o.apiVersion === apiVersion && o.kind === m.kind && o.metadata.name === m.name && (o.metadata.namespace ?? m.namespace ?? '') === (m.namespace ?? ''));
  if (!found) throw new ModuleDirError(`${where}: manager: ${m.kind} ${m.namespace ? `${m.namespace}/` : ''}${m.name} (${apiVersion}) is not among the objects of ${MANIFEST_FILE}`);
}
