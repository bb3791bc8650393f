// SyncResource items, one at a time: which object an item targets, whether the module may sync that
// kind, what is applied, its hash, and the feedback values read back from the runtime's object.
import type { ModuleTemplateObject, SyncedItem, SyncedItemStatus } from '../../api/operator/index.js';
import { canonicalJson, isPlainObject } from '../../kube/json.js';
import { evaluateJsonPath, JsonPathError } from '../../kube/jsonpath.js';
import { type KubeObject, splitApiVersion } from '../../kube/object.js';
import { createHash } from 'node:crypto';
import { SYNCED_BY_LABEL } from './constants.js';

export type Target = NonNullable<SyncedItemStatus['target']>;
export type Feedback = NonNullable<SyncedItemStatus['feedback']>;
type AllowedKind = NonNullable<NonNullable<ModuleTemplateObject['spec']>['syncResourceKinds']>[number];

function metaOf(item: SyncedItem): Record<string, unknown> {
  return isPlainObject(item.resource.metadata) ? item.resource.metadata : {};
}

/** The object an item is about. */
export function targetOf(item: SyncedItem): Target {
  const meta = metaOf(item);
  const target: Target = { apiVersion: String(item.resource.apiVersion ?? ''), kind: String(item.resource.kind ?? ''), name: String(meta.name ?? '') };
  if (typeof meta.namespace === 'string' && meta.namespace) target.namespace = meta.namespace;
  return target;
}

export function describeTarget(t: Target): string {
  return `${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name}`;
}

export function sameTarget(a: Target | undefined, b: Target | undefined): boolean {
  return !!a && !!b && a.apiVersion === b.apiVersion && a.kind === b.kind && (a.namespace ?? '') === (b.namespace ?? '') && a.name === b.name;
}

function kindText(group: string, kind: string): string {
  return group ? `${kind}.${group}` : kind;
}

/**
 * Why the module may not sync this item (undefined: it may). The template's `syncResourceKinds`
 * is the whole list of what a module manager can have the lifecycle manager write into runtimes.
 */
export function refusalOf(item: SyncedItem, template: ModuleTemplateObject): string | undefined {
  const t = targetOf(item);
  const { group } = splitApiVersion(t.apiVersion);
  const allowed: AllowedKind[] = template.spec?.syncResourceKinds ?? [];
  const entry = allowed.find((a) => a.group === group && a.kind === t.kind);
  const module = template.spec?.moduleName ?? '';
  if (!entry) {
    const listed = allowed.map((a) => `${kindText(a.group, a.kind)} (${a.scope})`).join(', ') || 'none';
    return `item "${item.name}": kind ${kindText(group, t.kind)} may not be synced by module ${module} (ModuleTemplate ${template.metadata.name ?? ''} allows: ${listed})`;
  }
  if (entry.scope === 'Namespaced' && !t.namespace) return `item "${item.name}": ${kindText(group, t.kind)} is namespaced for module ${module}: resource.metadata.namespace is required`;
  if (entry.scope === 'Cluster' && t.namespace) return `item "${item.name}": ${kindText(group, t.kind)} is cluster-scoped for module ${module}: resource.metadata.namespace must be empty`;
  return undefined;
}

/** Metadata a SyncResource cannot set on an object in a runtime. */
const SERVER_OWNED_METADATA = ['resourceVersion', 'uid', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink'];

/** The object as applied: the item's resource without status and server-owned metadata, labelled with the module. */
export function desiredObjectOf(item: SyncedItem, module: string): KubeObject {
  const obj = structuredClone(item.resource) as Record<string, unknown>;
  delete obj.status;
  const meta = { ...metaOf(item) };
  for (const k of SERVER_OWNED_METADATA) delete meta[k];
  const labels = isPlainObject(meta.labels) ? (meta.labels as Record<string, string>) : {};
  meta.labels = { ...labels, [SYNCED_BY_LABEL]: module };
  obj.metadata = meta;
  return obj as unknown as KubeObject;
}

/** Hash of what an item asks for, independent of key order. */
export function hashOf(item: SyncedItem): string {
  return createHash('sha256')
    .update(canonicalJson({ strategy: item.strategy, resource: item.resource, feedback: item.feedback ?? [] }))
    .digest('hex')
    .slice(0, 16);
}

/** The values of an item's feedback rules in the runtime's object; a rule that matches nothing has no value. */
export function feedbackOf(item: SyncedItem, obj: KubeObject | undefined): Feedback | undefined {
  const rules = item.feedback ?? [];
  if (rules.length === 0) return undefined;
  return rules.map((r) => {
    let found: unknown[];
    try {
      found = obj ? evaluateJsonPath(r.jsonPath, obj) : [];
    } catch (e) {
      if (!(e instanceof JsonPathError)) throw e;
      return { name: r.name, value: `invalid JSONPath ${r.jsonPath}: ${e.message}` };
    }
    if (found.length === 0) return { name: r.name };
    return { name: r.name, value: found.length === 1 ? found[0] : found };
  });
}
