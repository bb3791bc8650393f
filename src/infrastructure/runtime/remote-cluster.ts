// The cluster of a Runtime is reached through the control plane's shared cache of runtime clients,
// keyed by kubeconfig Secret: `kubeconfig-<runtime id>` in the Runtime's namespace, the Secret the
// GardenerCluster controller keeps (and rotates).
import { kubeconfigSecretName } from '../../api/infrastructuremanager/index.js';
import { secretClusterKey } from '../../runtime/remote/cache.js';

/** Cache key of a runtime's cluster: its kubeconfig Secret `<namespace>/kubeconfig-<runtime id>`. */
export function remoteClusterKey(namespace: string, runtimeID: string): string {
  return secretClusterKey({ namespace, name: kubeconfigSecretName(runtimeID) });
}
