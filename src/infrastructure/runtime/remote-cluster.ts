// Clients of provisioned clusters, from the kubeconfig Secrets the GardenerCluster controller keeps
// in the KCP (`kubeconfig-<runtime id>` in the Runtime's namespace). One cache for all Runtimes;
// a rotated Secret replaces the client as soon as it is seen.
import { DefaultKubeconfigSecretKey, kubeconfigSecretName } from '../../api/infrastructuremanager/index.js';
import type { Client } from '../../runtime/client/interface.js';
import type { Logger } from '../../runtime/log.js';
import { RemoteClusterCache } from '../../runtime/remote/cache.js';

/** Cache key of a runtime's cluster: `<namespace>/<runtime id>`. */
export function remoteClusterKey(namespace: string, runtimeID: string): string {
  return `${namespace}/${runtimeID}`;
}

export function runtimeClusterCache(kcp: Client, log?: Logger): RemoteClusterCache {
  return new RemoteClusterCache({
    client: kcp,
    log,
    kubeconfigFor: (cluster) => {
      const slash = cluster.indexOf('/');
      const namespace = cluster.slice(0, slash);
      const runtimeID = cluster.slice(slash + 1);
      return { namespace, name: kubeconfigSecretName(runtimeID), key: DefaultKubeconfigSecretKey };
    },
  });
}
