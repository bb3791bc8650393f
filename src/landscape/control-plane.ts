// The KCP part of a landscape: every control-plane CRD (applied, so a newer schema replaces an older
// one) and the control-plane namespace, served before anything starts to use them.
import { crdOf } from '../api/crd.js';
import { controlPlaneKinds } from '../api/index.js';
import { Namespaces } from '../api/operator/index.js';
import type { AnyKind } from '../api/render.js';
import type { RunningApiServer } from '../apiserver/server.js';
import type { KubeObject } from '../kube/object.js';
import type { Client } from '../runtime/client/index.js';
import { sleep } from '../util/sleep.js';

/** Field manager of what a landscape writes into the KCP (CRDs, namespaces, the demo catalog). */
export const EMBEDDED_FIELD_MANAGER = 'kcp-up';

/** Applies the CRDs and namespaces (kcp-system plus `extraNamespaces`) and waits until every CRD is served. */
export async function installControlPlane(server: RunningApiServer, kcp: Client, extraNamespaces: readonly string[] = []): Promise<void> {
  const apply = { fieldManager: EMBEDDED_FIELD_MANAGER, force: true };
  for (const k of controlPlaneKinds) await kcp.apply(crdOf(k) as unknown as KubeObject, apply);
  for (const name of [Namespaces.ControlPlane, ...extraNamespaces]) await kcp.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, apply);
  const cluster = server.cluster('default');
  const deadline = Date.now() + 10_000;
  for (const k of controlPlaneKinds as AnyKind[]) {
    while (!cluster.resolve(k.group, k.version, k.plural)) {
      if (Date.now() > deadline) throw new Error(`the CRD of ${k.kind} was not served within 10 s`);
      await sleep(10);
    }
  }
}
