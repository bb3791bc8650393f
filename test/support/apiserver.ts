// An embedded API server for a test file, with a client holding its admin token.
import { type ApiServerOptions, type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { KubeClient } from '../conformance/http.js';

export interface ServerWithAdmin {
  server: RunningApiServer;
  admin: KubeClient;
  /** Closes the client, then stops the server. */
  stop(): Promise<void>;
}

export async function startServerWithAdmin(opts: ApiServerOptions = {}): Promise<ServerWithAdmin> {
  const server = await startApiServer({ port: 0, ...opts });
  const admin = new KubeClient({ url: server.url, token: server.adminToken, caPem: server.caPem });
  return {
    server,
    admin,
    stop: async () => {
      admin.close();
      await server.stop();
    },
  };
}
