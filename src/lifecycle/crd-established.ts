// Waiting for applied CRDs to be Established before custom resources of them are written: a real
// kube-apiserver serves a new CRD's resources only once its establishing controller set the
// condition, a moment after the CRD was created.
import { isNotFound } from '../runtime/client/errors.js';
import type { Client } from '../runtime/client/interface.js';
import type { KindRef, KubeObject } from '../kube/object.js';
import { pause } from '../util/sleep.js';

export const CRD_KIND: KindRef = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

export class CrdNotEstablishedError extends Error {
  constructor(readonly names: string[]) {
    super(`CustomResourceDefinitions not yet established: ${names.join(', ')}`);
    this.name = 'CrdNotEstablishedError';
  }
}

type Condition = { type?: string; status?: string; message?: string };

function conditionsOf(crd: KubeObject): Condition[] {
  return (crd.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
}

export function isEstablished(crd: KubeObject): boolean {
  return conditionsOf(crd).some((c) => c.type === 'Established' && c.status === 'True');
}

/** Why the API server refused the CRD's names (they clash with another CRD's), if it did: such a CRD is never Established. */
function namesRefused(crd: KubeObject): string | undefined {
  const c = conditionsOf(crd).find((x) => x.type === 'NamesAccepted' && x.status === 'False');
  return c ? `${crd.metadata.name ?? ''}: names not accepted: ${c.message ?? ''}` : undefined;
}

/**
 * Waits until every CRD in `answered` (its name to the object the apply answered) is Established:
 * those the answer shows Established cost nothing, the others are read again with a growing pause
 * (50 ms up to 1 s) until `timeoutMs`, then CrdNotEstablishedError. A CRD whose names the server
 * refused ends the wait at once (with an Error saying why): it would never be Established.
 */
export async function waitEstablished(client: Client, answered: ReadonlyMap<string, KubeObject>, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const refused = (crd: KubeObject) => {
    const why = namesRefused(crd);
    if (why) throw new Error(why);
  };
  for (const crd of answered.values()) refused(crd);
  let pending = [...answered].filter(([, crd]) => !isEstablished(crd)).map(([name]) => name);
  const deadline = Date.now() + timeoutMs;
  let delay = 50;
  while (pending.length > 0) {
    if (Date.now() > deadline || signal.aborted) throw new CrdNotEstablishedError(pending);
    await pause(delay, signal);
    delay = Math.min(delay * 2, 1000);
    const still: string[] = [];
    for (const name of pending) {
      let crd: KubeObject;
      try {
        crd = await client.get(CRD_KIND, { name }, { signal });
      } catch (e) {
        if (!isNotFound(e)) throw e;
        still.push(name);
        continue;
      }
      refused(crd);
      if (!isEstablished(crd)) still.push(name);
    }
    pending = still;
  }
}
