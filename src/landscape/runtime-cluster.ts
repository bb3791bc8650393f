// A runtime cluster without Gardener: a logical cluster of the embedded API server plus the
// kubeconfig Secret the infrastructure manager would write into the KCP. For lifecycle-manager
// tests and benchmarks that need runtimes but not their provisioning.
import { LabelKymaManagedBy, LabelKymaRuntimeID, ManagedByInfrastructureManager } from '../api/infrastructuremanager/index.js';
import { Labels, Namespaces } from '../api/operator/index.js';
import type { RunningApiServer } from '../apiserver/server.js';
import type { Client } from '../runtime/client/interface.js';

export interface AttachedRuntime {
  kymaName: string;
  runtimeId: string;
  /** The logical cluster: `skr-<runtime id>`. */
  cluster: string;
  /** The kubeconfig Secret in the KCP: `kubeconfig-<runtime id>`. */
  secretName: string;
}

/** Creates logical cluster `skr-<runtimeId>` and Secret `<namespace>/kubeconfig-<runtimeId>` (key `config`, labelled with the Kyma name). */
export async function attachRuntimeCluster(server: RunningApiServer, kcp: Client, runtimeId: string, namespace: string = Namespaces.ControlPlane): Promise<AttachedRuntime> {
  const cluster = `skr-${runtimeId}`;
  const access = await server.createCluster(cluster);
  const secretName = await createKubeconfigSecret(kcp, runtimeId, access.kubeconfig, namespace);
  return { kymaName: runtimeId, runtimeId, cluster, secretName };
}

/**
 * The kubeconfig Secret the infrastructure manager writes for a runtime (`<namespace>/kubeconfig-<runtimeId>`,
 * key `config`), for a cluster made elsewhere (e.g. with `PUT /_kcp/clusters/<name>` of a landscape
 * in another process). Returns its name.
 */
export async function createKubeconfigSecret(kcp: Client, runtimeId: string, kubeconfig: string, namespace: string = Namespaces.ControlPlane): Promise<string> {
  const secretName = `kubeconfig-${runtimeId}`;
  await kcp.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: secretName,
      namespace,
      labels: { [Labels.KymaName]: runtimeId, [LabelKymaRuntimeID]: runtimeId, [LabelKymaManagedBy]: ManagedByInfrastructureManager },
    },
    type: 'Opaque',
    data: { config: Buffer.from(kubeconfig).toString('base64') },
  });
  return secretName;
}
