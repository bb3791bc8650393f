// Starts an embedded API server with the CRDs of the given kinds installed and established.
import { crdOf, type Kind } from '../../src/api/crd.js';
import type { Schema } from '../../src/api/schema.js';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { KubeClient } from '../conformance/http.js';

export type AnyKind = Kind<Schema<unknown>, Schema<unknown> | undefined>;

export interface ApiTestEnv {
  server: RunningApiServer;
  client: KubeClient;
  /** POSTs an object to its collection; returns status and parsed body. */
  create(obj: { apiVersion: string; kind: string; metadata: { name?: string; namespace?: string } }): Promise<{ status: number; body: Record<string, unknown> }>;
  stop(): Promise<void>;
}

export function collectionPath(kinds: AnyKind[], obj: { apiVersion: string; kind: string; metadata: { namespace?: string } }): string {
  const k = kinds.find((x) => x.apiVersion === obj.apiVersion && x.kind === obj.kind);
  if (!k) throw new Error(`no kind ${obj.apiVersion} ${obj.kind} among the installed ones`);
  const ns = k.scope === 'Namespaced' ? `/namespaces/${obj.metadata.namespace ?? 'default'}` : '';
  return `/apis/${k.group}/${k.version}${ns}/${k.plural}`;
}

export async function startWithKinds(kinds: AnyKind[], namespaces: string[] = ['kcp-system', 'kyma-system', 'garden-test']): Promise<ApiTestEnv> {
  const server = await startApiServer({ port: 0 });
  const client = new KubeClient({ url: server.url, token: server.adminToken, caPem: server.caPem });
  for (const k of kinds) {
    const r = await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(crdOf(k)) });
    if (r.status !== 201) throw new Error(`installing the CRD of ${k.kind} failed: ${r.status} ${r.text}`);
  }
  for (const ns of namespaces) {
    await client.request('POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }) });
  }
  return {
    server,
    client,
    async create(obj) {
      const r = await client.request('POST', collectionPath(kinds, obj), { body: JSON.stringify(obj) });
      return { status: r.status, body: JSON.parse(r.text) as Record<string, unknown> };
    },
    async stop() {
      client.close();
      await server.stop();
    },
  };
}
