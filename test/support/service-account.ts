// Credentials of a ServiceAccount in a logical cluster of the embedded API server, as a pod would
// get them: a token from the TokenRequest API, in a kubeconfig for that cluster.
import type { RunningApiServer } from '../../src/apiserver/server.js';
import { rawRequest } from './https-raw.js';

/** A kubeconfig for `namespace/name` in logical cluster `cluster`, with a fresh token (1 hour). */
export async function serviceAccountKubeconfig(server: RunningApiServer, cluster: string, namespace: string, name: string): Promise<string> {
  const access = server.clusterAccess(cluster);
  const target = { url: access.url, token: access.token, caPem: server.caPem };
  const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
  const r = await rawRequest(target, 'POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, { body });
  if (r.status !== 201) throw new Error(`TokenRequest for ${namespace}/${name} in ${cluster}: ${r.status} ${r.body.toString()}`);
  const token = (JSON.parse(r.body.toString()) as { status: { token: string } }).status.token;
  return server.kubeconfigWithToken(cluster, token);
}

/** How many requests the server answered with 403 so far (its apiserver_request_total, every cluster). */
export async function forbiddenAnswers(server: RunningApiServer): Promise<number> {
  const r = await rawRequest({ url: server.url, token: server.adminToken, caPem: server.caPem }, 'GET', '/metrics');
  let n = 0;
  for (const line of r.body.toString().split('\n')) {
    if (line.startsWith('apiserver_request_total{') && line.includes('code="403"')) n += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return n;
}
