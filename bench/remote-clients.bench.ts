// node --expose-gc dist/bench/remote-clients.bench.js [clusters] — the remote cluster client cache at
// scale: N logical clusters (default 10,000) in one embedded API server, a kubeconfig Secret per
// cluster in the control-plane cluster, a client per cluster from RemoteClusterCache, one request
// each; then the client-side open sockets and the memory per cached client.
// Run with --expose-gc so the memory figures are measured after a collection.
import { startApiServer } from '../src/apiserver/server.js';
import { clientFromKubeconfig } from '../src/runtime/client/index.js';
import { RemoteClusterCache } from '../src/runtime/remote/cache.js';

const CLUSTERS = Number(process.argv[2] ?? process.env.CLUSTERS ?? 10_000);
const CONCURRENCY = 64;
const SOCKET_BUDGET = 256;
const NAMESPACE = 'kcp-system';

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

async function main(): Promise<void> {
  if (!(globalThis as { gc?: unknown }).gc) console.warn('run with --expose-gc for stable memory figures');
  const server = await startApiServer({ port: 0 });
  const kcp = clientFromKubeconfig(server.clusterAccess('default').kubeconfig, { qps: 0 });
  await kcp.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });

  const names = Array.from({ length: CLUSTERS }, (_, i) => `runtime-${i}`);
  let t0 = performance.now();
  await forEachLimited(names, 16, async (name) => {
    const access = await server.createCluster(name);
    await kcp.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `kubeconfig-${name}`, namespace: NAMESPACE }, type: 'Opaque', data: { config: Buffer.from(access.kubeconfig).toString('base64') } });
  });
  console.log(`setup: ${CLUSTERS} logical clusters and kubeconfig Secrets in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  collect();
  const before = process.memoryUsage();
  const cache = new RemoteClusterCache({
    client: kcp,
    kubeconfigFor: (cluster) => ({ namespace: NAMESPACE, name: `kubeconfig-${cluster}` }),
    socketBudget: SOCKET_BUDGET,
    maxSocketsPerClient: 2,
    idleSocketTimeoutMs: 60_000, // longer than the run: the budget alone bounds the sockets here
  });

  let peakSockets = 0;
  let done = 0;
  t0 = performance.now();
  await forEachLimited(names, CONCURRENCY, async (name) => {
    await cache.client(name).get({ apiVersion: 'v1', kind: 'Namespace' }, { name: 'default' });
    if (++done % 500 === 0) peakSockets = Math.max(peakSockets, cache.openSockets().total);
  });
  const seconds = (performance.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 200)); // let the last answers' sockets turn idle and the budget apply
  const sockets = cache.openSockets();
  const stats = cache.stats();

  collect();
  const after = process.memoryUsage();
  const perClientHeap = (after.heapUsed - before.heapUsed) / stats.clients;
  const perClientTotal = (after.heapUsed + after.external - before.heapUsed - before.external) / stats.clients;

  console.log(`requests: ${CLUSTERS} clusters, one GET each (plus discovery and the Secret read per new client), ${CONCURRENCY} at once, in ${seconds.toFixed(1)} s (${Math.round(CLUSTERS / seconds)} clusters/s)`);
  console.log(`cached clients: ${stats.clients}, builds: ${stats.builds}`);
  console.log(`open sockets (client side): ${sockets.total} (active ${sockets.active}, idle ${sockets.idle}, watches ${sockets.watches}); budget ${SOCKET_BUDGET}; sampled peak ${peakSockets}`);
  console.log(`sockets closed by the budget: ${stats.socketsClosedByBudget}, by the idle timeout: ${stats.socketsClosedByIdleTimeout}`);
  console.log(`memory per cached client: ${(perClientHeap / 1024).toFixed(1)} KiB heap, ${(perClientTotal / 1024).toFixed(1)} KiB heap + external`);
  console.log(`process: heap ${mib(after.heapUsed)}, rss ${mib(after.rss)}`);
  console.log(
    JSON.stringify({
      clusters: CLUSTERS,
      seconds: Number(seconds.toFixed(2)),
      openSockets: sockets.total,
      socketBudget: SOCKET_BUDGET,
      peakSockets,
      bytesPerClientHeap: Math.round(perClientHeap),
      bytesPerClientHeapAndExternal: Math.round(perClientTotal),
    }),
  );

  cache.close();
  kcp.close();
  await server.stop();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
