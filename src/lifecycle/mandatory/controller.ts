// Mandatory modules: a ModuleReleaseMeta with `spec.mandatory.version` installs its module into
// every Kyma (a Manifest per Kyma labelled `operator.kyma-project.io/mandatory-module: "true"`,
// not listed in the Kyma's status). When the ModuleReleaseMeta goes (or stops being mandatory),
// its Manifests are deleted everywhere. Keyed by Kyma: each reconcile brings one Kyma's mandatory
// Manifests in line with the current set of mandatory modules.
import {
  isEnabled,
  Kyma,
  LabelValues,
  Labels,
  Manifest,
  ModuleReleaseMeta,
  ModuleTemplate,
  type KymaObject,
  type ManifestObject,
  type ModuleReleaseMetaObject,
  type ModuleTemplateObject,
} from '../../api/operator/index.js';
import { isNotFound } from '../../runtime/client/errors.js';
import { findObject } from '../../runtime/client/find.js';
import { type Controller, newControllerManagedBy } from '../../runtime/controller.js';
import type { Manager } from '../../runtime/manager.js';
import { generationChanged, labelsChanged, or } from '../../runtime/predicates.js';
import { fqdnOf, templateName } from '../catalog/resolve.js';
import { FIELD_MANAGER } from '../remote/crds.js';
import { buildManifest, manifestUpToDate, TemplateError } from '../kyma/manifest-builder.js';

export const MANDATORY_CONTROLLER_NAME = 'mandatory-modules';

export interface MandatoryControllerOptions {
  namespace: string;
  /** Retry interval while a mandatory module's ModuleTemplate is missing (default 30 s). */
  retryMs?: number;
}

export function setupMandatoryModuleController(manager: Manager, opts: MandatoryControllerOptions): Controller {
  const ns = opts.namespace;
  const kcp = manager.client;
  const log = manager.logger.child('mandatory');
  const kymas = manager.cache<KymaObject>(Kyma, { namespace: ns });
  const metas = manager.cache<ModuleReleaseMetaObject>(ModuleReleaseMeta, { namespace: ns });
  const templates = manager.cache<ModuleTemplateObject>(ModuleTemplate, { namespace: ns });
  const manifests = manager.cache<ManifestObject>(Manifest, { namespace: ns });
  const allKymas = (): string[] => [...kymas.keys()];

  async function reconcile(req: { namespace?: string; name: string }, signal: AbortSignal): Promise<{ requeueAfterMs?: number } | void> {
    const kyma = await findObject<KymaObject>(kcp, Kyma, req, { signal });
    if (!kyma) return;
    // The Kyma controller removes every Manifest of a deleting Kyma; skipped Kymas are left alone.
    if (kyma.metadata.deletionTimestamp || isEnabled(kyma.metadata.labels?.[Labels.SkipReconciliation])) return;
    const mandatory = metas.list({ namespace: ns }).filter((m) => m.spec.mandatory?.version);
    const wanted = new Set<string>();
    let missing = false;
    for (const meta of mandatory) {
      const moduleName = meta.spec.moduleName;
      const version = meta.spec.mandatory?.version ?? '';
      const template = templates.get(`${ns}/${templateName(moduleName, version)}`);
      if (!template) {
        log.warn('ModuleTemplate of a mandatory module not found', { module: moduleName, version });
        missing = true;
        continue;
      }
      try {
        const desired = buildManifest({ kyma, moduleName, template, version, fqdn: fqdnOf(meta, template, moduleName), mandatory: true });
        wanted.add(desired.metadata.name ?? '');
        const existing = manifests.get(`${desired.metadata.namespace ?? ''}/${desired.metadata.name ?? ''}`);
        if (!manifestUpToDate(existing, desired)) await kcp.apply(desired, { fieldManager: FIELD_MANAGER, force: true, signal });
      } catch (e) {
        if (!(e instanceof TemplateError)) throw e;
        log.warn('mandatory module cannot be installed', { module: moduleName, error: e.message });
        missing = true;
      }
    }
    const current = manifests
      .list({ namespace: kyma.metadata.namespace, labelSelector: `${Labels.KymaName}=${kyma.metadata.name ?? ''},${Labels.IsMandatoryModule}=${LabelValues.Enable}` })
      .filter((m) => !m.metadata.deletionTimestamp && !wanted.has(m.metadata.name ?? ''));
    for (const m of current) {
      // Only Manifests of modules that are no longer mandatory at all; a missing template keeps what runs.
      const moduleName = m.metadata.labels?.[Labels.ModuleName];
      if (mandatory.some((meta) => meta.spec.moduleName === moduleName)) continue;
      await kcp.delete(Manifest, { namespace: m.metadata.namespace, name: m.metadata.name ?? '' }, { signal }).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
      log.info('removed a module that is no longer mandatory', { kyma: kyma.metadata.name, module: moduleName });
    }
    return missing ? { requeueAfterMs: opts.retryMs ?? 30_000 } : undefined;
  }

  return newControllerManagedBy(manager)
    .named(MANDATORY_CONTROLLER_NAME)
    .for(Kyma, { namespace: ns, predicates: [or(generationChanged, labelsChanged)] })
    .owns(Manifest, { namespace: ns, predicates: [{ create: () => false, update: () => false }] })
    .watches(ModuleReleaseMeta, allKymas, { namespace: ns })
    .watches(ModuleTemplate, allKymas, { namespace: ns, predicates: [or(generationChanged, labelsChanged)] })
    .withOptions({ maxConcurrentReconciles: 2 })
    .complete(reconcile);
}
