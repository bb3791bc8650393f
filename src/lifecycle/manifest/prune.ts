// Removal of objects from the target cluster, phase by phase: the objects the module's operator
// manages (custom resources, configuration) first; the operator, its RBAC and its CRDs only once
// those are gone, so the operator can still process finalizers.
import { isNotFound } from '../../runtime/client/errors.js';
import { isNoKindMatch } from '../../runtime/client/discovery.js';
import type { Client } from '../../runtime/client/interface.js';
import { PROTECTED_NAMESPACE } from './constants.js';
import { apiVersionOf, deletionPhases, type ResourceRef } from './inventory.js';
import { mapLimit } from '../../util/map-limit.js';

const gone = (e: unknown): boolean => isNotFound(e) || isNoKindMatch(e);

function isProtected(r: ResourceRef): boolean {
  return r.group === '' && r.kind === 'Namespace' && r.name === PROTECTED_NAMESPACE;
}

/** Deletes one object; true when it no longer exists. */
async function deleteAndCheck(client: Client, r: ResourceRef, signal: AbortSignal): Promise<boolean> {
  const kind = { apiVersion: apiVersionOf(r), kind: r.kind };
  const key = { namespace: r.namespace || undefined, name: r.name };
  try {
    await client.delete(kind, key, { propagationPolicy: 'Background', signal });
  } catch (e) {
    if (gone(e)) return true;
    throw e;
  }
  try {
    await client.get(kind, key, { signal });
    return false;
  } catch (e) {
    if (gone(e)) return true;
    throw e;
  }
}

/**
 * Deletes `refs`; resolves to those still present (deletion in progress, or a later phase not
 * started). An empty answer means everything is gone.
 */
export async function deleteResources(client: Client, refs: readonly ResourceRef[], concurrency: number, signal: AbortSignal): Promise<ResourceRef[]> {
  const phases = deletionPhases(refs.filter((r) => !isProtected(r)));
  for (let i = 0; i < phases.length; i++) {
    const phase = phases[i];
    const done = await mapLimit(phase, concurrency, (r) => deleteAndCheck(client, r, signal));
    const remaining = phase.filter((_, j) => !done[j]);
    if (remaining.length > 0) return [...remaining, ...phases.slice(i + 1).flat()];
  }
  return [];
}
