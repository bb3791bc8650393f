// Mandatory modules: a ModuleReleaseMeta with `spec.mandatory.version` installs its module into
// every Kyma (a Manifest per Kyma labelled `operator.kyma-project.io/mandatory-module: "true"`,
// not listed in the Kyma's status). When the ModuleReleaseMeta goes (or stops being mandatory),
// its Manifests are deleted everywhere. Two controllers, as upstream:
// - `mandatory-modules`, keyed by Kyma: brings one Kyma's mandatory Manifests in line with the
//   current set of mandatory modules (a ModuleReleaseMeta being deleted no longer counts);
// - `mandatory-module-deletion`, keyed by ModuleReleaseMeta: keeps the finalizer
//   `operator.kyma-project.io/mandatory-module` on mandatory ones, and when one is deleted, deletes
//   its Manifests in every Kyma and drops the finalizer once they are all gone.
import {
  Finalizers,
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
import { namespacedName } from '../../kube/keys.js';
import { type Controller, newControllerManagedBy } from '../../runtime/controller.js';
import type { Manager } from '../../runtime/manager.js';
import { jitter } from '../../runtime/timers.js';
import { and, deletionChanged, finalizersChanged, generationChanged, labelsChanged, or, predicate, type Predicate } from '../../runtime/predicates.js';
import type { Store } from '../../runtime/cache/store.js';
import { fqdnOf, templateName } from '../catalog/resolve.js';
import { FIELD_MANAGER } from '../remote/crds.js';
import { buildManifest, manifestUpToDate, TemplateError } from '../kyma/manifest-builder.js';
import { MandatoryModuleMetrics } from './metrics.js';

export const MANDATORY_CONTROLLER_NAME = 'mandatory-modules';
export const MANDATORY_DELETION_CONTROLLER_NAME = 'mandatory-module-deletion';

export interface MandatoryControllerOptions {
  namespace: string;
  /** Retry interval while a mandatory module's ModuleTemplate is missing (default 30 s). */
  retryMs?: number;
}

/**
 * Events of catalog entries that concern mandatory modules: changes (spec or labels) of an entry that
 * is mandatory, or was before the change (its Manifests go everywhere).
 */
function mandatoryOnly<T extends ModuleReleaseMetaObject | ModuleTemplateObject>(isMandatory: (o: T) => boolean): Predicate<T> {
  const concerned = predicate<T>((ev) => isMandatory(ev.object) || (ev.type === 'update' && isMandatory(ev.oldObject)));
  return and(concerned, or(generationChanged, labelsChanged) as Predicate<T>);
}

export function setupMandatoryModuleController(manager: Manager, opts: MandatoryControllerOptions): Controller {
  const ns = opts.namespace;
  const kcp = manager.client;
  const log = manager.logger.child('mandatory');
  const metrics = new MandatoryModuleMetrics(manager.registry);
  const kymas = manager.cache<KymaObject>(Kyma, { namespace: ns });
  const metas = manager.cache<ModuleReleaseMetaObject>(ModuleReleaseMeta, { namespace: ns });
  const templates = manager.cache<ModuleTemplateObject>(ModuleTemplate, { namespace: ns });
  const manifests = manager.cache<ManifestObject>(Manifest, { namespace: ns });
  const allKymas = (): string[] => [...kymas.keys()];
  const mandatoryMeta = (m: ModuleReleaseMetaObject): boolean => !!m.spec.mandatory;
  // A template matters when a mandatory ModuleReleaseMeta names its module (or, in the old form, it says so itself).
  const mandatoryTemplate = (t: ModuleTemplateObject): boolean => {
    const moduleName = t.spec.moduleName ?? t.metadata.labels?.[Labels.ModuleName];
    return !!t.spec.mandatory || metas.list({ namespace: ns }).some((m) => m.spec.moduleName === moduleName && !!m.spec.mandatory);
  };

  /** The mandatory-module state metric of a Kyma: its mandatory Manifests' states (as the cache has them). */
  const recordStates = (kymaName: string, ofKyma: ManifestObject[]): void => {
    const states = new Map<string, string>();
    for (const m of ofKyma) {
      const moduleName = m.metadata.labels?.[Labels.ModuleName];
      if (moduleName && m.status?.state) states.set(moduleName, m.status.state);
    }
    metrics.kyma(kymaName, states);
  };

  async function reconcile(req: { namespace?: string; name: string }, signal: AbortSignal): Promise<{ requeueAfterMs?: number } | void> {
    // From the cache (read-only), as upstream's cached client reads: this controller writes no
    // Kyma, and a change the cache has not delivered yet brings another pass when it arrives.
    const kyma = kymas.get(namespacedName({ namespace: req.namespace ?? ns, name: req.name }));
    const mandatory = metas.list({ namespace: ns }).filter((m) => m.spec.mandatory?.version && !m.metadata.deletionTimestamp);
    metrics.modules(mandatory.length);
    if (!kyma || kyma.metadata.deletionTimestamp) {
      // The Kyma controller removes every Manifest of a deleting Kyma.
      metrics.forget(req.name);
      return;
    }
    // Skipped Kymas are left alone.
    if (isEnabled(kyma.metadata.labels?.[Labels.SkipReconciliation])) return;
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
    const ofKyma = manifests.list({ namespace: kyma.metadata.namespace, labelSelector: `${Labels.KymaName}=${kyma.metadata.name ?? ''},${Labels.IsMandatoryModule}=${LabelValues.Enable}` });
    recordStates(kyma.metadata.name ?? '', ofKyma);
    const current = ofKyma.filter((m) => !m.metadata.deletionTimestamp && !wanted.has(m.metadata.name ?? ''));
    for (const m of current) {
      // Only Manifests of modules that are no longer mandatory at all; a missing template keeps what runs.
      const moduleName = m.metadata.labels?.[Labels.ModuleName];
      if (mandatory.some((meta) => meta.spec.moduleName === moduleName)) continue;
      await kcp.delete(Manifest, { namespace: m.metadata.namespace, name: m.metadata.name ?? '' }, { signal }).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
      log.info('removed a module that is no longer mandatory', { kyma: kyma.metadata.name, module: moduleName });
    }
    return missing ? { requeueAfterMs: Math.round(jitter(opts.retryMs ?? 30_000, 0.1)) } : undefined;
  }

  return newControllerManagedBy(manager)
    .named(MANDATORY_CONTROLLER_NAME)
    .for(Kyma, { namespace: ns, predicates: [or(generationChanged, labelsChanged)] })
    // A mandatory Manifest that goes, or whose state changes (the state metric follows it).
    .owns(Manifest, { namespace: ns, predicates: [{ create: () => false, update: (o, n) => mandatoryStateChanged(o as ManifestObject, n as ManifestObject) }] })
    .watches<ModuleReleaseMetaObject>(ModuleReleaseMeta, allKymas, { namespace: ns, predicates: [mandatoryOnly(mandatoryMeta) as Predicate] })
    .watches<ModuleTemplateObject>(ModuleTemplate, allKymas, { namespace: ns, predicates: [mandatoryOnly(mandatoryTemplate) as Predicate] })
    .withOptions({ maxConcurrentReconciles: 2 })
    .complete(reconcile);
}

function mandatoryStateChanged(o: ManifestObject, n: ManifestObject): boolean {
  return n.metadata.labels?.[Labels.IsMandatoryModule] === LabelValues.Enable && o.status?.state !== n.status?.state;
}

/** The mandatory Manifests of a module in all Kymas (deleting ones included). */
function mandatoryManifestsOf(manifests: Store<ManifestObject>, namespace: string, moduleName: string): ManifestObject[] {
  return manifests.list({ namespace, labelSelector: `${Labels.IsMandatoryModule}=${LabelValues.Enable},${Labels.ModuleName}=${moduleName}` });
}

/**
 * The finalizer of mandatory ModuleReleaseMetas (upstream's mandatory-module deletion service):
 * added while one is mandatory, and on its deletion held until its Manifests are gone from every
 * Kyma. One that stops being mandatory loses it at once (the other controller removes its Manifests).
 */
export function setupMandatoryModuleDeletionController(manager: Manager, opts: MandatoryControllerOptions): Controller {
  const ns = opts.namespace;
  const kcp = manager.client;
  const log = manager.logger.child('mandatory-deletion');
  const metas = manager.cache<ModuleReleaseMetaObject>(ModuleReleaseMeta, { namespace: ns });
  const manifests = manager.cache<ManifestObject>(Manifest, { namespace: ns });

  async function setFinalizers(meta: ModuleReleaseMetaObject, finalizers: string[], signal: AbortSignal): Promise<void> {
    // The resourceVersion makes the write fail on a concurrent change instead of dropping it.
    const patch = { metadata: { finalizers, resourceVersion: meta.metadata.resourceVersion } };
    await kcp.patch(ModuleReleaseMeta, { namespace: meta.metadata.namespace, name: meta.metadata.name ?? '' }, 'merge', patch, { signal });
  }

  async function reconcile(req: { namespace?: string; name: string }, signal: AbortSignal): Promise<void> {
    const meta = await findObject<ModuleReleaseMetaObject>(kcp, ModuleReleaseMeta, req, { signal });
    if (!meta) return;
    const finalizers = meta.metadata.finalizers ?? [];
    const held = finalizers.includes(Finalizers.MandatoryModule);
    const without = finalizers.filter((f) => f !== Finalizers.MandatoryModule);
    if (!meta.metadata.deletionTimestamp) {
      const mandatory = !!meta.spec.mandatory?.version;
      if (mandatory && !held) await setFinalizers(meta, [...finalizers, Finalizers.MandatoryModule], signal);
      else if (!mandatory && held) await setFinalizers(meta, without, signal);
      return;
    }
    if (!held) return;
    const moduleName = meta.spec.moduleName;
    const remaining = mandatoryManifestsOf(manifests, ns, moduleName);
    if (remaining.length > 0) {
      // Their deletion events bring this ModuleReleaseMeta back (see the Manifest watch below).
      for (const m of remaining.filter((x) => !x.metadata.deletionTimestamp)) {
        await kcp.delete(Manifest, { namespace: m.metadata.namespace, name: m.metadata.name ?? '' }, { signal }).catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
      }
      log.debug('waiting for the Manifests of a deleted mandatory module', { module: moduleName, remaining: remaining.length });
      return;
    }
    await setFinalizers(meta, without, signal);
    log.info('mandatory module removed from every Kyma', { module: moduleName });
  }

  /** A mandatory Manifest that went: its ModuleReleaseMeta, if that is being deleted. */
  const metaOfManifest = (m: ManifestObject): { namespace: string; name: string }[] => {
    const labels = m.metadata.labels ?? {};
    if (labels[Labels.IsMandatoryModule] !== LabelValues.Enable) return [];
    const meta = metas.list({ namespace: ns }).find((x) => x.spec.moduleName === labels[Labels.ModuleName] && x.metadata.deletionTimestamp);
    return meta ? [{ namespace: ns, name: meta.metadata.name ?? '' }] : [];
  };

  return newControllerManagedBy(manager)
    .named(MANDATORY_DELETION_CONTROLLER_NAME)
    .for(ModuleReleaseMeta, { namespace: ns, predicates: [or(generationChanged, deletionChanged, finalizersChanged)] })
    .watches<ManifestObject>(Manifest, metaOfManifest, { namespace: ns, predicates: [{ create: () => false, update: () => false }] })
    .withOptions({ maxConcurrentReconciles: 1 })
    .complete(reconcile);
}
