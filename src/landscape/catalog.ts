// The landscape's module catalog across restarts: the demo catalog (demo-modules/) is published once
// per data dir and never over what a user published, and ModuleTemplates follow the registry when
// it comes back on another address.
//
// - Published once: `catalog.json` in the data dir marks it; a later start publishes nothing. The
//   first publish skips every version whose ModuleTemplate exists already (its artifact is not pushed
//   either, so a tag the user pushed stays theirs) and moves a channel only forward: a channel that
//   offers a newer version than the demo's keeps it.
// - Registry addresses: `relinkModuleTemplates` rewrites every ModuleTemplate's `oci://` links that
//   name one of the landscape's earlier registry addresses to the current one (digests stay, the
//   content is the same storage), whoever published the template. The lifecycle manager then
//   rebuilds the Manifests from the templates.
// - Another registry kind (docker-registry <-> in-process) means another storage: the demo
//   artifacts are pushed into it (the templates that are still the demo's are relinked with the
//   rest). What users pushed to the other kind is not copied.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ModuleReleaseMeta, type ModuleReleaseMetaObject, ModuleTemplate, type ModuleTemplateObject, moduleTemplateName, Namespaces } from '../api/operator/index.js';
import { readModuleDir } from '../lifecycle/artifacts/module-dir.js';
import { defaultRepository, moduleReleaseMetaFor, moduleTemplateFor, packageModule } from '../lifecycle/artifacts/push.js';
import { formatOciReference } from '../lifecycle/artifacts/reference.js';
import { compareVersions } from '../lifecycle/catalog/semver.js';
import { type Client, findObject, isConflict } from '../runtime/client/index.js';
import type { Logger } from '../runtime/log.js';
import { EMBEDDED_FIELD_MANAGER } from './control-plane.js';
import type { LandscapeRegistry, RegistryKind } from './registry.js';

export interface CatalogModule {
  name: string;
  version: string;
  channels: string[];
  /** `oci://...@sha256:...` of the version's artifact. */
  link: string;
}

/** What `catalog.json` in the data dir holds. */
export interface CatalogMarker {
  registry: string;
  kind: RegistryKind;
  publishedAt: string;
  /** The demo versions this data dir's catalog got (skipped ones are not listed). */
  modules: CatalogModule[];
}

export interface CatalogState {
  /** Whether this start published it (false: it was published by an earlier run). */
  publishedNow: boolean;
  modules: CatalogModule[];
  /** `namespace/name` of the ModuleTemplates whose links this start moved to the registry's address. */
  relinked: string[];
}

export interface EnsureCatalogOptions {
  kcp: Client;
  registry: LandscapeRegistry;
  /** Module directories (`<dir>/<module>/<version>/`); null: publish nothing. */
  dir: string | null;
  marker: CatalogMarker | undefined;
  /** Addresses this data dir's registry had before (links naming them are rewritten). */
  earlierHosts: string[];
  logger: Logger;
  signal?: AbortSignal;
}

/** Relinks the templates, publishes the catalog unless the marker says it was; returns the new marker (undefined: none to write). */
export async function ensureCatalog(opts: EnsureCatalogOptions): Promise<{ state: CatalogState; marker: CatalogMarker | undefined }> {
  const { kcp, registry, dir, marker, logger, signal } = opts;
  const relinked = await relinkModuleTemplates(kcp, opts.earlierHosts, registry.host, signal);
  if (relinked.length > 0) logger.info('module templates relinked to the registry\'s address', { registry: registry.host, templates: relinked });
  if (marker) {
    const modules = marker.modules.map((m) => ({ ...m, link: relinkedLink(m.link, opts.earlierHosts, registry.host) }));
    if (dir !== null && marker.kind !== registry.kind) await pushDemoArtifacts(kcp, registry, dir, modules, logger, signal);
    return { state: { publishedNow: false, modules, relinked }, marker: { ...marker, registry: registry.host, kind: registry.kind, modules } };
  }
  if (dir === null) return { state: { publishedNow: false, modules: [], relinked }, marker: undefined };
  const modules = await publishCatalog(kcp, registry, dir, { signal, logger });
  return { state: { publishedNow: true, modules, relinked }, marker: { registry: registry.host, kind: registry.kind, publishedAt: new Date().toISOString(), modules } };
}

/**
 * Pushes every `<dir>/<module>/<version>/` to the registry and applies a ModuleTemplate per version
 * and the module's ModuleReleaseMeta, except what is there already: a version whose ModuleTemplate
 * exists is skipped, and a channel that offers a newer version keeps it. Channels of other versions
 * in the cluster are kept, as `kcp module push` does.
 */
export async function publishCatalog(kcp: Client, registry: LandscapeRegistry, dir: string, opts: { signal?: AbortSignal; logger?: Logger } = {}): Promise<CatalogModule[]> {
  const { signal, logger } = opts;
  const published: CatalogModule[] = [];
  const apply = { fieldManager: EMBEDDED_FIELD_MANAGER, force: true, signal };
  for (const moduleName of subdirectories(dir)) {
    const existing = await findObject<ModuleReleaseMetaObject>(kcp, ModuleReleaseMeta, { namespace: Namespaces.ControlPlane, name: moduleName }, { signal });
    let releaseMeta = existing;
    for (const version of subdirectories(path.join(dir, moduleName)).sort(compareVersions)) {
      const source = readModuleDir(path.join(dir, moduleName, version));
      const { name, channels } = source.definition;
      const templateName = moduleTemplateName(name, source.definition.version);
      if (await findObject(kcp, ModuleTemplate, { namespace: Namespaces.ControlPlane, name: templateName }, { signal })) {
        logger?.info('demo module version kept out of the catalog: its ModuleTemplate exists', { template: templateName });
        continue;
      }
      const repository = defaultRepository(name);
      const digest = await registry.publish(repository, source.definition.version, packageModule(source), signal);
      const link = formatOciReference({ registry: registry.host, repository, reference: digest });
      await kcp.apply(moduleTemplateFor(source, link), apply);
      // A channel (or the mandatory version) moves only forward: one that offers a newer version keeps it.
      const newer = (offered: string | undefined) => offered === undefined || compareVersions(source.definition.version, offered) > 0;
      const forward = channels.filter((c) => newer(releaseMeta?.spec.channels?.find((o) => o.channel === c)?.version));
      const moves = source.definition.mandatory ? newer(releaseMeta?.spec.mandatory?.version) : forward.length > 0;
      if (moves) releaseMeta = moduleReleaseMetaFor({ ...source, definition: { ...source.definition, channels: forward } }, releaseMeta);
      published.push({ name, version: source.definition.version, channels: forward, link });
    }
    if (releaseMeta && releaseMeta !== existing) await kcp.apply(releaseMeta, apply);
  }
  return published;
}

/**
 * Rewrites `oci://<earlier host>/...` links of every ModuleTemplate (any namespace) to `oci://<host>/...`;
 * returns the templates changed (`namespace/name`).
 */
export async function relinkModuleTemplates(kcp: Client, earlierHosts: string[], host: string, signal?: AbortSignal): Promise<string[]> {
  const from = earlierHosts.filter((h) => h !== host);
  if (from.length === 0) return [];
  const changed: string[] = [];
  const templates = await kcp.list<ModuleTemplateObject>(ModuleTemplate, { signal });
  for (let template of templates.items) {
    const key = { namespace: template.metadata.namespace ?? '', name: template.metadata.name ?? '' };
    for (let attempt = 0; ; attempt++) {
      const resources = template.spec.resources ?? [];
      const rewritten = resources.map((r) => ({ ...r, link: relinkedLink(r.link, from, host) }));
      if (rewritten.every((r, i) => r.link === resources[i]?.link)) break;
      try {
        // The resourceVersion makes it a compare-and-swap: a template changed meanwhile is read again.
        await kcp.patch(ModuleTemplate, key, 'merge', { metadata: { resourceVersion: template.metadata.resourceVersion }, spec: { resources: rewritten } }, { fieldManager: EMBEDDED_FIELD_MANAGER, signal });
        changed.push(`${key.namespace}/${key.name}`);
        break;
      } catch (e) {
        if (!isConflict(e) || attempt >= 5) throw e;
        template = await kcp.get<ModuleTemplateObject>(ModuleTemplate, key, { signal });
      }
    }
  }
  return changed;
}

/** The link with its registry moved to `host` when it names one of `from`; else as it is. */
function relinkedLink(link: string, from: string[], host: string): string {
  for (const old of from) if (link.startsWith(`oci://${old}/`)) return `oci://${host}/${link.slice(`oci://${old}/`.length)}`;
  return link;
}

/**
 * After a switch of registry kind: the demo artifacts into the new storage, for the templates that
 * still link them (a template a user replaced keeps its own link).
 */
async function pushDemoArtifacts(kcp: Client, registry: LandscapeRegistry, dir: string, modules: CatalogModule[], logger: Logger, signal?: AbortSignal): Promise<void> {
  for (const m of modules) {
    const template = await findObject<ModuleTemplateObject>(kcp, ModuleTemplate, { namespace: Namespaces.ControlPlane, name: moduleTemplateName(m.name, m.version) }, { signal });
    if (!template?.spec.resources?.some((r) => r.link === m.link)) continue;
    const versionDir = path.join(dir, m.name, m.version);
    let source;
    try {
      source = readModuleDir(versionDir);
    } catch (e) {
      logger.warn('a demo module version is gone from the catalog directory; its template links a registry that lacks it', { template: template.metadata.name, error: e });
      continue;
    }
    const digest = await registry.publish(defaultRepository(m.name), m.version, packageModule(source), signal);
    if (!m.link.endsWith(`@${digest}`)) logger.warn('a demo module version changed since it was published; its template keeps the published digest', { template: template.metadata.name, link: m.link, digest });
  }
}

function subdirectories(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}
