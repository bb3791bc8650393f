// The module catalog of a runtime: the KCP's ModuleTemplates and ModuleReleaseMetas the Kyma may
// see, copied into the runtime's `kyma-system` namespace so that runtime admins (busola, the CLI)
// can pick modules. Copies carry `operator.kyma-project.io/managed-by: lifecycle-manager`; only
// objects with that label are updated or removed, never ones a user created there.
import { canonicalJson } from '../../kube/json.js';
import { createHash } from 'node:crypto';
import {
  isEnabled,
  LabelValues,
  Labels,
  ModuleReleaseMeta,
  ModuleTemplate,
  Namespaces,
  OPERATOR_GROUP,
  type KymaObject,
  type ModuleReleaseMetaObject,
  type ModuleTemplateObject,
} from '../../api/operator/index.js';
import type { Client } from '../../runtime/client/interface.js';
import { isNotFound } from '../../runtime/client/errors.js';
import type { KindRef, KubeObject } from '../../kube/object.js';
import { FIELD_MANAGER } from '../remote/crds.js';
import { moduleFlags, offeredTo, restrictionOf, templateName } from './resolve.js';

const HASH_ANNOTATION = `${OPERATOR_GROUP}/catalog-hash`;
const CATALOG_SELECTOR = `${Labels.ManagedBy}=${LabelValues.LifecycleManager}`;

export interface CatalogSource {
  templates(): ModuleTemplateObject[];
  releaseMetas(): ModuleReleaseMetaObject[];
  /** Upstream's restricted modules: copied only where their `spec.kymaSelector` selects the Kyma. */
  restrictedModules?: ReadonlySet<string>;
}

export interface CatalogSyncResult {
  applied: number;
  deleted: number;
  total: number;
}

/** Whether a Kyma wants the catalog at all (`operator.kyma-project.io/sync: "false"` opts out). */
export function catalogSyncEnabled(kyma: KymaObject): boolean {
  const v = kyma.metadata.labels?.[Labels.Sync];
  return v === undefined || isEnabled(v);
}

/**
 * The runtime copies of the catalog entries this Kyma may see, as upstream filters them
 * (internal/remote/remote_catalog.go): per version, not per module. A ModuleReleaseMeta is copied
 * with only the channels whose ModuleTemplate the Kyma may see (not mandatory, not labelled
 * `sync: "false"`, beta/internal only for Kymas labelled for it), and not at all when no channel is
 * left or it is restricted to other Kymas (`restrictionOf`); a ModuleTemplate is copied only when a copied channel names it. Mandatory modules and
 * templates no ModuleReleaseMeta names stay in the KCP.
 */
export function desiredCatalog(kyma: KymaObject, source: CatalogSource): KubeObject[] {
  const templates = new Map(source.templates().map((t) => [t.metadata.name ?? '', t]));
  const metas: KubeObject[] = [];
  const named = new Set<string>();
  for (const meta of source.releaseMetas()) {
    // Restricted modules only where their selector selects the Kyma; other modules with a selector nowhere.
    if (meta.spec.mandatory || restrictionOf(source.restrictedModules, kyma, meta)) continue;
    const channels = (meta.spec.channels ?? []).filter((c) => {
      const t = templates.get(templateName(meta.spec.moduleName, c.version));
      return t !== undefined && !t.spec.mandatory && t.metadata.labels?.[Labels.Sync] !== LabelValues.Disable && offeredTo(kyma, moduleFlags(meta, t));
    });
    if (channels.length === 0) continue;
    metas.push(copyOf({ ...meta, spec: { ...meta.spec, channels } }, ModuleReleaseMeta));
    for (const c of channels) named.add(templateName(meta.spec.moduleName, c.version));
  }
  const copies = [...templates.values()].filter((t) => named.has(t.metadata.name ?? '')).map((t) => copyOf(t, ModuleTemplate));
  return [...metas, ...copies];
}

function copyOf(obj: ModuleTemplateObject | ModuleReleaseMetaObject, kind: KindRef): KubeObject {
  const labels = { ...obj.metadata.labels, [Labels.ManagedBy]: LabelValues.LifecycleManager };
  const body = { labels, annotations: obj.metadata.annotations ?? {}, spec: obj.spec };
  // Canonical text: the template comes from the KCP in the server's key order, and the hash is compared across processes.
  const hash = createHash('sha256').update(canonicalJson(body)).digest('hex').slice(0, 16);
  return {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: { name: obj.metadata.name, namespace: Namespaces.Remote, labels, annotations: { ...obj.metadata.annotations, [HASH_ANNOTATION]: hash } },
    spec: obj.spec,
  };
}

/**
 * Brings the runtime's catalog copies in line with `desired`: applies changed ones, deletes stale ones.
 * `fresh`: the runtime most likely has no copies yet (a new runtime), so they are applied without
 * listing what is there first.
 */
export async function syncCatalog(remote: Client, desired: KubeObject[], signal: AbortSignal, fresh = false): Promise<CatalogSyncResult> {
  const result: CatalogSyncResult = { applied: 0, deleted: 0, total: desired.length };
  for (const kind of [ModuleReleaseMeta, ModuleTemplate] as KindRef[]) {
    const wanted = desired.filter((o) => o.kind === kind.kind);
    const current = fresh ? [] : (await remote.list(kind, { namespace: Namespaces.Remote, labelSelector: CATALOG_SELECTOR, signal })).items;
    const currentByName = new Map(current.map((o) => [o.metadata.name ?? '', o]));
    for (const o of wanted) {
      const have = currentByName.get(o.metadata.name ?? '');
      if (have && have.metadata.annotations?.[HASH_ANNOTATION] === o.metadata.annotations?.[HASH_ANNOTATION]) continue;
      await remote.apply(o, { fieldManager: FIELD_MANAGER, force: true, signal });
      result.applied++;
    }
    const wantedNames = new Set(wanted.map((o) => o.metadata.name));
    for (const o of current) {
      if (wantedNames.has(o.metadata.name)) continue;
      try {
        await remote.delete(kind, { namespace: Namespaces.Remote, name: o.metadata.name ?? '' }, { signal });
        result.deleted++;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
  }
  return result;
}
