// The control plane says who runs it: a Lease `kcp-control-plane` in its namespace names the replica
// that started last, when, and its version (as kube-apiserver's identity Leases do), so that
// `kcp version` can tell a person which control plane answers. One write per start, best effort.
import { Annotations } from '../api/operator/index.js';
import type { Client } from '../runtime/client/index.js';
import { LEASE_KIND, type Lease, microTime } from '../runtime/leader/lease.js';
import type { Logger } from '../runtime/log.js';
import { projectVersion } from '../util/version.js';

export const CONTROL_PLANE_LEASE = 'kcp-control-plane';

export async function announceControlPlane(kcp: Client, namespace: string, identity: string, log: Logger, signal?: AbortSignal): Promise<void> {
  const lease: Lease = {
    apiVersion: LEASE_KIND.apiVersion,
    kind: LEASE_KIND.kind,
    metadata: { name: CONTROL_PLANE_LEASE, namespace, annotations: { [Annotations.ControlPlaneVersion]: projectVersion() } },
    spec: { holderIdentity: identity, acquireTime: microTime(Date.now()) },
  };
  try {
    await kcp.apply(lease, { fieldManager: 'kcp-control-plane', force: true, signal });
  } catch (e) {
    log.warn('cannot record the control plane version', { lease: `${namespace}/${CONTROL_PLANE_LEASE}`, error: e });
  }
}
