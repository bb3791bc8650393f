// Writes to the Runtime itself (not its status): finalizers and the force-patch annotation. Each
// write carries the resourceVersion read (optimistic concurrency) and refreshes the steps' copy.
import { Runtime } from '../../api/infrastructuremanager/index.js';
import type { RuntimeObject } from '../../api/infrastructuremanager/index.js';
import { objectKey } from '../../kube/keys.js';
import type { Machine, SystemState } from './machine.js';

/** Replaces the Runtime's finalizers. */
export async function patchFinalizers(m: Machine, s: SystemState, finalizers: string[]): Promise<void> {
  const rt = s.runtime;
  const updated = await m.kcp.patch<RuntimeObject>(Runtime, objectKey(rt), 'merge', { metadata: { finalizers, resourceVersion: rt.metadata.resourceVersion } }, { signal: m.signal });
  rt.metadata = updated.metadata;
}

/** Removes one annotation from the Runtime. */
export async function removeAnnotation(m: Machine, s: SystemState, annotation: string): Promise<void> {
  const rt = s.runtime;
  if (rt.metadata.annotations?.[annotation] === undefined) return;
  const updated = await m.kcp.patch<RuntimeObject>(Runtime, objectKey(rt), 'merge', { metadata: { annotations: { [annotation]: null }, resourceVersion: rt.metadata.resourceVersion } }, { signal: m.signal });
  rt.metadata = updated.metadata;
}
