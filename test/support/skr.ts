// A runtime cluster for lifecycle-manager tests without Gardener: a logical cluster of the embedded
// API server plus the kubeconfig Secret the infrastructure manager would write into the KCP.
import type { RunningApiServer } from '../../src/apiserver/server.js';
import type { Client } from '../../src/runtime/client/interface.js';

export interface TestRuntime {
  kymaName: string;
  runtimeId: string;
  cluster: string;
  secretName: string;
}

/** Creates logical cluster `skr-<runtimeId>` and Secret `kcp-system/kubeconfig-<runtimeId>` (key `config`, label `operator.kyma-project.io/kyma-name`). */
export async function createTestRuntime(server: RunningApiServer, kcp: Client, runtimeId: string, namespace = 'kcp-system'): Promise<TestRuntime> {
  const cluster = `skr-${runtimeId}`;
  const access = await server.createCluster(cluster);
  const secretName = `kubeconfig-${runtimeId}`;
  await kcp.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: secretName,
      namespace,
      labels: { 'operator.kyma-project.io/kyma-name': runtimeId, 'kyma-project.io/runtime-id': runtimeId, 'operator.kyma-project.io/managed-by': 'infrastructure-manager' },
    },
    type: 'Opaque',
    data: { config: Buffer.from(access.kubeconfig).toString('base64') },
  });
  return { kymaName: runtimeId, runtimeId, cluster, secretName };
}
