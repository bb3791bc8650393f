// The Kyma's modules become Manifests in the KCP: one per module, applied with server-side apply,
// with no downgrades (a lower resolved version keeps the installed one and reports Warning), and
// Manifests of modules no longer listed deleted. Returns the module entries of the Kyma status.
// A Manifest whose cached copy already is what it should be (compared by value: manifestUpToDate) is
// not applied again: a Kyma reconcile with nothing to change writes nothing.
import {
  Annotations,
  Labels,
  LabelValues,
  Manifest,
  ModuleTemplate,
  States,
  type KymaModule,
  type KymaObject,
  type ManifestObject,
  type ModuleStatus,
  type State,
} from '../../api/operator/index.js';
import type { Store } from '../../runtime/cache/store.js';
import type { Client } from '../../runtime/client/interface.js';
import { isNotFound } from '../../runtime/client/errors.js';
import { compareVersions } from '../catalog/semver.js';
import { resolveModule, ResolveError, type CatalogView, type Resolved } from '../catalog/resolve.js';
import { FIELD_MANAGER } from '../remote/crds.js';
import { MaintenanceMessages, MaintenanceWindowUnknownError, MaintenanceWindows } from '../maintenance/windows.js';
import { buildManifest, manifestUpToDate, TemplateError } from './manifest-builder.js';

type TrackingObject = NonNullable<ModuleStatus['manifest']>;

function track(o: { apiVersion: string; kind: string; metadata: { name?: string; namespace?: string; generation?: number } }): TrackingObject {
  return { apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata.name, namespace: o.metadata.namespace, generation: o.metadata.generation } };
}

function resourceTracking(m: ManifestObject): TrackingObject | undefined {
  const r = m.spec.resource as { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string } } | undefined;
  if (!r?.apiVersion || !r.kind) return undefined;
  return { apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.metadata?.name, namespace: r.metadata?.namespace } };
}

function manifestState(m: ManifestObject | undefined): { state: State; message?: string } {
  if (!m) return { state: States.Processing };
  if (m.metadata.deletionTimestamp) return { state: States.Deleting };
  const state = m.status?.state;
  // A Manifest whose status has not seen its spec yet (a new version just applied) speaks of the
  // previous version: reporting its Ready would call a version Ready that is not installed yet.
  const observed = Math.max(0, ...(m.status?.conditions ?? []).map((c) => c.observedGeneration ?? 0));
  const stale = m.metadata.generation !== undefined && observed > 0 && observed < m.metadata.generation;
  if (!state || stale) return { state: States.Processing, message: 'waiting for the Manifest to be reconciled' };
  return { state, message: m.status?.lastOperation?.operation };
}

export interface ModuleSyncDeps {
  kcp: Client;
  catalog: CatalogView;
  /** Cached Manifests of the KCP (read-only). */
  manifests: Store<ManifestObject>;
  /** Maintenance windows for upgrades that require downtime (default: no policy, so such upgrades are Error). */
  maintenance?: MaintenanceWindows;
}

const NO_POLICY = new MaintenanceWindows(undefined);

/** The non-mandatory Manifests of a Kyma. */
export function manifestsOf(manifests: Store<ManifestObject>, kyma: KymaObject): ManifestObject[] {
  return manifests
    .list({ namespace: kyma.metadata.namespace, labelSelector: `${Labels.KymaName}=${kyma.metadata.name ?? ''}` })
    .filter((m) => m.metadata.labels?.[Labels.IsMandatoryModule] !== LabelValues.Enable);
}

async function syncOne(deps: ModuleSyncDeps, kyma: KymaObject, module: KymaModule, existing: ManifestObject | undefined, signal: AbortSignal): Promise<{ status: ModuleStatus; manifest?: ManifestObject }> {
  const base: ModuleStatus = { name: module.name, state: States.Error };
  let resolved: Resolved;
  try {
    resolved = resolveModule(deps.catalog, kyma, module);
  } catch (e) {
    if (!(e instanceof ResolveError)) throw e;
    // A restricted module the Kyma is no longer selected for is uninstalled (as upstream): without a
    // Manifest to keep, syncModules deletes the installed one.
    if (e.reason === 'Restricted') return { status: { ...base, state: States.Error, message: e.message } };
    // A module that cannot be resolved keeps what is installed, if anything.
    return { status: { ...base, state: States.Error, message: e.message, ...(existing ? { manifest: track(existing), version: existing.spec.version } : {}) }, manifest: existing };
  }
  const statusBase: ModuleStatus = {
    ...base,
    fqdn: resolved.fqdn,
    ocmComponentName: resolved.fqdn,
    version: resolved.version,
    ...(resolved.channel ? { channel: resolved.channel } : {}),
    template: track({ ...resolved.template, apiVersion: ModuleTemplate.apiVersion, kind: ModuleTemplate.kind }),
  };
  if (module.managed === false && !existing) {
    // The user took the module over: its Manifest was released (the Manifest controller deletes it
    // without touching the runtime); no new one is created.
    return { status: { ...statusBase, state: States.Unmanaged } };
  }
  const installed = existing?.spec.version;
  if (existing && installed && compareVersions(resolved.version, installed) < 0) {
    return {
      status: {
        ...statusBase,
        version: installed,
        channel: existing.metadata.labels?.[Labels.Channel],
        state: States.Warning,
        // Upstream's channel-skew message (pkg/templatelookup markInvalidSkewUpdate).
        message: `module template update not allowed: ignore channel skew (from ${existing.metadata.labels?.[Labels.Channel] ?? ''} to ${resolved.channel ?? ''}), as a higher version (${installed}) of the module was previously installed`,
        manifest: track(existing),
      },
      manifest: existing,
    };
  }
  const waiting = waitForMaintenance(deps.maintenance ?? NO_POLICY, kyma, module.name, resolved, existing);
  if (waiting) return { status: waiting, manifest: existing };
  let desired: ManifestObject;
  try {
    desired = buildManifest({
      kyma,
      moduleName: module.name,
      template: resolved.template,
      version: resolved.version,
      fqdn: resolved.fqdn,
      channel: resolved.channel,
      customResourcePolicy: module.customResourcePolicy,
      unmanaged: module.managed === false,
    });
  } catch (e) {
    if (!(e instanceof TemplateError)) throw e;
    return { status: { ...statusBase, state: States.Error, message: e.message }, manifest: existing };
  }
  const applied = existing && manifestUpToDate(existing, desired) ? existing : await applyManifest(deps, desired, signal);
  const { state, message } = module.managed === false ? { state: States.Unmanaged as State, message: undefined } : manifestState(applied);
  const status: ModuleStatus = { ...statusBase, state, manifest: track(applied) };
  if (message) status.message = message;
  const resource = resourceTracking(applied);
  if (resource) status.resource = resource;
  return { status, manifest: applied };
}

/**
 * The module's entry while an upgrade that requires downtime waits for the maintenance window (the
 * installed Manifest stays as it is): the previous entry with upstream's message and `maintenance:
 * true`; Error when the window cannot be determined. Undefined: go ahead.
 */
function waitForMaintenance(windows: MaintenanceWindows, kyma: KymaObject, moduleName: string, resolved: Resolved, existing: ManifestObject | undefined): ModuleStatus | undefined {
  const previous = kyma.status?.modules?.find((s) => s.name === moduleName);
  if (!windows.isRequired(resolved.template, resolved.version, kyma, previous?.version)) return undefined;
  const kept: ModuleStatus = { ...(previous ?? { name: moduleName, state: States.Processing }) };
  if (existing) {
    kept.state = manifestState(existing).state;
    kept.manifest = track(existing);
  }
  try {
    if (windows.isActive(kyma)) return undefined;
  } catch (e) {
    if (!(e instanceof MaintenanceWindowUnknownError)) throw e;
    // Not waiting for a window any more (there is none): no `maintenance` flag left from an earlier wait.
    const { maintenance: _waited, ...notWaiting } = kept;
    return { ...notWaiting, state: States.Error, message: e.message };
  }
  return { ...kept, message: MaintenanceMessages.Waiting, maintenance: true };
}

function applyManifest(deps: ModuleSyncDeps, desired: ManifestObject, signal: AbortSignal): Promise<ManifestObject> {
  return deps.kcp.apply<ManifestObject>(desired, { fieldManager: FIELD_MANAGER, force: true, signal });
}

/** Applies the Kyma's modules as Manifests, deletes Manifests of removed modules; returns the module entries. */
export async function syncModules(deps: ModuleSyncDeps, kyma: KymaObject, signal: AbortSignal): Promise<ModuleStatus[]> {
  const existing = manifestsOf(deps.manifests, kyma);
  const byModule = new Map(existing.map((m) => [m.metadata.labels?.[Labels.ModuleName] ?? '', m]));
  const statuses: ModuleStatus[] = [];
  const kept = new Set<string>();
  for (const module of kyma.spec.modules ?? []) {
    const { status, manifest } = await syncOne(deps, kyma, module, byModule.get(module.name), signal);
    statuses.push(status);
    if (manifest?.metadata.name) kept.add(manifest.metadata.name);
  }
  for (const existingManifest of existing) {
    const name = existingManifest.metadata.name ?? '';
    if (kept.has(name)) continue;
    let m = existingManifest;
    // Removed from the Kyma (or renamed by a new fqdn): delete, and show it as Deleting until gone.
    if (!m.metadata.deletionTimestamp) {
      try {
        await deps.kcp.delete(Manifest, { namespace: m.metadata.namespace, name }, { signal });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    } else m = await followWhileDeleting(deps, kyma, m, signal);
    const moduleName = m.metadata.labels?.[Labels.ModuleName] ?? name;
    if (statuses.some((s) => s.name === moduleName)) continue;
    statuses.push({ name: moduleName, state: States.Deleting, version: m.spec.version, manifest: track({ ...m, apiVersion: Manifest.apiVersion, kind: Manifest.kind }) });
  }
  return statuses;
}

/**
 * A disabled module whose removal is still blocked (its module CR held by a finalizer) keeps
 * following its channel: a newer version there reaches its Manifest, and the module in the runtime
 * is upgraded while it waits (upstream's AvailableModules: modules of the Kyma status, not only of
 * its spec). Only forward, only on the same Manifest, within maintenance windows as any upgrade,
 * and not for a module installed by a pinned version (no channel label).
 */
async function followWhileDeleting(deps: ModuleSyncDeps, kyma: KymaObject, m: ManifestObject, signal: AbortSignal): Promise<ManifestObject> {
  const moduleName = m.metadata.labels?.[Labels.ModuleName];
  const channel = m.metadata.labels?.[Labels.Channel];
  if (!moduleName || !channel || m.metadata.annotations?.[Annotations.Unmanaged]) return m;
  let resolved: Resolved;
  try {
    resolved = resolveModule(deps.catalog, kyma, { name: moduleName, channel });
  } catch (e) {
    if (e instanceof ResolveError) return m;
    throw e;
  }
  if (!m.spec.version || compareVersions(resolved.version, m.spec.version) <= 0) return m;
  // An upgrade that requires downtime waits for the maintenance window here too.
  if (waitForMaintenance(deps.maintenance ?? NO_POLICY, kyma, moduleName, resolved, m)) return m;
  let desired: ManifestObject;
  try {
    desired = buildManifest({ kyma, moduleName, template: resolved.template, version: resolved.version, fqdn: resolved.fqdn, channel: resolved.channel, customResourcePolicy: m.spec.customResourcePolicy });
  } catch (e) {
    if (e instanceof TemplateError) return m;
    throw e;
  }
  if (desired.metadata.name !== m.metadata.name || manifestUpToDate(m, desired)) return m;
  return applyManifest(deps, desired, signal);
}
