// Starting and stopping Node servers the same way everywhere. A leaf, like sleep.ts.
import type { AddressInfo, Server } from 'node:net';

/** Listens on host:port (0: a free port); rejects with the listen error (EADDRINUSE, ...). */
export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Closes an HTTP(S) server and drops its open connections, kept-alive ones included. */
export function closeServer(server: Server & { closeAllConnections(): void }): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
