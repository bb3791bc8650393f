// Starts the project's embedded API server for the harness. Imported by path at run time so the
// harness builds even while src/apiserver/server.ts is still being written.
import type { Target } from './http.js';

interface RunningApiServer {
  url: string;
  caPem: string;
  adminToken: string;
  stop(): Promise<void>;
}

interface ApiServerModule {
  startApiServer(opts?: { port?: number; host?: string; dataDir?: string; disabledControllers?: string[] }): Promise<RunningApiServer>;
}

export interface EmbeddedTarget {
  target: Target;
  stop(): Promise<void>;
}

const SERVER_MODULE = '../../src/apiserver/server.js';

export class EmbeddedServerMissing extends Error {}

export async function startEmbeddedServer(): Promise<EmbeddedTarget> {
  let mod: Partial<ApiServerModule>;
  try {
    mod = (await import(SERVER_MODULE)) as Partial<ApiServerModule>;
  } catch (err) {
    const code = (err as { code?: string }).code;
    // Only the server module itself missing means "not written yet"; a missing dependency is a real error.
    if (code === 'ERR_MODULE_NOT_FOUND' && /Cannot find module '[^']*\/apiserver\/server\.js'/.test(String((err as Error).message))) {
      throw new EmbeddedServerMissing('src/apiserver/server.ts is not built yet');
    }
    throw err;
  }
  if (typeof mod.startApiServer !== 'function') throw new EmbeddedServerMissing('server.js does not export startApiServer');
  // The corpus was recorded with kube-controller-manager running only its garbage-collector and
  // namespace controllers: namespaces there get no default ServiceAccount nor kube-root-ca.crt.
  const server = await mod.startApiServer({ host: '127.0.0.1', port: 0, disabledControllers: ['serviceaccount', 'root-ca-cert-publisher'] });
  return { target: { url: server.url, token: server.adminToken, caPem: server.caPem }, stop: () => server.stop() };
}
