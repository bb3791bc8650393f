// What both sync controllers need to know about a module in a Kyma: its Manifest (the module is
// enabled while one exists and is not being deleted), and the ModuleTemplate it was installed from
// (its opt-in to ModuleConfig, the kinds it may sync, the kind of its custom resource).
import { Labels, type ManifestObject, type ModuleTemplateObject } from '../../api/operator/index.js';
import type { Store } from '../../runtime/cache/store.js';
import { defaultResource } from '../kyma/manifest-builder.js';

export interface ModuleCatalog {
  manifests: Store<ManifestObject>;
  templates: Store<ModuleTemplateObject>;
}

/** The Manifest of a module in a Kyma (undefined when the module is not installed there). */
export function manifestOf(c: ModuleCatalog, namespace: string, kyma: string, module: string): ManifestObject | undefined {
  return c.manifests.list({ namespace, labelSelector: `${Labels.KymaName}=${kyma},${Labels.ModuleName}=${module}` })[0];
}

/**
 * The template a Manifest was built from: templates are named `<module>-<version>` (validateModuleTemplate
 * checks it); one with that module and version under another name is found too.
 */
export function templateOf(c: ModuleCatalog, manifest: ManifestObject): ModuleTemplateObject | undefined {
  const namespace = manifest.metadata.namespace;
  const module = manifest.metadata.labels?.[Labels.ModuleName] ?? '';
  const version = manifest.spec.version;
  if (!module || !version) return undefined;
  const byName = c.templates.get(`${namespace ?? ''}/${module}-${version}`);
  if (byName) return byName;
  return c.templates.list({ namespace }).find((t) => t.spec?.moduleName === module && t.spec.version === version);
}

/** The module's custom resource as the template defines it (kind, name, namespace), or undefined. */
export function moduleResourceOf(template: ModuleTemplateObject): { apiVersion: string; kind: string; name: string; namespace?: string } | undefined {
  const r = defaultResource(template);
  const meta = (r?.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  if (!r || typeof r.apiVersion !== 'string' || typeof r.kind !== 'string' || typeof meta.name !== 'string') return undefined;
  return { apiVersion: r.apiVersion, kind: r.kind, name: meta.name, namespace: typeof meta.namespace === 'string' && meta.namespace ? meta.namespace : undefined };
}
